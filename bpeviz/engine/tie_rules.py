"""The tie rules: which pair BPE merges when several share the top count.

One registry read by the trainer (its heap order), ``History.pairs_at`` (the same order as a
sort), the sidebar (what each rule picks) and the Step page's card (why this pair won), so
adding a rule is one entry here plus its ordering.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class TieRule:
    """A rule for breaking ties between pairs with the same count.

    ``by_position``: the pair that occurs first in the text wins. Otherwise the pairs are
    ordered by their ids (left id first, then right id), smallest first unless
    ``largest_ids``. ``description`` says which pair the rule picks; ``reason`` finishes the
    Step page's sentence "The rule … picked … ".
    """

    name: str
    description: str
    reason: str
    by_position: bool = False
    largest_ids: bool = False


TIE_RULES: dict[str, TieRule] = {
    rule.name: rule
    for rule in (
        TieRule(
            "first",
            "the tied pair that occurs first in the text (minbpe's rule)",
            "because it appears first in the text",
            by_position=True,
        ),
        TieRule(
            "lexmin",
            "the tied pair with the smallest token ids (Hugging Face tokenizers' rule)",
            "because its token ids are the smallest (left id first, then right id)",
        ),
        TieRule(
            "lexmax",
            "the tied pair with the largest token ids",
            "because its token ids are the largest (left id first, then right id)",
            largest_ids=True,
        ),
    )
}
TIE_BREAKS: tuple[str, ...] = tuple(TIE_RULES)


def tie_rule(name: str) -> TieRule:
    """The rule called ``name``; a ``ValueError`` naming the valid rules when there is none."""
    if name not in TIE_RULES:
        raise ValueError(f"unknown tie-break rule {name!r}: choose one of {', '.join(TIE_BREAKS)}")
    return TIE_RULES[name]


def pair_order(
    rule: TieRule,
    counts: np.ndarray,
    first_positions: np.ndarray,
    lefts: np.ndarray,
    rights: np.ndarray,
) -> np.ndarray:
    """Indices that sort pairs as the trainer picks them: highest count, then the tie rule.

    >>> counts, firsts = np.array([2, 3, 3]), np.array([0, 5, 1])
    >>> lefts, rights = np.array([1, 1, 2]), np.array([9, 9, 0])
    >>> [pair_order(TIE_RULES[name], counts, firsts, lefts, rights).tolist() for name in TIE_BREAKS]
    [[2, 1, 0], [1, 2, 0], [2, 1, 0]]
    """
    if rule.by_position:
        return np.lexsort((first_positions, -counts))
    if rule.largest_ids:
        return np.lexsort((-rights, -lefts, -counts))
    return np.lexsort((rights, lefts, -counts))
