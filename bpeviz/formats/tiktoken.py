"""tiktoken's ``.tiktoken`` ranks files: ``base64(token bytes) rank`` lines, the rank being
the id. There are no merges: tiktoken joins whichever adjacent pair forms the lowest-ranked
token. The split pattern and the special tokens live in code, so the caller passes them when
loading.
"""

from __future__ import annotations

import base64
import binascii
import re

from bpeviz.engine.pretokenize import GPT4_SPLIT_PATTERN
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats.common import (
    NUMBER,
    check_representable,
    check_unique_bytes,
    decode_text,
    preview,
    split_lines,
)
from bpeviz.formats.minbpe import render_token


def to_tiktoken(tokenizer: Tokenizer) -> str:
    """The tokenizer as a ``.tiktoken`` ranks file: ``base64(token) id`` per line, by id.

    Special tokens and the split pattern are not part of the file (tiktoken passes them in
    code). A merge list becomes ranks (rank = id, so later merges rank higher). Beware:
    tiktoken joins whichever adjacent pair forms the lowest-ranked token, even a pair that
    never was a merge, so a few texts can encode differently than with the merges (after
    ``a+b``, ``b+c``, ``a+bc``, the text ``abc`` gives ``ab c`` by merges, ``abc`` by ranks).

    >>> to_tiktoken(Tokenizer.from_merges([(104, 105)])).splitlines()[-1]
    'aGk= 256'
    """
    kind = ".tiktoken file"
    check_representable(tokenizer, kind)
    check_unique_bytes(tokenizer, kind)
    last = -1
    for index, (_, _, new) in enumerate(tokenizer.merges):
        if new <= last:
            raise ValueError(
                f"merge {index + 1} makes id {new}, lower than an earlier merge's id {last}: in a "
                ".tiktoken file the id is the rank, so ids must grow in merge order"
            )
        last = new
    vocab = tokenizer.vocab
    return "".join(
        f"{base64.b64encode(vocab[token_id]).decode('ascii')} {token_id}\n"
        for token_id in sorted(vocab)
    )


def from_tiktoken(
    data: str | bytes,
    *,
    pattern: str = GPT4_SPLIT_PATTERN,
    special_tokens: dict[str, int] | None = None,
) -> Tokenizer:
    """Read a ``.tiktoken`` ranks file (the format of ``cl100k_base.tiktoken``).

    ``pattern`` and ``special_tokens`` are not in the file; the default pattern is cl100k's.

    >>> ranks = "".join(f"{base64.b64encode(bytes([b])).decode()} {b}\\n" for b in range(256))
    >>> from_tiktoken(ranks + "aGk= 256\\n").encode("hi!")
    [256, 33]
    """
    kind = ".tiktoken file"
    lines = split_lines(decode_text(data, kind))
    ranks: dict[bytes, int] = {}
    rank_lines: dict[int, int] = {}  # rank -> line number
    token_lines: dict[bytes, int] = {}
    for number, line in enumerate(lines, start=1):
        if not line:
            continue  # tiktoken skips empty lines too
        parts = line.split()
        if len(parts) != 2 or not NUMBER.fullmatch(parts[1]):
            raise ValueError(
                f"line {number} of the {kind}: expected 'base64_token rank', got {preview(line)}"
            )
        try:
            token = base64.b64decode(parts[0], validate=True)
        except (binascii.Error, ValueError):
            raise ValueError(
                f"line {number} of the {kind}: {preview(parts[0])} is not valid base64"
            ) from None
        rank = int(parts[1])
        if rank in rank_lines:
            raise ValueError(
                f"line {number} of the {kind}: rank {rank} is already used on line "
                f"{rank_lines[rank]}: every token needs its own rank"
            )
        if token in token_lines:
            raise ValueError(
                f"line {number} of the {kind}: token {render_token(token)!r} is already on line "
                f"{token_lines[token]}"
            )
        ranks[token] = rank
        rank_lines[rank] = number
        token_lines[token] = number
    if not ranks:
        raise ValueError(f"the {kind} is empty: expected lines 'base64_token rank'")
    missing = [value for value in range(256) if bytes([value]) not in ranks]
    if missing:
        raise ValueError(
            f"the {kind} lacks {len(missing)} single-byte tokens (first: byte {missing[0]}, "
            f"base64 {base64.b64encode(bytes([missing[0]])).decode()!r}): a byte-level BPE "
            "needs all 256"
        )
    owners: dict[int, str] = {}
    for text, token_id in (special_tokens or {}).items():
        if token_id in owners:
            raise ValueError(
                f"special tokens {owners[token_id]!r} and {text!r} both have id {token_id}: "
                "give each its own id"
            )
        owners[token_id] = text
        if token_id in rank_lines:
            raise ValueError(
                f"special token {text!r} has id {token_id}, which line {rank_lines[token_id]} "
                f"of the {kind} already uses: give it an unused id"
            )
    return Tokenizer.from_ranks(ranks, pattern=pattern, special_tokens=special_tokens)






TIKTOKEN_LINE = re.compile(rb"[A-Za-z0-9+/=]+ [0-9]+\r?\n")
