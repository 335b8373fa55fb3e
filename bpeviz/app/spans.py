"""HTML for tokens as coloured spans; every function returns a string for ``st.html`` and none
imports Streamlit. The rules:

- every piece of user or token text goes through :func:`html.escape` (quotes included), so a
  text containing ``<script>`` or ``<img onerror=...>`` is shown, never run;
- neighbouring tokens never share a colour (:func:`colour_indices`); the palette is light
  tints of the colour-blind-safe Okabe–Ito colours, each span with a thin darker border, so
  boundaries stay visible even for readers who cannot tell two tints apart;
- whitespace is visible (``␣ ↵ ⇥``), and a newline also breaks the line so the text keeps
  its shape; bytes that are only part of a character show as hex (``<E3><81>``), and a run
  of such tokens that together make whole characters can be grouped under those characters;
- a token's hover title says its id, its bytes in hex and where it came from (the merge that
  made it, a single byte, a special token).

Two kinds of input become :class:`TokenView` lists: a training text cut at byte offsets
(:func:`segment_views`, for the Step page) and a list of ids (:func:`id_views`, for any
tokenizer). Which tokens to outline is :mod:`bpeviz.app.marks`.
"""

from __future__ import annotations

import contextlib
import functools
import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from bpeviz.corpus import base_size
from bpeviz.readable import hex_bytes, readable, split_utf8
from bpeviz.token_info import rank_origin, special_title, token_title, trained_origin
from bpeviz.tokenizer import Tokenizer

# Okabe–Ito colours as light tints (35% colour on white) with the full colour as border,
# ordered so that consecutive entries are far apart in hue.
PALETTE: tuple[tuple[str, str], ...] = (
    ("#F6DDA6", "#B07A00"),  # orange
    ("#A6CEE4", "#0072B2"),  # blue
    ("#FAF6BD", "#9C9000"),  # yellow
    ("#EDD0E0", "#B0608C"),  # reddish purple
    ("#A6DDCE", "#007A59"),  # bluish green
    ("#F0C7A6", "#C05500"),  # vermillion
    ("#C4E5F7", "#3A8FC0"),  # sky blue
    ("#E2E2E2", "#6E6E6E"),  # grey
)


@dataclass(frozen=True, slots=True)
class TokenView:
    """One token as drawn: its id, the bytes it covers, and its hover title.

    ``marker`` draws a ``</w>`` after the text (the token ends a word in ``</w>`` mode);
    ``special`` draws it as a special token (dashed border, never split).
    """

    token_id: int
    data: bytes
    title: str
    special: bool = False
    marker: bool = False


def esc(text: str) -> str:
    """HTML-escape text for element content and attribute values (quotes included)."""
    return html.escape(text, quote=True)


def token_label(tokenizer: Tokenizer, token_id: int) -> str:
    """Readable text of a token of ``tokenizer`` (``</w>`` shown as such), not yet escaped."""
    return readable(tokenizer.token_bytes(token_id))


def quoted(text: str) -> str:
    """``“text”``: how tokens are named in sentences."""
    return f"“{text}”"


def colour_indices(ids: Sequence[int] | np.ndarray, palette_size: int = len(PALETTE)) -> list[int]:
    """A palette index per token: the same id usually keeps its colour, neighbours never share.

    >>> colour_indices([97, 97, 97, 98])
    [1, 2, 1, 2]
    """
    colours: list[int] = []
    previous = -1
    for token_id in ids:
        colour = int(token_id) % palette_size
        if colour == previous:
            colour = (colour + 1) % palette_size
        colours.append(colour)
        previous = colour
    return colours


def segment_views(
    text: bytes,
    starts: np.ndarray,
    ends: np.ndarray,
    ids: np.ndarray,
    tokenizer: Tokenizer,
    *,
    base: int,
    lo: int = 0,
    hi: int | None = None,
) -> list[TokenView]:
    """Views of tokens ``lo..hi`` of a training text cut at byte offsets ``[starts, ends)``.

    The text shown is the token's own stretch of the text; a token whose bytes are longer
    (it includes the zero-width ``</w>`` marker) gets ``marker=True``.
    """
    hi = len(ids) if hi is None else hi
    origin = trained_origin(base)
    made: dict[tuple[int, bytes], TokenView] = {}  # a text repeats its tokens: build each once
    views: list[TokenView] = []
    for start, end, token_id in zip(
        starts[lo:hi].tolist(), ends[lo:hi].tolist(), ids[lo:hi].tolist(), strict=True
    ):
        data = text[start:end]
        view = made.get((token_id, data))
        if view is None:
            view = made[token_id, data] = _view(tokenizer, token_id, data, origin)
        views.append(view)
    return views


def _view(
    tokenizer: Tokenizer, token_id: int, data: bytes, origin: Callable[[int], str]
) -> TokenView:
    """One token showing ``data``; ``marker`` when its bytes differ (``</w>``, or special)."""
    if tokenizer.is_special(token_id):
        return TokenView(token_id, data, special_title(token_id), True)
    full = tokenizer.token_bytes(token_id)
    return TokenView(
        token_id, data, token_title(token_id, full, origin(token_id)), marker=len(full) != len(data)
    )


def id_views(
    tokenizer: Tokenizer, ids: Sequence[int], *, origin: Callable[[int], str] | None = None
) -> list[TokenView]:
    """Views of a list of ids: each shows the bytes it decodes to (``</w>`` as a marker)."""
    if origin is None:
        origin = (
            rank_origin
            if tokenizer.ranks is not None
            else trained_origin(base_size(tokenizer.end_of_word))
        )
    return [
        _view(
            tokenizer,
            token_id,
            tokenizer.token_bytes(token_id)
            if tokenizer.is_special(token_id)
            else tokenizer.decode_bytes([token_id]),
            origin,
        )
        for token_id in ids
    ]


@functools.lru_cache(maxsize=1 << 16)
def visible_html(data: bytes) -> tuple[str, int]:
    """Escaped, visible-whitespace HTML of some bytes, and how many newlines they hold.

    Bytes that are not whole UTF-8 characters become hex in a ``bpe-hex`` span. Cached: a
    text of thousands of tokens holds a few hundred distinct ones, and every step redraws it.

    >>> visible_html(b"a <b>\\n")
    ('a␣&lt;b&gt;↵', 1)
    """
    parts: list[str] = []
    newlines = 0
    for run, valid in split_utf8(data):
        if valid:
            parts.append(esc(readable(run.encode("utf-8"))))
            newlines += run.count("\n")
        else:
            raw = run.encode("utf-8", errors="surrogateescape")
            parts.append(f'<span class="bpe-hex">{esc(hex_bytes(raw))}</span>')
    return "".join(parts), newlines


def char_groups(chunks: Sequence[bytes]) -> list[tuple[int, int, str]]:
    """Runs of tokens that only together make whole characters: ``(first, last+1, text)``.

    A boundary between two tokens is clean when it falls between two UTF-8 characters;
    a group is a run of two or more tokens whose inner boundaries all cut a character, and
    whose bytes together decode. Its text is what the run spells.

    >>> char_groups([b"a", "駅".encode()[:1], "駅".encode()[1:], b"b"])
    [(1, 3, '駅')]
    """
    groups: list[tuple[int, int, str]] = []
    run_start = 0
    for index in range(1, len(chunks) + 1):
        clean = index == len(chunks) or not chunks[index] or not 0x80 <= chunks[index][0] < 0xC0
        if not clean:
            continue
        if index - run_start >= 2:
            joined = b"".join(chunks[run_start:index])
            with contextlib.suppress(UnicodeDecodeError):
                groups.append((run_start, index, joined.decode("utf-8")))
        run_start = index
    return groups


def tokens_html(
    views: Sequence[TokenView],
    *,
    marks: Sequence[str] | None = None,
    show: str = "text",
    group_chars: bool = True,
    css_class: str = "",
) -> str:
    """Coloured spans for ``views`` in one ``<div class="bpe-text">``.

    ``marks`` (one per view: ``""`` or a ``MARK_*`` class of :mod:`bpeviz.app.marks`)
    outlines the pair about to merge or the new token. ``show="ids"`` writes each token's id
    instead of its text (same colours, same line breaks). With ``group_chars``, tokens that
    split a character are grouped under it.
    """
    if show not in ("text", "ids"):
        raise ValueError(f"show must be 'text' or 'ids', got {show!r}")
    colours = colour_indices([view.token_id for view in views])
    groups = {start: (end, text) for start, end, text in char_groups([v.data for v in views])}
    out: list[str] = [
        f'<div class="bpe-text {esc(css_class)}">' if css_class else '<div class="bpe-text">'
    ]
    group_end = -1
    pending_breaks = 0
    titles: dict[str, str] = {}  # escaped hover titles, one per distinct token
    for index, view in enumerate(views):
        if index == group_end:
            out.append("</span>")
            group_end = -1
        if group_end < 0 and pending_breaks:
            out.append("<br>" * pending_breaks)
            pending_breaks = 0
        if group_chars and index in groups and show == "text":
            end, text = groups[index]
            group_end = end
            out.append(
                f'<span class="bpe-g" data-char="{esc(readable(text.encode("utf-8")))}" '
                f'title="{esc(f"{end - index} tokens spell {readable(text.encode())}")}">'
            )
        mark = marks[index] if marks is not None else ""
        classes = ["bpe-t", f"bpe-c{colours[index]}"]
        if view.special:
            classes = ["bpe-t", "bpe-special"]
        if mark:
            classes.append(f"bpe-{mark}")
        content, newlines = visible_html(view.data)
        if show == "ids":
            content = str(view.token_id)
        elif view.marker:
            content += '<span class="bpe-eow">&lt;/w&gt;</span>'
        if not content:
            content = "&#8203;"
        title = titles.get(view.title)
        if title is None:
            title = titles[view.title] = esc(view.title)
        out.append(f'<span class="{" ".join(classes)}" title="{title}">{content}</span>')
        pending_breaks += newlines
    if group_end >= 0:
        out.append("</span>")
    if pending_breaks:
        out.append("<br>" * pending_breaks)
    out.append("</div>")
    return "".join(out)


def chip_html(text_label: str, token_id: int, *, colour: int, new: bool = False) -> str:
    """A big token chip with its id under it, for the merge card."""
    extra = " bpe-new" if new else ""
    return (
        f'<span class="bpe-chipbox"><span class="bpe-chip bpe-c{colour}{extra}">'
        f'{esc(text_label) or "&#8203;"}</span><span class="bpe-chipid">id {token_id}</span></span>'
    )
