"""Hugging Face ``tokenizer.json``, byte-level BPE only: written so that
``tokenizers.Tokenizer.from_file`` encodes exactly as we do, and read back the same way.

What is written: a ``BPE`` model (vocab in GPT-2's byte-to-character mapping, merges as pairs
in learned order), special tokens as added tokens, and a pre-tokenizer that cuts as ours does:
``bytes`` mode is ``ByteLevel`` alone (no regex), ``gpt2``/``gpt4`` (or any pattern) is a
``Split`` on our pattern (``Isolated``) followed by ``ByteLevel`` without its own regex. The
Split's regex runs in Oniguruma, not Python's ``regex``: the one construct the two read
differently in our patterns, a possessive ``{n,m}+``, is written as an atomic group
(:func:`to_onig`) and read back the other way (:func:`from_onig`). Characters that Unicode
assigned recently may still be classified differently by the two engines' own tables.

What is read: the same shapes, plus GPT-2's ``ByteLevel`` with its built-in regex. Anything
that would make ``tokenizers`` encode differently from us is refused with a message naming it,
never approximated: other models (WordPiece, Unigram, WordLevel), a normalizer, a post-processor
that adds tokens, ``byte_fallback``, ``ignore_merges``, dropout, word prefixes and suffixes,
``add_prefix_space``, added tokens that strip spaces or match only whole words, truncation and
padding. Left out of writing: ``words`` mode, whose whitespace is never merged (no
``tokenizer.json`` pre-tokenizer keeps a piece out of BPE), and rank tables (no merges).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from bpeviz.engine.pretokenize import GPT2_SPLIT_PATTERN, SPLIT_PATTERNS
from bpeviz.engine.tokenizer import MERGE, Tokenizer
from bpeviz.formats.common import (
    check_representable,
    check_unique_bytes,
    merge_tokenizer,
    parse_json,
    require_merges,
)
from bpeviz.formats.gpt2 import bytes_to_unicode

KIND = "tokenizer.json"
MAX_JSON_BYTES = 32 * 1024 * 1024  # Llama 3's is 9 MB; anything far larger is not a tokenizer
MAX_TOKENS = 2_000_000
_BYTE_TO_CHAR = bytes_to_unicode()
_CHAR_TO_BYTE = {char: byte for byte, char in _BYTE_TO_CHAR.items()}
_BYTE_LEVEL = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True}


# One atom (\p{..}, an escape, a [class] or a plain character) with a {n,m} interval and a
# "+" after it. Python's regex reads "+" there as possessive; Oniguruma, the engine of
# tokenizers' Split, reads it as "repeat the interval" (\p{N}{1,3}+ takes a whole run of
# digits), which is why Llama 3's files write \p{N}{1,3} without it.
_INTERVAL_PLUS = re.compile(
    r"(\\p\{\w+\}|\\.|\[(?:\\.|[^\]\\])*\]|[^\\()\[\]{}|])"  # the atom
    r"(\{\d+(?:,\d*)?\})\+"  # {n,m}+
)


def to_onig(pattern: str) -> str:
    r"""A pattern as tokenizers' Split must hold it to cut as Python's ``regex`` does: each
    possessive interval becomes an atomic group, which both engines read alike.

    >>> to_onig(r"\p{N}{1,3}+|\s++$")
    '(?>\\p{N}{1,3})|\\s++$'
    """
    return _INTERVAL_PLUS.sub(r"(?>\1\2)", pattern)


def from_onig(pattern: str) -> str:
    r"""A Split pattern from a file as Python's ``regex`` must hold it: ``X{n,m}+`` repeats
    the interval there, as in Oniguruma. Our own exports come back as the published pattern.

    >>> from_onig(r"\p{N}{1,3}+")
    '(?:\\p{N}{1,3})+'
    """
    for known in SPLIT_PATTERNS.values():
        if pattern == to_onig(known):
            return known
    return _INTERVAL_PLUS.sub(r"(?:\1\2)+", pattern)


def _as_chars(token: bytes) -> str:
    return "".join(_BYTE_TO_CHAR[byte] for byte in token)


# ---- writing ------------------------------------------------------------------------------


def to_hf_json(tokenizer: Tokenizer) -> str:
    """The tokenizer as a Hugging Face ``tokenizer.json`` (ids unchanged).

    >>> data = json.loads(to_hf_json(Tokenizer.from_merges([(32, 116)], pretokenizer="gpt2")))
    >>> data["model"]["merges"], data["pre_tokenizer"]["pretokenizers"][0]["type"]
    ([['Ġ', 't']], 'Split')
    """
    check_representable(tokenizer, KIND)
    require_merges(tokenizer, KIND)
    if tokenizer.pretokenizer == "words":
        raise ValueError(
            "the 'words' pre-tokenizer cannot be written as a tokenizer.json that encodes "
            "exactly as bpeviz: bpeviz never merges the whitespace between words, but "
            "tokenizer.json runs BPE on every piece, so whitespace such as U+3000 (whose bytes "
            "also occur inside Japanese words) could be merged there. Retrain with 'gpt2', "
            "'gpt4' or 'bytes' to export it."
        )
    check_unique_bytes(tokenizer, KIND)
    vocab = {_as_chars(tokenizer.vocab[token_id]): token_id for token_id in sorted(tokenizer.vocab)}
    merges = [
        [_as_chars(tokenizer.vocab[left]), _as_chars(tokenizer.vocab[right])]
        for left, right, _ in tokenizer.merges
    ]
    added = [
        {"id": token_id, "content": text, "single_word": False, "lstrip": False,
         "rstrip": False, "normalized": False, "special": True}
        for text, token_id in sorted(tokenizer.special_tokens.items(), key=lambda item: item[1])
    ]  # fmt: skip
    pattern = tokenizer.split_pattern
    byte_level = {**_BYTE_LEVEL, "use_regex": False}
    pre_tokenizer: dict[str, Any] = byte_level
    if pattern:
        split = {
            "type": "Split",
            "pattern": {"Regex": to_onig(pattern)},
            "behavior": "Isolated",
            "invert": False,
        }
        pre_tokenizer = {"type": "Sequence", "pretokenizers": [split, byte_level]}
    document = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": None,
        "pre_tokenizer": pre_tokenizer,
        "post_processor": None,
        "decoder": {**_BYTE_LEVEL, "use_regex": True},
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": None,
            "end_of_word_suffix": None,
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": False,
            "vocab": vocab,
            "merges": merges,
        },
    }
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"




# ---- reading ------------------------------------------------------------------------------


def from_hf_json(data: str | bytes) -> Tokenizer:
    """Read a byte-level BPE ``tokenizer.json``; anything unsupported raises ``ValueError``.

    >>> from_hf_json(to_hf_json(Tokenizer.from_merges([(104, 105)]))).encode("hi!")
    [256, 33]
    """
    document = _parse(data)
    _check_unsupported(document)
    pattern = _split_pattern(document.get("pre_tokenizer"))
    model = document["model"]
    vocab = _vocab(model.get("vocab"))
    byte_ids = []
    for byte in range(256):
        char = _BYTE_TO_CHAR[byte]
        if char not in vocab:
            raise ValueError(
                f"the {KIND} vocabulary lacks the byte-level token {char!r} (byte {byte}): a "
                "byte-level BPE needs all 256 single bytes"
            )
        byte_ids.append(vocab[char])
    merges = _merges(model.get("merges"), vocab)
    specials = _added_tokens(document.get("added_tokens"))
    return merge_tokenizer(byte_ids, merges, pattern, specials)




def _parse(data: str | bytes) -> dict[str, Any]:
    size = len(data)
    if size > MAX_JSON_BYTES:
        raise ValueError(
            f"the {KIND} is {size / 1024 / 1024:.0f} MB; at most "
            f"{MAX_JSON_BYTES // 1024 // 1024} MB is read (a large real one is under 10 MB)"
        )
    document = parse_json(data, KIND)
    if not isinstance(document, dict) or not isinstance(document.get("model"), dict):
        raise ValueError(
            f"the {KIND} has no \"model\" object: expected a Hugging Face tokenizer.json "
            "(an object with \"model\", \"pre_tokenizer\", \"added_tokens\", ...)"
        )
    return document


class NotByteLevelBPE(ValueError):
    """A well-formed ``tokenizer.json`` that uses something our reader refuses by name (the
    ``tokenizers`` library encodes it instead: :mod:`bpeviz.formats.hf_models`)."""


def _unsupported(what: str) -> NotByteLevelBPE:
    return NotByteLevelBPE(
        f"this {KIND} uses {what}, which bpeviz does not support: it reads byte-level BPE "
        "only (a ByteLevel pre-tokenizer, or Split then ByteLevel), so that it encodes "
        "exactly as Hugging Face tokenizers does"
    )


def _check_unsupported(document: Mapping[str, Any]) -> None:
    model = document["model"]
    kind = model.get("type", "BPE" if "merges" in model else None)
    if kind != "BPE":
        raise _unsupported(f"a {kind or 'model of unknown'} model (not BPE)")
    for flag in ("byte_fallback", "ignore_merges"):
        if model.get(flag):
            raise _unsupported(f"{flag} in its BPE model")
    if model.get("dropout") not in (None, 0, 0.0):
        raise _unsupported("BPE dropout (random merges)")
    for affix in ("continuing_subword_prefix", "end_of_word_suffix"):
        if model.get(affix):
            raise _unsupported(f"{affix} {model[affix]!r}")
    normalizer = document.get("normalizer")
    if normalizer is not None and not _empty_sequence(normalizer, "normalizers"):
        raise _unsupported(
            f"a normalizer ({_type_of(normalizer)}), which changes the text before it is "
            "tokenized"
        )
    post = document.get("post_processor")
    steps = post.get("processors", []) if isinstance(post, dict) and _type_of(post) == (
        "Sequence"
    ) else [post]
    if not isinstance(steps, list):
        raise ValueError(f"the {KIND} post-processor Sequence has no \"processors\" list")
    for step in steps:
        if step is not None and _type_of(step) != "ByteLevel":
            raise _unsupported(f"a post-processor ({_type_of(step)}) that can add tokens")
    for setting in ("truncation", "padding"):
        if document.get(setting) is not None:
            raise _unsupported(f"{setting}")


def _type_of(component: Any) -> str:
    if isinstance(component, dict):
        return str(component.get("type", "?"))
    return type(component).__name__


def _empty_sequence(component: Any, key: str) -> bool:
    return _type_of(component) == "Sequence" and not component.get(key)


def _split_pattern(pre_tokenizer: Any) -> str:
    """The regex our pre-tokenizer cuts with ("" for none), from a supported pre-tokenizer."""
    if pre_tokenizer is None:
        raise _unsupported("no pre-tokenizer (a byte-level BPE needs ByteLevel)")
    steps = [pre_tokenizer]
    if _type_of(pre_tokenizer) == "Sequence":
        steps = pre_tokenizer.get("pretokenizers") or []
        if not isinstance(steps, list):
            raise ValueError(f"the {KIND} pre-tokenizer Sequence has no \"pretokenizers\" list")
    if not steps or _type_of(steps[-1]) != "ByteLevel":
        names = " then ".join(_type_of(step) for step in steps) or "an empty Sequence"
        raise _unsupported(f"the pre-tokenizer {names} (it must end in ByteLevel)")
    *splits, byte_level = steps
    if byte_level.get("add_prefix_space"):
        raise _unsupported("add_prefix_space in ByteLevel (it adds a space to the text)")
    uses_regex = byte_level.get("use_regex", True)
    if len(splits) > 1 or (splits and uses_regex):
        names = " then ".join(_type_of(step) for step in steps)
        raise _unsupported(f"the pre-tokenizer {names} (more than one split)")
    if not splits:
        return GPT2_SPLIT_PATTERN if uses_regex else ""
    (split,) = splits
    if _type_of(split) != "Split":
        raise _unsupported(f"a {_type_of(split)} pre-tokenizer")
    pattern = split.get("pattern")
    if not isinstance(pattern, dict) or not isinstance(pattern.get("Regex"), str):
        raise _unsupported(f"a Split on {pattern!r} (only a Split on a Regex is read)")
    if split.get("behavior") != "Isolated" or split.get("invert"):
        raise _unsupported(
            f"a Split with behavior {split.get('behavior')!r}, invert {split.get('invert')!r} "
            "(only Isolated, not inverted, keeps every piece as it is)"
        )
    if not pattern["Regex"]:
        raise _unsupported("a Split on an empty regex")
    return from_onig(pattern["Regex"])


def _vocab(raw: Any) -> dict[str, int]:
    if not isinstance(raw, dict) or not raw:
        raise ValueError(f"the {KIND} model has no \"vocab\" object of token → id")
    if len(raw) > MAX_TOKENS:
        raise ValueError(f"the {KIND} vocabulary has {len(raw):,} tokens; at most {MAX_TOKENS:,}")
    for token, token_id in raw.items():
        if not isinstance(token_id, int) or isinstance(token_id, bool) or token_id < 0:
            raise ValueError(f"the {KIND} vocabulary gives {token!r} the id {token_id!r}")
    return raw


def _token_bytes(token: str) -> bytes:
    try:
        return bytes(_CHAR_TO_BYTE[char] for char in token)
    except KeyError as error:
        raise _unsupported(
            f"the token {token!r}, which is not in ByteLevel's byte alphabet (character "
            f"{error.args[0]!r})"
        ) from None


def _merges(raw: Any, vocab: Mapping[str, int]) -> list[MERGE]:
    if not isinstance(raw, list):
        raise ValueError(f"the {KIND} model has no \"merges\" list")
    if len(raw) > MAX_TOKENS:
        raise ValueError(f"the {KIND} has {len(raw):,} merges; at most {MAX_TOKENS:,}")
    merges = []
    for number, entry in enumerate(raw, start=1):
        if isinstance(entry, str) and entry.count(" ") == 1:
            pair = entry.split(" ")
        elif isinstance(entry, list) and len(entry) == 2 and all(isinstance(p, str) for p in entry):
            pair = entry
        else:
            raise ValueError(
                f"merge {number} of the {KIND} is {entry!r}: expected \"left right\" or "
                "[\"left\", \"right\"]"
            )
        left, right = pair
        for part in (left, right, left + right):
            if part not in vocab:
                raise ValueError(f"merge {number} of the {KIND} uses {part!r}, not in the vocab")
            _token_bytes(part)
        merges.append((vocab[left], vocab[right], vocab[left + right]))
    made: dict[int, int] = {}
    for number, (_, _, new) in enumerate(merges, start=1):
        if new in made:
            raise _unsupported(
                f"two merges that make one token (merges {made[new]} and {number}, id {new})"
            )
        made[new] = number
    return merges


def _added_tokens(raw: Any) -> dict[str, int]:
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise ValueError(f"the {KIND} \"added_tokens\" is not a list")
    specials: dict[str, int] = {}
    for entry in raw:
        if not isinstance(entry, dict) or not isinstance(entry.get("content"), str):
            raise ValueError(f"an added token of the {KIND} is {entry!r}: expected an object")
        content, token_id = entry["content"], entry.get("id")
        if not isinstance(token_id, int) or isinstance(token_id, bool) or not content:
            raise ValueError(f"the added token {content!r} has the id {token_id!r}")
        for flag in ("single_word", "lstrip", "rstrip"):
            if entry.get(flag):
                raise _unsupported(f"{flag} on the added token {content!r}")
        specials[content] = token_id
    return specials
