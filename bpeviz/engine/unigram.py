"""Unigram: a model you can script, and training that records every round.

A Unigram vocabulary gives each piece a probability. A word is cut by the most probable path
through its lattice (Viterbi), and the loss of a text is the sum over its words of
``count x -ln P(best segmentation)``. ``UnigramModel`` is that, for teaching: build it from
frequencies, cut a word, compute the loss and what removing one token would cost (without
renormalising, as the Hugging Face course's walk-through computes it).

Training (``train_unigram``) goes the other way from BPE: it starts from a big vocabulary and
prunes it. Conventions are SentencePiece's: a word is what lies between whitespace, with ``▁``
in front (``hug`` is ``▁hug``); a character no piece covers falls back to its UTF-8 bytes as
``<0xE3>`` pieces.

1. **Seed**: every substring of a word of at most ``max_piece_length`` (16) characters, with
   its frequency (how often it occurs, weighted by the words' counts). When there are more
   than ``seed_size`` substrings of two or more characters, the ``seed_size`` most frequent
   are kept (equal ones: shorter first, then code point order); every character is kept.
2. **EM** (``em_iterations`` a round, 2 as in SentencePiece): expected counts of every piece
   by the forward-backward algorithm over each word's lattice, then ``P = count / total``;
   the text's loss (natural-log negative log-likelihood, summed over all segmentations) is
   recorded after each iteration.
3. **Prune**: each token's loss if removed (the Viterbi loss without it, not renormalised,
   minus the loss with it; zero for a token in no best path), then remove the tokens whose
   removal costs least until ``shrinking_factor`` (0.75) of the vocabulary is left, never
   below the vocab size. Equal costs (compared to 9 decimals, so float noise does not
   decide): the least probable first, then code point order. Single characters are always
   kept.
4. Repeat until the vocabulary has ``vocab_size`` pieces (or only characters are left).

Each round's record holds its vocabulary with probabilities, each token's loss if removed,
the removed tokens and the losses. Where this differs from SentencePiece's trainer (its
seed, its digamma update, its cut of pieces expected less than half a time, its approximate
removal cost) is written in docs/engine.md (Unigram) and checked by
``tests/test_unigram_sentencepiece.py``.
``bpeviz/engine/unigram_textbook.py`` is the recipe in plain Python, held equal to this module;
here every word's lattice lies in flat numpy arrays and each pass runs over all words at once,
position by position. Lattice views of one word are in ``bpeviz/engine/unigram_lattice.py``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from bpeviz.engine.pretokenize import white_space_words
from bpeviz.engine.unigram_lattice import best_path, viterbi_table

SPACE = "▁"  # SentencePiece's mark for the space before a word
UNK = "<unk>"
MAX_PIECE_LENGTH = 16  # SentencePiece's max_sentencepiece_length
SEED_SIZE = 1_000_000  # SentencePiece's seed_sentencepiece_size
SHRINKING_FACTOR = 0.75
EM_ITERATIONS = 2  # SentencePiece's num_sub_iterations
UNKNOWN_PENALTY = 10.0  # an unknown character scores this far below the least likely piece
TIE_DECIMALS = 9
# EM drives the count of a piece that only ever loses to longer ones towards 0 (a plain
# maximum-likelihood update has no floor); it keeps this much, so its log stays finite.
MIN_EXPECTED_COUNT = 1e-100


def split_words(text: str) -> list[str]:
    """The words Unigram trains on and encodes: whitespace-separated, ``▁`` in front.

    >>> split_words("Hug  a pug\\n")
    ['▁Hug', '▁a', '▁pug']
    """
    return [SPACE + word for word in white_space_words(text)]


def byte_pieces(text: str) -> list[str]:
    """Byte fallback: a text as one ``<0xNN>`` piece per UTF-8 byte.

    >>> byte_pieces("語")
    ['<0xE8>', '<0xAA>', '<0x9E>']
    """
    return [f"<0x{byte:02X}>" for byte in text.encode("utf-8")]


class UnigramModel:
    """Pieces with probabilities; Viterbi cuts, the loss and removal losses of a text.

    >>> model = UnigramModel({"h": 15, "u": 36, "g": 20, "hu": 15, "ug": 20, "hug": 15})
    >>> model.viterbi("hug")
    (['hug'], 0.12396694214876035)
    """

    def __init__(
        self, frequencies: Mapping[str, float], *, unknown_penalty: float = UNKNOWN_PENALTY
    ) -> None:
        if not frequencies:
            raise ValueError("a Unigram model needs at least one piece with a frequency")
        for piece, frequency in frequencies.items():
            if not isinstance(piece, str) or not piece:
                raise ValueError(f"every piece must be a non-empty string, got {piece!r}")
            if not (isinstance(frequency, int | float) and 0 < frequency < math.inf):
                raise ValueError(f"{piece!r} needs a positive frequency, got {frequency!r}")
        total = math.fsum(frequencies.values())
        self.probabilities: dict[str, float] = {
            piece: frequency / total for piece, frequency in frequencies.items()
        }
        self.log_probs: dict[str, float] = {
            piece: math.log(probability) for piece, probability in self.probabilities.items()
        }
        self.unknown_penalty = unknown_penalty

    @classmethod
    def from_log_probs(
        cls, log_probs: Mapping[str, float], *, unknown_penalty: float = UNKNOWN_PENALTY
    ) -> UnigramModel:
        """A model whose pieces have exactly these log probabilities (not renormalised)."""
        model = cls.__new__(cls)
        model.log_probs = dict(log_probs)
        model.probabilities = {piece: math.exp(value) for piece, value in log_probs.items()}
        model.unknown_penalty = unknown_penalty
        return model

    @property
    def unknown_log_prob(self) -> float:
        """The score of a character no piece covers: the lowest piece's, minus the penalty
        (as SentencePiece and ``tokenizers`` score it)."""
        return min(self.log_probs.values(), default=0.0) - self.unknown_penalty

    def without(self, token: str) -> UnigramModel:
        """The same model with ``token`` gone and the others' probabilities unchanged."""
        if token not in self.log_probs:
            raise ValueError(f"{token!r} is not in the vocabulary")
        rest = {piece: value for piece, value in self.log_probs.items() if piece != token}
        model = UnigramModel.from_log_probs(rest, unknown_penalty=self.unknown_penalty)
        model.probabilities = {
            piece: value for piece, value in self.probabilities.items() if piece != token
        }
        return model

    def viterbi_log(self, word: str) -> tuple[list[str], float]:
        """The best segmentation and its natural-log probability; runs of characters no
        piece covers come out as their UTF-8 bytes (``<0xE3>``), each character scored
        ``unknown_log_prob``."""
        unknown = {char: self.unknown_log_prob for char in word if char not in self.log_probs}
        pieces = best_path(cells := viterbi_table(word, self.log_probs, unknown))
        out: list[str] = []
        run = ""
        for piece in pieces:
            if piece in self.log_probs:
                out.extend(byte_pieces(run))
                run = ""
                out.append(piece)
            else:
                run += piece
        out.extend(byte_pieces(run))
        return out, cells[-1].score

    def viterbi(self, word: str) -> tuple[list[str], float]:
        """The most probable segmentation of ``word`` and its probability (ties: the earlier
        start of the last piece, position by position, as SentencePiece and ``tokenizers``)."""
        pieces, score = self.viterbi_log(word)
        return pieces, math.exp(score)

    def loss(self, word_counts: Mapping[str, int]) -> float:
        """The sum over words of ``count x -ln P(best segmentation)``."""
        return math.fsum(-count * self.viterbi_log(word)[1] for word, count in word_counts.items())

    def removal_loss(self, token: str, word_counts: Mapping[str, int]) -> float:
        """How much the loss grows when ``token`` is removed and the rest kept as they are
        (not renormalised), as the textbook walk-through computes it."""
        return self.without(token).loss(word_counts) - self.loss(word_counts)

    def encode(self, text: str) -> list[str]:
        """The text's pieces: each word (``split_words``) cut by Viterbi."""
        return [piece for word in split_words(text) for piece in self.viterbi_log(word)[0]]


# ---- training ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EMIteration:
    """One EM iteration: the text's loss after it, the negative log-likelihood summed over
    all segmentations of each word (natural log); the round's ``loss`` counts best ones only."""

    likelihood_loss: float


@dataclass(frozen=True)
class UnigramRound:
    """One round: the vocabulary after its EM, each token's loss if removed (NaN for single
    characters, which are kept), the tokens then removed (cheapest first) and the losses.

    ``pieces`` is ordered by probability, highest first (equal: code point order);
    ``probabilities`` and ``removal_losses`` follow it. ``loss`` is the Viterbi loss after
    the round's EM, ``em`` each iteration's losses.
    """

    round: int
    pieces: tuple[str, ...]
    probabilities: np.ndarray
    removal_losses: np.ndarray
    removed: tuple[str, ...]
    em: tuple[EMIteration, ...]
    loss: float

    @property
    def size(self) -> int:
        return len(self.pieces)


@dataclass(frozen=True)
class UnigramRun:
    """A Unigram training run: its settings, the seed, every round and the final pieces."""

    requested_vocab_size: int
    max_piece_length: int
    seed_size: int
    shrinking_factor: float
    em_iterations: int
    words: tuple[str, ...]
    counts: tuple[int, ...]
    seed_pieces: int
    seed_rule: str
    rounds: tuple[UnigramRound, ...]
    stop_reason: str

    @property
    def final(self) -> UnigramRound:
        return self.rounds[-1]

    def log_probs(self) -> dict[str, float]:
        """The final pieces' natural-log probabilities, most probable first."""
        final = self.final
        with np.errstate(divide="ignore"):
            return dict(zip(final.pieces, np.log(final.probabilities).tolist(), strict=True))

    def model(self) -> UnigramModel:
        return UnigramModel.from_log_probs(self.log_probs())

    def word_counts(self) -> dict[str, int]:
        return dict(zip(self.words, self.counts, strict=True))


def unigram_problems(
    vocab_size: int, max_piece_length: int, seed_size: int, shrinking_factor: float
) -> list[str]:
    """Every reason these settings cannot train, each saying how to fix it (empty: fine)."""
    found = []
    for name, value in (
        ("Vocab size", vocab_size),
        ("The maximum piece length", max_piece_length),
        ("The seed size", seed_size),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            found.append(f"{name} must be a whole number of at least 1, got {value!r}.")
    if not (isinstance(shrinking_factor, float | int) and 0 < shrinking_factor < 1):
        found.append(f"The shrinking factor must lie between 0 and 1, got {shrinking_factor!r}.")
    return found


def count_words(text: str) -> dict[str, int]:
    """Each distinct word (``▁`` in front) and how often it occurs, in order of appearance."""
    return dict(Counter(split_words(text)))


@cache
def _spans(length: int, max_length: int) -> tuple[tuple[slice, ...], np.ndarray, np.ndarray]:
    """Every substring of a word of ``length`` (by start, then end): as slices, starts, ends."""
    pairs = [
        (start, end)
        for start in range(length)
        for end in range(start + 1, min(length, start + max_length) + 1)
    ]
    spans = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    return tuple(slice(a, b) for a, b in pairs), spans[:, 0], spans[:, 1]


def seed_vocabulary(
    word_counts: Mapping[str, int],
    *,
    max_piece_length: int = MAX_PIECE_LENGTH,
    seed_size: int = SEED_SIZE,
) -> dict[str, int]:
    """Every substring of at most ``max_piece_length`` characters with its frequency; above
    ``seed_size`` longer ones, the most frequent (equal: shorter, then code point order),
    every character kept. In order of first occurrence.

    >>> seed_vocabulary({"▁hug": 2, "▁pug": 1}, max_piece_length=2)
    {'▁': 3, '▁h': 2, 'h': 2, 'hu': 2, 'u': 3, 'ug': 3, 'g': 3, '▁p': 1, 'p': 1, 'pu': 1}
    """
    counts: dict[str, int] = {}
    for word, count in word_counts.items():
        for start in range(len(word)):
            for end in range(start + 1, min(len(word), start + max_piece_length) + 1):
                piece = word[start:end]
                counts[piece] = counts.get(piece, 0) + count
    longer = [piece for piece in counts if len(piece) > 1]
    if len(longer) <= seed_size:
        return counts
    kept = set(sorted(longer, key=lambda piece: (-counts[piece], len(piece), piece))[:seed_size])
    return {piece: n for piece, n in counts.items() if len(piece) == 1 or piece in kept}


class _Layers:
    """A pass over many lattices at once, one position at a time.

    Nodes are grouped by ``layer`` (their end for a forward pass, their start for a backward
    one); within a layer, by ``target`` (the global position a node's value flows into),
    nodes in the order given (start ascending, so the first of equals is the earliest).
    Each layer keeps its nodes' tokens too, so a pass reads a log probability in one step.
    """

    def __init__(
        self,
        layer: np.ndarray,
        target: np.ndarray,
        source: np.ndarray,
        token: np.ndarray,
        *,
        descending: bool,
    ) -> None:
        small = np.int16 if len(layer) and layer.max() < 2**15 else np.int32
        order = np.argsort(layer.astype(small), kind="stable")  # radix sort for int16
        keys = layer[order]
        cuts = np.flatnonzero(np.diff(keys)) + 1
        groups = np.split(order, cuts)
        if descending:
            groups = groups[::-1]
        self.layers = []
        for nodes in groups:
            if not len(nodes):
                continue
            into = target[nodes]
            heads = np.flatnonzero(np.r_[True, into[1:] != into[:-1]])
            sizes = np.diff(np.r_[heads, len(nodes)])
            self.layers.append((nodes, source[nodes], token[nodes], into[heads], heads, sizes))

    def kept(self, keep: np.ndarray, renumber: np.ndarray) -> _Layers:
        """The same pass over the nodes ``keep`` marks (numbered anew by ``renumber``),
        without sorting again. Every target keeps a node (its single character), so the
        targets stay; only how many nodes flow into each changes."""
        layers = object.__new__(_Layers)
        layers.layers = []
        for nodes, source, tokens, into, heads, sizes in self.layers:
            mask = keep[nodes]
            sizes = np.add.reduceat(mask, heads, dtype=np.int64)
            heads = np.cumsum(sizes) - sizes
            layers.layers.append(
                (renumber[nodes[mask]], source[mask], tokens[mask], into, heads, sizes)
            )
        return layers

    def log_sum(self, values: np.ndarray, log_probs: np.ndarray) -> None:
        """values[target] = ln sum over its nodes of exp(values[source] + its log prob)."""
        for _, source, tokens, into, heads, sizes in self.layers:
            scores = values[source] + log_probs[tokens]
            top = np.maximum.reduceat(scores, heads)
            shift = np.where(top == -np.inf, 0.0, top)  # unreachable stays -inf, not NaN
            total = np.add.reduceat(np.exp(scores - np.repeat(shift, sizes)), heads)
            with np.errstate(divide="ignore"):
                values[into] = shift + np.log(total)

    def best(self, values: np.ndarray, log_probs: np.ndarray, back: np.ndarray | None) -> None:
        """values[target] = the best of values[source] + its log prob; ``back`` (when given)
        gets the first node reaching it (ties: the earliest start)."""
        for nodes, source, tokens, into, heads, sizes in self.layers:
            scores = values[source] + log_probs[tokens]
            top = np.maximum.reduceat(scores, heads)
            values[into] = top
            if back is not None:
                where = np.arange(len(nodes))
                first = np.minimum.reduceat(
                    np.where(scores == np.repeat(top, sizes), where, len(nodes)), heads
                )
                back[into] = nodes[first]


class _Lattices:
    """Every distinct word's lattice in flat arrays: node ``i`` is the piece ``token[i]``
    from global position ``begin[i]`` to ``finish[i]`` of word ``word[i]``; word ``w``
    spans positions ``first[w]`` to ``last[w]``."""

    def __init__(
        self,
        word_of: np.ndarray,
        begin: np.ndarray,
        finish: np.ndarray,
        token: np.ndarray,
        first: np.ndarray,
        last: np.ndarray,
        weight: np.ndarray,
        layers: tuple[_Layers, _Layers],
    ) -> None:
        self.word_of, self.begin, self.finish, self.token = word_of, begin, finish, token
        self.first, self.last, self.weight = first, last, weight
        self.positions = int(last[-1]) + 1 if len(last) else 0
        self.forward, self.backward = layers  # grouped by end, and by start from the right

    def keep(self, alive: np.ndarray) -> _Lattices:
        """The lattices without the nodes of removed tokens."""
        kept = alive[self.token]
        renumber = np.cumsum(kept) - 1
        return _Lattices(
            self.word_of[kept], self.begin[kept], self.finish[kept], self.token[kept],
            self.first, self.last, self.weight,
            (self.forward.kept(kept, renumber), self.backward.kept(kept, renumber)),
        )  # fmt: skip

    def forward_sums(self, log_probs: np.ndarray) -> np.ndarray:
        """ln of the total probability of every prefix of every word (the forward pass)."""
        alpha = np.full(self.positions, -np.inf)
        alpha[self.first] = 0.0
        self.forward.log_sum(alpha, log_probs)
        return alpha

    def likelihood_loss(self, alpha: np.ndarray) -> float:
        """The text's negative log-likelihood (all segmentations) from the forward sums."""
        return float(-(alpha[self.last] * self.weight).sum())

    def expected_counts(self, log_probs: np.ndarray, alpha: np.ndarray, tokens: int) -> np.ndarray:
        """Each token's expected count over the text, by forward-backward (``alpha``: the
        forward sums under ``log_probs``)."""
        beta = np.full(self.positions, -np.inf)
        beta[self.last] = 0.0
        self.backward.log_sum(beta, log_probs)
        piece = log_probs[self.token]
        # ln(count of the word x P(paths through the node)), exponentiated once
        piece += alpha[self.begin]
        piece += beta[self.finish]
        piece -= (alpha[self.last] - np.log(self.weight))[self.word_of]
        return np.bincount(self.token, weights=np.exp(piece), minlength=tokens)

    def viterbi(self, log_probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each word's best log score, and the (word, token) pairs of its best path."""
        score = np.full(self.positions, -np.inf)
        score[self.first] = 0.0
        back = np.full(self.positions, -1, dtype=np.int64)
        self.forward.best(score, log_probs, back)
        words = np.arange(len(self.first))
        at = self.last.copy()
        pairs = []
        while len(words):
            node = back[at]
            pairs.append(words * (1 << 32) + self.token[node])
            at = self.begin[node]
            going = at > self.first[words]
            words, at = words[going], at[going]
        used = np.unique(np.concatenate(pairs)) if pairs else np.zeros(0, dtype=np.int64)
        return score[self.last], used

    def removal_losses(
        self, log_probs: np.ndarray, best: np.ndarray, used: np.ndarray, removable: np.ndarray
    ) -> np.ndarray:
        """Each token's Viterbi loss increase when it alone is removed (not renormalised):
        every word whose best path uses it is cut again without it.

        Each (word, token) pair is a copy of the word's lattice without the token's nodes,
        laid in positions of its own. The forward pass's groups (all nodes reaching one
        position, a single character always among them) are repeated once per copy of their
        word, so the copies are cut together, position by position, with nothing to sort.
        """
        word, token = used >> 32, used & 0xFFFFFFFF
        wanted = removable[token]
        word, token = word[wanted], token[wanted]  # by word, then token
        if not len(word):
            return np.zeros(len(log_probs))
        copies = np.bincount(word, minlength=len(self.first))
        first_copy = np.cumsum(copies) - copies
        width = (self.last - self.first + 1)[word]
        base = np.cumsum(width) - width
        shift = base - self.first[word]  # a node's position in copy i: its own + shift[i]
        score = np.full(int(base[-1] + width[-1]), -np.inf)
        score[base] = 0.0
        for nodes, source, tokens, into, heads, sizes in self.forward.layers:
            group_word = self.word_of[nodes[heads]]
            times = copies[group_word]
            group = np.repeat(np.arange(len(heads)), times)
            if not len(group):
                continue
            starts = np.cumsum(times) - times
            copy = first_copy[group_word[group]] + np.arange(len(group)) - starts[group]
            count = sizes[group]
            offsets = np.cumsum(count) - count
            picked = np.repeat(heads[group] - offsets, count) + np.arange(int(count.sum()))
            copy_of = np.repeat(copy, count)
            mask = tokens[picked] != token[copy_of]
            picked, copy_of = picked[mask], copy_of[mask]
            count = np.add.reduceat(mask, offsets, dtype=np.int64)
            scores = score[source[picked] + shift[copy_of]] + log_probs[tokens[picked]]
            score[into[group] + shift[copy]] = np.maximum.reduceat(scores, np.cumsum(count) - count)
        increase = (best[word] - score[base + width - 1]) * self.weight[word]
        return np.bincount(token, weights=increase, minlength=len(log_probs))


def _seed_and_lattices(
    words: Sequence[str], weights: Sequence[int], max_length: int, seed_size: int
) -> tuple[list[str], np.ndarray, _Lattices]:
    """``seed_vocabulary`` (the same pieces, order and frequencies) and every word's lattice
    over it, from one pass over all substrings."""
    shapes = [_spans(len(word), max_length) for word in words]
    substrings = [word[cut] for word, shape in zip(words, shapes, strict=True) for cut in shape[0]]
    index: dict[str, int] = {}
    number = index.setdefault  # a new piece gets the next number, in order of first occurrence
    token = np.array([number(piece, len(index)) for piece in substrings], dtype=np.int64)
    per_word = np.fromiter((len(shape[0]) for shape in shapes), dtype=np.int64, count=len(words))
    weight = np.asarray(weights, dtype=np.float64)
    frequencies = np.bincount(token, weights=np.repeat(weight, per_word), minlength=len(index))
    pieces = list(index)
    lengths = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces))
    longer = np.flatnonzero(lengths > 1)
    if len(longer) > seed_size:
        ranks = _text_ranks(pieces)
        order = np.lexsort((ranks[longer], lengths[longer], -frequencies[longer]))
        kept = np.zeros(len(pieces), dtype=bool)
        kept[lengths == 1] = True
        kept[longer[order[:seed_size]]] = True
        renumber = np.cumsum(kept) - 1
        token = np.where(kept[token], renumber[token], -1)
        pieces = [piece for piece, keep in zip(pieces, kept.tolist(), strict=True) if keep]
        frequencies = frequencies[kept]
    starts = np.concatenate([shape[1] for shape in shapes])
    ends = np.concatenate([shape[2] for shape in shapes])
    width = np.fromiter(map(len, words), dtype=np.int64, count=len(words)) + 1
    first = np.cumsum(width) - width
    word_of = np.repeat(np.arange(len(words)), per_word)
    live = token >= 0
    word_of, starts, ends, token = word_of[live], starts[live], ends[live], token[live]
    begin, finish = first[word_of] + starts, first[word_of] + ends
    layers = (
        _Layers(ends, finish, begin, token, descending=False),
        _Layers(starts, begin, finish, token, descending=True),
    )
    lattices = _Lattices(word_of, begin, finish, token, first, first + width - 1, weight, layers)
    return pieces, frequencies, lattices


def _tie_key(values: np.ndarray) -> np.ndarray:
    return np.round(values, TIE_DECIMALS)


def _text_order(pieces: Sequence[str]) -> np.ndarray:
    """The pieces' numbers in code point order of their text. numpy sorts fixed-width text
    by code point as Python does, but ignores trailing NULs: with one, Python sorts."""
    if any("\0" in piece for piece in pieces):
        return np.array(sorted(range(len(pieces)), key=pieces.__getitem__), dtype=np.int64)
    return np.argsort(np.array(pieces, dtype=str), kind="stable")


def _text_ranks(pieces: Sequence[str]) -> np.ndarray:
    """Each piece's place in code point order."""
    ranks = np.empty(len(pieces), dtype=np.int64)
    ranks[_text_order(pieces)] = np.arange(len(pieces))
    return ranks


def train_unigram(
    text: str,
    vocab_size: int,
    *,
    max_piece_length: int = MAX_PIECE_LENGTH,
    seed_size: int = SEED_SIZE,
    shrinking_factor: float = SHRINKING_FACTOR,
    em_iterations: int = EM_ITERATIONS,
) -> UnigramRun:
    """Train Unigram on ``text`` until ``vocab_size`` pieces are left (``<unk>`` and byte
    pieces not counted), recording every round (see the module docstring for the rules).

    >>> run = train_unigram("hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4, 12)
    >>> [round_.size for round_ in run.rounds], run.final.pieces[:4]
    ([26, 19, 14, 12], ('▁pun', '▁hug', '▁pug', '▁bun'))
    """
    problems = unigram_problems(vocab_size, max_piece_length, seed_size, shrinking_factor)
    if isinstance(em_iterations, bool) or not isinstance(em_iterations, int) or em_iterations < 1:
        problems.append(f"EM needs at least 1 iteration a round, got {em_iterations!r}.")
    if problems:
        raise ValueError(" ".join(problems))
    word_counts = count_words(text)
    if not word_counts:
        raise ValueError("the text has no words: paste or upload some text to train on")
    words, weights = list(word_counts), list(word_counts.values())
    pieces, frequencies, lattices = _seed_and_lattices(words, weights, max_piece_length, seed_size)
    single = np.fromiter(map(len, pieces), dtype=np.int64, count=len(pieces)) == 1
    cut = len(pieces) - int(single.sum()) >= seed_size
    with np.errstate(divide="ignore"):
        log_probs = np.log(frequencies / frequencies.sum())
    # pieces taken in code point order, so that stable sorts settle the last ties by text
    by_text = _text_order(pieces)
    alive = np.ones(len(pieces), dtype=bool)
    rounds: list[UnigramRound] = []
    while True:
        em = []
        alpha = lattices.forward_sums(log_probs)
        for _ in range(em_iterations):
            counts = lattices.expected_counts(log_probs, alpha, len(pieces))
            counts = np.where(alive, np.maximum(counts, MIN_EXPECTED_COUNT), 0.0)
            with np.errstate(divide="ignore"):
                log_probs = np.log(counts / counts.sum())
            alpha = lattices.forward_sums(log_probs)
            em.append(EMIteration(lattices.likelihood_loss(alpha)))
        best, used = lattices.viterbi(log_probs)
        loss = float(-(best * lattices.weight).sum())
        removable = alive & ~single
        losses = lattices.removal_losses(log_probs, best, used, removable)
        live = by_text[alive[by_text]]
        size = len(live)
        target = max(vocab_size, math.floor(size * shrinking_factor))
        candidates = by_text[removable[by_text]]
        done = size <= vocab_size or not len(candidates)
        removed: np.ndarray = np.zeros(0, dtype=np.int64)
        if not done:
            order = np.lexsort((_tie_key(log_probs[candidates]), _tie_key(losses[candidates])))
            removed = candidates[order[: size - target]]
        shown = live[np.argsort(-_tie_key(log_probs[live]), kind="stable")]
        rounds.append(
            UnigramRound(
                round=len(rounds) + 1,
                pieces=tuple(map(pieces.__getitem__, shown.tolist())),
                probabilities=np.exp(log_probs[shown]),
                removal_losses=np.where(single[shown], np.nan, losses[shown]),
                removed=tuple(map(pieces.__getitem__, removed.tolist())),
                em=tuple(em),
                loss=loss,
            )
        )
        if done:
            break
        alive[removed] = False
        log_probs[removed] = -np.inf
        lattices = lattices.keep(alive)
    final = rounds[-1].size
    reason = (
        f"reached the vocab size ({vocab_size:,})"
        if final <= vocab_size
        else f"only single characters are left ({final:,}), which are always kept"
    )
    return UnigramRun(
        requested_vocab_size=vocab_size,
        max_piece_length=max_piece_length,
        seed_size=seed_size,
        shrinking_factor=shrinking_factor,
        em_iterations=em_iterations,
        words=tuple(words),
        counts=tuple(weights),
        seed_pieces=len(pieces),
        seed_rule=(
            f"every substring of a word up to {max_piece_length} characters with its frequency"
            + (f"; of the longer ones the {seed_size:,} most frequent" if cut else "")
        ),
        rounds=tuple(rounds),
        stop_reason=reason,
    )
