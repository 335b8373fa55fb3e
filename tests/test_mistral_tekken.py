"""Mistral's Tekken (``tekken_240911``): our encoder on its ranks against tiktoken built from
the same file with mistral-common's recipe (``tests/tekken_oracle.py``).

"Hello world" → ``[1, 22177, 4304]`` with the BOS is mistral-common's own ``Tekkenizer``'s
answer (``encode("Hello world", bos=True, eos=False)``), checked by hand once; the control
tokens' ids are the published ones; every other expected value comes from tiktoken at test
time.
"""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tekken_oracle import PUBLISHED_SPECIAL_IDS, recipe_ids, tekken_document, with_specials

from bpeviz.app.shared.choices import tokenizer_choices
from bpeviz.engine.samples import list_samples
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats.tekken import from_tekken
from bpeviz.real import mistral_tekken
from bpeviz.real import registry as bundled
from bpeviz.real.mistral_tekken import (
    MISSING_NOTE,
    TEKKEN,
    WHEEL_SHA256,
    TekkenUnavailable,
    load_tekken,
    prompt_text,
    read_tekken_json,
    wheel_path,
)

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def tekken(unavailable: Callable[[str], None]) -> Tokenizer:
    if not wheel_path().is_file():
        unavailable(f"the mistral-common wheel is not downloaded ({MISSING_NOTE})")
    return load_tekken()


def test_hello_world_has_mistrals_ids_with_the_bos(tekken: Tokenizer) -> None:
    assert tekken.encode(prompt_text("Hello world")) == [1, 22177, 4304]
    assert tekken.encode("Hello world") == recipe_ids("Hello world") == [22177, 4304]


def test_vocabulary_is_cut_as_the_config_says(tekken: Tokenizer) -> None:
    config = tekken_document()["config"]
    assert (config["default_vocab_size"], config["default_num_special_tokens"]) == (131072, 1000)
    assert len(tekken.vocab) == 130_072 and tekken.vocab_size == 131_072
    assert min(tekken.vocab) == 1000 and max(tekken.vocab) == 131_071
    assert tekken.split_pattern == config["pattern"]
    for entry in tekken_document()["vocab"][:130_072:997]:
        assert tekken.token_bytes(entry["rank"] + 1000) == base64.b64decode(entry["token_bytes"])


def test_control_tokens_have_the_published_ids(tekken: Tokenizer) -> None:
    for text, token_id in PUBLISHED_SPECIAL_IDS.items():
        assert tekken.special_tokens[text] == token_id
    assert len(tekken.special_tokens) == 1000
    assert tekken.special_tokens["<SPECIAL_999>"] == 999


@pytest.mark.parametrize("sample", list_samples(), ids=lambda sample: sample.key)
def test_bundled_samples_match_the_recipe(sample, tekken: Tokenizer) -> None:
    ours = tekken.encode(sample.text, allow_special=False)
    assert ours == recipe_ids(sample.text)
    assert tekken.decode(ours) == sample.text


EDGE_TEXTS = [
    "", " ", "\n", "   ", "a  ", "x\r\n", "👩\u200d👩\u200d👧\u200d👦", "0" * 50, "1234567",
    "don'T", "CamelCaseHTTPServer", "a/\n/b", "<s>", "[INST] hi [/INST]", "</s></s>",
]  # fmt: skip


@pytest.mark.parametrize("text", EDGE_TEXTS, ids=repr)
def test_edge_texts_match_the_recipe(text: str, tekken: Tokenizer) -> None:
    assert tekken.encode(text, allow_special=False) == recipe_ids(text)


# As in test_openai_ranks: code points unassigned in Python's Unicode tables are left out
# (the regex package and tiktoken's Rust regex classify them by different Unicode versions).
ASSIGNED = st.characters(exclude_categories=("Cn", "Cs"))
TRICKY = st.sampled_from(
    [
        *"'sdmtlvreSDMTLVRE 0123456789aZéß漢字한!?.,-_/\t\r\n\u00a0\u3000\u200d\u0301👩👦<|>Ǆǅ[]",
        *["<s>", "</s>", "[INST]", "[/INST]", "[IMG]", "<SPECIAL_42>", "  ", "\r\n", "'ll"],
        *["👩\u200d👦", "Camel", "HTTP", "<unk>"],
    ]
)


@settings(max_examples=150, deadline=None)
@given(text=st.text(ASSIGNED, max_size=80))
def test_arbitrary_text_matches_the_recipe(tekken: Tokenizer, text: str) -> None:
    ours = tekken.encode(text, allow_special=False)
    assert ours == recipe_ids(text)
    assert tekken.decode(ours) == text


@settings(max_examples=150, deadline=None)
@given(text=st.lists(TRICKY, max_size=40).map("".join))
def test_tricky_text_with_special_tokens_matches_tiktoken(tekken: Tokenizer, text: str) -> None:
    """Special-token spellings in the text are read as those tokens (as bpeviz reads
    ``<|endoftext|>``), exactly as tiktoken reads them given the same special tokens; with
    ``allow_special=False`` they are text, as Mistral's own ``encode`` reads them."""
    oracle = with_specials(tuple(tekken.special_tokens.items()))
    assert tekken.encode(text) == oracle.encode(text, allowed_special="all")
    assert tekken.encode(text, allow_special=False) == recipe_ids(text)


def test_load_is_cached(tekken: Tokenizer) -> None:
    assert load_tekken() is tekken


def test_the_wheel_hash_is_the_one_set_up_pins() -> None:
    pinned = (REPO / "requirements-tekken.txt").read_text(encoding="utf-8")
    assert f"mistral-common==1.13.1 --hash=sha256:{WHEEL_SHA256}" in pinned
    assert mistral_tekken.WHEEL == "mistral_common-1.13.1-py3-none-any.whl"


def test_the_wheel_is_apache_licensed(tekken: Tokenizer) -> None:
    """What docs/tokenizers.md says about the file's licence: the wheel's own metadata."""
    with zipfile.ZipFile(wheel_path()) as archive:
        metadata = archive.read("mistral_common-1.13.1.dist-info/METADATA").decode()
        licence = archive.read("mistral_common-1.13.1.dist-info/licenses/LICENSE").decode()
    assert "License-Expression: Apache-2.0" in metadata.splitlines()
    assert "Apache License" in licence and "Version 2.0" in licence


def test_loading_imports_neither_mistral_common_nor_tiktoken(tekken: Tokenizer) -> None:
    code = (
        "import sys\n"
        "from bpeviz.real.registry import load_bundled\n"
        "assert load_bundled('tekken_240911').encode('<s>Hello world') == [1, 22177, 4304]\n"
        "print(sorted(m for m in sys.modules if m.startswith(('tiktoken', 'mistral'))))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() in ("[]", "['tiktoken_ext']")


# ---- a missing or damaged wheel -----------------------------------------------------------


@pytest.fixture
def no_wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The wheel's place is an empty folder (and nothing loaded before is remembered)."""
    missing = tmp_path / mistral_tekken.WHEEL
    monkeypatch.setattr(mistral_tekken, "wheel_path", lambda: missing)
    load_tekken.cache_clear()
    yield missing
    load_tekken.cache_clear()


def test_without_the_wheel_tekken_is_simply_not_offered(no_wheel: Path) -> None:
    assert TEKKEN not in bundled.bundled_names()
    assert bundled.bundled_names() == ("cl100k_base", "o200k_base", "r50k_base", "p50k_base")
    assert TEKKEN not in tokenizer_choices(trained_size=512)
    assert bundled.missing_note() == MISSING_NOTE and "make tekken" in MISSING_NOTE
    with pytest.raises(TekkenUnavailable, match="make tekken"):
        bundled.load_bundled(TEKKEN)


def test_a_damaged_wheel_is_refused(
    tekken: Tokenizer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One bit changed in the wheel's last byte: the SHA-256 check refuses it."""
    source = wheel_path().read_bytes()
    damaged = tmp_path / mistral_tekken.WHEEL
    damaged.write_bytes(source[:-1] + bytes([source[-1] ^ 1]))
    monkeypatch.setattr(mistral_tekken, "wheel_path", lambda: damaged)
    with pytest.raises(TekkenUnavailable, match=r"damaged.*make tekken"):
        read_tekken_json()


def test_a_wheel_without_the_file_is_refused(
    no_wheel: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with zipfile.ZipFile(no_wheel, "w") as archive:
        archive.writestr("other.txt", "x")
    monkeypatch.setattr(
        mistral_tekken, "WHEEL_SHA256", hashlib.sha256(no_wheel.read_bytes()).hexdigest()
    )
    with pytest.raises(TekkenUnavailable, match=r"cannot read mistral_common/data"):
        read_tekken_json()


# ---- the format reader on small hand-made files -------------------------------------------


def small_file(vocab_size: int = 259, specials: int = 2, **extra: object) -> str:
    """A Tekken-shaped file: 256 byte ranks and "ab" as rank 256."""
    vocab = [
        {"rank": rank, "token_bytes": base64.b64encode(bytes([rank])).decode(), "token_str": ""}
        for rank in range(256)
    ] + [{"rank": 256, "token_bytes": base64.b64encode(b"ab").decode(), "token_str": "ab"}]
    config = {
        "pattern": r"\w+|\s+|.",
        "default_vocab_size": vocab_size,
        "default_num_special_tokens": specials,
    }
    return json.dumps({"config": config, "vocab": vocab, **extra})


def test_a_hand_made_file_numbers_ranks_after_the_specials() -> None:
    """Two specials (<unk>, <s> by mistral-common's default names), 257 ranks: "ab" is rank
    256, so id 258; byte "c" (rank 99) is id 101."""
    tokenizer = from_tekken(small_file(vocab_size=259))
    assert tokenizer.special_tokens == {"<unk>": 0, "<s>": 1}
    assert tokenizer.encode("<s>abc") == [1, 258, 101]


def test_a_listed_special_token_table_is_used_and_filled() -> None:
    listed = [{"rank": 0, "token_str": "<unk>", "is_control": True}]
    tokenizer = from_tekken(small_file(vocab_size=260, specials=3, special_tokens=listed))
    assert tokenizer.special_tokens == {"<unk>": 0, "<SPECIAL_1>": 1, "<SPECIAL_2>": 2}


@pytest.mark.parametrize(
    ("document", "message"),
    [
        pytest.param("[]", "not a JSON object", id="not-object"),
        pytest.param('{"vocab": []}', "no 'config'", id="no-config"),
        pytest.param(small_file(vocab_size=300), "257", id="more-ranks-than-vocab"),
        pytest.param(small_file(vocab_size=100), "from 256", id="fewer-than-256"),
        pytest.param(
            small_file().replace('"rank": 5,', '"rank": 6,'), "does not have rank 5", id="rank"
        ),
        pytest.param(small_file().replace('"YWI="', '"!!"'), "not valid base64", id="base64"),
        pytest.param(small_file().replace('"YWI="', '"AA=="'), "repeats the bytes", id="repeat"),
        pytest.param(small_file(special_tokens=[{"rank": 1}]), "listed by rank", id="specials"),
        pytest.param(
            small_file().replace(r"\\w+|\\s+|.", "(?:a|a)*b|."), "backtracks", id="pattern"
        ),
    ],
)
def test_a_bad_file_gets_a_message(document: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        from_tekken(document)
