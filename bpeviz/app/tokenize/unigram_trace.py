"""How a trained Unigram cuts a word: its Viterbi table, position by position, as a table.

Unigram keeps no merges to replay: a word is cut by the most probable path through its
lattice. The table says, for each prefix of the word, the best log probability of any way to
cut it and the last piece of that best way; reading the pieces back from the end gives the
cut (``bpeviz/engine/unigram_lattice.py``). Plain functions of the engine's table; the
Tokenize page draws them. The Step page's lattice view also draws every segmentation.
"""

from __future__ import annotations

import math

import pandas as pd

from bpeviz.engine.unigram import UnigramModel
from bpeviz.engine.unigram_lattice import viterbi_table
from bpeviz.records.narration import quoted

VITERBI_COLUMNS: tuple[str, ...] = ("prefix", "best last piece", "starts at", "ln P", "P")


def viterbi_frame(word: str, model: UnigramModel) -> pd.DataFrame:
    """One row per character of ``word``: the prefix ending there, the last piece of its best
    cut (a character no piece covers is scored as unknown), where that piece starts (from 1)
    and the best cut's log probability and probability.

    >>> model = UnigramModel({"h": 15, "u": 36, "g": 20, "hu": 15, "ug": 20, "hug": 15})
    >>> viterbi_frame("hug", model)["best last piece"].tolist()
    ['h', 'hu', 'hug']
    """
    unknown = {char: model.unknown_log_prob for char in word if char not in model.log_probs}
    rows = [
        (
            word[: cell.end],
            cell.piece,
            cell.start + 1 if cell.start >= 0 else None,
            round(cell.score, 4),
            math.exp(cell.score),
        )
        for cell in viterbi_table(word, model.log_probs, unknown)[1:]
    ]
    return pd.DataFrame(rows, columns=list(VITERBI_COLUMNS))


def cut_sentence(word: str, model: UnigramModel) -> str:
    """The word's best cut and its probability, in one sentence.

    >>> model = UnigramModel({"h": 15, "u": 36, "g": 20, "hu": 15, "ug": 20, "hug": 15})
    >>> cut_sentence("hug", model)
    '“hug” is cut as “hug”: P ≈ 0.124 (ln P = -2.0877), the most probable way.'
    """
    pieces, score = model.viterbi_log(word)
    shown = " + ".join(quoted(piece) for piece in pieces)
    return (
        f"{quoted(word)} is cut as {shown}: P ≈ {math.exp(score):.4g} (ln P = {score:.4f}), the "
        "most probable way."
    )
