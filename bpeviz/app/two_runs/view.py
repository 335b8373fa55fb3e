"""The words and HTML that explain where two training runs part (see
:mod:`bpeviz.app.two_runs.parting`).

- :func:`difference_reason`: one sentence on why they part there;
- :func:`difference_html`: the card with both runs' merges at that step;
- :func:`crossing_sentence`: how many merges cross the other run's pieces;
- :func:`curve_end_sentence`: where a run's compression curve ends, and why;
- :func:`own_cut_marks`: which tokens to outline in each run's text.

Everything from the user's text is escaped here (``html.escape``); what is left out is
drawing it (``st.html`` on the page; the text's tokens: :mod:`bpeviz.app.shared.token_view`).
"""

from __future__ import annotations

import html

import numpy as np

from bpeviz.app.two_runs.parting import RUN_NAMES, FirstDifference, Merge, cut_by
from bpeviz.engine.config import TrainingConfig
from bpeviz.engine.readable import counted, times
from bpeviz.records.narration import quoted
from bpeviz.records.schema import Mark
from bpeviz.web import chip_html, chip_note_html


def difference_reason(
    difference: FirstDifference,
    a: TrainingConfig,
    b: TrainingConfig,
    *,
    names: tuple[str, str] = RUN_NAMES,
) -> str | None:
    """One sentence on why the runs part there, in plain text (``None``: nothing to add).

    - a merge whose token the other run's pre-tokenizer cuts: that run can never make it;
    - runs that choose their pair by different rules (BPE or WordPiece by frequency: the
      most frequent pair; WordPiece by score: the best score): the rules;
    - equal counts: a tie, broken differently when the tie rules differ;
    - otherwise the counts themselves differ (the runs cut the text differently).

    >>> reason = difference_reason(
    ...     FirstDifference(2, Merge(2, b"aa", b"a", 2), Merge(2, b"a", b"b", 2)),
    ...     TrainingConfig(512, "bytes"), TrainingConfig(512, "bytes", "lexmin"))
    >>> reason.split(": ")[1]
    'a tie, which the rules first (A) and lexmin (B) break differently.'
    """
    if difference.a is None or difference.b is None:
        return None  # the card says which run stopped
    runs = ((names[0], difference.a, names[1], b), (names[1], difference.b, names[0], a))
    for name, merge, other, settings in runs:
        if cut_by([merge], settings.pretokenizer):
            return (
                f"{name}'s new token {quoted(merge.parts()[2])} spans two pieces of {other}'s "
                f"pre-tokenizer ({settings.pretokenizer}), so {other} can never make it."
            )
    rules = (merge_rule(a), merge_rule(b))
    by_score = [name for name, rule in zip(names, rules, strict=True) if rule == BY_SCORE]
    if len(by_score) == 1:
        return (
            f"{names[0]} ({a.algorithm_title}) merges {rules[0]} and {names[1]} "
            f"({b.algorithm_title}) {rules[1]}, which need not be the most frequent pair."
        )
    if a.algorithm != b.algorithm and not difference.same_count:
        return (
            f"Both runs merge the most frequent pair, but WordPiece counts a character that "
            f"starts a word apart from the same character inside one (##), so the counts "
            f"differ ({difference.a.count:,} against {difference.b.count:,})."
        )
    if difference.same_count:
        count = f"Both pairs occurred {times(difference.a.count)}"
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


BY_SCORE = "the pair with the best score, count(ab) / (count(a) × count(b))"
BY_COUNT = "the most frequent pair"


def merge_rule(settings: TrainingConfig) -> str:
    """How a run picks the pair it merges, as a sentence ends (BPE and WordPiece's frequency
    rule: the most frequent; WordPiece's score rule: the best score).

    >>> merge_rule(TrainingConfig(30, "words", algorithm="wordpiece"))
    'the pair with the best score, count(ab) / (count(a) × count(b))'
    """
    if settings.algorithm == "wordpiece" and settings.score_rule == "score":
        return BY_SCORE
    return BY_COUNT


# One line per run inside the card's single equation box (the stylesheet's presentation
# layout puts that box in the card's left column and the sentences on the right).
_LINES_STYLE = "flex-direction:column;align-items:flex-start"
_LINE_STYLE = "display:flex;flex-wrap:wrap;align-items:center;gap:.5rem"


def _merge_line(name: str, merge: Merge | None, last: int) -> str:
    if merge is None:
        said = f"stopped after {last:,} merges" if last != 1 else "stopped after 1 merge"
        content = chip_note_html(said)
    else:
        times = "once" if merge.count == 1 else f"{merge.count:,} times"
        if merge.score:
            times += f", score {merge.score}"
        left, right, made = merge.ids or (None, None, None)
        left_text, right_text, token_text = merge.parts()
        content = (
            chip_html(left_text, left)
            + '<span class="bpe-op">+</span>'
            + chip_html(right_text, right)
            + '<span class="bpe-op">→</span>'
            + chip_html(token_text, made)
            + chip_note_html(times)
        )
    return (
        f'<div class="bpe-run-line" style="{_LINE_STYLE}">'
        f'<span class="bpe-op">{html.escape(name)}</span>{content}</div>'
    )


def difference_html(
    difference: FirstDifference | None,
    *,
    merge_counts: tuple[int, int],
    reason: str | None = None,
    names: tuple[str, str] = RUN_NAMES,
) -> str:
    """A card: the first merge where the runs part (its title an ``h2``, between the page's
    title and its sections), each run's merge on its own line, and ``reason`` (from
    :func:`difference_reason`).

    Every piece of token text is escaped (it comes from the user's text).
    """
    if difference is None:
        title = "The two runs make the same merges"
        same = (
            f"All {merge_counts[0]:,} merges agree, in the same order."
            if merge_counts[0]
            else "Neither run makes a merge: the text has no pair of tokens to join."
        )
        body = [f"<p>{html.escape(same)}</p>"]
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
            body.append(f"<p>{html.escape(same)} the same in both.</p>")
        if reason:
            body.append(f"<p>{html.escape(reason)}</p>")
    return (
        f'<div class="bpe-card"><h2 class="bpe-card-title">{html.escape(title)}</h2>'
        + "".join(body)
        + "</div>"
    )


def own_cut_marks(starts: np.ndarray, other_starts: np.ndarray) -> list[str]:
    """One mark per token: ``"new"`` on a token that starts where the other run does not cut.

    >>> own_cut_marks(np.array([0, 2, 3]), np.array([0, 3]))
    ['', 'new', '']
    """
    alone = ~np.isin(starts, other_starts)
    return [Mark.NEW if flag else "" for flag in alone.tolist()]


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


def curve_end_sentence(name: str, merges: int, vocab_size: int, base: int) -> str:
    """Markdown: why run ``name``'s curve ends after ``merges`` merges.

    Training stops at the vocab size (``base`` tokens, the 256 bytes and ``</w>`` when on,
    plus the merges), or earlier when no pair is left: every piece of the text is already
    one token. A pair that occurs once is still merged (the app asks for no minimum count).

    >>> curve_end_sentence("A", 256, 512, 256)
    '**A** stops after 256 merges: its vocab size, 512, is the 256 bytes and 256 merges.'
    >>> curve_end_sentence("B", 2, 512, 256)
    '**B** stops after 2 merges, short of the 256 its vocab size of 512 allows: no pair is \
left to merge, as every piece of the text is already a single token.'
    """
    allowed = vocab_size - base
    if merges >= allowed:
        start = "the 256 bytes" if base == 256 else f"the {base - 1} bytes, `</w>`"
        return (
            f"**{name}** stops after {counted(merges, 'merge')}: its vocab size, "
            f"{vocab_size:,}, is {start} and {counted(merges, 'merge')}."
        )
    return (
        f"**{name}** stops after {counted(merges, 'merge')}, short of the {allowed:,} its vocab "
        f"size of {vocab_size:,} allows: no pair is left to merge, as every piece of the text "
        "is already a single token."
    )
