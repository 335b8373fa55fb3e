"""tiktoken built from Mistral's Tekken file with mistral-common's published recipe, for tests.

The recipe (mistral-common's ``Tekkenizer``, as its documentation and source describe it): the
mergeable ranks are the ``vocab`` entries' base64 ``token_bytes`` by ``rank``, cut to
``default_vocab_size - default_num_special_tokens`` ranks; ``pat_str`` is the config's
``pattern``; tiktoken encodes with no special tokens, then every id is offset by the number of
special tokens, and a prompt gets the BOS ``<s>`` (id 1) in front.

The file is read here with :mod:`zipfile` and :mod:`json` straight from the wheel; only the
wheel's location comes from bpeviz. Where set-up did not download the wheel, :data:`OFFERED`
is empty and the tests that need it skip (fail under ``BPEVIZ_REQUIRE_BROWSER=1``).
"""

from __future__ import annotations

import base64
import functools
import json
import zipfile

import tiktoken

from bpeviz.real.mistral_tekken import MEMBER, TEKKEN, wheel_path

BOS_ID = 1  # <s>, as Mistral numbers it
# Ids of Mistral's control tokens as its model cards and configs publish them (Pixtral 12B's
# image_token_index is 10; [INST]/[/INST] are 3 and 4 in every Mistral instruct tokenizer).
PUBLISHED_SPECIAL_IDS = {
    "<unk>": 0, "<s>": 1, "</s>": 2, "[INST]": 3, "[/INST]": 4, "[IMG]": 10,
    "[IMG_BREAK]": 12, "[IMG_END]": 13,
}  # fmt: skip
OFFERED: list[str] = [TEKKEN] if wheel_path().is_file() else []


@functools.cache
def tekken_document() -> dict:
    with zipfile.ZipFile(wheel_path()) as archive:
        return json.loads(archive.read(MEMBER))


@functools.cache
def tekken_recipe() -> tuple[tiktoken.Encoding, int]:
    """tiktoken's encoding of the ordinary text, and the offset to add to its ids."""
    document = tekken_document()
    config = document["config"]
    specials = config["default_num_special_tokens"]
    used = config["default_vocab_size"] - specials
    ranks = {
        base64.b64decode(entry["token_bytes"]): entry["rank"] for entry in document["vocab"][:used]
    }
    encoding = tiktoken.Encoding(
        name=TEKKEN, pat_str=config["pattern"], mergeable_ranks=ranks, special_tokens={}
    )
    return encoding, specials


def recipe_ids(text: str) -> list[int]:
    """Mistral's ids for ``text`` with no BOS, special-token spellings read as text."""
    encoding, offset = tekken_recipe()
    return [token + offset for token in encoding.encode(text, disallowed_special=())]


@functools.cache
def with_specials(special_tokens: tuple[tuple[str, int], ...]) -> tiktoken.Encoding:
    """The same ranks, already offset, with these special tokens read from the text."""
    encoding, offset = tekken_recipe()
    return tiktoken.Encoding(
        name=f"{TEKKEN}_specials",
        pat_str=encoding._pat_str,
        mergeable_ranks={token: rank + offset for token, rank in encoding._mergeable_ranks.items()},
        special_tokens=dict(special_tokens),
    )
