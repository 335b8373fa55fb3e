"""Readable forms of token bytes: visible whitespace, broken UTF-8 shown as hex.

A token is bytes, not text. Printing it naively hides what students need to see: a token
that starts with a space, a newline inside a token, or half of a three-byte Japanese
character. So whitespace is drawn with visible symbols and bytes that are not a complete
UTF-8 character are shown as ``<E3><81>``. The mapping is for display only.
"""

from __future__ import annotations

# Each whitespace character, the symbol drawn for it and its name: the one table, which
# bpeviz.web writes into the browser's script (the legend under the tokens names the symbols
# a text draws).
WHITESPACE: tuple[tuple[str, str, str], ...] = (
    (" ", "␣", "space"),
    ("\n", "↵", "newline"),
    ("\t", "⇥", "tab"),
    ("\r", "␍", "carriage return"),
    ("\x0b", "␋", "vertical tab"),
    ("\x0c", "␌", "form feed"),
    ("\u00a0", "⍽", "no-break space"),
)
VISIBLE_WHITESPACE: dict[str, str] = {char: symbol for char, symbol, _ in WHITESPACE}


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """``1 byte``, ``2 bytes``, ``1,024 merges``: a count and its noun, in agreement.

    >>> counted(1, "merge"), counted(0, "merge"), counted(12_000, "pair")
    ('1 merge', '0 merges', '12,000 pairs')
    """
    word = noun if number == 1 else (plural or f"{noun}s")
    return f"{number:,} {word}"


def times(number: int) -> str:
    """How often something happened, as a person says it: ``once``, ``2 times``.

    >>> times(1), times(2), times(1_500)
    ('once', '2 times', '1,500 times')
    """
    return "once" if number == 1 else f"{number:,} times"


def hex_bytes(data: bytes) -> str:
    """``b"\\xe3\\x81"`` -> ``"<E3><81>"``."""
    return "".join(f"<{value:02X}>" for value in data)


def split_utf8(data: bytes) -> list[tuple[str, bool]]:
    """Cut bytes into runs of valid text and runs of bytes that are not whole characters.

    >>> split_utf8("あ".encode()[:2] + b"a")
    [('\\udce3\\udc81', False), ('a', True)]

    Invalid runs come back surrogate-escaped (one lone surrogate per byte), flagged False.
    """
    runs: list[tuple[str, bool]] = []
    rest = data
    while rest:
        try:
            runs.append((rest.decode("utf-8"), True))
            break
        except UnicodeDecodeError as error:
            if error.start:
                runs.append((rest[: error.start].decode("utf-8"), True))
            bad = rest[error.start : error.end]
            runs.append((bad.decode("utf-8", errors="surrogateescape"), False))
            rest = rest[error.end :]
    return runs


def readable(data: bytes, *, visible_whitespace: bool = True) -> str:
    """A token's bytes as a person can read them.

    >>> readable(b" the\\n")
    '␣the↵'
    >>> readable("日".encode()[:2])
    '<E6><97>'
    >>> readable(b"a b", visible_whitespace=False)
    'a b'
    """
    parts: list[str] = []
    for text, valid in split_utf8(data):
        if not valid:
            parts.append(hex_bytes(text.encode("utf-8", errors="surrogateescape")))
        elif visible_whitespace:
            parts.append("".join(VISIBLE_WHITESPACE.get(char, _control(char)) for char in text))
        else:
            parts.append(text)
    return "".join(parts)


def _control(char: str) -> str:
    """Other control characters as ``\\x1b``-style escapes (they would draw nothing)."""
    if char.isprintable() or char in " \u3000":
        return char
    return char.encode("unicode_escape").decode("ascii")
