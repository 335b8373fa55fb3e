"""Two training runs of one text side by side: where their merges part, and what each learns.

A teacher changes one setting (the pre-tokenizer, the tie rule, the vocab size, ``</w>``) and
asks "what difference does it make?". The answer is computed here, from two finished
histories:

- :func:`merges_of` turns a run's merges into byte strings (:class:`Merge`): ids differ
  between runs (the same id can mean ``aa`` in one and ``ab`` in the other), bytes do not;
  a WordPiece run's merges too, by the text they join (``##`` kept only when both runs are
  WordPiece: a BPE token has no such mark);
- :func:`first_difference`: the first step whose merge differs, with both merges;
- :func:`only_in`: the merges of one run that the other never makes, compared as
  ``(left bytes, right bytes)``; :func:`merge_frame` shows them as a table, saying when the
  other run has the same token built from other parents;
- :func:`cut_by`: the merges whose token another pre-tokenizer would cut in two, i.e. merges
  that cross one of its piece boundaries (``bytes`` against ``gpt4``: ``e␣`` crosses a word
  boundary, which GPT-4's pattern never allows);
- :func:`curves_frame` / :func:`curves_chart`: both compression curves on one chart.

The card and sentences that explain a difference are in :mod:`bpeviz.app.two_runs.view`; the
presets and the page's widget state in :mod:`bpeviz.app.two_runs.state`. What is left out:
training (the app trains each run once, cached) and widgets.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import altair as alt
import pandas as pd

from bpeviz.engine.history import History
from bpeviz.engine.pretokenize import PRETOKENIZERS, pretokenize
from bpeviz.engine.readable import readable
from bpeviz.engine.wordpiece import CONTINUATION
from bpeviz.engine.wordpiece_history import WordPieceHistory

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


@dataclass(frozen=True)
class Merge:
    """One merge as bytes: comparable across runs, whose ids differ.

    ``step`` counts from 1; ``count`` is how often the pair occurred when it was merged;
    ``ids``: the run's ids of left, right and the token made, which colour its chips as the
    browser colours a token (``None``: a merge written by hand). ``shown``: how the run
    writes left, right and the token when that is not its bytes (WordPiece's ``##ug``);
    ``score``: WordPiece's score as a fraction. Merges compare by bytes only.
    """

    step: int
    left: bytes
    right: bytes
    count: int
    ids: tuple[int, int, int] | None = field(default=None, compare=False)
    shown: tuple[str, str, str] | None = field(default=None, compare=False)
    score: str = field(default="", compare=False)

    @property
    def pair(self) -> tuple[bytes, bytes]:
        return (self.left, self.right)

    @property
    def token(self) -> bytes:
        return self.left + self.right

    def parts(self) -> tuple[str, str, str]:
        """Left, right and the token as the run writes them, readable (``␣`` for a space,
        ``<E3>`` for a partial character, ``##`` for a WordPiece continuation)."""
        if self.shown is not None:
            return self.shown
        return readable(self.left), readable(self.right), readable(self.token)

    def text(self) -> str:
        """``aa + a → aaa`` (see :meth:`parts`)."""
        left, right, token = self.parts()
        return f"{left} + {right} → {token}"


def merges_of(history: History | WordPieceHistory, *, marks: bool = True) -> list[Merge]:
    """The run's merges in order, as byte strings (``</w>`` shows as its marker text).

    A WordPiece merge is its text's bytes, with its ``##`` marks when ``marks`` (two
    WordPiece runs), without them to compare with BPE (``##u + ##g`` joins u and g).

    >>> from bpeviz.engine.history import train
    >>> [m.text() for m in merges_of(train("aaabdaaabac", 259, tie_break="lexmin"))]
    ['a + a → aa', 'a + b → ab', 'aa + ab → aaab']
    """
    if isinstance(history, WordPieceHistory):
        return _wordpiece_merges(history, marks=marks)
    token_bytes = history.tokenizer.token_bytes
    return [
        Merge(
            step.step,
            token_bytes(step.pair[0]),
            token_bytes(step.pair[1]),
            step.count,
            ids=(*step.pair, step.new_id),
        )
        for step in history.steps
    ]


def _wordpiece_merges(history: WordPieceHistory, *, marks: bool) -> list[Merge]:
    def spelled(token: str) -> bytes:
        return (token if marks else token.removeprefix(CONTINUATION)).encode("utf-8")

    return [
        Merge(
            step.step,
            spelled(step.left),
            spelled(step.right),
            step.count,
            ids=(*step.pair, step.new_id),
            shown=(step.left, step.right, step.token),
            score=f"{step.score.numerator}/{step.score.denominator}",
        )
        for step in history.run.steps
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
    if pretokenizer not in PRETOKENIZERS:
        return []
    return [merge for merge in merges if len(pretokenize(merge.token, pretokenizer)) > 1]


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
            *merge.parts(),
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
    """Both runs' bytes per token against merges done, on one chart; a rule at ``step``.

    The legend, under the chart and never cut short, names each line as ``curves`` does
    (the page names a run by its settings: "A: vocab 512 · bytes · ties: first").
    """
    names = list(dict.fromkeys(curves["run"].tolist())) or list(RUN_NAMES)
    colour = alt.Color(
        "run:N",
        title="run",
        scale=alt.Scale(domain=names, range=list(RUN_COLOURS[: len(names)])),
        legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=0),
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
