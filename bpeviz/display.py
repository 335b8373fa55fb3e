"""HTML for tokens: coloured spans, the merge card, the encoding trace, and their stylesheet.

Every function returns a string of HTML for ``st.html``; none imports Streamlit. The rules:

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
tokenizer). What is left out: choosing which tokens to show (pages and ``bpeviz.tables``).
"""

from __future__ import annotations

import contextlib
import functools
import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from bpeviz.corpus import END_OF_WORD_ID
from bpeviz.readable import counted, hex_bytes, readable, split_utf8
from bpeviz.tokenizer import Tokenizer, TraceStep
from bpeviz.trainer import MergeStep, Pair

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
MARK_PAIR_START = "ps"  # left token of an occurrence of the pair about to merge
MARK_PAIR_END = "pe"  # right token of it
MARK_NEW = "new"  # a token the merge just made
MARKS = ("", MARK_PAIR_START, MARK_PAIR_END, MARK_NEW)
MAX_TITLE_BYTES = 32


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


def label(data: bytes) -> str:
    """A token's bytes as readable text (``␣the``, ``<E3><81>``), not yet escaped."""
    return readable(data)


def token_label(tokenizer: Tokenizer, token_id: int) -> str:
    """Readable text of a token of ``tokenizer`` (``</w>`` shown as such), not yet escaped."""
    return readable(tokenizer.token_bytes(token_id))


def quoted(text: str) -> str:
    """``“text”``: how tokens are named in sentences."""
    return f"“{text}”"


def hex_title(data: bytes) -> str:
    """Bytes as ``68 65 6C`` for a hover title (long tokens are cut with ``…``)."""
    shown = " ".join(f"{value:02X}" for value in data[:MAX_TITLE_BYTES])
    return shown + (" …" if len(data) > MAX_TITLE_BYTES else "")


# ---- colours ----------------------------------------------------------------------------


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


# ---- views ------------------------------------------------------------------------------


def trained_origin(base: int) -> Callable[[int], str]:
    """Where a token of our own training came from, for hover titles."""

    def origin(token_id: int) -> str:
        if token_id < 256:
            return "a single byte"
        if base > 256 and token_id == END_OF_WORD_ID:
            return "the </w> end-of-word marker"
        return f"made by merge {token_id - base + 1}"

    return origin


def rank_origin(token_id: int) -> str:
    """Origin for a rank-table tokenizer (``cl100k_base``): the rank is the id."""
    return f"rank {token_id}"


def _title(token_id: int, data: bytes, origin: str) -> str:
    if not data:
        return f"id {token_id} · {origin}"
    return f"id {token_id} · bytes {hex_title(data)} · {origin}"


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
        return TokenView(token_id, data, f"id {token_id} · special token", True)
    full = tokenizer.token_bytes(token_id)
    return TokenView(
        token_id, data, _title(token_id, full, origin(token_id)), marker=len(full) != len(data)
    )


def id_views(
    tokenizer: Tokenizer, ids: Sequence[int], *, origin: Callable[[int], str] | None = None
) -> list[TokenView]:
    """Views of a list of ids: each shows the bytes it decodes to (``</w>`` as a marker)."""
    if origin is None:
        origin = (
            rank_origin
            if tokenizer.ranks is not None
            else trained_origin(257 if tokenizer.end_of_word else 256)
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


# ---- spans ------------------------------------------------------------------------------


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

    ``marks`` (one per view, from :data:`MARKS`) outlines the pair about to merge or the new
    token. ``show="ids"`` writes each token's id instead of its text (same colours, same
    line breaks). With ``group_chars``, tokens that split a character are grouped under it.
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


def pair_marks(
    before_starts: np.ndarray,
    before_ends: np.ndarray,
    after_starts: np.ndarray,
    after_ends: np.ndarray,
    after_ids: np.ndarray,
    new_id: int,
) -> list[str]:
    """Marks for the tokens *before* a merge: the two halves of each occurrence it merges.

    Exact by construction: the occurrences replaced are the spans of the new token after the
    merge, so a token before it is a left half when it starts where a new token starts.
    """
    made = after_ids == new_id
    left = np.isin(before_starts, after_starts[made])
    right = np.isin(before_ends, after_ends[made])
    marks = np.full(len(before_starts), "", dtype=object)
    marks[left] = MARK_PAIR_START
    marks[right & ~left] = MARK_PAIR_END
    return marks.tolist()


def new_marks(ids: np.ndarray, new_id: int | None) -> list[str]:
    """Marks for the tokens *after* a merge: every token it made."""
    marks = np.full(len(ids), "", dtype=object)
    if new_id is not None:
        marks[ids == new_id] = MARK_NEW
    return marks.tolist()


def window(count: int, focus: int | None, size: int) -> tuple[int, int]:
    """Which tokens to draw when there are too many: ``[lo, hi)`` of at most ``size``.

    The window starts a little before ``focus`` (say, the first highlighted token).

    >>> window(100, None, 40), window(100, 90, 40), window(10, 5, 40)
    ((0, 40), (60, 100), (0, 10))
    """
    if count <= size:
        return 0, count
    lo = 0 if focus is None else max(0, focus - size // 10)
    lo = min(lo, count - size)
    return lo, lo + size


# Scrolls each token box that carries ``data-focus`` to its first outlined token, once per
# new value of ``data-focus`` (the step shown), and only when that token is out of sight:
# at merge 150 the first place it applies can sit hundreds of lines down. Constant text: no
# user or token text ever goes into it, so it is the only script the app runs.
FOCUS_SCRIPT = """<script>
(() => {
  if (window.bpevizFocus) return;
  window.bpevizFocus = true;
  const focus = () => {
    for (const box of document.querySelectorAll(".bpe-scroll[data-focus]")) {
      if (box.dataset.focused === box.dataset.focus) continue;
      box.dataset.focused = box.dataset.focus;
      const mark = box.querySelector(".bpe-new, .bpe-ps");
      if (!mark) continue;
      const top = mark.getBoundingClientRect().top - box.getBoundingClientRect().top;
      if (top + mark.offsetHeight > box.clientHeight) {
        box.scrollTop += top - box.clientHeight / 4;
      }
    }
  };
  new MutationObserver(focus).observe(document.body, {childList: true, subtree: true});
  focus();
})();
</script>"""


def first_marked(marks: Sequence[str]) -> int | None:
    """Index of the first marked token, if any."""
    for index, mark in enumerate(marks):
        if mark:
            return index
    return None


# ---- the merge card ---------------------------------------------------------------------


def chip_html(text_label: str, token_id: int, *, colour: int, new: bool = False) -> str:
    """A big token chip with its id under it, for the merge card."""
    extra = " bpe-new" if new else ""
    return (
        f'<span class="bpe-chipbox"><span class="bpe-chip bpe-c{colour}{extra}">'
        f'{esc(text_label) or "&#8203;"}</span><span class="bpe-chipid">id {token_id}</span></span>'
    )


def pair_text(tokenizer: Tokenizer, pair: Pair) -> str:
    """``“h” + “e”``, not escaped."""
    return f"{quoted(token_label(tokenizer, pair[0]))} + {quoted(token_label(tokenizer, pair[1]))}"


RULE_REASONS: dict[str, str] = {
    "first": "because it appears first in the text",
    "lexmin": "because its token ids are the smallest (left id first, then right id)",
    "lexmax": "because its token ids are the largest (left id first, then right id)",
}


def tie_sentence(
    step: MergeStep, tokenizer: Tokenizer, all_tied: Sequence[Pair] | None = None
) -> str | None:
    """Plain text saying which pairs tied and why the rule picked this one (None: no tie).

    ``all_tied`` is every tied pair (``History.tied_pairs``) when the step recorded only the
    first few (``more_tied``).
    """
    tied = list(all_tied) if all_tied else list(step.tied)
    if len(tied) < 2:
        return None
    shown = tied[:5]
    listed = ", ".join(f"({pair_text(tokenizer, pair)})" for pair in shown)
    if len(tied) > len(shown):
        listed += f" and {len(tied) - len(shown):,} more"
    elif step.more_tied and not all_tied:
        listed += " and more"
    how_many = (
        f"At least {len(tied) + 1:,}" if step.more_tied and not all_tied else f"{len(tied):,}"
    )
    reason = RULE_REASONS.get(step.rule, f"by the rule {step.rule!r}")
    return (
        f"{how_many} pairs occurred {step.count:,} times each: {listed}. "
        f"The rule “{step.rule}” picked {pair_text(tokenizer, step.pair)} {reason}."
    )


def count_sentence(step: MergeStep, tokens_before: int) -> str:
    """How often the pair occurred, how many were replaced, and the token count change."""
    times = "once" if step.count == 1 else f"{step.count:,} times"
    if step.replacements == step.count:
        replaced = "all of them were replaced" if step.count > 1 else "it was replaced"
    else:
        replaced = (
            f"some occurrences overlap (as in “aaa”, which holds “a” + “a” twice but can only "
            f"be merged once), so {step.replacements:,} were replaced, left to right"
        )
    return (
        f"The pair occurred {times}; {replaced}. The text went from {tokens_before:,} to "
        f"{step.tokens_after:,} tokens."
    )


def merge_card_html(
    step: MergeStep,
    tokenizer: Tokenizer,
    *,
    merge_total: int,
    tokens_before: int,
    all_tied: Sequence[Pair] | None = None,
) -> str:
    """The merge at the heart of step ``k``: the two parents, the new token, and why."""
    left, right = step.pair
    # Each chip in its id's own colour: in ``a + a`` both halves are the same token and look
    # it (only neighbours in running text are forced apart).
    equation = (
        chip_html(token_label(tokenizer, left), left, colour=left % len(PALETTE))
        + '<span class="bpe-op">+</span>'
        + chip_html(token_label(tokenizer, right), right, colour=right % len(PALETTE))
        + '<span class="bpe-op">→</span>'
        + chip_html(
            token_label(tokenizer, step.new_id),
            step.new_id,
            colour=step.new_id % len(PALETTE),
            new=True,
        )
    )
    headline = f"Merge {step.step:,} of {merge_total:,}"
    parts = [
        '<div class="bpe-card">',
        f'<div class="bpe-card-title">{esc(headline)}</div>',
        f'<div class="bpe-eq">{equation}</div>',
        f"<p>{esc(count_sentence(step, tokens_before))}</p>",
    ]
    tie = tie_sentence(step, tokenizer, all_tied)
    if tie:
        parts.append(f'<p class="bpe-tie"><b>Tie.</b> {esc(tie)}</p>')
    parts.append("</div>")
    return "".join(parts)


def start_sentence(
    text_bytes: int, tokens: int, *, end_of_word: bool = False, specials: bool = False
) -> str:
    """What step 0 is: one token per byte, and why the count differs when it does.

    >>> start_sentence(1, 1)
    'The text is 1 byte: 1 token, one per byte.'
    >>> start_sentence(15, 19, end_of_word=True)
    'The text is 15 bytes: 19 tokens, one per byte plus a </w> marker after each word.'
    """
    each = "one per byte"
    if tokens != text_bytes:
        each += " plus a </w> marker after each word" if end_of_word else ""
        each += ", a special token counting as one" if specials else ""
    return f"The text is {counted(text_bytes, 'byte')}: {counted(tokens, 'token')}, {each}."


def start_card_html(
    *, text_bytes: int, tokens: int, first: MergeStep | None, tokenizer: Tokenizer
) -> str:
    """Step 0: the text as bytes, and which pair merge 1 will join."""
    start = start_sentence(
        text_bytes,
        tokens,
        end_of_word=tokenizer.end_of_word,
        specials=bool(tokenizer.special_tokens),
    )
    parts = [
        '<div class="bpe-card">',
        '<div class="bpe-card-title">Step 0: no merges yet</div>',
        f"<p>{esc(start)}</p>",
    ]
    if first is not None:
        sentence = (
            f"Merge 1 will join {pair_text(tokenizer, first.pair)}, the most frequent pair "
            f"({first.count:,} times). Its occurrences are outlined below."
        )
        parts.append(f"<p>{esc(sentence)}</p>")
    else:
        parts.append("<p>No pair of tokens occurs in this text, so there is nothing to merge.</p>")
    parts.append("</div>")
    return "".join(parts)


def _whole_characters(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def legend_html(*, mark: str | None, views: Sequence[TokenView] | None = None) -> str:
    """A one-line key to the spans: what an outline, a dashed border, hex and ␣ ↵ mean.

    Given the ``views`` drawn, it keys only what they hold: no "special token" entry for a
    text without one, no hex entry for a text whose tokens are all whole characters.
    """
    specials = views is None or any(view.special for view in views)
    partial = views is None or not all(_whole_characters(view.data) for view in views)
    items = []
    if mark == "pair":
        items.append(
            '<span class="bpe-t bpe-c0 bpe-ps">a</span><span class="bpe-t bpe-c1 bpe-pe">b</span>'
            " the pair about to merge"
        )
    elif mark == "new":
        items.append('<span class="bpe-t bpe-c0 bpe-new">ab</span> the new token')
    if specials:
        items.append('<span class="bpe-t bpe-special">&lt;|x|&gt;</span> special token')
    if partial:
        items.append(
            '<span class="bpe-t bpe-c2"><span class="bpe-hex">&lt;E3&gt;</span></span>'
            " a byte that is only part of a character"
        )
    items.append("␣ space · ↵ newline · ⇥ tab")
    return '<div class="bpe-legend">' + "".join(f"<span>{item}</span>" for item in items) + "</div>"


# ---- "why was this word split like this?" -------------------------------------------------


@dataclass(frozen=True)
class TraceRow:
    """One merge rule applied to a piece: every place it joined, and the tokens after."""

    rank: int
    left: int
    right: int
    new_positions: tuple[int, ...]  # where the new token sits in ``tokens_after``
    tokens_after: tuple[int, ...]

    @property
    def places(self) -> int:
        return len(self.new_positions)


def trace_rows(trace: Sequence[TraceStep]) -> list[TraceRow]:
    """The trace with each run of the same merge folded into one row.

    The encoder joins one pair at a time (leftmost first, as tiktoken does), so a merge that
    applies at four places is four trace steps; tutorials (and minbpe's loop) show it as one
    step that replaces every occurrence. Folding gives that view without losing a place.

    >>> t = [TraceStep(0, 97, 97, 256, 0, (256, 97, 97)), TraceStep(0, 97, 97, 256, 1, (256, 256))]
    >>> trace_rows(t)[0].new_positions, trace_rows(t)[0].tokens_after
    ((0, 1), (256, 256))
    """
    rows: list[TraceRow] = []
    for step in trace:
        previous = rows[-1] if rows else None
        if previous is None or previous.rank != step.rank:
            rows.append(TraceRow(step.rank, step.left, step.right, (), ()))
            previous = rows[-1]
        kept: list[int] = []
        for position in previous.new_positions:
            if position < step.position:
                kept.append(position)
            elif position > step.position + 1:
                kept.append(position - 1)  # one token fewer before it
            # a marked token joined again is covered by the new mark at step.position
        rows[-1] = TraceRow(
            step.rank,
            step.left,
            step.right,
            tuple(sorted({*kept, step.position})),
            step.tokens_after,
        )
    return rows


def trace_html(
    tokenizer: Tokenizer,
    word: bytes,
    trace: Sequence[TraceStep],
    *,
    rank_label: Callable[[int], str],
    max_steps: int = 80,
) -> str:
    """The merges that build ``word``, one row per merge rule: the rule and the tokens after.

    The first row is the word as bytes (plus ``</w>``); each later row outlines every token
    that merge made (see :func:`trace_rows`). ``rank_label(rank)`` names a merge
    (``merge 14``, ``rank 1917``).
    """
    start_ids = [tokenizer.byte_ids[value] for value in word]
    if tokenizer.end_of_word and tokenizer.ranks is None:
        start_ids.append(END_OF_WORD_ID)
    rows = [_trace_row("start", tokenizer, start_ids, ())]
    folded = trace_rows(trace)
    for row in folded[:max_steps]:
        name = (
            f"{rank_label(row.rank)}: {quoted(token_label(tokenizer, row.left))} + "
            f"{quoted(token_label(tokenizer, row.right))}"
        )
        if row.places > 1:
            name += f", at {row.places} places"
        rows.append(_trace_row(name, tokenizer, list(row.tokens_after), row.new_positions))
    if len(folded) > max_steps:
        rows.append(
            f'<div class="bpe-trace-row"><span class="bpe-trace-label">'
            f"… {len(folded) - max_steps:,} more merges not shown</span></div>"
        )
    return '<div class="bpe-trace">' + "".join(rows) + "</div>"


def _trace_row(name: str, tokenizer: Tokenizer, ids: list[int], new: Sequence[int]) -> str:
    views = id_views(tokenizer, ids)
    marks = ["" for _ in views]
    for position in new:
        if position < len(marks):
            marks[position] = MARK_NEW
    spans = tokens_html(views, marks=marks, group_chars=False, css_class="bpe-inline")
    return (
        f'<div class="bpe-trace-row"><span class="bpe-trace-label">{esc(name)}</span>{spans}</div>'
    )


# ---- stylesheet -------------------------------------------------------------------------


# Below this width (the main area's, sidebar or not) side-by-side panes stack; see ui.columns.
STACK_BELOW_PX = 640


def stylesheet(*, presentation: bool = False) -> str:
    """The ``<style>`` for every class above (bigger and bolder in presentation mode)."""
    text_size = "1.45rem" if presentation else "0.98rem"
    chip_size = "2.6rem" if presentation else "1.7rem"
    colours = "".join(
        f".bpe-c{i}{{background:{bg};border-color:{border};}}"
        for i, (bg, border) in enumerate(PALETTE)
    )
    css = f"""
.bpe-text{{font-family:"DejaVu Sans Mono","Noto Sans Mono CJK JP","Noto Sans CJK JP",
 ui-monospace,monospace;font-size:{text_size};line-height:2.05;color:#111;
 overflow-wrap:anywhere;}}
.bpe-scroll{{max-height:{"62vh" if presentation else "460px"};overflow-y:auto;
 padding:6px 8px;border:1px solid #c8c8c8;border-radius:6px;background:#fff;}}
.bpe-inline{{display:inline;line-height:1.9;}}
.bpe-t{{display:inline-block;border:1px solid #888;border-radius:3px;padding:0 2px;
 margin:1px 2px 1px 0;color:#111;white-space:pre-wrap;max-width:100%;overflow-wrap:anywhere;
 line-height:1.5;vertical-align:bottom;}}
{colours}
.bpe-hex{{font-size:.78em;color:#5b2a00;letter-spacing:-.02em;}}
.bpe-eow{{font-size:.68em;color:#444;margin-left:1px;}}
.bpe-special{{background:#fff;border:2px dashed #222;font-weight:600;}}
.bpe-special::before{{content:"special ";font-size:.62em;font-weight:400;color:#444;}}
.bpe-ps{{border:3px solid #000;border-right:1px dotted #000;margin-right:0;
 border-radius:4px 0 0 4px;}}
.bpe-pe{{border:3px solid #000;border-left:0;border-radius:0 4px 4px 0;}}
.bpe-new{{border:3px solid #000;font-weight:700;box-shadow:0 0 0 2px #fff inset;}}
.bpe-g{{display:inline-block;position:relative;padding-top:1.1em;margin:.15em 2px 0 0;
 white-space:nowrap;vertical-align:bottom;line-height:1.5;}}
.bpe-g::before{{content:attr(data-char);position:absolute;top:0;left:0;right:2px;
 text-align:center;font-size:.72em;line-height:1.3;color:#111;border-top:1px solid #777;}}
.bpe-card{{border:1px solid #bbb;border-radius:8px;padding:10px 16px;background:#fafafa;
 min-height:{"10rem" if presentation else "9.5rem"};color:#111;
 font-size:{"1.35rem" if presentation else "1rem"};}}
.bpe-card p{{margin:.35em 0;}}
.bpe-card-title{{font-weight:700;font-size:1.05em;margin-bottom:.25em;}}
.bpe-eq{{display:flex;flex-wrap:wrap;align-items:flex-start;gap:.5rem;margin:.3em 0 .4em;}}
.bpe-chipbox{{display:inline-flex;flex-direction:column;align-items:center;}}
.bpe-chip{{font-family:"DejaVu Sans Mono","Noto Sans Mono CJK JP",monospace;
 font-size:{chip_size};border:1px solid #888;border-radius:6px;padding:0 .3em;
 white-space:pre;line-height:1.35;}}
.bpe-chipid{{font-size:.8em;color:#333;}}
.bpe-op{{font-size:{chip_size};line-height:1.35;color:#222;}}
.bpe-tie{{background:#fff4d6;border-left:4px solid #B07A00;padding:.2em .5em;}}
.bpe-legend{{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;font-size:.85rem;color:#222;
 margin:.2rem 0 .4rem;align-items:center;}}
.bpe-legend .bpe-t{{font-size:.85rem;}}
.bpe-caption{{margin:0;color:#333;font-size:.95rem;}}
.bpe-trace{{font-size:{text_size};}}
.bpe-trace-row{{padding:.2rem 0 .3rem;border-bottom:1px solid #e4e4e4;}}
.bpe-trace-label{{display:block;font-family:sans-serif;font-size:.78em;color:#333;}}
[class*="st-key-stack_"]{{container-type:inline-size;}}
@container (max-width:{STACK_BELOW_PX}px){{
 [class*="st-key-stack_"] [data-testid="stHorizontalBlock"]{{flex-wrap:wrap;}}
 [class*="st-key-stack_"] [data-testid="stColumn"]{{flex:1 1 100% !important;min-width:100%;}}
 [class*="st-key-stack_pairs"] [data-testid="stColumn"]{{flex:1 1 40% !important;min-width:40%;}}
}}
"""
    if presentation:
        css += """
[data-testid="stToolbarActions"],[data-testid="stMainMenu"],[data-testid="stAppDeployButton"],
[data-testid="stDecoration"],[data-testid="stStatusWidget"]{display:none;}
.stMainBlockContainer{padding-top:2.2rem;}
.stMain h1{font-size:2.6rem;}
.stMain p,.stMain li,.stMain label{font-size:1.2rem;}
.stMain textarea{font-size:1.2rem;}
.stMain [data-testid="stMetricValue"] p{font-size:2.6rem;}
.stMain [data-testid="stMetricLabel"] p{font-size:1.15rem;}
.stMain [data-testid="stSliderThumbValue"],.stMain [data-testid="stSliderThumbValue"] p{
 font-size:1rem;}
.bpe-card:has(.bpe-eq){display:grid;grid-template-columns:fit-content(55%) 1fr;
 column-gap:2rem;align-items:center;}
.bpe-card-title{grid-column:1/-1;}
.bpe-card .bpe-eq{grid-column:1;grid-row:2/span 3;}
.bpe-card:has(.bpe-eq) p{grid-column:2;}
"""
    return f"<style>{css}</style>"


def trace_summary_html(word: bytes, trace: Sequence[TraceStep], encoded: Sequence[int]) -> str:
    """One paragraph over the trace: how many tokens the piece is, and how many merges build it.

    When the encoder took the piece whole (a rank table whose token list holds the whole
    piece, as tiktoken does) and the merges alone would split it otherwise, it says so.
    """
    name = quoted(label(word))
    tokens = counted(len(encoded), "token")
    size = counted(len(word), "byte")
    final = list(trace[-1].tokens_after) if trace else None
    whole = len(encoded) == 1 and len(word) > 1 and final != list(encoded)
    rules = len(trace_rows(trace))
    merges = counted(rules, "merge")
    if len(trace) > rules:  # some merges join the same pair at several places
        merges += f" ({len(trace)} joins)"
    if trace:
        sentence = (
            f"{name} is {tokens}. Starting from its {size}, {merges} "
            f"{'applies' if rules == 1 else 'apply'}, always "
            "the one learned earliest (the lowest rank) first:"
        )
    elif whole:
        sentence = f"{name} is {tokens}."
    else:
        sentence = f"{name} is {tokens}: no learned merge applies to its {size}."
    parts = [f'<p class="bpe-summary">{esc(sentence)}</p>']
    if whole:
        note = (
            f"The tokenizer takes {name} whole, as tiktoken does, because it is itself a token "
            f"(id {encoded[0]:,}); the replay below shows what the merges alone make of it."
        )
        parts.append(f'<p class="bpe-tie">{esc(note)}</p>')
    return "".join(parts)
