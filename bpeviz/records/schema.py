"""The names of the browser's records: what each place of a vocabulary entry, a merge and a
pair-table row holds, the kinds of token and of a token's outline, and the one builder of a
vocabulary entry.

Both records (:func:`bpeviz.records.step.payload`, :func:`bpeviz.records.tokens.tokens_data`) send
lists, not objects: a record of thousands of tokens would otherwise repeat each field's name
thousands of times. The browser reads them by name all the same, through index constants that
:func:`bpeviz.web.constants` writes from the tuples here, so Python and JavaScript cannot drift
apart. What is left out: which record holds which list (each record's module says so).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from typing import Any

from bpeviz.engine.pretokenize import END_OF_WORD, to_bytes
from bpeviz.engine.readable import hex_bytes, readable, split_utf8
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.records.token_info import special_title, token_title

SCHEMA = 1  # bump when a record's layout changes: the browser refuses another version

# A vocabulary entry, per token id: its readable text as runs (see label_runs), hover title,
# kind, its bytes in hex when they are not whole UTF-8 characters (else ""), how many line
# breaks follow it, and all its bytes in hex (``</w>`` included).
VOCAB_FIELDS = ("label", "title", "kind", "broken", "newlines", "hex")
MERGE_FIELDS = ("left", "right", "made", "count", "replacements")  # stepdata's ``merges``
TOP_FIELDS = ("left", "right", "count")  # one row of a flattened pair table (``tops``)
# A WordPiece record's row of ``tops``: the pair, its count and its tokens' counts (its score is
# count / (left_count x right_count)); the first three places are TOP_FIELDS'.
SCORE_TOP_FIELDS = (*TOP_FIELDS, "left_count", "right_count")
SENTENCE_FIELDS = ("counts", "tie")  # stepdata's ``sentences``: what a merge did, its tie
PARENT_FIELDS = ("left", "right", "number")  # tokendata's ``parents``
START_FIELDS = ("counts", "first_merge")  # stepdata's ``start``: the text before any merge
JOINED = 1  # ``broken`` of a merged token left to the browser: its joined hex, as ``hex``
END_OF_WORD_BYTES = to_bytes(END_OF_WORD)


def row(fields: tuple[str, ...], **values: Any) -> list[Any]:
    """A record's row of ``fields``, each given by name, in the fields' order (their one
    source).

    >>> row(TOP_FIELDS, count=3, left=97, right=98)
    [97, 98, 3]
    """
    if len(values) != len(fields):
        raise ValueError(f"a row of {fields} was given {tuple(values)}")
    return [values[name] for name in fields]


def named(fields: tuple[str, ...], values: list[Any]) -> dict[str, Any]:
    """A record's row of ``fields`` by name, as the browser reads it.

    >>> named(PARENT_FIELDS, [97, 98, 1])
    {'left': 97, 'right': 98, 'number': 1}
    """
    return dict(zip(fields, values, strict=True))


class Kind(IntEnum):
    """What a token is, for drawing: plain, ending in ``</w>`` (drawn apart), special, or a
    WordPiece continuation (its label without ``##``, which is drawn apart)."""

    PLAIN = 0
    END_OF_WORD = 1
    SPECIAL = 2
    CONTINUATION = 3


class Mark:
    """How a token is outlined (a tokens record's ``marks``; the step view's ``viewAt``): the
    CSS class ``bpe-<mark>`` of its span; no mark is ``""``. Plain strings, as they are sent.
    """

    PAIR_START = "ps"  # left token of an occurrence of the pair about to merge
    PAIR_END = "pe"  # right token of it
    NEW = "new"  # a token the merge just made


def label_runs(data: bytes) -> str | list[str]:
    """A token's text as the browser draws it: one string when it is whole characters, else
    runs alternating text and hex (the hex ones drawn smaller, as bytes).

    >>> label_runs(b" a\\n"), label_runs("あ".encode()[:2] + b"b")
    ('␣a↵', ['', '<E3><81>', 'b'])
    """
    runs: list[str] = []
    for run, valid in split_utf8(data):
        if valid:
            text = readable(run.encode("utf-8"))
            if len(runs) % 2 == 0:
                runs.append(text)
            else:
                runs[-1] += text
        else:
            if len(runs) % 2 == 0:
                runs.append("")
            runs.append(hex_bytes(run.encode("utf-8", errors="surrogateescape")))
    if len(runs) <= 1:
        return runs[0] if runs else ""
    return runs


def whole_characters(data: bytes) -> bool:
    """Whether ``data`` is whole UTF-8 characters (a token that is not is grouped with its
    neighbours under the character they spell)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def vocab_entry(
    tokenizer: Tokenizer, token_id: int, origin: Callable[[int], str], *, spell: bool = True
) -> list[Any]:
    """The vocabulary entry of one token (:data:`VOCAB_FIELDS`), every field given;
    ``origin`` says where a token came from for its title (``bpeviz.records.token_info``);
    ``spell=False`` leaves its label ``None`` (for the browser to join).

    >>> from bpeviz.records.token_info import trained_origin
    >>> vocab_entry(Tokenizer.from_merges([(97, 98)]), 256, trained_origin(256))
    ['ab', 'id 256 · bytes 61 62 · made by merge 1', 0, '', 0, '6162']
    """
    data = tokenizer.token_bytes(token_id)
    if tokenizer.is_special(token_id):
        return entry(data, special_title(token_id), special=True)
    title = token_title(token_id, data, origin(token_id))
    return entry(data, title, end_of_word=tokenizer.end_of_word, spell=spell)


def entry(
    data: bytes,
    title: str,
    *,
    special: bool = False,
    end_of_word: bool = False,
    spell: bool = True,
    continuation: bool = False,
) -> list[Any]:
    """The vocabulary entry of a token of these bytes (:data:`VOCAB_FIELDS`): the one place
    one is built. ``end_of_word``: a trailing ``</w>`` is drawn apart (the tokenizer uses it).
    ``spell=False``: the label is ``None``, not made readable (a token as long as a whole
    text costs a microsecond a byte to spell out, and the browser joins its parents').
    ``continuation``: a WordPiece token inside a word, ``data`` without its ``##``.

    >>> entry(b"ab</w>", "t", end_of_word=True), entry(b"<|x|>", "s", special=True)
    (['ab', 't', 1, '', 0, '61623c2f773e'], ['<|x|>', 's', 2, '', 0, '3c7c787c3e'])
    """
    if special:
        shown, kind, broken = data, Kind.SPECIAL, ""
    else:
        shown, kind = data, Kind.PLAIN
        if end_of_word and data.endswith(END_OF_WORD_BYTES):
            shown, kind = data[: -len(END_OF_WORD_BYTES)], Kind.END_OF_WORD
        elif continuation:
            kind = Kind.CONTINUATION
        broken = "" if whole_characters(shown) else shown.hex()
    return row(
        VOCAB_FIELDS,
        label=label_runs(shown) if spell else None,
        title=title,
        kind=kind.value,
        broken=broken,
        newlines=0 if special else shown.count(b"\n"),
        hex=data.hex(),
    )
