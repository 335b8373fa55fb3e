"""Structure-aware fuzzing of the four model readers (issue 17): valid JSON of the wrong
shape, huge or negative numbers, deep nesting, and lines that almost follow a format. A reader
either returns a tokenizer or raises ``ValueError`` with a message, never anything else (a
``TypeError`` or ``RecursionError`` would reach the user as a traceback).
"""

from __future__ import annotations

import base64
import contextlib
import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hf_helpers import split_json
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats import load_model_file
from bpeviz.formats.gpt2 import from_gpt2_files, to_gpt2_files
from bpeviz.formats.hf_json import from_hf_json
from bpeviz.formats.hf_models import read_tokenizer_json
from bpeviz.formats.minbpe import from_minbpe_model
from bpeviz.formats.tiktoken import from_tiktoken

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([-1, 0, 255, 256, 2**31, 2**53, 2**53 + 1, 2**63, 2**64]),
    st.floats(allow_nan=False),
)
# The names tokenizer.json uses, so that random objects look like its parts.
NAMES = [
    "type",
    "model",
    "vocab",
    "merges",
    "added_tokens",
    "content",
    "id",
    "pre_tokenizer",
    "pretokenizers",
    "processors",
    "normalizers",
    "pattern",
    "Regex",
    "behavior",
    "invert",
    "use_regex",
    "add_prefix_space",
    "Sequence",
    "ByteLevel",
    "Split",
    "BPE",
    "Isolated",
]
KEYS = st.one_of(st.sampled_from(NAMES), st.text(max_size=6))
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, st.text(max_size=8), st.sampled_from(NAMES))
JSON = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)
BASE_HF = json.loads(split_json(r"\w+|\s+"))
BASE_GPT2_VOCAB, BASE_GPT2_MERGES = to_gpt2_files(Tokenizer.from_merges([(97, 97), (256, 98)]))


def refuses_cleanly(read: Callable[[], Any]) -> None:
    """The reader returns, or raises ``ValueError``: any other exception fails the test."""
    with contextlib.suppress(ValueError):
        read()


def _paths(document: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON document a value sits (dict keys and list indices), up to 4 deep
    and a few list items each (a vocabulary has 257 entries)."""
    found = [prefix] if prefix else []
    if len(prefix) >= 4:
        return found
    if isinstance(document, dict):
        for key, value in list(document.items())[:12]:
            found += _paths(value, (*prefix, key))
    elif isinstance(document, list):
        for index, value in enumerate(document[:3]):
            found += _paths(value, (*prefix, index))
    return found


HF_PATHS = [*_paths(BASE_HF), ("model", "vocab", "a"), ("model", "vocab", "aa")]


def _replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    edited = copy.deepcopy(document)
    target = edited
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return edited


@settings(FUZZ, max_examples=600)
@given(st.lists(st.tuples(st.sampled_from(HF_PATHS), JSON), min_size=1, max_size=2))
def test_tokenizer_json_of_a_wrong_shape_is_refused_cleanly(edits) -> None:
    """One or two places of a valid file get any JSON value (one: so that no other refusal
    comes first)."""
    document = BASE_HF
    for path, value in edits:
        try:
            document = _replaced(document, path, value)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier edit removed this place
    text = json.dumps(document)
    refuses_cleanly(lambda: from_hf_json(text))
    refuses_cleanly(lambda: load_model_file("tokenizer.json", text.encode()))


# The same file with a normalizer: our reader refuses it by name, so the tokenizers library
# reads it (and gets the edits); a file either reads must also encode without raising.
BASE_LIBRARY = {**BASE_HF, "normalizer": {"type": "NFC"}}
LIBRARY_PATHS = [*_paths(BASE_LIBRARY), ("model", "vocab", "a"), ("added_tokens",)]


@settings(FUZZ, max_examples=400)
@given(st.lists(st.tuples(st.sampled_from(LIBRARY_PATHS), JSON), min_size=1, max_size=2))
def test_tokenizer_json_for_the_library_of_a_wrong_shape_is_refused_cleanly(edits) -> None:
    document = BASE_LIBRARY
    for path, value in edits:
        try:
            document = _replaced(document, path, value)
        except (KeyError, IndexError, TypeError):
            continue
    text = json.dumps(document)

    def read_and_encode() -> None:
        tokenizer = read_tokenizer_json(text)
        tokenizer.decode(tokenizer.encode("aa héllo  wörld 🙂"))

    refuses_cleanly(read_and_encode)


def test_a_file_the_library_fails_on_while_encoding_is_refused_cleanly() -> None:
    """Found by the fuzz above: a model of only ``{"vocab": []}`` reads (the library takes it
    for Unigram) and then fails on any text with its own plain ``Exception`` ("unknown token
    but `unk_id` is missing"), which is no refusal; it is a ValueError like any."""
    document = copy.deepcopy(BASE_LIBRARY)
    document["model"] = {"vocab": []}
    tokenizer = read_tokenizer_json(json.dumps(document))
    with pytest.raises(ValueError, match="could not tokenize this text"):
        tokenizer.encode("aa héllo")


def test_a_file_the_library_panics_on_while_reading_is_refused_cleanly() -> None:
    """Found by the fuzz above: a subword prefix longer than a merge's token makes the
    library's BPE builder panic in ``Tokenizer.from_str`` (a slice end past the token),
    pyo3's BaseException that no page catches; it is a ValueError like any refusal."""
    document = copy.deepcopy(BASE_LIBRARY)
    document["model"]["continuing_subword_prefix"] = "added_tokens"  # 12 characters; "aa"
    with pytest.raises(ValueError, match="cannot read it either"):
        read_tokenizer_json(json.dumps(document))


@FUZZ
@given(JSON)
def test_any_json_as_tokenizer_json_is_refused_cleanly(document) -> None:
    refuses_cleanly(lambda: from_hf_json(json.dumps(document)))
    refuses_cleanly(lambda: from_hf_json(json.dumps({"model": document})))
    refuses_cleanly(lambda: read_tokenizer_json(json.dumps({"model": document})))


@FUZZ
@given(st.integers(min_value=1, max_value=200_000), st.sampled_from(["[", '{"a":', '{"model":']))
def test_deep_nesting_is_refused_cleanly(depth: int, opener: str) -> None:
    closer = {"[": "]", '{"a":': "}", '{"model":': "}"}[opener]
    text = opener * depth + "1" + closer * depth
    refuses_cleanly(lambda: from_hf_json(text))
    refuses_cleanly(lambda: from_gpt2_files(text, ""))


@FUZZ
@given(
    st.dictionaries(st.text(max_size=4), JSON, max_size=6),
    st.lists(st.text(alphabet="ab Ġ!", max_size=6), max_size=4),
)
def test_gpt2_files_of_a_wrong_shape_are_refused_cleanly(extra: dict, merge_lines: list) -> None:
    vocab = json.loads(BASE_GPT2_VOCAB) | extra
    merges = BASE_GPT2_MERGES + "\n".join(merge_lines)
    refuses_cleanly(lambda: from_gpt2_files(json.dumps(vocab), merges))
    refuses_cleanly(lambda: from_gpt2_files(json.dumps(extra), BASE_GPT2_MERGES))


NUMBER_TEXT = st.one_of(
    NUMBERS.map(str), st.sampled_from(["", " ", "9" * 5000, "1_0", "+1", "٣", "0x10"])
)


@FUZZ
@given(
    st.sampled_from(["", r"\w+|\s+", r"[a-", r"(a|a)*b|."]),
    st.lists(st.tuples(st.text(max_size=5), NUMBER_TEXT), max_size=3),
    st.lists(st.tuples(NUMBER_TEXT, NUMBER_TEXT), max_size=5),
    st.booleans(),
)
def test_minbpe_models_of_a_wrong_shape_are_refused_cleanly(
    pattern: str, specials: list, merges: list, honest_count: bool
) -> None:
    count = str(len(specials)) if honest_count else str(len(specials) + 1)
    lines = ["minbpe v1", pattern, count]
    lines += [f"{text} {token_id}" for text, token_id in specials]
    lines += [f"{left} {right}" for left, right in merges]
    data = ("\n".join(lines) + "\n").encode("utf-8", errors="surrogatepass")
    refuses_cleanly(lambda: from_minbpe_model(data))
    refuses_cleanly(lambda: load_model_file("x.model", data))


ONE_BYTES = [f"{base64.b64encode(bytes([b])).decode()} {b}" for b in range(256)]


@FUZZ
@given(
    st.lists(st.tuples(st.binary(max_size=4), NUMBER_TEXT), max_size=5),
    st.integers(min_value=0, max_value=255),
    st.booleans(),
)
def test_tiktoken_files_of_a_wrong_shape_are_refused_cleanly(
    extra: list, dropped: int, drop: bool
) -> None:
    lines = [line for index, line in enumerate(ONE_BYTES) if not (drop and index == dropped)]
    lines += [f"{base64.b64encode(token).decode()} {rank}" for token, rank in extra]
    data = ("\n".join(lines) + "\n").encode()
    refuses_cleanly(lambda: from_tiktoken(data))
    refuses_cleanly(lambda: load_model_file("x.tiktoken", data))
