"""Two runs of different algorithms: what compares when their steps are not alike.

BPE and WordPiece both merge, one pair a step, so their merges compare step by step
(:mod:`bpeviz.app.two_runs.parting`, WordPiece's ``##`` dropped against BPE). Unigram does not
merge: it starts from every substring and removes tokens round by round, so beside a Unigram
run the page compares what the runs end with: the text's tokens, cut by cut (as the Compare
page does: :mod:`bpeviz.app.compare.boundaries`), and the tokens each vocabulary learned:

- :func:`merge_based`: whether two runs' merges compare, and :func:`no_merges_sentence` why
  not;
- :func:`learned_tokens`: a run's tokens of two characters or more, by the text they spell
  with the word-boundary marks dropped (Unigram's ``▁``, WordPiece's ``##``, a BPE token's
  spaces), so ``▁hug``, ``##hug`` and ``␣hug`` are all ``hug``;
- :func:`vocab_overlap`: the learned tokens both runs have and those only one has, and
  :func:`learned_frame` a table of them.

Left out: training and drawing (the page and :mod:`bpeviz.app.two_runs.across_view`).
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from bpeviz.engine.config import TrainingConfig
from bpeviz.engine.history import History
from bpeviz.engine.pretokenize import END_OF_WORD
from bpeviz.engine.readable import readable
from bpeviz.engine.unigram import SPACE, UnigramRun
from bpeviz.engine.wordpiece import CONTINUATION
from bpeviz.engine.wordpiece_history import WordPieceHistory

AnyRun = History | WordPieceHistory | UnigramRun
MERGING: tuple[str, ...] = ("bpe", "wordpiece")
LEARNED_COLUMNS: tuple[str, ...] = ("token", "spells")


def merge_based(a: TrainingConfig, b: TrainingConfig) -> bool:
    """Whether both runs merge pairs, so their merges compare step by step.

    >>> merge_based(TrainingConfig(300), TrainingConfig(30, "words", algorithm="unigram"))
    False
    """
    return a.algorithm in MERGING and b.algorithm in MERGING


def no_merges_sentence(names: Sequence[str], settings: Sequence[TrainingConfig]) -> str:
    """One sentence on why runs with a Unigram one have no merge-by-merge comparison.

    >>> no_merges_sentence("AB", [TrainingConfig(300), TrainingConfig(9, algorithm="unigram")])
    'B is Unigram, which does not merge: it starts from every substring of the words and \
removes the tokens the text needs least, round by round, so there is no merge order to \
compare; the runs are compared by what they end with.'
    """
    pairs = zip(names, settings, strict=True)
    unigram = [name for name, run in pairs if run.algorithm not in MERGING]
    who = "Both runs are" if len(unigram) == 2 else f"{unigram[0]} is"
    return (
        f"{who} Unigram, which does not merge: it starts from every substring of the words "
        "and removes the tokens the text needs least, round by round, so there is no merge "
        "order to compare; the runs are compared by what they end with."
    )


def card_html(title: str, sentence: str) -> str:
    """A card like the merge comparison's: a title (``h2``) and one sentence, escaped."""
    return (
        f'<div class="bpe-card"><h2 class="bpe-card-title">{html.escape(title)}</h2>'
        f"<p>{html.escape(sentence)}</p></div>"
    )


def spelled(written: str) -> str:
    """The text a token spells with the word-boundary marks dropped (see the module).

    >>> [spelled(t) for t in ("▁hug", "##hug", " hug", "hug</w>", "of the")]
    ['hug', 'hug', 'hug', 'hug', 'of the']
    """
    return written.removeprefix(CONTINUATION).removesuffix(END_OF_WORD).replace(SPACE, " ").strip()


def _written(run: AnyRun) -> list[str]:
    """Every token the run learned beyond its first symbols, as the run writes it."""
    if isinstance(run, History):
        tokens = []
        for step in run.steps:
            data = run.tokenizer.token_bytes(step.new_id)
            try:
                tokens.append(data.decode("utf-8"))
            except UnicodeDecodeError:  # part of a character: no text to compare
                continue
        return tokens
    if isinstance(run, WordPieceHistory):
        return [step.token for step in run.run.steps]
    return list(run.final.pieces)


def learned_tokens(run: AnyRun) -> dict[str, str]:
    """The run's tokens that spell two characters or more: ``{spelled: as the run writes
    it}`` (its first such token kept), in the run's order (merges; Unigram: most probable
    first)."""
    found: dict[str, str] = {}
    for token in _written(run):
        text = spelled(token)
        if len(text) >= 2 and text not in found:
            found[text] = token
    return found


@dataclass(frozen=True)
class Overlap:
    """Learned tokens (spelled) both runs have, and those only the first or the second has."""

    both: tuple[str, ...]
    only_a: tuple[str, ...]
    only_b: tuple[str, ...]


def vocab_overlap(a: dict[str, str], b: dict[str, str]) -> Overlap:
    """Split two runs' :func:`learned_tokens` (each in its own order).

    >>> overlap = vocab_overlap({"hu": "hu", "hug": "hug"}, {"hug": "▁hug", "ug": "##ug"})
    >>> overlap.both, overlap.only_a, overlap.only_b
    (('hug',), ('hu',), ('ug',))
    """
    return Overlap(
        both=tuple(text for text in a if text in b),
        only_a=tuple(text for text in a if text not in b),
        only_b=tuple(text for text in b if text not in a),
    )


def learned_frame(only: Sequence[str], written: dict[str, str]) -> pd.DataFrame:
    """A table of learned tokens: as the run writes them (readable: ``␣`` for a space) and
    the text they spell."""
    rows = [(readable(written[text].encode("utf-8")), text) for text in only]
    return pd.DataFrame(rows, columns=list(LEARNED_COLUMNS))
