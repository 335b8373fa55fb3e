"""The Unigram training recipe: slow, short and obviously right. Read it before
``unigram.py``, which does the same work over all words at once (the tests hold the two equal).

1. seed: every substring of a word up to the maximum length, with its frequency;
   P(piece) = frequency / total;
2. EM: for every word, each piece's expected count by forward-backward, weighted by the
   word's count; P(piece) = expected count / total; again, ``em_iterations`` times;
3. for every token of two or more characters, the loss if it alone were removed (the
   Viterbi loss without it, not renormalised, minus the loss with it);
4. remove the cheapest until ``shrinking_factor`` of the vocabulary is left (never below
   the vocab size; equal costs to 9 decimals: least probable first, then code point order);
5. repeat until the vocabulary has ``vocab_size`` pieces or only characters are left.

Everything that makes the fast trainer fast is left out: each removal loss cuts every word
again. Only the seed, the word split and the one-word functions come from elsewhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bpeviz.engine.unigram import (
    EM_ITERATIONS,
    MAX_PIECE_LENGTH,
    MIN_EXPECTED_COUNT,
    SEED_SIZE,
    SHRINKING_FACTOR,
    TIE_DECIMALS,
    UnigramModel,
    count_words,
    seed_vocabulary,
)
from bpeviz.engine.unigram_lattice import forward_backward


@dataclass(frozen=True)
class TextbookRound:
    """One round as the recipe saw it: pieces with probabilities, removal losses (tokens of
    two or more characters), the removed tokens in order, and the Viterbi loss."""

    probabilities: dict[str, float]
    removal_losses: dict[str, float]
    removed: tuple[str, ...]
    loss: float
    likelihood_losses: tuple[float, ...]


def em_step(log_probs: dict[str, float], word_counts: dict[str, int]) -> dict[str, float]:
    """One EM iteration: expected counts by forward-backward, then count / total."""
    expected = dict.fromkeys(log_probs, 0.0)
    for word, count in word_counts.items():
        _, counts = forward_backward(word, log_probs)
        for piece, share in counts.items():
            expected[piece] += count * share
    expected = {piece: max(count, MIN_EXPECTED_COUNT) for piece, count in expected.items()}
    total = math.fsum(expected.values())
    return {piece: math.log(count / total) for piece, count in expected.items()}


def likelihood_loss(log_probs: dict[str, float], word_counts: dict[str, int]) -> float:
    """-sum over words of count x ln P(word), P(word) summed over all its segmentations."""
    return -math.fsum(count * forward_backward(word, log_probs)[0] for word, count in
                      word_counts.items())  # fmt: skip


def textbook_unigram(
    text: str,
    vocab_size: int,
    *,
    max_piece_length: int = MAX_PIECE_LENGTH,
    seed_size: int = SEED_SIZE,
    em_iterations: int = EM_ITERATIONS,
    shrinking_factor: float = SHRINKING_FACTOR,
) -> list[TextbookRound]:
    """Every round of Unigram training, the plain way. The settings are ``train_unigram``'s,
    in the order the recipe uses them: the seed (1), EM (2), the shrinking (4)."""
    word_counts = count_words(text)
    seed = seed_vocabulary(word_counts, max_piece_length=max_piece_length, seed_size=seed_size)
    total = sum(seed.values())
    log_probs = {piece: math.log(frequency / total) for piece, frequency in seed.items()}
    rounds = []
    while True:
        likelihoods = []
        for _ in range(em_iterations):
            log_probs = em_step(log_probs, word_counts)
            likelihoods.append(likelihood_loss(log_probs, word_counts))
        model = UnigramModel.from_log_probs(log_probs)
        removal = {
            piece: model.removal_loss(piece, word_counts) for piece in log_probs if len(piece) > 1
        }
        target = max(vocab_size, math.floor(len(log_probs) * shrinking_factor))
        cheapest = sorted(
            removal,
            key=lambda piece: (
                round(removal[piece], TIE_DECIMALS),
                round(log_probs[piece], TIE_DECIMALS),
                piece,
            ),
        )
        done = len(log_probs) <= vocab_size or not removal
        removed = () if done else tuple(cheapest[: len(log_probs) - target])
        rounds.append(
            TextbookRound(
                probabilities={piece: math.exp(value) for piece, value in log_probs.items()},
                removal_losses=removal,
                removed=removed,
                loss=model.loss(word_counts),
                likelihood_losses=tuple(likelihoods),
            )
        )
        if done:
            return rounds
        for piece in removed:
            del log_probs[piece]
