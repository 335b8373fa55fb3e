"""The Step page's CSV downloads for a WordPiece run: the whole score table before a merge,
and the merges so far, each with its counts and its score as a fraction and a decimal.

BPE's are in :mod:`bpeviz.app.shared.tables`; WordPiece's columns differ (a score, the tokens'
counts, the most frequent pair when the score picked another), so they have their own frames.
Token text goes out as the vocabulary writes it (``##`` marks continuations), made safe for a
spreadsheet by :func:`~bpeviz.app.shared.csv_cells.csv_bytes`.
"""

from __future__ import annotations

from fractions import Fraction

import pandas as pd

from bpeviz.app.shared.csv_cells import csv_bytes
from bpeviz.engine.wordpiece_history import WordPieceHistory

SCORE_COLUMNS = (
    "rank",
    "left",
    "right",
    "count",
    "left_count",
    "right_count",
    "score",
    "score_decimal",
    "chosen",
)
MERGE_COLUMNS = (
    "step",
    "left",
    "right",
    "token",
    "new_id",
    "existed",
    "count",
    "left_count",
    "right_count",
    "score",
    "score_decimal",
    "most_frequent",
    "most_frequent_count",
    "tied",
    "more_tied",
    "tokens_after",
)


def _fraction(score: Fraction) -> str:
    return f"{score.numerator}/{score.denominator}"


def score_frame(history: WordPieceHistory, k: int) -> pd.DataFrame:
    """Every pair before merge ``k`` (after ``k - 1`` merges; step 0: before merge 1), ranked
    as the run's rule ranks them; ``chosen`` marks the pair merge ``k`` took.

    >>> from bpeviz.engine.wordpiece import train_wordpiece
    >>> course = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
    >>> frame = score_frame(WordPieceHistory(course, train_wordpiece(course, 15)), 1)
    >>> frame.loc[0, ["left", "right", "score"]].tolist(), bool(frame.loc[0, "chosen"])
    (['##g', '##s', '1/20'], True)
    """
    vocab, steps = history.run.vocab, history.run.steps
    before = max(k, 1) - 1
    chosen = steps[before].pair if before < len(steps) else None
    rows = [
        (
            rank,
            vocab[row.left],
            vocab[row.right],
            row.count,
            row.left_count,
            row.right_count,
            _fraction(row.score),
            float(row.score),
            (row.left, row.right) == chosen,
        )
        for rank, row in enumerate(history.pair_table(before), start=1)
    ]
    return pd.DataFrame(rows, columns=list(SCORE_COLUMNS))


def merge_frame(history: WordPieceHistory, k: int) -> pd.DataFrame:
    """The first ``k`` merges, one a row: the pair, the token, its counts and score, the most
    frequent pair when the score rule picked another, and the pairs that tied.

    >>> from bpeviz.engine.wordpiece import train_wordpiece
    >>> course = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
    >>> frame = merge_frame(WordPieceHistory(course, train_wordpiece(course, 15)), 3)
    >>> frame[["token", "score", "most_frequent"]].values.tolist()[:2]
    [['##gs', '1/20', '##u ##g'], ['hu', '1/36', 'p ##u']]
    """
    vocab = history.run.vocab
    rows = []
    for step in history.run.steps[:k]:
        frequent = step.most_frequent
        rows.append(
            (
                step.step,
                step.left,
                step.right,
                step.token,
                step.new_id,
                step.existed,
                step.count,
                step.left_count,
                step.right_count,
                _fraction(step.score),
                step.score_decimal,
                "" if frequent is None else f"{vocab[frequent[0][0]]} {vocab[frequent[0][1]]}",
                None if frequent is None else frequent[1],
                "; ".join(f"{vocab[left]} {vocab[right]}" for left, right in step.tied),
                step.more_tied,
                step.tokens_after,
            )
        )
    return pd.DataFrame(rows, columns=list(MERGE_COLUMNS))


def score_csv(history: WordPieceHistory, k: int) -> bytes:
    """:func:`score_frame` as UTF-8 CSV bytes."""
    return csv_bytes(score_frame(history, k))


def merge_csv(history: WordPieceHistory, k: int) -> bytes:
    """:func:`merge_frame` as UTF-8 CSV bytes."""
    return csv_bytes(merge_frame(history, k))
