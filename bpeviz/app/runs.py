"""Two training runs of one text side by side: where their merges part, and what each learns.

A teacher changes one setting (the pre-tokenizer, the tie rule, the vocab size, ``</w>``) and
asks "what difference does it make?". The answer is computed here, from two finished
histories:

- :func:`merges_of` turns a run's merges into byte strings (:class:`Merge`): ids differ
  between runs (the same id can mean ``aa`` in one and ``ab`` in the other), bytes do not;
- :func:`first_difference`: the first step whose merge differs, with both merges;
- :func:`only_in`: the merges of one run that the other never makes, compared as
  ``(left bytes, right bytes)``; :func:`merge_frame` shows them as a table, saying when the
  other run has the same token built from other parents;
- :func:`cut_by`: the merges whose token another pre-tokenizer would cut in two, i.e. merges
  that cross one of its piece boundaries (``bytes`` against ``gpt4``: ``e␣`` crosses a word
  boundary, which GPT-4's pattern never allows);
- :func:`curves_frame` / :func:`curves_chart`: both compression curves on one chart;
- :data:`PRESETS`: the classic comparisons, ready to open.

What is left out: training (the app trains each run once, cached) and widgets.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import altair as alt
import numpy as np
import pandas as pd

from bpeviz import settings as cfg
from bpeviz.display import MARK_NEW, PALETTE, esc
from bpeviz.history import History
from bpeviz.pretokenize import pretokenize
from bpeviz.readable import readable
from bpeviz.samples import get_sample

RUN_NAMES: tuple[str, str] = ("A", "B")
RUN_COLOURS: tuple[str, str] = ("#1f77b4", "#e4572e")
MERGE_COLUMNS: tuple[str, ...] = (
    "merge",
    "left",
    "right",
    "token",
    "count",
    "other_run",
    "crosses",
)
CURVE_COLUMNS: tuple[str, ...] = ("run", "merges", "tokens", "bytes_per_token")
# Widget keys (and query parameters) of the page: runs_a_pretok, runs_b_vocab, runs_step...
FIELDS: tuple[str, ...] = ("pretok", "tie", "vocab", "eow")
KEY_STEP = "runs_step"


def widget_key(run: str, field: str) -> str:
    """The key of one run's setting widget, e.g. ``widget_key("A", "vocab") == "runs_a_vocab"``."""
    return f"runs_{run.lower()}_{field}"


@dataclass(frozen=True)
class RunSettings:
    """The settings one run trains with (the text is shared by both runs)."""

    pretokenizer: str = "gpt4"
    tie_break: str = "first"
    vocab_size: int = 512
    end_of_word: bool = False

    def summary(self) -> str:
        """One line for a heading: ``gpt4 · ties: first · vocab 512``."""
        parts = [self.pretokenizer, f"ties: {self.tie_break}", f"vocab {self.vocab_size:,}"]
        if self.end_of_word:
            parts.append("</w>")
        return " · ".join(parts)


@dataclass(frozen=True)
class Merge:
    """One merge as bytes: comparable across runs, whose ids differ.

    ``step`` counts from 1; ``count`` is how often the pair occurred when it was merged.
    """

    step: int
    left: bytes
    right: bytes
    count: int

    @property
    def pair(self) -> tuple[bytes, bytes]:
        return (self.left, self.right)

    @property
    def token(self) -> bytes:
        return self.left + self.right

    def text(self) -> str:
        """``aa + a → aaa``, readable (``␣`` for a space, ``<E3>`` for a partial character)."""
        return f"{readable(self.left)} + {readable(self.right)} → {readable(self.token)}"


def merges_of(history: History) -> list[Merge]:
    """The run's merges in order, as byte strings (``</w>`` shows as its marker text).

    >>> from bpeviz.history import train
    >>> [m.text() for m in merges_of(train("aaabdaaabac", 259, tie_break="lexmin"))]
    ['a + a → aa', 'a + b → ab', 'aa + ab → aaab']
    """
    token_bytes = history.tokenizer.token_bytes
    return [
        Merge(step.step, token_bytes(step.pair[0]), token_bytes(step.pair[1]), step.count)
        for step in history.steps
    ]


@dataclass(frozen=True)
class FirstDifference:
    """The first step at which the runs' merges differ; ``None`` for a run that had stopped."""

    step: int
    a: Merge | None
    b: Merge | None

    @property
    def same_count(self) -> bool:
        """Both merges had the same count (under one pre-tokenizer: a tie the rules broke apart)."""
        return self.a is not None and self.b is not None and self.a.count == self.b.count


def first_difference(a: Sequence[Merge], b: Sequence[Merge]) -> FirstDifference | None:
    """The first step whose merge differs (as bytes), or ``None`` when every merge agrees.

    A run that stopped earlier differs at the step after its last merge, unless the other
    stopped there too.

    >>> m = lambda step, left, right: Merge(step, left, right, 1)
    >>> first_difference([m(1, b"a", b"a"), m(2, b"aa", b"a")], [m(1, b"a", b"a")]).step
    2
    >>> first_difference([m(1, b"a", b"a")], [m(1, b"a", b"a")]) is None
    True
    """
    for index in range(max(len(a), len(b))):
        left = a[index] if index < len(a) else None
        right = b[index] if index < len(b) else None
        if left is None or right is None or left.pair != right.pair:
            return FirstDifference(index + 1, left, right)
    return None


def only_in(merges: Iterable[Merge], other: Iterable[Merge]) -> list[Merge]:
    """The merges of one run whose ``(left, right)`` bytes the other run never merges."""
    theirs = {merge.pair for merge in other}
    return [merge for merge in merges if merge.pair not in theirs]


def cut_by(merges: Iterable[Merge], pretokenizer: str) -> list[Merge]:
    """The merges whose token ``pretokenizer`` cuts into more than one piece.

    Such a merge crosses a piece boundary of that pre-tokenizer, so a run using it could
    never make the token. The token is cut on its own bytes, out of context.

    >>> merges = [Merge(1, b"e", b" ", 9), Merge(2, b" ", b"t", 8), Merge(3, b"h", b"e", 7)]
    >>> [m.token for m in cut_by(merges, "gpt4")]
    [b'e ']
    """
    return [merge for merge in merges if len(pretokenize(merge.token, pretokenizer)) > 1]


def difference_reason(
    difference: FirstDifference,
    a: RunSettings,
    b: RunSettings,
    *,
    names: tuple[str, str] = RUN_NAMES,
) -> str | None:
    """One sentence on why the runs part there, in plain text (``None``: nothing to add).

    - a merge whose token the other run's pre-tokenizer cuts: that run can never make it;
    - equal counts: a tie, broken differently when the tie rules differ;
    - otherwise the counts themselves differ (the runs cut the text differently).

    >>> reason = difference_reason(
    ...     FirstDifference(2, Merge(2, b"aa", b"a", 2), Merge(2, b"a", b"b", 2)),
    ...     RunSettings("bytes", "first"), RunSettings("bytes", "lexmin"))
    >>> reason.split(": ")[1]
    'a tie, which the rules first (A) and lexmin (B) break differently.'
    """
    if difference.a is None or difference.b is None:
        return None  # the card says which run stopped
    runs = ((names[0], difference.a, names[1], b), (names[1], difference.b, names[0], a))
    for name, merge, other, settings in runs:
        if cut_by([merge], settings.pretokenizer):
            return (
                f"{name}'s new token “{readable(merge.token)}” spans two pieces of {other}'s "
                f"pre-tokenizer ({settings.pretokenizer}), so {other} can never make it."
            )
    if difference.same_count:
        count = f"Both pairs occurred {difference.a.count:,} times"
        if a.tie_break != b.tie_break:
            return (
                f"{count}: a tie, which the rules {a.tie_break} ({names[0]}) and "
                f"{b.tie_break} ({names[1]}) break differently."
            )
        return f"{count}: a tie, broken differently because the runs' texts are cut differently."
    return (
        f"The counts differ ({difference.a.count:,} against {difference.b.count:,}): the runs "
        "cut the text into different pieces, so they count different pairs."
    )


def _chip(data: bytes) -> str:
    """A token chip coloured by its bytes, so the same token looks the same in both runs."""
    colour = sum(data) % len(PALETTE)
    return (
        f'<span class="bpe-chipbox"><span class="bpe-chip bpe-c{colour}">'
        f"{esc(readable(data)) or '&#8203;'}</span></span>"
    )


# One line per run inside the card's single equation box (the stylesheet's presentation
# layout puts that box in the card's left column and the sentences on the right).
_LINES_STYLE = "flex-direction:column;align-items:flex-start"
_LINE_STYLE = "display:flex;flex-wrap:wrap;align-items:center;gap:.5rem"


def _merge_line(name: str, merge: Merge | None, last: int) -> str:
    if merge is None:
        said = f"stopped after {last:,} merges" if last != 1 else "stopped after 1 merge"
        content = f'<span class="bpe-chipid">{esc(said)}</span>'
    else:
        times = "once" if merge.count == 1 else f"{merge.count:,} times"
        content = (
            _chip(merge.left)
            + '<span class="bpe-op">+</span>'
            + _chip(merge.right)
            + '<span class="bpe-op">→</span>'
            + _chip(merge.token)
            + f'<span class="bpe-chipid">{esc(times)}</span>'
        )
    return (
        f'<div class="bpe-run-line" style="{_LINE_STYLE}">'
        f'<span class="bpe-op">{esc(name)}</span>{content}</div>'
    )


def difference_html(
    difference: FirstDifference | None,
    *,
    merge_counts: tuple[int, int],
    reason: str | None = None,
    names: tuple[str, str] = RUN_NAMES,
) -> str:
    """A card: the first merge where the runs part, each run's merge on its own line, and
    ``reason`` (from :func:`difference_reason`).

    Every piece of token text is escaped (it comes from the user's text).
    """
    if difference is None:
        title = "The two runs make the same merges"
        same = (
            f"All {merge_counts[0]:,} merges agree, in the same order."
            if merge_counts[0]
            else "Neither run makes a merge: the text has no pair of tokens to join."
        )
        body = [f"<p>{esc(same)}</p>"]
    else:
        title = f"The runs part at merge {difference.step:,}"
        body = [
            f'<div class="bpe-eq" style="{_LINES_STYLE}">'
            + _merge_line(names[0], difference.a, merge_counts[0])
            + _merge_line(names[1], difference.b, merge_counts[1])
            + "</div>"
        ]
        if difference.step > 1:
            same = (
                "Merge 1 is" if difference.step == 2 else f"Merges 1 to {difference.step - 1:,} are"
            )
            body.append(f"<p>{esc(same)} the same in both.</p>")
        if reason:
            body.append(f"<p>{esc(reason)}</p>")
    return (
        f'<div class="bpe-card"><div class="bpe-card-title">{esc(title)}</div>'
        + "".join(body)
        + "</div>"
    )


def own_cut_marks(starts: np.ndarray, other_starts: np.ndarray) -> list[str]:
    """One mark per token: ``"new"`` on a token that starts where the other run does not cut.

    >>> own_cut_marks(np.array([0, 2, 3]), np.array([0, 3]))
    ['', 'new', '']
    """
    alone = ~np.isin(starts, other_starts)
    return [MARK_NEW if flag else "" for flag in alone.tolist()]


def crossing_sentence(
    name: str, crossing: int, merges: int, other: str, other_pretokenizer: str
) -> str:
    """Markdown: how many of a run's merges cross the other run's pieces (names are ours).

    >>> crossing_sentence("A", 1, 3, "B", "gpt4")
    "**1 of A's 3 merges** makes a token that B's pre-tokenizer (`gpt4`) would cut in two: \
it crosses a piece boundary, such as the space before a word, which B's merges never cross."
    """
    one = crossing == 1
    return (
        f"**{crossing:,} of {name}'s {merges:,} merges** {'makes' if one else 'make'} a token "
        f"that {other}'s pre-tokenizer (`{other_pretokenizer}`) would cut in two: "
        f"{'it crosses' if one else 'they cross'} a piece boundary, such as the space before a "
        f"word, which {other}'s merges never cross."
    )


def merge_frame(
    merges: Sequence[Merge], other: Iterable[Merge], *, crossing: Iterable[Merge] = ()
) -> pd.DataFrame:
    """A table of merges, readable, saying whether the other run has the same token anyway.

    ``other_run`` (does the other run have this token?) is ``"yes, from other parents"`` when
    the other run's vocabulary
    holds the same bytes through different merges (``aaab`` as ``aaa + b`` or ``aa + ab``).
    ``crosses`` is ``"yes"`` for the merges in ``crossing`` (see :func:`cut_by`).
    """
    other_tokens = {merge.token for merge in other}
    crosses = {merge.step for merge in crossing}
    rows = [
        (
            merge.step,
            readable(merge.left),
            readable(merge.right),
            readable(merge.token),
            merge.count,
            "yes, from other parents" if merge.token in other_tokens else "no",
            "yes" if merge.step in crosses else "",
        )
        for merge in merges
    ]
    return pd.DataFrame(rows, columns=list(MERGE_COLUMNS))


def curves_frame(histories: Mapping[str, History]) -> pd.DataFrame:
    """Bytes per token after every merge, one row per (run, merges), runs in order given.

    No encoding: token counts come from each history.
    """
    rows = [
        (name, k, history.token_count(k), history.compression_ratio(k))
        for name, history in histories.items()
        for k in range(history.merge_count + 1)
    ]
    return pd.DataFrame(rows, columns=list(CURVE_COLUMNS))


def curves_chart(curves: pd.DataFrame, *, step: int | None = None, height: int = 300) -> alt.Chart:
    """Both runs' bytes per token against merges done, on one chart; a rule at ``step``."""
    names = list(dict.fromkeys(curves["run"].tolist())) or list(RUN_NAMES)
    colour = alt.Color(
        "run:N",
        title="run",
        scale=alt.Scale(domain=names, range=list(RUN_COLOURS[: len(names)])),
    )
    x = alt.X("merges:Q", title="merges done", axis=alt.Axis(format="d"))
    y = alt.Y(
        "bytes_per_token:Q",
        title=["bytes per token", "(higher = more compression)"],
        scale=alt.Scale(zero=False),
    )
    tooltip = [
        alt.Tooltip("run:N", title="run"),
        alt.Tooltip("merges:Q", title="merges", format=",d"),
        alt.Tooltip("tokens:Q", title="tokens", format=",d"),
        alt.Tooltip("bytes_per_token:Q", title="bytes per token", format=".3f"),
    ]
    dash = alt.StrokeDash(  # B dashed: where the runs agree, both lines stay visible
        "run:N", scale=alt.Scale(domain=names, range=[[1, 0], [7, 4]][: len(names)]), legend=None
    )
    lines = (
        alt.Chart(curves).mark_line(strokeWidth=2.5).encode(x=x, y=y, color=colour, strokeDash=dash)
    )
    points = (
        alt.Chart(curves)
        .mark_circle(size=60, opacity=0)
        .encode(x=x, y=y, color=colour, tooltip=tooltip)
    )
    layers: list[alt.Chart] = [lines, points]
    if step is not None:
        rule = pd.DataFrame({"merges": [step]})
        layers.append(
            alt.Chart(rule)
            .mark_rule(color="#666666", strokeWidth=1.5)
            .encode(x="merges:Q", tooltip=[alt.Tooltip("merges:Q", title="step shown")])
        )
    return alt.layer(*layers).properties(height=height)


@dataclass(frozen=True)
class Preset:
    """A classic comparison: a bundled sample, two settings, a step, and what it shows."""

    key: str
    label: str
    sample_key: str
    a: RunSettings
    b: RunSettings
    step: int
    lesson: str


PRESETS: tuple[Preset, ...] = (
    Preset(
        key="pieces",
        label="bytes against gpt4 on the English sample",
        sample_key="english",
        a=RunSettings(pretokenizer="bytes", tie_break="first", vocab_size=512),
        b=RunSettings(pretokenizer="gpt4", tie_break="first", vocab_size=512),
        step=1,
        lesson="With the bytes pre-tokenizer the whole text is one piece, so merges may cross "
        "word boundaries (the very first one joins e and the space after it); GPT-4's pattern "
        "cuts the text into words first, and its merges never cross one.",
    ),
    Preset(
        key="ties",
        label="aaabdaaabac: tie rule first against lexmin",
        sample_key="aaabdaaabac",
        a=RunSettings(pretokenizer="bytes", tie_break="first", vocab_size=259),
        b=RunSettings(pretokenizer="bytes", tie_break="lexmin", vocab_size=259),
        step=2,
        lesson="After aa, the pairs (aa, a) and (a, b) both occur twice. minbpe keeps the pair "
        "seen first in the text (aa + a); Wikipedia's walk-through, like Hugging Face, takes "
        "the pair with the smallest ids (a + b). Both runs end with the token aaab, built "
        "from different parents.",
    ),
)


def preset_state(item: Preset) -> dict[str, object]:
    """The session state that opens ``item``: its sample in the sidebar, both runs, its step.

    The sidebar takes the sample's own suggested settings too, as choosing it there would.

    >>> state = preset_state(preset("ties"))
    >>> state["sample"], state["runs_a_tie"], state["runs_b_tie"], state["runs_step"]
    ('aaabdaaabac', 'first', 'lexmin', 2)
    """
    state: dict[str, object] = {
        cfg.KEY_SOURCE: "sample",
        cfg.KEY_SAMPLE: item.sample_key,
        **cfg.suggested_state(get_sample(item.sample_key)),
        KEY_STEP: item.step,
    }
    for name, settings in zip(RUN_NAMES, (item.a, item.b), strict=True):
        for field, value in zip(FIELDS, state_values(settings), strict=True):
            state[widget_key(name, field)] = value
    return state


def state_values(settings: RunSettings) -> tuple[object, ...]:
    """The widgets' values for ``settings``, in the order of :data:`FIELDS`."""
    return (settings.pretokenizer, settings.tie_break, settings.vocab_size, settings.end_of_word)


def run_settings(state: Mapping[str, object], run: str, default: RunSettings) -> RunSettings:
    """One run's settings from the page's widgets (missing or odd values: ``default``'s).

    ``</w>`` only applies to the ``words`` pre-tokenizer, as in the sidebar.
    """

    def get(field: str, fallback: object) -> object:
        value = state.get(widget_key(run, field))
        return fallback if value is None else value

    pretokenizer = str(get("pretok", default.pretokenizer))
    vocab = get("vocab", default.vocab_size)
    return RunSettings(
        pretokenizer=pretokenizer,
        tie_break=str(get("tie", default.tie_break)),
        vocab_size=int(vocab) if isinstance(vocab, int | float) else default.vocab_size,
        end_of_word=bool(get("eow", default.end_of_word)) and pretokenizer == "words",
    )


def matching_preset(sample_key: str | None, a: RunSettings, b: RunSettings) -> Preset | None:
    """The preset these runs are (so the page can say what it shows), or ``None``.

    >>> matching_preset("aaabdaaabac", PRESETS[1].a, PRESETS[1].b).key
    'ties'
    >>> matching_preset("english", PRESETS[1].a, PRESETS[1].b) is None
    True
    """
    return next(
        (p for p in PRESETS if (p.sample_key, p.a, p.b) == (sample_key, a, b)),
        None,
    )


def preset(key: str) -> Preset:
    """The preset called ``key``; ``ValueError`` naming the known ones otherwise."""
    for candidate in PRESETS:
        if candidate.key == key:
            return candidate
    known = ", ".join(candidate.key for candidate in PRESETS)
    raise ValueError(f"unknown comparison {key!r}; known: {known}")
