"""What every file format shares: decoding a file's text, numbering its lines, short previews
of a bad line for error messages, the refusals of what no format can hold, and path helpers.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from bpeviz.engine.tokenizer import MERGE, Tokenizer, pretokenizer_for_pattern

# ASCII digits only (int() would also take "+1", "1_0", "٣"), and not so many that int()
# refuses them (past 4,300 digits): any id that long is refused by length instead.
NUMBER = re.compile(r"[0-9]{1,100}")


LINE_PREVIEW = 60


def render_token(token: bytes) -> str:
    """A token as minbpe's ``.vocab`` shows it: UTF-8 with U+FFFD for broken bytes, and
    control characters escaped as ``\\uXXXX`` (minbpe's ``render_token``, exactly).

    >>> render_token(b"hi\\n")
    'hi\\\\u000a'
    >>> render_token(b"\\xe6\\x97")
    '�'
    """
    text = token.decode("utf-8", errors="replace")
    return "".join(
        f"\\u{ord(char):04x}" if unicodedata.category(char)[0] == "C" else char for char in text
    )



def parse_json(data: str | bytes, kind: str) -> Any:
    r"""``json.loads`` with a message that names the file and the line, for every format.

    >>> parse_json('{"a": 1,\n "b" 2}', "vocab.json file")
    Traceback (most recent call last):
    ValueError: line 2 of the vocab.json file is not valid JSON (column 6: Expecting ':' delimiter)
    """
    try:
        return json.loads(data, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as error:
        raise ValueError(
            f"line {error.lineno} of the {kind} is not valid JSON (column {error.colno}: "
            f"{error.msg})"
        ) from None
    except _RepeatedKey as error:
        raise ValueError(
            f"the {kind} names {error.args[0]!r} twice in one object: JSON readers keep only "
            "one of them, so the file is ambiguous; remove one"
        ) from None
    except (UnicodeDecodeError, RecursionError) as error:
        reason = "is not UTF-8 text" if isinstance(error, UnicodeDecodeError) else "nests too deep"
        raise ValueError(f"the {kind} {reason}") from None
    except ValueError:  # a number of more than 4,300 digits
        raise ValueError(f"the {kind} holds a number too long to be an id") from None


class _RepeatedKey(Exception):
    """A JSON object names one key twice (``json`` would keep the last one silently)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return result


def preview(line: str) -> str:
    """A line quoted for an error message, shortened when long."""
    if len(line) > LINE_PREVIEW:
        line = line[:LINE_PREVIEW] + "…"
    return repr(line)


def decode_text(data: str | bytes, kind: str) -> str:
    """File contents as text (a UTF-8 byte order mark is dropped); bytes that are not UTF-8
    are named by line and offset."""
    if isinstance(data, str):
        return data
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        bad = data[error.start : error.start + 1].hex()
        raise ValueError(
            f"line {line} of the {kind} is not UTF-8 text (byte 0x{bad} at offset "
            f"{error.start}): is this really a {kind}?"
        ) from None


def split_lines(text: str) -> list[str]:
    """Lines split on ``\\n`` (a ``\\r`` before it is dropped), without the empty last one."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def check_representable(tokenizer: Tokenizer, kind: str) -> None:
    if tokenizer.end_of_word:
        raise ValueError(
            f"a model with the </w> end-of-word marker cannot be written as a {kind}: "
            "the format has no such symbol. Retrain without the marker (end_of_word=False) "
            "to save it in this format."
        )


def require_merges(tokenizer: Tokenizer, kind: str) -> None:
    if tokenizer.ranks is not None:
        raise ValueError(
            f"this tokenizer is a rank table (tiktoken style) with no merge list, and a {kind} "
            "needs the merges: save it as a .tiktoken file instead"
        )


def check_unique_bytes(tokenizer: Tokenizer, kind: str) -> None:
    """Refuse two ids with the same bytes (possible in BPE: ``a+bc`` and ``ab+c``)."""
    seen: dict[bytes, int] = {}
    for token_id in sorted(tokenizer.vocab):
        token = tokenizer.vocab[token_id]
        if token in seen:
            raise ValueError(
                f"ids {seen[token]} and {token_id} are both the token {render_token(token)!r}: "
                f"a {kind} keys tokens by their bytes, so it cannot hold both. "
                "Save the model as a minbpe .model instead."
            )
        seen[token] = token_id


def merge_tokenizer(
    byte_ids: Sequence[int], merges: Sequence[MERGE], pattern: str, specials: dict[str, int]
) -> Tokenizer:
    """A merge-list tokenizer read from a file: its bytes' ids, merges, split pattern (a
    published one by name, any other kept as is) and special tokens."""
    pretokenizer, override = pretokenizer_for_pattern(pattern)
    return Tokenizer(
        byte_ids=byte_ids,
        merges=merges,
        pretokenizer=pretokenizer,
        pattern=override,
        special_tokens=specials,
    )
