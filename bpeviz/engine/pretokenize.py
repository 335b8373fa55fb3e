"""Pre-tokenization: cut a text into the pieces that BPE merges inside of.

BPE never merges across a piece boundary. Which pieces you get decides what tokens can exist:

- ``bytes``: the whole text is one piece (minbpe's BasicTokenizer), so a token may span
  words, spaces and punctuation.
- ``gpt2`` / ``gpt4``: the published GPT-2 and cl100k split patterns, run with the ``regex``
  package (they need ``\\p{L}`` and possessive quantifiers). A space sticks to the word after it.
- ``words``: classic whitespace words, as in Sennrich et al. (2016). Words are pieces; the
  whitespace between them is kept (so decoding gives the text back) but never merged. With
  ``end_of_word=True`` each word ends in the ``</w>`` marker, a base symbol of its own.

Special tokens (``<|endoftext|>``...) are cut out first and are never split or merged.

Everything is bytes underneath: text that is not valid UTF-8 comes in through
``surrogateescape``, so every byte survives the round trip.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

import regex

GPT2_SPLIT_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
GPT4_SPLIT_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)


@dataclass(frozen=True, slots=True)
class Pretokenizer:
    """One way to cut a text before BPE: the registry every view, file format and check reads.

    ``label`` names the split for people (the Export page, a model's summary); ``help`` says
    in a few words what it does (after the name in the sidebar); ``pattern`` is the regex
    split pattern, empty when no regex cuts the text (``bytes``, and ``words`` on whitespace).
    """

    name: str
    label: str
    pattern: str
    help: str


PRETOKENIZER_REGISTRY: dict[str, Pretokenizer] = {
    info.name: info
    for info in (
        Pretokenizer(
            "bytes", "none: the whole text is one piece", "", "the whole text is one piece"
        ),
        Pretokenizer("gpt2", "GPT-2's pattern", GPT2_SPLIT_PATTERN, "GPT-2's split pattern"),
        Pretokenizer(
            "gpt4", "GPT-4's (cl100k) pattern", GPT4_SPLIT_PATTERN, "GPT-4's (cl100k) split pattern"
        ),
        Pretokenizer("words", "whitespace words", "", "split on whitespace"),
    )
}
PRETOKENIZERS: tuple[str, ...] = tuple(PRETOKENIZER_REGISTRY)
SPLIT_PATTERNS: dict[str, str] = {
    info.name: info.pattern for info in PRETOKENIZER_REGISTRY.values() if info.pattern
}

# The same patterns for pure-ASCII text, where \p{L} is [a-zA-Z], \p{N} is [0-9] and \s
# (with re.ASCII) is exactly Unicode's White_Space: the standard library's ``re`` runs them
# about twice as fast as ``regex``. The tests hold both to identical splits on ASCII text.
_ASCII_EQUIVALENTS: dict[str, str] = {
    GPT2_SPLIT_PATTERN: (
        r"""'(?:[sdmt]|ll|ve|re)| ?[a-zA-Z]+| ?[0-9]+| ?[^\sa-zA-Z0-9]+|\s+(?!\S)|\s+"""
    ),
    GPT4_SPLIT_PATTERN: (
        r"""'(?i:[sdmt]|ll|ve|re)|[^\r\na-zA-Z0-9]?+[a-zA-Z]++|[0-9]{1,3}+"""
        r"""| ?[^\sa-zA-Z0-9]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
    ),
}
_ASCII_COMPILED = {
    pattern: re.compile(equivalent, re.ASCII) for pattern, equivalent in _ASCII_EQUIVALENTS.items()
}
END_OF_WORD = "</w>"
_WHITESPACE_RUN_GROUP = regex.compile(r"(\s+)")
# str.split() cuts at str.isspace(): Unicode's White_Space and the four information separators
# U+001C..U+001F, nothing else (tests/test_pretokenize.py checks every code point).
_SPLIT_ALSO_AT = "\x1c\x1d\x1e\x1f"
_NOT_WHITE_SPACE = regex.compile(r"[^\p{White_Space}]+")


class PieceKind(Enum):
    """What BPE may do with a piece of text."""

    CHUNK = "chunk"  # merged inside, never across its edges
    FIXED = "fixed"  # kept as raw bytes (whitespace in ``words`` mode)
    SPECIAL = "special"  # one special token, never split


@dataclass(frozen=True, slots=True)
class Piece:
    """A run of the text: its bytes and what BPE may do with it."""

    data: bytes
    kind: PieceKind


def to_text(source: str | bytes) -> str:
    """Bytes become a ``str`` that round-trips exactly (invalid UTF-8 via surrogateescape).

    >>> to_text(b"caf\\xc3\\xa9 \\xff")
    'café \\udcff'
    """
    if isinstance(source, bytes):
        return source.decode("utf-8", errors="surrogateescape")
    return source


def to_bytes(text: str) -> bytes:
    """The inverse of :func:`to_text`."""
    return text.encode("utf-8", errors="surrogateescape")


def white_space_words(text: str) -> list[str]:
    r"""The runs of a text between Unicode White_Space characters (the words WordPiece and
    Unigram train on). ``str.split()`` finds them four times as fast as a regex, unless the
    text holds an information separator, where the two differ.

    >>> white_space_words(" Hug\ta\u3000pug\x1c ")
    ['Hug', 'a', 'pug\x1c']
    """
    if any(separator in text for separator in _SPLIT_ALSO_AT):
        return _NOT_WHITE_SPACE.findall(text)
    return text.split()


def check_pretokenizer(name: str) -> None:
    """Raise a ``ValueError`` naming the valid choices when ``name`` is not one of them."""
    if name not in PRETOKENIZERS:
        raise ValueError(
            f"unknown pre-tokenizer {name!r}: choose one of {', '.join(PRETOKENIZERS)}"
        )


def split_specials(text: str, special_tokens: Iterable[str]) -> list[tuple[str, bool]]:
    """Cut ``text`` around special tokens: ``[(part, is_special), ...]`` in text order.

    Longer specials win over shorter ones that are their prefix.

    >>> split_specials("a<|e|>b", ["<|e|>"])
    [('a', False), ('<|e|>', True), ('b', False)]
    """
    specials = frozenset(s for s in special_tokens if s)
    if not specials:
        return [(text, False)] if text else []
    parts = _specials_regex(specials).split(text)
    # split() with one capturing group alternates: plain, special, plain, special, ...
    return [(part, index % 2 == 1) for index, part in enumerate(parts) if part]


# Compiled sets of special tokens kept, counted in their tokens' characters: compiled, a
# character costs about 250 bytes (4,000 tokens, 48,000 characters: 12 MB), so this keeps
# about 25 MB. Tekken's 1,000 specials are 20,000 characters; the app's box takes 1,000.
SPECIALS_CACHE_CHARS = 100_000
_specials_compiled: OrderedDict[frozenset[str], regex.Pattern[str]] = OrderedDict()
_specials_lock = threading.Lock()


def _set_chars(specials: frozenset[str]) -> int:
    return sum(len(special) for special in specials)


def special_sets_kept() -> int:
    """The characters of the special-token sets compiled and kept (at most
    :data:`SPECIALS_CACHE_CHARS`, or one set alone when it is larger)."""
    with _specials_lock:
        return sum(_set_chars(specials) for specials in _specials_compiled)


def forget_special_sets() -> None:
    """Drop every compiled set (tests start from none)."""
    with _specials_lock:
        _specials_compiled.clear()


def _specials_regex(specials: frozenset[str]) -> regex.Pattern[str]:
    """One capturing alternation of the specials, longest first (so it wins over a prefix).

    Compiled once per set (Tekken has 1,000 specials: not once per encode) and kept while
    the sets kept hold at most :data:`SPECIALS_CACHE_CHARS` characters, least recently used
    dropped first; a larger set is kept alone. Two sessions asking at once may both compile.
    """
    with _specials_lock:
        found = _specials_compiled.get(specials)
        if found is not None:
            _specials_compiled.move_to_end(specials)
            return found
    ordered = sorted(specials, key=lambda s: (-len(s), s))
    compiled = regex.compile("(" + "|".join(regex.escape(s) for s in ordered) + ")")
    with _specials_lock:
        _specials_compiled[specials] = compiled
        kept = sum(_set_chars(kept_set) for kept_set in _specials_compiled)
        while kept > SPECIALS_CACHE_CHARS and len(_specials_compiled) > 1:
            oldest, _ = _specials_compiled.popitem(last=False)
            kept -= _set_chars(oldest)
    return compiled


def split_pattern(
    text: str, pattern: str | regex.Pattern[str], *, timeout: float | None = None
) -> list[str]:
    """Split with a regex; any text the pattern does not match is kept as its own piece.

    Keeping the gaps means decoding always gives back the whole text, even for a custom
    pattern that does not cover every character. Past ``timeout`` seconds, a ``ValueError``.
    """
    compiled = regex.compile(pattern) if isinstance(pattern, str) else pattern
    pieces: list[str] = []
    position = 0
    try:
        for match in compiled.finditer(text, timeout=timeout):
            if match.start() > position:
                pieces.append(text[position : match.start()])
            if match.end() > match.start():
                pieces.append(match.group())
            position = match.end()
    except TimeoutError:
        raise ValueError(
            f"the split pattern took longer than {timeout:g} s to cut this text of "
            f"{len(text):,} characters: use a simpler pattern or a shorter text"
        ) from None
    if position < len(text):
        pieces.append(text[position:])
    return pieces


def _split_plain(
    text: str, pretokenizer: str, pattern: str | None, parts: list[str], kinds: list[PieceKind]
) -> None:
    """Append the pieces of ``text`` (which holds no special token) to ``parts``/``kinds``."""
    if pretokenizer == "bytes" and pattern is None:
        found = [text] if text else []
        parts.extend(found)
        kinds.extend([PieceKind.CHUNK] * len(found))
    elif pretokenizer == "words":
        # split() with a group alternates word, whitespace, word, ... (empty strings dropped)
        for index, part in enumerate(_WHITESPACE_RUN_GROUP.split(text)):
            if part:
                parts.append(part)
                kinds.append(PieceKind.FIXED if index % 2 else PieceKind.CHUNK)
    else:
        chosen = pattern if pattern is not None else SPLIT_PATTERNS[pretokenizer]
        if chosen in _ASCII_COMPILED:
            # The published patterns match every character, so findall() is exact.
            fast = _ASCII_COMPILED[chosen] if text.isascii() else _compiled(chosen)
            found = fast.findall(text)
        else:
            found = split_pattern(text, _compiled(chosen), timeout=run_seconds(len(text)))
        parts.extend(found)
        kinds.extend([PieceKind.CHUNK] * len(found))


# A pattern from a file is code the server runs: one that backtracks without end would keep a
# thread busy for good. So every split pattern is compiled and tried on a probe text under a
# time limit before it is used, and every later run of one has a limit too.
PROBE_SECONDS = 0.5
MAX_PATTERN_CHARS = 10_000
MAX_COMPILED_PATTERNS = 32
# Runs of every kind of character (a backtracking pattern blows up on a run of what it can
# match many ways) and a mixed sentence; no NUL, so a pattern waiting for one must give up.
_PROBE = "".join(char * 48 for char in "aZ1 \t\n.,'\"-_é日🙂\u0301") + (
    " The printer's 1234 pairs: “th”, he—in… 駅前の本屋で 🙂\r\n  end " * 8
)


def run_seconds(size: int) -> float:
    """The time limit of one split with a pattern from a file: 2 s, plus 10 s per million
    characters (the published patterns cut a million in well under one)."""
    return 2.0 + size / 100_000


def check_split_pattern(pattern: str, what: str = "split pattern") -> regex.Pattern[str]:
    """Compile ``pattern`` and try it on a probe text within ``PROBE_SECONDS``; raise a
    ``ValueError`` that names it (as ``what``: a file's other patterns are named by where
    they sit) and says why when it does not compile or is too slow.

    The verdicts on the last ``MAX_COMPILED_PATTERNS`` patterns are remembered, so the same
    file uploaded by a whole class is tried once.

    >>> check_split_pattern(r"(?:a|a)*b|.")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: the split pattern '(?:a|a)*b|.' backtracks too much (...), so it could hang ...
    """
    verdict = _verdict(pattern)
    if isinstance(verdict, str):
        name = f"'{pattern}'" if len(pattern) <= 60 else f"'{pattern[:60]}…'"
        raise ValueError(f"the {what} {name} {verdict}")
    return verdict


@functools.lru_cache(maxsize=MAX_COMPILED_PATTERNS)  # thread-safe, shared by all sessions
def _verdict(pattern: str) -> regex.Pattern[str] | str:
    """The compiled pattern, or why it is refused (after its name, in a sentence)."""
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"is {len(pattern):,} characters long: at most {MAX_PATTERN_CHARS:,} are read"
    try:
        compiled = regex.compile(pattern)
    except (regex.error, OverflowError, RecursionError, MemoryError) as error:
        return f"is not a valid regular expression ({error}): fix or remove it"
    try:
        for _ in compiled.finditer(_PROBE, timeout=PROBE_SECONDS):
            pass
    except TimeoutError:
        return (
            f"backtracks too much (a short test text took longer than {PROBE_SECONDS:g} s), "
            "so it could hang the server: use a simpler pattern"
        )
    return compiled


def _compiled(pattern: str) -> regex.Pattern[str]:
    """A pattern compiled and checked once (the published ones pass)."""
    return check_split_pattern(pattern)


def pretokenize_text(
    source: str | bytes,
    pretokenizer: str = "bytes",
    *,
    special_tokens: Iterable[str] = (),
    pattern: str | None = None,
) -> tuple[list[str], list[PieceKind]]:
    """Like :func:`pretokenize`, as two parallel lists of ``str`` parts and their kinds.

    A book has hundreds of thousands of pieces; plain lists keep cutting it cheap.
    """
    check_pretokenizer(pretokenizer)
    text = to_text(source)
    parts: list[str] = []
    kinds: list[PieceKind] = []
    for part, is_special in split_specials(text, special_tokens):
        if is_special:
            parts.append(part)
            kinds.append(PieceKind.SPECIAL)
        else:
            _split_plain(part, pretokenizer, pattern, parts, kinds)
    return parts, kinds


def pretokenize(
    source: str | bytes,
    pretokenizer: str = "bytes",
    *,
    special_tokens: Iterable[str] = (),
    pattern: str | None = None,
) -> list[Piece]:
    """Cut ``source`` into pieces, in text order; joining their bytes gives the text back.

    ``pattern`` overrides the split pattern (a minbpe model may carry its own).

    >>> [p.data for p in pretokenize("Hi there", "gpt2")]
    [b'Hi', b' there']
    >>> [(p.data, p.kind.value) for p in pretokenize("ab  c", "words")]
    [(b'ab', 'chunk'), (b'  ', 'fixed'), (b'c', 'chunk')]
    """
    parts, kinds = pretokenize_text(
        source, pretokenizer, special_tokens=special_tokens, pattern=pattern
    )
    return [Piece(to_bytes(part), kind) for part, kind in zip(parts, kinds, strict=True)]
