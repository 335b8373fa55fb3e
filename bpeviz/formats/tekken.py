"""Mistral's Tekken files (``tekken_240911.json``): a tiktoken-style rank table in JSON.

The file holds ``config`` (the split ``pattern``, ``default_vocab_size``,
``default_num_special_tokens``, ...), ``vocab`` (``{"rank", "token_bytes" (base64),
"token_str"}`` by rank) and, in newer files, ``special_tokens`` (``{"rank", "token_str",
"is_control"}``). Special tokens take the first ids, so an ordinary token's id is its rank plus
the number of special tokens, and only the first ``default_vocab_size - num_special_tokens``
ranks are used. Encoding is tiktoken's: join the adjacent pair whose bytes have the lowest rank.

Here the ranks become our rank table with ids as the ranks (rank + number of special tokens):
adding one number to every rank keeps their order, so every merge is the one Mistral's
tokenizer makes, and the ids come out as Mistral's. A trace's "rank" is that id.

Files without ``special_tokens`` (``tekken_240911.json`` is one) use mistral-common's default
list for them (``Tekkenizer.DEPRECATED_SPECIAL_TOKENS``, the 20 names below, ids 0-19); the
other ids up to the number of special tokens are its fillers ``<SPECIAL_20>``, ... Left out:
the ``image`` and ``audio`` sections (this is a text tokenizer) and the BOS that Mistral puts
in front of a prompt, which is the caller's (:mod:`bpeviz.real.mistral_tekken`).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats.common import parse_json

# mistral-common's special tokens for Tekken files that list none, in id order.
DEFAULT_SPECIAL_TOKENS: tuple[str, ...] = (
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]",
    "[TOOL_RESULTS]", "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]",
    "[IMG_END]", "[PREFIX]", "[MIDDLE]", "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]",
    "[TOOL_CONTENT]",
)  # fmt: skip
FILLER = "<SPECIAL_{}>"  # mistral-common's name for an unnamed special id
KIND = "Tekken file"


def from_tekken(data: str | bytes) -> Tokenizer:
    """Read a Tekken JSON file: ordinary ids are ranks + the number of special tokens.

    >>> import json
    >>> ranks = [{"rank": b, "token_bytes": base64.b64encode(bytes([b])).decode()}
    ...          for b in range(256)] + [{"rank": 256, "token_bytes": "aGk="}]
    >>> config = {"pattern": r"\\w+| ", "default_vocab_size": 261, "default_num_special_tokens": 4}
    >>> tokenizer = from_tekken(json.dumps({"config": config, "vocab": ranks}))
    >>> tokenizer.encode("hi hi<s>"), tokenizer.special_tokens["<s>"]
    ([260, 36, 260, 1], 1)
    """
    document = parse_json(data, KIND)
    if not isinstance(document, dict):
        raise ValueError(f"the {KIND} is not a JSON object: expected config and vocab")
    config = _field(document, "config", dict)
    pattern = _field(config, "pattern", str)  # checked (compiles, never hangs) by Tokenizer
    specials = _int_field(config, "default_num_special_tokens")
    vocab_size = _int_field(config, "default_vocab_size")
    vocab = _field(document, "vocab", list)
    used = vocab_size - specials
    if not 256 <= used <= len(vocab):
        raise ValueError(
            f"the {KIND} says {vocab_size:,} ids with {specials:,} special tokens, so "
            f"{used:,} ranks, but its vocab has {len(vocab):,}: it needs from 256 to "
            f"{len(vocab):,}"
        )
    return Tokenizer.from_ranks(
        _ranks(vocab[:used], offset=specials),
        pattern=pattern,
        special_tokens=_special_tokens(document.get("special_tokens"), specials),
    )


def _ranks(vocab: list[Any], *, offset: int) -> dict[bytes, int]:
    """Token bytes -> id (rank + ``offset``); each entry's rank must be its place."""
    ranks: dict[bytes, int] = {}
    for place, entry in enumerate(vocab):
        if not isinstance(entry, dict) or entry.get("rank") != place:
            raise ValueError(f"entry {place} of the {KIND}'s vocab does not have rank {place}")
        try:
            token = base64.b64decode(entry.get("token_bytes", ""), validate=True)
        except (binascii.Error, ValueError, TypeError):
            raise ValueError(
                f"entry {place} of the {KIND}'s vocab: token_bytes is not valid base64"
            ) from None
        if token in ranks:
            raise ValueError(
                f"entry {place} of the {KIND}'s vocab repeats the bytes of rank "
                f"{ranks[token] - offset}: every token needs its own bytes"
            )
        ranks[token] = place + offset
    return ranks


def _special_tokens(listed: Any, count: int) -> dict[str, int]:
    """The file's special tokens (or mistral-common's default names), fillers after them."""
    if listed is None:
        names = list(DEFAULT_SPECIAL_TOKENS[:count])
    else:
        if not isinstance(listed, list) or any(
            not isinstance(entry, dict) or entry.get("rank") != place
            for place, entry in enumerate(listed)
        ):
            raise ValueError(f"the {KIND}'s special_tokens must be listed by rank from 0")
        names = [str(entry.get("token_str", "")) for entry in listed]
    if len(names) > count or len(set(names)) < len(names) or "" in names:
        raise ValueError(
            f"the {KIND} lists {len(names)} special tokens for {count} ids: each needs its own "
            "name, and there can be no more than that"
        )
    names += [FILLER.format(rank) for rank in range(len(names), count)]
    return {name: rank for rank, name in enumerate(names)}


def _field(document: dict[str, Any], name: str, kind: type) -> Any:
    value = document.get(name)
    if not isinstance(value, kind):
        raise ValueError(f"the {KIND} has no {name!r} {kind.__name__}: is it really a {KIND}?")
    return value


def _int_field(config: dict[str, Any], name: str) -> int:
    value = config.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"the {KIND}'s config needs {name!r} as a whole number")
    return value
