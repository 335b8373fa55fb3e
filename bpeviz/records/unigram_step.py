"""Everything the Step page shows of a Unigram run, in one record for the browser.

Unigram goes the other way from BPE: it starts from a big vocabulary and prunes it, one round
at a time (``bpeviz.engine.unigram``). On the Step page one step is one round:

- step 0 is the seed, its probabilities after the first round's EM;
- step ``k`` (1 .. ``rounds - 1``) is round ``k``'s pruning: the tokens whose removal raised
  the loss least are gone, and the text is cut under what is left (round ``k + 1``'s
  vocabulary, re-estimated by its EM). The last round removes nothing: it found the vocab size.

The browser cuts the text itself (``bpeviz/web/step/unigram_lattice.js``, held equal to
:class:`~bpeviz.engine.unigram.UnigramModel`'s Viterbi by ``tests/test_unigram_web.py``), from
each round's log probabilities of the pieces the drawn words can use, and draws one word's
lattice and samples from it with the same numbers. So the record holds no cut text, only:

- ``algorithm`` ``"unigram"``, ``schema``, ``space`` (SentencePiece's ``▁``) and
  ``space_label`` (the mark drawn for it, the readable space ``␣``);
- ``settings``: ``vocab_size``, ``shrinking_factor``, ``em_iterations``,
  ``max_piece_length``, ``seed_pieces``, ``seed_rule``, ``stop_reason``;
- ``window``: ``{"chars", "text_chars", "whole"}``, the text drawn is its first ``chars``
  characters (whole words), of ``text_chars``;
- ``words``: the distinct words drawn (``▁`` in front); ``occurrences``: per word drawn in
  order, ``[word, breaks]`` (its index in ``words``, the line breaks before it);
- ``pieces``: the pieces those words (and the tables) can use, those that live longest
  first, so the pieces of round ``r`` are the first ``rounds[r].known``;
- ``rounds``: per round, :data:`ROUND_FIELDS` by name: its number, ``size`` (tokens before
  its pruning), ``removed`` (how many it removed), ``loss`` (the Viterbi loss after its
  EM, natural log), ``em`` (each EM iteration's loss over all segmentations), ``known``,
  ``log_probs`` (of ``pieces[:known]``), ``unknown`` (the score of a character no piece
  covers: the round's lowest, minus ``UNKNOWN_PENALTY``), ``table`` (rows around its cut,
  :data:`TABLE_FIELDS` by name), ``candidates`` (tokens it could remove: two or more
  characters), ``singles`` (single characters, always kept), ``quiz`` (the places in
  ``table`` of the four tokens the quiz offers before this round's pruning: :func:`quiz_rows`);
- ``cards``: per step, ``{"title", "note"}``: the sentences of the step's card.

Budget: Unigram's record is bounded by the drawn window (``WINDOW_CHARS``) and the table's
rows (``TABLE_EDGE``), not by the text's size.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from bpeviz.engine.readable import VISIBLE_WHITESPACE, counted
from bpeviz.engine.unigram import (
    SPACE,
    TIE_DECIMALS,
    UNKNOWN_PENALTY,
    UnigramRound,
    UnigramRun,
    split_words,
)
from bpeviz.records.schema import SCHEMA

ALGORITHM = "unigram"
WINDOW_CHARS = 6_000  # characters of text drawn: a bundled sample whole, a book's first pages
WINDOW_PIECES = 8_000  # and at most about this many pieces the drawn words could use
TABLE_EDGE = 12  # a round's table: the cheapest this many, and this many each side of its cut
ROUND_FIELDS = (
    "round", "size", "removed", "loss", "em", "known", "log_probs", "unknown", "table",
    "candidates", "singles", "quiz",
)  # fmt: skip
TABLE_FIELDS = ("piece", "rank", "probability", "loss", "removed")
QUIZ_CHOICES = 4  # the quiz's tokens: one the next round removes, three it keeps


def loss_text(loss: float) -> str:
    """A loss as the card says it: whole numbers above 1,000, else two decimals.

    >>> loss_text(12345.4), loss_text(170.456)
    ('12,345', '170.46')
    """
    return f"{loss:,.0f}" if abs(loss) >= 1000 else f"{loss:,.2f}"


def round_sentence(number: int, before: UnigramRound, after: UnigramRound) -> str:
    """The card of round ``number``'s pruning (``before``: the round; ``after``: the next,
    whose loss is the one after the removal and its EM).

    >>> from bpeviz.engine.unigram import train_unigram
    >>> run = train_unigram("hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4, 12)
    >>> round_sentence(1, run.rounds[0], run.rounds[1]).split("; loss")[0]
    'Round 1: 26 → 19 tokens; removed the 7 whose removal raised the loss least'
    """
    removed = len(before.removed)
    which = "the one" if removed == 1 else f"the {removed:,}"
    return (
        f"Round {number}: {before.size:,} → {before.size - removed:,} tokens; removed {which} "
        f"whose removal raised the loss least; loss {loss_text(before.loss)} → "
        f"{loss_text(after.loss)}"
    )


def _cards(run: UnigramRun) -> list[dict[str, str]]:
    rounds = run.rounds
    first = rounds[0]
    seed = run.seed_rule[0].upper() + run.seed_rule[1:]
    cards = [
        {
            "title": f"The seed: {counted(first.size, 'token')}; loss {loss_text(first.loss)}",
            "note": (
                f"{seed}, then {counted(run.em_iterations, 'EM iteration')} (probabilities "
                "from each token's expected count). Each step is one round: the tokens whose "
                "removal raises the loss least are removed, then EM again. Single characters "
                "are always kept."
            ),
        }
    ]
    for index in range(len(rounds) - 1):
        last = index == len(rounds) - 2
        cards.append(
            {
                "title": round_sentence(index + 1, rounds[index], rounds[index + 1]),
                "note": f"Training stopped: it {run.stop_reason}." if last else "",
            }
        )
    return cards


def _drawn(
    text: str, max_length: int, chars: int, pieces: int
) -> tuple[list[str], list[list[int]], set[str], int]:
    """The words drawn: from the start, while they end within ``chars`` characters and their
    substrings (the pieces they could use) number at most ``pieces`` (the first word always).
    Returns the distinct words, per word drawn ``[word, line breaks before]``, the substrings
    and how many characters of the text are drawn."""
    index: dict[str, int] = {}
    found: list[list[int]] = []
    wanted: set[str] = set()
    at = 0
    for word in split_words(text[: chars + 1]) or split_words(text)[:1]:
        start = text.index(word[len(SPACE) :], at)
        end = start + len(word) - len(SPACE)
        if found and (end > chars or len(wanted) > pieces):
            break
        if word not in index:
            index[word] = len(index)
            wanted.update(
                word[start:end]
                for start in range(len(word))
                for end in range(start + 1, min(len(word), start + max_length) + 1)
            )
        found.append([index[word], text.count("\n", at, start)])
        at = end
    return list(index), found, wanted, at


def _table(round_: UnigramRound, where: dict[str, int]) -> tuple[list[dict[str, Any]], int]:
    """The rows of a round's table around its cut, cheapest first, and how many tokens it
    could remove. The engine's order (the loss to 9 decimals, then the least probable, then
    code point order) is the order of ``removed``; the kept are ranked here only up to
    ``TABLE_EDGE`` past the cut."""
    losses = round_.removal_losses
    candidates = np.flatnonzero(~np.isnan(losses))
    removed = [where[piece] for piece in round_.removed]
    kept = np.setdiff1d(candidates, removed, assume_unique=True)
    loss_key = np.round(losses[kept], TIE_DECIMALS)
    prob_key = np.round(np.log(round_.probabilities[kept]), TIE_DECIMALS)
    order = np.lexsort((prob_key, loss_key))
    edge = min(TABLE_EDGE, len(order))
    while (
        edge
        and edge < len(order)
        and (
            loss_key[order[edge]] == loss_key[order[edge - 1]]
            and prob_key[order[edge]] == prob_key[order[edge - 1]]
        )
    ):
        edge += 1  # equal to the last shown but for their text: code point order decides
    near = sorted(
        order[:edge].tolist(),
        key=lambda i: (loss_key[i], prob_key[i], round_.pieces[int(kept[i])]),
    )[:TABLE_EDGE]
    nearest = [int(kept[i]) for i in near]
    cut = len(removed)
    ranks = [*range(min(TABLE_EDGE, cut)), *range(max(TABLE_EDGE, cut - TABLE_EDGE), cut)]
    rows = [(rank, removed[rank]) for rank in ranks]
    rows += [(cut + offset, index) for offset, index in enumerate(nearest)]
    return [
        {
            "piece": round_.pieces[index],
            "rank": rank,
            "probability": float(round_.probabilities[index]),
            "loss": float(losses[index]),
            "removed": rank < cut,
        }
        for rank, index in rows
    ], len(candidates)


def quiz_rows(rows: list[dict[str, Any]], number: int) -> list[int]:
    """The quiz before round ``number``'s pruning, "which of these four tokens will be pruned
    next?": the places in its table of the last token it removes and the three it keeps next
    (the four nearest its cut), in an order fixed by the round, so a whole class sees the
    same. Empty when the round removes none or keeps fewer than three it could remove.

    >>> rows = [{"removed": True}] * 2 + [{"removed": False}] * 4
    >>> sorted(quiz_rows(rows, 1)), quiz_rows(rows, 1) == quiz_rows(rows, 1)
    ([1, 2, 3, 4], True)
    """
    removed = [place for place, row in enumerate(rows) if row["removed"]]
    kept = [place for place, row in enumerate(rows) if not row["removed"]]
    if not removed or len(kept) < QUIZ_CHOICES - 1:
        return []
    chosen = [removed[-1], *kept[: QUIZ_CHOICES - 1]]
    random.Random(f"bpeviz unigram quiz {number}").shuffle(chosen)
    return chosen


def unigram_payload(
    run: UnigramRun,
    text: str,
    *,
    window_chars: int = WINDOW_CHARS,
    window_pieces: int = WINDOW_PIECES,
) -> dict[str, Any]:
    """The record of a Unigram run on ``text`` (the module docstring says every field)."""
    words, occurrences, wanted, drawn = _drawn(
        text, run.max_piece_length, window_chars, window_pieces
    )
    rounds = run.rounds
    # how many rounds each piece lives: the pieces of round r are those living more than r
    lives = dict.fromkeys(rounds[-1].pieces, len(rounds))
    for number, round_ in enumerate(rounds):
        lives.update(dict.fromkeys(round_.removed, number + 1))
    places = [dict(zip(round_.pieces, range(round_.size), strict=True)) for round_ in rounds]
    tables = [_table(round_, where) for round_, where in zip(rounds, places, strict=True)]
    wanted |= {row["piece"] for rows, _ in tables for row in rows}
    pieces = sorted((piece for piece in wanted if piece in lives), key=lambda p: (-lives[p], p))
    place = {piece: index for index, piece in enumerate(pieces)}
    records = []
    for number, (round_, (rows, candidates)) in enumerate(zip(rounds, tables, strict=True)):
        known = sum(1 for piece in pieces if lives[piece] > number)
        where = places[number]
        logs = np.log(round_.probabilities[[where[piece] for piece in pieces[:known]]])
        records.append(
            {
                "round": round_.round,
                "size": round_.size,
                "removed": len(round_.removed),
                "loss": round_.loss,
                "em": [iteration.likelihood_loss for iteration in round_.em],
                "known": known,
                "log_probs": logs.tolist(),
                "unknown": float(np.log(round_.probabilities.min())) - UNKNOWN_PENALTY,
                "table": [{**row, "piece": place[row["piece"]]} for row in rows],
                "candidates": candidates,
                "singles": round_.size - candidates,
                "quiz": quiz_rows(rows, round_.round),
            }
        )
    return {
        "schema": SCHEMA,
        "algorithm": ALGORITHM,
        "space": SPACE,
        "space_label": VISIBLE_WHITESPACE[" "],
        "settings": {
            "vocab_size": run.requested_vocab_size,
            "shrinking_factor": run.shrinking_factor,
            "em_iterations": run.em_iterations,
            "max_piece_length": run.max_piece_length,
            "seed_pieces": run.seed_pieces,
            "seed_rule": run.seed_rule,
            "stop_reason": run.stop_reason,
        },
        "window": {"chars": drawn, "text_chars": len(text), "whole": not text[drawn:].strip()},
        "words": words,
        "occurrences": occurrences,
        "pieces": pieces,
        "rounds": records,
        "cards": _cards(run),
    }
