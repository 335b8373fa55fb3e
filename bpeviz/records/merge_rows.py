"""A merge as a row: the one schema of the Step table, the history CSV, the Export page and
the CLI's ``history --jsonl``, so every place names and renders a merge's fields alike.

Token text is :func:`~bpeviz.engine.readable.readable` (``␣`` for a space, ``<E3>`` for a byte that
is only part of a character). Pure Python: the app turns rows into a table with pandas.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from bpeviz.engine.history import History
from bpeviz.engine.readable import readable
from bpeviz.engine.trainer import MergeStep


@dataclass(frozen=True)
class MergeRow:
    """One merge: which pair became which token, how often, and what the tie rule decided.

    ``tied`` lists the tied pairs the trainer recorded (winner first) as ``[left][right]``
    separated by spaces, ``tied_ids`` the same pairs as ids (both empty without a tie), and
    ``more_tied`` says that more pairs tied than were recorded (``History.tied_pairs`` has
    them all).
    """

    merge: int
    left_id: int
    right_id: int
    new_id: int
    left: str
    right: str
    token: str
    token_hex: str
    count: int
    replacements: int
    tied: str
    tied_ids: list[list[int]]
    more_tied: bool
    rule: str
    tokens_after: int

    def as_dict(self) -> dict[str, Any]:
        """The row as a JSON-ready dict, keys in :data:`MERGE_COLUMNS` order."""
        return asdict(self)


MERGE_COLUMNS: tuple[str, ...] = tuple(field.name for field in fields(MergeRow))


def merge_row(history: History, step: MergeStep) -> MergeRow:
    """The row of one merge of ``history``.

    >>> from bpeviz.engine.history import train
    >>> history = train("aaabdaaabac", 258)
    >>> row = merge_row(history, history.steps[1])
    >>> row.left, row.right, row.token, row.tied, row.tied_ids
    ('aa', 'a', 'aaa', '[aa][a] [a][b]', [[256, 97], [97, 98]])
    """
    tokenizer = history.tokenizer

    def text(token_id: int) -> str:
        return readable(tokenizer.token_bytes(token_id))

    left, right = step.pair
    return MergeRow(
        merge=step.step,
        left_id=left,
        right_id=right,
        new_id=step.new_id,
        left=text(left),
        right=text(right),
        token=text(step.new_id),
        token_hex=step.token.hex(),
        count=step.count,
        replacements=step.replacements,
        tied=" ".join(f"[{text(a)}][{text(b)}]" for a, b in step.tied),
        tied_ids=[[a, b] for a, b in step.tied],
        more_tied=step.more_tied,
        rule=step.rule,
        tokens_after=step.tokens_after,
    )


def merge_rows(history: History, k: int | None = None) -> list[MergeRow]:
    """The rows of the first ``k`` merges (all by default)."""
    k = history.merge_count if k is None else k
    if not 0 <= k <= history.merge_count:
        raise ValueError(f"step {k} is out of range: choose 0..{history.merge_count}")
    return [merge_row(history, step) for step in history.steps[:k]]
