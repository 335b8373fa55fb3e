"""One word's Unigram lattice: the pure functions a teacher (and a lattice view) needs.

A Unigram vocabulary gives each piece a probability; a word's segmentation is a list of
pieces that spell it, and its probability is the product of theirs. The lattice holds every
piece that occurs at every position of the word. From it:

- ``all_segmentations``: every segmentation with its probability (exponentially many: bounded);
- ``viterbi_table``: the best score ending at each position and the piece that got there,
  position by position, then the best segmentation read backwards (``best_path``);
- ``forward_backward``: the word's total probability and each piece's expected count, what
  the E-step of training sums over the text;
- ``sample_segmentation``: draw one segmentation with probability proportional to
  ``P(segmentation) ** (1 / temperature)`` (subword regularization), by forward filtering
  and backward sampling; ``sample_counts`` counts how often each segmentation comes up.

Probabilities are handled as natural logs (``log_probs``: piece -> ln P). Ties go to the
piece that starts earliest (the longest last piece), position by position: the rule of
SentencePiece's and the ``tokenizers`` library's Viterbi, which take a later candidate only
if it scores strictly higher. Characters no piece covers are left to the caller
(``bpeviz.engine.unigram`` gives them the libraries' unknown score). This module leaves out
training and files.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass

MAX_SEGMENTATIONS = 10_000  # all_segmentations refuses words with more


@dataclass(frozen=True, slots=True)
class ViterbiCell:
    """Position ``end`` of a word: the best log score of its first ``end`` characters, and
    the piece ending there on that best path (``start`` is where it starts; -1: none)."""

    end: int
    score: float
    piece: str
    start: int


def lattice(word: str, log_probs: Mapping[str, float], max_length: int) -> list[list[int]]:
    """For each end position, the start positions of the pieces ending there (ascending).

    >>> lattice("hug", {"h": -1, "u": -1, "g": -1, "hu": -1}, 16)
    [[], [0], [0, 1], [2]]
    """
    starts: list[list[int]] = [[] for _ in range(len(word) + 1)]
    for end in range(1, len(word) + 1):
        starts[end] = [
            start for start in range(max(0, end - max_length), end) if word[start:end] in log_probs
        ]
    return starts


def _max_length(log_probs: Mapping[str, float]) -> int:
    return max(map(len, log_probs), default=1)


def viterbi_table(
    word: str, log_probs: Mapping[str, float], extra: Mapping[str, float] | None = None
) -> list[ViterbiCell]:
    """The Viterbi table: cell ``end`` holds the best log score of ``word[:end]`` (``-inf``
    when no segmentation reaches it) and the last piece of that best path. ``extra`` adds
    pieces for this word only (unknown characters).

    >>> [(c.end, c.piece, round(math.exp(c.score), 4)) for c in
    ...  viterbi_table("ab", {"a": math.log(0.5), "b": math.log(0.25), "ab": math.log(0.2)})]
    [(0, '', 1.0), (1, 'a', 0.5), (2, 'ab', 0.2)]
    """
    vocab = {**log_probs, **(extra or {})}
    longest = _max_length(vocab)
    cells = [ViterbiCell(0, 0.0, "", -1)]
    for end, starts in enumerate(lattice(word, vocab, longest)[1:], start=1):
        best, best_start = -math.inf, -1
        for start in starts:
            before = cells[start].score
            if before == -math.inf:
                continue
            score = before + vocab[word[start:end]]
            if best_start < 0 or score > best:  # strictly higher: earlier starts win ties
                best, best_start = score, start
        piece = word[best_start:end] if best_start >= 0 else ""
        cells.append(ViterbiCell(end, best, piece, best_start))
    return cells


def best_path(cells: list[ViterbiCell]) -> list[str]:
    """The best segmentation read back from a Viterbi table (empty when none reaches the end)."""
    pieces: list[str] = []
    end = len(cells) - 1
    while end > 0:
        cell = cells[end]
        if cell.start < 0:
            return []
        pieces.append(cell.piece)
        end = cell.start
    return pieces[::-1]


def all_segmentations(word: str, log_probs: Mapping[str, float]) -> list[tuple[list[str], float]]:
    """Every segmentation of ``word`` into pieces of the vocabulary with its probability,
    most probable first (equal ones in the order of their pieces' start positions, left
    pieces longest first). Refuses a word with more than ``MAX_SEGMENTATIONS`` of them.

    >>> found = all_segmentations("ab", {"a": math.log(.5), "b": math.log(.25), "ab": math.log(.2)})
    >>> [(pieces, round(probability, 4)) for pieces, probability in found]
    [(['ab'], 0.2), (['a', 'b'], 0.125)]
    """
    starts = lattice(word, log_probs, _max_length(log_probs))
    counts = [1] + [0] * len(word)
    for end in range(1, len(word) + 1):
        counts[end] = sum(counts[start] for start in starts[end])
    if counts[-1] > MAX_SEGMENTATIONS:
        raise ValueError(
            f"{word!r} has {counts[-1]:,} segmentations, more than {MAX_SEGMENTATIONS:,} "
            "can be listed: pick a shorter word"
        )
    ends: list[list[int]] = [[] for _ in range(len(word) + 1)]
    for end, from_starts in enumerate(starts):
        for start in from_starts:
            ends[start].append(end)

    found: list[tuple[list[str], float]] = []

    def extend(position: int, pieces: list[str], score: float) -> None:
        if position == len(word):
            found.append((list(pieces), math.exp(score)))
            return
        for end in sorted(ends[position], reverse=True):
            piece = word[position:end]
            pieces.append(piece)
            extend(end, pieces, score + log_probs[piece])
            pieces.pop()

    extend(0, [], 0.0)
    return sorted(found, key=lambda item: -item[1])


def _log_add(left: float, right: float) -> float:
    if left == -math.inf:
        return right
    if right == -math.inf:
        return left
    high = max(left, right)
    return high + math.log1p(math.exp(-abs(left - right)))


def forward_backward(word: str, log_probs: Mapping[str, float]) -> tuple[float, dict[str, float]]:
    """ln of the word's total probability (the sum over all its segmentations) and each
    piece's expected count in it (a piece twice in a segmentation counts twice).

    ``alpha[i]`` sums the probabilities of the ways to write ``word[:i]``, ``beta[i]`` those
    of ``word[i:]``; a piece at ``[s, e)`` is used with probability
    ``alpha[s] P(piece) beta[e] / alpha[len]``.

    >>> total, counts = forward_backward("ab", {"a": math.log(.5), "b": math.log(.5),
    ...                                         "ab": math.log(.25)})
    >>> round(math.exp(total), 4), {piece: round(n, 4) for piece, n in counts.items()}
    (0.5, {'a': 0.5, 'ab': 0.5, 'b': 0.5})
    """
    size = len(word)
    starts = lattice(word, log_probs, _max_length(log_probs))
    alpha = [0.0] + [-math.inf] * size
    for end in range(1, size + 1):
        for start in starts[end]:
            alpha[end] = _log_add(alpha[end], alpha[start] + log_probs[word[start:end]])
    beta = [-math.inf] * size + [0.0]
    for end in range(size, 0, -1):
        for start in starts[end]:
            beta[start] = _log_add(beta[start], log_probs[word[start:end]] + beta[end])
    total = alpha[size]
    counts: dict[str, float] = {}
    if total == -math.inf:
        return total, counts
    for end in range(1, size + 1):
        for start in starts[end]:
            piece = word[start:end]
            share = math.exp(alpha[start] + log_probs[piece] + beta[end] - total)
            counts[piece] = counts.get(piece, 0.0) + share
    return total, counts


def sample_segmentation(
    word: str,
    log_probs: Mapping[str, float],
    *,
    temperature: float = 1.0,
    rng: random.Random | None = None,
) -> list[str]:
    """One segmentation drawn with probability proportional to ``P(seg) ** (1/temperature)``.

    Temperature 1 samples the model's own distribution; towards 0 it becomes the Viterbi
    path, above 1 it flattens towards every segmentation alike. Forward sums are taken
    under the sharpened probabilities, then pieces are drawn from the end backwards.
    """
    if not temperature > 0:
        raise ValueError(f"the temperature must be above 0, got {temperature!r}")
    rng = rng or random.Random()
    scaled = {piece: value / temperature for piece, value in log_probs.items()}
    size = len(word)
    starts = lattice(word, scaled, _max_length(scaled))
    alpha = [0.0] + [-math.inf] * size
    for end in range(1, size + 1):
        for start in starts[end]:
            alpha[end] = _log_add(alpha[end], alpha[start] + scaled[word[start:end]])
    if alpha[size] == -math.inf:
        raise ValueError(f"no segmentation of {word!r} uses only pieces of the vocabulary")
    pieces: list[str] = []
    end = size
    while end > 0:
        weights = [
            math.exp(alpha[start] + scaled[word[start:end]] - alpha[end]) for start in starts[end]
        ]
        start = rng.choices(starts[end], weights=weights)[0]
        pieces.append(word[start:end])
        end = start
    return pieces[::-1]


def sample_counts(
    word: str,
    log_probs: Mapping[str, float],
    draws: int,
    *,
    temperature: float = 1.0,
    rng: random.Random | None = None,
) -> list[tuple[tuple[str, ...], int]]:
    """Draw ``draws`` segmentations and count each, most frequent first (equal: first drawn).

    >>> sample_counts("ab", {"a": math.log(.5), "b": math.log(.5)}, 3)
    [(('a', 'b'), 3)]
    """
    rng = rng or random.Random()
    found: dict[tuple[str, ...], int] = {}
    for _ in range(draws):
        pieces = tuple(sample_segmentation(word, log_probs, temperature=temperature, rng=rng))
        found[pieces] = found.get(pieces, 0) + 1
    return sorted(found.items(), key=lambda item: -item[1])
