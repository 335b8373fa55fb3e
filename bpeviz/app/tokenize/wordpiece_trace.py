"""How a trained WordPiece encodes a word, as BERT does, in sentences and a table.

WordPiece keeps no merges: at each place of a word it takes the longest vocabulary entry that
matches (``##`` in front past the word's start), and a word with no match at some place is
``[UNK]`` (:class:`~bpeviz.engine.wordpiece_encode.WordPieceEncoder`). So encoding can cut a
word differently from how training left it; :func:`differences_frame` lists those words.
Plain functions of the engine's traces; the Tokenize page draws them.
"""

from __future__ import annotations

import pandas as pd

from bpeviz.engine.wordpiece import CONTINUATION
from bpeviz.engine.wordpiece_encode import WordTrace, words_cut_differently
from bpeviz.engine.wordpiece_history import WordPieceHistory
from bpeviz.records.narration import quoted

NOTE = (
    "Your WordPiece run encodes as BERT does: at each place of a word, the longest vocabulary "
    "entry that matches (with ## inside the word), and [UNK] for a word with no match; the "
    "tokenizers library encodes it here from the run's tokenizer.json (Export / import), as "
    "bpeviz's own WordPiece encoder does."
)


def trace_lines(trace: WordTrace) -> list[str]:
    """One sentence per place of the word: what is left there and the longest match.

    >>> from bpeviz.engine.wordpiece_encode import WordPieceEncoder
    >>> encoder = WordPieceEncoder(["[UNK]", "h", "##u", "##g", "hug", "##s"])
    >>> for line in trace_lines(encoder.trace_word("hugs")):
    ...     print(line)
    At character 1, “hugs” is left: the longest entry that matches is “hug”.
    At character 4, “##s” is left: the longest entry that matches is “##s”.
    """
    lines = []
    for match in trace.matches:
        rest = (CONTINUATION if match.position else "") + trace.word[match.position :]
        where = f"At character {match.position + 1}, {quoted(rest)} is left"
        if match.token is None:
            lines.append(
                f"{where}: no entry of the vocabulary matches, so the whole word is "
                f"{quoted(trace.tokens[0])}."
            )
        else:
            lines.append(f"{where}: the longest entry that matches is {quoted(match.token)}.")
    if trace.unknown and not any(match.token is None for match in trace.matches):
        lines.append(f"The word is too long to look up, so it is {quoted(trace.tokens[0])}.")
    return lines


def differences_frame(history: WordPieceHistory) -> pd.DataFrame:
    """The training words that encoding cuts differently from training, most frequent first:
    ``word``, ``count``, ``training`` (its cut after the last merge), ``encoding``."""
    rows = [
        {
            "word": difference.word,
            "count": difference.count,
            "training": " ".join(difference.trained),
            "encoding": " ".join(difference.encoded),
        }
        for difference in words_cut_differently(history.run)
    ]
    return pd.DataFrame(rows, columns=["word", "count", "training", "encoding"])
