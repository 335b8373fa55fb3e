"""GPT-2's ``vocab.json`` + ``merges.txt`` (also Hugging Face's byte-level BPE).

Token strings are in GPT-2's byte-to-character mapping (a space shows as ``Ġ``) with their
ids, and the merges are pairs of such strings in learned order. No split pattern is stored:
GPT-2's is assumed.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from bpeviz.engine.pretokenize import GPT2_SPLIT_PATTERN
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats.common import (
    check_representable,
    check_unique_bytes,
    decode_text,
    merge_tokenizer,
    parse_json,
    preview,
    require_merges,
    split_lines,
)

GPT2_MERGES_HEADER = "#version: 0.2"


def bytes_to_unicode() -> dict[int, str]:
    """GPT-2's printable stand-in character for each byte (``encoder.py``'s mapping).

    Printable Latin-1 bytes stand for themselves; the other 68 (controls, space, ...) get
    the characters from U+0100 up, in byte order. So a space is ``Ġ`` and a newline ``Ċ``.

    >>> mapping = bytes_to_unicode()
    >>> mapping[ord("a")], mapping[32], mapping[10]
    ('a', 'Ġ', 'Ċ')
    """
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    mapping = {byte: chr(byte) for byte in printable}
    extra = 0
    for byte in range(256):
        if byte not in mapping:
            mapping[byte] = chr(256 + extra)
            extra += 1
    return dict(sorted(mapping.items()))


_BYTE_TO_CHAR = bytes_to_unicode()


def _gpt2_string(token: bytes) -> str:
    return "".join(_BYTE_TO_CHAR[byte] for byte in token)


def to_gpt2_files(tokenizer: Tokenizer) -> tuple[str, str]:
    """The tokenizer as GPT-2's ``(vocab.json, merges.txt)`` contents, ids unchanged.

    Special tokens go into ``vocab.json`` under their own text. The split pattern is not
    part of these files: pass it again to :func:`from_gpt2_files` (GPT-2's is the default).

    >>> vocab_json, merges_txt = to_gpt2_files(Tokenizer.from_merges([(32, 116)]))
    >>> merges_txt
    '#version: 0.2\\nĠ t\\n'
    """
    kind = "GPT-2 vocab.json + merges.txt"
    check_representable(tokenizer, kind)
    require_merges(tokenizer, kind)
    check_unique_bytes(tokenizer, kind)
    vocab = {
        _gpt2_string(tokenizer.vocab[token_id]): token_id for token_id in sorted(tokenizer.vocab)
    }
    for text, token_id in tokenizer.special_tokens.items():
        if text in vocab:
            raise ValueError(
                f"special token {text!r} is spelled like token {vocab[text]} in vocab.json, "
                "which maps each string to one id: rename the special token"
            )
        vocab[text] = token_id
    merges = [
        f"{_gpt2_string(tokenizer.vocab[left])} {_gpt2_string(tokenizer.vocab[right])}"
        for left, right, _ in tokenizer.merges
    ]
    vocab_json = json.dumps(vocab, ensure_ascii=False, indent=0) + "\n"
    merges_txt = "".join(line + "\n" for line in [GPT2_MERGES_HEADER, *merges])
    return vocab_json, merges_txt


def from_gpt2_files(
    vocab_json: str | bytes,
    merges_txt: str | bytes,
    *,
    pattern: str = GPT2_SPLIT_PATTERN,
) -> Tokenizer:
    """Read GPT-2 / Hugging Face byte-level BPE files: ``vocab.json`` and ``merges.txt``.

    Ids come from ``vocab.json``; each merge line ``left right`` joins two tokens into the
    token spelled ``left + right``. Entries of ``vocab.json`` that are neither a byte nor made
    by a merge (``<|endoftext|>``) become special tokens. ``pattern`` is the split pattern to
    use ("" for none), since the files do not store one.
    """
    vocab_kind, merges_kind = "vocab.json file", "merges.txt file"
    vocab = _read_gpt2_vocab(decode_text(vocab_json, vocab_kind))
    byte_ids = []
    for byte, char in _BYTE_TO_CHAR.items():
        if char not in vocab:
            raise ValueError(
                f"the {vocab_kind} has no entry for byte {byte} (written {char!r}): a byte-level "
                "BPE needs all 256 bytes"
            )
        byte_ids.append(vocab[char])

    made = {char: 0 for char in _BYTE_TO_CHAR.values()}  # token -> line making it (0: a byte)
    merges = []
    for number, line in _merge_lines(decode_text(merges_txt, merges_kind)):
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            raise ValueError(
                f"line {number} of the {merges_kind}: expected two tokens 'left right' "
                f"separated by one space, got {preview(line)}"
            )
        left, right = parts
        for token in parts:
            if token not in made:
                where = "is not in vocab.json" if token not in vocab else "no earlier line makes"
                raise ValueError(
                    f"line {number} of the {merges_kind}: merge uses token {token!r}, which {where}"
                )
        joined = left + right
        if joined not in vocab:
            raise ValueError(
                f"line {number} of the {merges_kind}: the merge makes {joined!r}, which is "
                "not in vocab.json"
            )
        if joined in made:
            raise ValueError(
                f"line {number} of the {merges_kind}: the merge makes {joined!r}, which line "
                f"{made[joined]} already makes: bpeviz needs every merge to make a new token"
            )
        made[joined] = number
        merges.append((vocab[left], vocab[right], vocab[joined]))

    specials = {text: token_id for text, token_id in vocab.items() if text not in made}
    return merge_tokenizer(byte_ids, merges, pattern, specials)


def _read_gpt2_vocab(text: str) -> dict[str, int]:
    kind = "vocab.json file"
    if not text.strip():
        raise ValueError(f'the {kind} is empty: expected a JSON object like {{"a": 64}}')
    vocab = parse_json(text, kind)
    if not isinstance(vocab, dict):
        raise ValueError(
            f"the {kind} holds a JSON {type(vocab).__name__}: expected an object mapping each "
            'token to its id, like {"a": 64}'
        )
    owners: dict[int, str] = {}
    for token, token_id in vocab.items():
        if isinstance(token_id, bool) or not isinstance(token_id, int) or token_id < 0:
            raise ValueError(
                f"line {_json_line(text, token)} of the {kind}: token {token!r} has id "
                f"{token_id!r}: expected a whole number of 0 or more"
            )
        if token_id in owners:
            raise ValueError(
                f"line {_json_line(text, token)} of the {kind}: tokens {owners[token_id]!r} and "
                f"{token!r} both have id {token_id}: ids must be unique"
            )
        owners[token_id] = token
    return vocab


def _json_line(text: str, token: str) -> int:
    """The line where a key of the JSON object appears (1 if it cannot be found)."""
    position = text.find(json.dumps(token, ensure_ascii=False) + ":")
    if position < 0:
        position = text.find(json.dumps(token) + ":")
    return text.count("\n", 0, position) + 1 if position >= 0 else 1


def _merge_lines(text: str) -> Iterator[tuple[int, str]]:
    """Numbered merge lines: a leading ``#version`` header and blank lines are skipped."""
    for number, line in enumerate(split_lines(text), start=1):
        if number == 1 and line.startswith("#version"):
            continue
        if line.strip():
            yield number, line



