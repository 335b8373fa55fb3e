"""WordPiece training that records every merge, by the textbook's score or by frequency.

WordPiece works on characters inside words. A word starts as its characters, the first one
plain and the others marked as continuations with ``##``: ``hugs`` is ``h ##u ##g ##s``. Like
BPE it then merges adjacent pairs, one per step, never across words; a merge keeps the left
token's text and adds the right one's without its ``##`` (``hu`` + ``##g`` is ``hug``).
Which pair it merges is the rule (``score_rule``):

- ``score``, the textbook's rule (the Hugging Face course, BERT's paper trail): the pair with
  the best ``count(ab) / (count(a) x count(b))``, where ``count(a)`` is how often the token
  ``a`` occurs in the text as it is cut now. Rare parts that always appear together win over
  frequent parts that are frequent anyway.
- ``frequency``: the most frequent pair, as BPE does. This is what the ``tokenizers``
  library's ``WordPieceTrainer`` really does (it runs its BPE trainer with a ``##`` prefix
  and keeps the vocabulary); with the ``lexmin`` tie rule and the library's order of ``##``
  symbols, the vocabulary is the library's, id for id.

Ties go to the run's tie rule (``bpeviz/engine/tie_rules.py``): ``first`` is the pair that occurs
first in the text, ``lexmin``/``lexmax`` the smallest/largest ids. Scores are compared
exactly, as fractions.

The vocabulary is laid out as the library lays it out: special tokens (``[UNK]``), then every
character of the text, plain, in code point order, then the ``##`` forms of those that occur
inside a word (in code point order here; the library numbers them in the order its hash map
hands words out, which changes from run to run, so ``continuation_order`` can give its order),
then one token per merge. A merge whose text is already in the vocabulary (``##a`` + ``##bc``
after ``##ab`` + ``##c``) reuses that token's id and adds nothing, as in the library.

Read the recipe first in ``bpeviz/engine/wordpiece_textbook.py``; this module does the same work
incrementally (distinct words weighted by their count, pair counts updated in place, a
frequent pair's occurrences merged by numpy all at once, a heap whose entries are upper bounds,
checked when they reach the top) and the tests hold the two equal.
Encoding (greedy longest match) is in ``bpeviz/engine/wordpiece_encode.py``.
"""

from __future__ import annotations

import heapq
from array import array
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import NamedTuple

import numpy as np
import regex

from bpeviz.engine.budget import Budget, check_wordpiece_budget
from bpeviz.engine.gc_pause import gc_paused
from bpeviz.engine.pair_merge import MASK, SHIFT, count_down, merge_pair
from bpeviz.engine.pretokenize import white_space_words
from bpeviz.engine.readable import counted
from bpeviz.engine.tie_rules import tie_rule

CONTINUATION = "##"
UNK = "[UNK]"
SCORE_RULES: tuple[str, ...] = ("score", "frequency")
MAX_TIED_RECORDED = 4  # WordPieceStep.tied holds at most this many pairs
# A merge with this many candidate positions or more runs in numpy (below, the fixed cost of
# numpy calls is more than a Python loop's)
VECTOR_FROM = 256
# Under the score rule a pair's queued score is computed as if each of its tokens occurred a
# 1/SLACK fewer times (its "floor"), so it stays an upper bound until a token falls below that
# floor; only then is the pair queued again (``_Trainer._release``). Counts under SLACK are exact.
SLACK = 16
# Rust's char::is_whitespace is Unicode's White_Space; BERT's punctuation is ASCII punctuation
# (symbols such as $ + < = > ^ ` | ~ included) and Unicode's P categories. The library's
# tables are Unicode 8's: 147 characters whose category came or changed since are cut
# differently (docs/engine.md, WordPiece).
_BERT_PUNCTUATION = r"\p{P}!-/:-@\[-`{-~"
WORD_PATTERNS: dict[str, regex.Pattern[str]] = {
    "words": regex.compile(r"[^\p{White_Space}]+"),
    "bert": regex.compile(
        rf"[^\p{{White_Space}}{_BERT_PUNCTUATION}]+|[{_BERT_PUNCTUATION}]", regex.V1
    ),
}
WORDPIECE_PRETOKENIZERS: tuple[str, ...] = tuple(WORD_PATTERNS)

Pair = tuple[int, int]
Entry = tuple[float, int, int]  # a queued pair: (-value, rank, key)


def split_words(text: str, pretokenizer: str = "words") -> list[str]:
    """The words WordPiece trains on and encodes: ``words`` splits at whitespace, ``bert`` at
    whitespace and around each punctuation character (BERT's pre-tokenizer).

    >>> split_words("Don't stop!", "words"), split_words("Don't stop!", "bert")
    (["Don't", 'stop!'], ['Don', "'", 't', 'stop', '!'])
    """
    if pretokenizer not in WORD_PATTERNS:
        raise ValueError(
            f"unknown WordPiece pre-tokenizer {pretokenizer!r}: choose one of "
            f"{', '.join(WORDPIECE_PRETOKENIZERS)}"
        )
    if pretokenizer == "words":
        return white_space_words(text)  # WORD_PATTERNS["words"]'s words, faster
    return WORD_PATTERNS[pretokenizer].findall(text)


def merged_text(left: str, right: str) -> str:
    """What merging two tokens makes: the right one loses its ``##``.

    >>> merged_text("hu", "##g"), merged_text("##u", "##g")
    ('hug', '##ug')
    """
    return left + right.removeprefix(CONTINUATION)


def initial_vocab(
    words: Iterable[str],
    special_tokens: Sequence[str] = (UNK,),
    continuation_order: Sequence[str] | None = None,
) -> list[str]:
    """Specials, every character plain (code point order), then the ``##`` forms of the
    characters that occur inside a word (code point order, or ``continuation_order``).

    >>> initial_vocab(["hug", "pun"])
    ['[UNK]', 'g', 'h', 'n', 'p', 'u', '##g', '##n', '##u']
    """
    words = list(words)
    chars = sorted(set("".join(words)))
    inner = {CONTINUATION + char for char in set("".join(word[1:] for word in words))}
    if continuation_order is None:
        ordered = sorted(inner)
    else:
        ordered = [token for token in continuation_order if token in inner]
        if set(ordered) != inner:
            raise ValueError("continuation_order must list every ## symbol of the text")
    return list(dict.fromkeys([*special_tokens, *chars, *ordered]))


def word_symbols(word: str) -> list[str]:
    """A word's first symbols: ``hug`` is ``['h', '##u', '##g']``."""
    return [word[0], *(CONTINUATION + char for char in word[1:])] if word else []


@dataclass(frozen=True, slots=True)
class PairRow:
    """One row of the pair table: a pair, its count, its tokens' counts, and so its score."""

    left: int
    right: int
    count: int
    left_count: int
    right_count: int

    @property
    def score(self) -> Fraction:
        return Fraction(self.count, self.left_count * self.right_count)


class WordPieceStep(NamedTuple):
    """One merge and why it won (a named tuple: a run makes thousands, and a frozen
    dataclass costs five times as long to make).

    ``count`` is how often the pair occurs, ``left_count``/``right_count`` how often its two
    tokens do (before the merge), and ``score`` their ratio ``count / (left_count *
    right_count)``, exact. ``tied`` lists the pairs that shared the winning value (the score,
    or the count under the frequency rule), winner first in the tie rule's order, at most
    ``MAX_TIED_RECORDED`` (``more_tied``: there were more), empty when it stood alone.
    ``most_frequent`` is ``(pair, count)`` of the most frequent pair when the score rule
    picked another, else None. ``existed``: the merged text was already a token, so the
    vocabulary did not grow. ``replacements`` counts the merges made in the text (overlaps
    merge once: ``aaa``), ``tokens_after`` the tokens of the whole text after this step.
    """

    step: int
    pair: Pair
    left: str
    right: str
    token: str
    new_id: int
    existed: bool
    count: int
    left_count: int
    right_count: int
    tied: tuple[Pair, ...]
    more_tied: bool
    rule: str
    most_frequent: tuple[Pair, int] | None
    replacements: int
    tokens_after: int

    @property
    def score(self) -> Fraction:
        """``count / (left_count * right_count)``, exact (made when read: a run has thousands
        of steps, and making each fraction costs a greatest common divisor)."""
        return Fraction(self.count, self.left_count * self.right_count)

    @property
    def score_decimal(self) -> float:
        """The score as a decimal number, for reading (compare with ``score``, exact)."""
        return float(self.score)


@dataclass(frozen=True)
class WordPieceRun:
    """A WordPiece training run: its settings, vocabulary, every step and the final cuts.

    ``words`` are the distinct words in order of first appearance, ``weights`` how often each
    occurs; ``segmentations`` holds each word's token ids after the last step.
    """

    pretokenizer: str
    score_rule: str
    tie_break: str
    special_tokens: tuple[str, ...]
    requested_vocab_size: int
    words: tuple[str, ...]
    weights: tuple[int, ...]
    vocab: tuple[str, ...]
    initial_size: int
    steps: tuple[WordPieceStep, ...]
    stop_reason: str
    segmentations: tuple[tuple[int, ...], ...]
    tokens_before: int
    pair_tables: tuple[tuple[PairRow, ...], ...] = ()  # before step k+1, when asked

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def vocab_ids(self) -> dict[str, int]:
        """Each token's id."""
        return {token: index for index, token in enumerate(self.vocab)}

    def segmentation(self, word: str) -> list[str]:
        """How training cut ``word`` at the end (a word it never saw: ``KeyError``)."""
        index = self.words.index(word)
        return [self.vocab[token] for token in self.segmentations[index]]


def train_wordpiece(
    text: str,
    vocab_size: int,
    *,
    pretokenizer: str = "words",
    score_rule: str = "score",
    tie_break: str = "first",
    special_tokens: Sequence[str] = (UNK,),
    continuation_order: Sequence[str] | None = None,
    top_pairs: int = 0,
    budget: Budget | None = None,
) -> WordPieceRun:
    """Train WordPiece on ``text`` until the vocabulary has ``vocab_size`` tokens (specials
    included) or no pair is left. A size below the first vocabulary keeps that vocabulary.
    With ``top_pairs``, ``pair_tables[k]`` holds the best ``top_pairs`` pairs after ``k``
    merges, in the rule's order (what a step view's score table shows). With a ``budget``
    (:func:`bpeviz.engine.budget.check_wordpiece_budget`), a run that would cost more is
    refused before training (:class:`~bpeviz.engine.budget.OverBudget`).

    >>> run = train_wordpiece("hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5, 15)
    >>> [(step.token, str(step.score)) for step in run.steps]
    [('##gs', '1/20'), ('hu', '1/36'), ('hugs', '1/15')]
    """
    problems = wordpiece_problems(vocab_size, pretokenizer, score_rule, tie_break)
    if problems:
        raise ValueError(" ".join(problems))
    specials = tuple(dict.fromkeys(token for token in special_tokens if token))
    word_counts = Counter(split_words(text, pretokenizer))
    if not word_counts:
        raise ValueError("the text has no words: paste or upload some text to train on")
    words = tuple(word_counts)
    vocab = initial_vocab(words, specials, continuation_order)
    initial_size = len(vocab)
    if budget is not None:
        check_wordpiece_budget(words, initial_size, vocab_size, budget)
    with gc_paused():
        trainer = _Trainer(words, list(word_counts.values()), vocab, score_rule, tie_break)
        tokens_before = trainer.tokens_total
        steps, reason = trainer.run(vocab_size, top_pairs)
        segmentations = tuple(trainer.segmentations())  # tens of thousands of tuples: paused too
    return WordPieceRun(
        pretokenizer=pretokenizer,
        score_rule=score_rule,
        tie_break=tie_break,
        special_tokens=specials,
        requested_vocab_size=vocab_size,
        words=words,
        weights=tuple(trainer.weights),
        vocab=tuple(trainer.vocab),
        initial_size=initial_size,
        steps=tuple(steps),
        stop_reason=reason,
        segmentations=segmentations,
        tokens_before=tokens_before,
        pair_tables=tuple(trainer.tables),
    )


def wordpiece_problems(
    vocab_size: int, pretokenizer: str, score_rule: str, tie_break: str
) -> list[str]:
    """Every reason these settings cannot train, each saying how to fix it (empty: fine)."""
    found = []
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int) or vocab_size < 1:
        found.append(f"Vocab size must be a whole number of at least 1, got {vocab_size!r}.")
    if pretokenizer not in WORD_PATTERNS:
        found.append(
            f"WordPiece needs words: use the pre-tokenizer 'words' or 'bert', not {pretokenizer!r}."
        )
    if score_rule not in SCORE_RULES:
        found.append(f"Unknown WordPiece rule {score_rule!r}: choose one of score, frequency.")
    try:
        tie_rule(tie_break)
    except ValueError as error:
        found.append(str(error).capitalize() + ".")
    return found


def _by_floor() -> defaultdict[int, list[int]]:
    """A token's waiting pairs, by floor (``_Trainer.waiting``)."""
    return defaultdict(list)


def _shared(values: np.ndarray) -> tuple[array, np.ndarray]:
    """An int64 array Python indexes fast, and a numpy view of the same memory."""
    held = array("q", values.astype(np.int64).tobytes())
    return held, np.frombuffer(held, dtype=np.int64)


def _alphabet(code_points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct code points, ascending, and each one's rank among them: what
    ``np.unique(..., return_inverse=True)`` gives, by a table instead of a sort (a tenth
    of the time on a megabyte).

    >>> [values.tolist() for values in _alphabet(np.array([104, 117, 103, 117]))]
    [[103, 104, 117], [1, 2, 0, 2]]
    """
    if not len(code_points):
        return code_points, code_points.astype(np.int64)
    present = np.zeros(int(code_points.max()) + 1, dtype=bool)
    present[code_points] = True
    alphabet = np.flatnonzero(present)
    ranks = np.zeros(len(present), dtype=np.int64)
    ranks[alphabet] = np.arange(len(alphabet))
    return alphabet, ranks[code_points]


def _sorted_pairs(
    symbols: np.ndarray, left: np.ndarray, id_bound: int
) -> tuple[np.ndarray, np.ndarray]:
    """The keys of the pairs starting at ``left`` (ascending positions), sorted, and their
    positions, ascending within a key. Pair and position are packed into one int and sorted
    at once, several times faster than numpy's stable argsort, when the pack fits 62 bits.

    >>> [values.tolist() for values in _sorted_pairs(np.array([2, 1, 2, 1]), np.arange(3), 3)]
    [[2097154, 4194305, 4194305], [1, 0, 2]]
    """
    size = len(symbols)
    if id_bound * id_bound * max(size, 1) >= 2**62:
        keys = (symbols[left] << SHIFT) | symbols[left + 1]
        order = np.argsort(keys, kind="stable")
        return keys[order], left[order]
    packed = np.sort((symbols[left] * id_bound + symbols[left + 1]) * size + left)
    pairs, positions = np.divmod(packed, size)
    first, second = np.divmod(pairs, id_bound)
    return (first << SHIFT) | second, positions


def _totals(
    keys: np.ndarray, weights: np.ndarray, left: np.ndarray, right: np.ndarray
) -> tuple[list[int], list[int]]:
    """Each distinct key and its total weight, where ``keys`` holds one key per merge with a
    neighbour on the left (``weights[left]``), then one per merge with one on the right.

    >>> both, second = np.array([True, True]), np.array([False, True])
    >>> _totals(np.array([4, 7, 4]), np.array([1, 2]), both, second)
    ([4, 7], [3, 2])
    """
    unique, inverse = np.unique(keys, return_inverse=True)
    changes = np.concatenate([weights[left], weights[right]])
    totals = np.bincount(inverse, weights=changes, minlength=len(unique))
    return unique.tolist(), totals.astype(np.int64).tolist()


def _grouped(keys: np.ndarray, places: np.ndarray) -> dict[int, list[int]]:
    """Each key's places, ascending.

    >>> _grouped(np.array([7, 3, 7]), np.array([5, 1, 2]))
    {3: [1], 7: [2, 5]}
    """
    if not len(keys):
        return {}
    order = np.lexsort((places, keys))
    keys, places = keys[order], places[order]
    cuts = [0, *(np.flatnonzero(keys[1:] != keys[:-1]) + 1).tolist(), len(keys)]
    at = places.tolist()
    return {key: at[cuts[n] : cuts[n + 1]] for n, key in enumerate(keys[cuts[:-1]].tolist())}


class _Trainer:
    """The incremental loop, over a linked list of tokens as ``trainer.py``'s BPE loop.

    The distinct words lie end to end in one buffer; a token lives at the position of its
    first character, ``nxt``/``prv`` link the live positions of a word (-1 at its edges), so
    a merge touches only the occurrences of its pair. ``where`` maps a pair to the positions
    where it occurred (ascending, possibly stale: checked when used), and the buffer is in
    order of first appearance, so the position is the ``first`` rule's rank. Heap entries
    are ``(-value, rank, key)``, checked against the current value and rank when they reach
    the top and pushed again when stale. Every entry is an upper bound of its pair's value
    (a pair whose value may have grown past its entry gets a fresh one), so the checked top is
    the true best. Under the score rule a merge makes its two tokens rarer and so every pair
    holding them score higher: an entry assumes its tokens a little rarer than they are (its
    floors, ``SLACK``), and only pairs whose token fell below a floor are queued again,
    about one in eight of those that rose on Tiny Shakespeare. The buffer and its
    links are ``array``s that numpy sees as well (``seq_np``...): a merge of few occurrences
    walks them in Python, one of many (``VECTOR_FROM``) in numpy.
    """

    def __init__(
        self,
        words: Sequence[str],
        weights: list[int],
        vocab: list[str],
        score_rule: str,
        tie_break: str,
    ) -> None:
        self.vocab = vocab
        self.index = index = {token: i for i, token in enumerate(vocab)}
        self.weights = weights
        self.by_score = score_rule == "score"
        self.tie_break = tie_break
        rule = tie_rule(tie_break)
        self.first_rule, self.largest_ids = rule.by_position, rule.largest_ids
        self._ids_down = -1 if self.largest_ids else 1  # a pair's rank by ids: key x this
        self.tables: list[tuple[PairRow, ...]] = []

        # The buffer, vectorised: each character's rank in the alphabet, then its id.
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
        starts = np.zeros(len(words) + 1, dtype=np.int64)
        np.cumsum(lengths, out=starts[1:])
        code_points = np.frombuffer(
            "".join(words).encode("utf-32-le", errors="surrogatepass"), dtype=np.uint32
        )
        alphabet, rank = _alphabet(code_points)
        letters = [chr(point) for point in alphabet.tolist()]
        plain = np.array([index[letter] for letter in letters], dtype=np.int64)
        inner = np.array(
            [index.get(CONTINUATION + letter, -1) for letter in letters], dtype=np.int64
        )
        symbols = inner[rank]
        symbols[starts[:-1]] = plain[rank[starts[:-1]]]
        size = len(symbols)
        position_weight = np.repeat(np.asarray(weights, dtype=np.int64), lengths)
        self.word_starts: list[int] = starts[:-1].tolist()
        # Linked positions: -1 at a word's edges. Python reads them one at a time through the
        # arrays, numpy many at once through views of the same memory (``_merge_many``).
        following = np.arange(1, size + 1, dtype=np.int64)
        following[starts[1:] - 1] = -1
        preceding = np.arange(-1, size - 1, dtype=np.int64)
        preceding[starts[:-1]] = -1
        self.seq, self.seq_np = _shared(symbols)
        self.nxt, self.nxt_np = _shared(following)
        self.prv, self.prv_np = _shared(preceding)
        self.weight, self.weight_np = _shared(position_weight)
        self.role = np.zeros(size, dtype=np.int8)  # scratch for _merge_many, zero between uses
        self.tokens_total = int(position_weight.sum())
        self.token_count: list[int] = (
            np.bincount(symbols, weights=position_weight, minlength=len(vocab))
            .astype(np.int64)
            .tolist()
        )

        # Pair counts and positions: group positions by pair key (stable: sorted positions).
        has_right = np.ones(size, dtype=bool)
        has_right[starts[1:] - 1] = False
        left = np.flatnonzero(has_right)
        sorted_keys, sorted_positions = _sorted_pairs(symbols, left, len(vocab))
        group_starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
        if not len(sorted_keys):
            group_starts = group_starts[:0]
        unique_keys = sorted_keys[group_starts]
        totals = np.add.reduceat(position_weight[sorted_positions], group_starts)
        bounds = [*group_starts.tolist(), len(sorted_positions)]
        key_list, total_list = unique_keys.tolist(), totals.tolist()
        self.counts: dict[int, int] = dict(zip(key_list, total_list, strict=True))
        positions = sorted_positions.tolist()
        self.where: dict[int, list[int]] = {
            key: positions[bounds[n] : bounds[n + 1]] for n, key in enumerate(key_list)
        }
        # a pair's first position when last looked at (a lower bound: it only moves right)
        first_seen = sorted_positions[group_starts]
        self.first_at: dict[int, int] = dict(zip(key_list, first_seen.tolist(), strict=True))
        # Score rule: each pair's floors (its tokens' counts its latest queued score assumed)
        # and that score (older entries are dropped when they reach the top), and
        # for each token the pairs waiting on it, by floor (see SLACK and ``_release``).
        self.floors: dict[int, tuple[int, int, float]] = {}
        self.waiting: defaultdict[int, defaultdict[int, list[int]]] = defaultdict(_by_floor)
        # the heaps, built from arrays: the values are those _value gives (for products below
        # 2**53, float division is what Python's int / int computes)
        ranks = (first_seen if self.first_rule else self._ids_down * unique_keys).tolist()
        if self.by_score:
            counted = np.asarray(self.token_count, dtype=np.int64)
            floor_of = counted - counted // SLACK
            lefts, rights = floor_of[unique_keys >> SHIFT], floor_of[unique_keys & MASK]
            products = lefts.astype(np.float64) * rights
            if products.max(initial=0) < 2**53:
                values = (-(totals / products)).tolist()
            else:  # exact, from Python's ints: no slack
                values = [-self._value(key) for key in key_list]
                floor_of, lefts = counted, counted[unique_keys >> SHIFT]
                rights = counted[unique_keys & MASK]
            pair_floors = zip(lefts.tolist(), rights.tolist(), values, strict=True)
            self.floors = dict(zip(key_list, pair_floors, strict=True))
            floors, waiting = floor_of.tolist(), self.waiting
            sides = (unique_keys >> SHIFT, unique_keys & MASK) if len(unique_keys) else ()
            for side in sides:  # grouped by token
                order = np.argsort(side, kind="stable")
                tokens, starts = np.unique(side[order], return_index=True)
                grouped = np.split(unique_keys[order], starts[1:])
                for token, keys in zip(tokens.tolist(), grouped, strict=True):
                    waiting[token][floors[token]].extend(keys.tolist())
        else:
            values = (-totals).tolist()
        self.heap = list(zip(values, ranks, key_list, strict=True))
        heapq.heapify(self.heap)
        self.frequent: list[tuple[float, int, int]] = []
        if self.by_score:
            self.frequent = list(zip((-totals).tolist(), ranks, key_list, strict=True))
            heapq.heapify(self.frequent)

    def segmentations(self) -> list[tuple[int, ...]]:
        """Each word's tokens now: the live positions of its stretch of the buffer (a word's
        first position always is)."""
        live = self.seq_np >= 0
        tokens = self.seq_np[live].tolist()
        ends = np.cumsum(np.add.reduceat(live, self.word_starts, dtype=np.int64)).tolist()
        return [tuple(tokens[start:end]) for start, end in zip([0, *ends[:-1]], ends, strict=True)]

    # ---- values and ranks ------------------------------------------------------------------

    def _value(self, key: int) -> float:
        """What the rule maximises: the score as a float (ties settled exactly later) or the
        count. Python's int / int is correctly rounded, so equal scores give equal floats."""
        count = self.counts[key]
        if not self.by_score:
            return count
        return count / (self.token_count[key >> SHIFT] * self.token_count[key & MASK])

    def _first_live(self, key: int) -> int:
        """Where the pair first occurs now; stale positions before it are dropped."""
        seq, nxt = self.seq, self.nxt
        left, right = key >> SHIFT, key & MASK
        holders = self.where[key]
        for index, position in enumerate(holders):
            following = nxt[position]
            if seq[position] == left and following >= 0 and seq[following] == right:
                if index:
                    del holders[:index]
                self.first_at[key] = position
                return position
        raise AssertionError("a counted pair occurs somewhere")

    def _pop_valid(
        self, heap: list[tuple[float, int, int]], by_count: bool
    ) -> tuple[float, int, int] | None:
        """Pop the best entry whose value and rank are current (stale ones are fixed). The
        common case, a pair still first at its rank, is checked inline (this runs several
        times a merge)."""
        counts, token_count, first_rule = self.counts, self.token_count, self.first_rule
        seq, nxt, where = self.seq, self.nxt, self.where
        while heap:
            negative, rank, key = heap[0]
            count = counts.get(key)
            if count is None:
                heapq.heappop(heap)
                continue
            left, right = key >> SHIFT, key & MASK
            if not by_count and self.floors[key][2] != negative:
                heapq.heappop(heap)  # an older entry: the pair's latest one bounds it
                continue
            value = count if by_count else count / (token_count[left] * token_count[right])
            if -negative != value:
                heapq.heapreplace(heap, (-value, rank, key))
                if not by_count:  # exact now: queued again as soon as a token falls
                    self._wait(key, count, token_count[left], token_count[right])
                continue
            if first_rule and not (
                where[key][0] == rank
                and seq[rank] == left
                and (after := nxt[rank]) >= 0
                and seq[after] == right
            ):
                current = self._first_live(key)
                if current != rank:
                    heapq.heapreplace(heap, (negative, current, key))
                    continue
            return heapq.heappop(heap)
        return None

    # ---- the loop --------------------------------------------------------------------------

    def run(self, vocab_size: int, top_pairs: int = 0) -> tuple[list[WordPieceStep], str]:
        """Merge until the vocabulary is full or no pair is left; with ``top_pairs``, the
        head of the pair table is kept before every merge and after the last one. The
        queues go at the end, while the collector still sleeps: hundreds of thousands of
        entries it would otherwise walk through once when it wakes."""
        try:
            return self._run(vocab_size, top_pairs)
        finally:
            self.heap, self.frequent, self.where = [], [], {}
            self.floors, self.waiting = {}, defaultdict(_by_floor)

    def _run(self, vocab_size: int, top_pairs: int) -> tuple[list[WordPieceStep], str]:
        steps: list[WordPieceStep] = []
        vocab = self.vocab
        if top_pairs:
            self.tables.append(self._top_rows(top_pairs))
        if len(vocab) >= vocab_size:
            return steps, (
                f"no merges: the first vocabulary (special tokens, characters and their ## "
                f"forms) already has {counted(len(vocab), 'token')}, at least the "
                f"{vocab_size:,} asked for"
            )
        while len(vocab) < vocab_size:
            chosen = self._choose()
            if chosen is None:
                return steps, (
                    f"stopped after {counted(len(steps), 'merge')}: no pair left to merge "
                    "(every word is already a single token)"
                )
            best, tied, more_tied = chosen
            most_frequent = self._most_frequent(best) if self.by_score else None
            left, right = best >> SHIFT, best & MASK
            count, token_count = self.counts[best], self.token_count
            left_count, right_count = token_count[left], token_count[right]
            text = merged_text(vocab[left], vocab[right])
            existed = text in self.index
            if not existed:
                self.index[text] = len(vocab)
                vocab.append(text)
                token_count.append(0)
            new_id = self.index[text]
            replacements = self._merge(best, new_id)
            self.tokens_total -= replacements
            steps.append(
                WordPieceStep(
                    step=len(steps) + 1,
                    pair=(left, right),
                    left=vocab[left],
                    right=vocab[right],
                    token=text,
                    new_id=new_id,
                    existed=existed,
                    count=count,
                    left_count=left_count,
                    right_count=right_count,
                    tied=tied,
                    more_tied=more_tied,
                    rule=self.tie_break,
                    most_frequent=most_frequent,
                    replacements=replacements,
                    tokens_after=self.tokens_total,
                )
            )
            if top_pairs:
                self.tables.append(self._top_rows(top_pairs))
        return steps, f"reached the vocab size ({vocab_size:,})"

    def _top_rows(self, limit: int) -> tuple[PairRow, ...]:
        """The best ``limit`` pairs now, in the order the rule picks them: popped as
        ``_choose`` pops them and pushed back, so the merges that follow are the same."""
        popped: list[tuple[float, int, int]] = []
        held: set[int] = set()
        while len(popped) < limit:
            entry = self._pop_valid(self.heap, not self.by_score)
            if entry is None:
                break
            if entry[2] not in held:  # a second entry of a held pair is dropped
                held.add(entry[2])
                popped.append(entry)
        for entry in popped:
            heapq.heappush(self.heap, entry)
        counts, token_count = self.counts, self.token_count
        rows = []
        for _, _, key in popped:
            left, right = key >> SHIFT, key & MASK
            rows.append(PairRow(left, right, counts[key], token_count[left], token_count[right]))
        return tuple(rows)

    def _choose(self) -> tuple[int, tuple[Pair, ...], bool] | None:
        """The winning pair's key, the tied pairs (rule order, capped) and whether more tied.

        The entries sharing the top float are popped (up to one more than recorded); among
        scores, equal floats are checked exactly, and when two different fractions share a
        float (possible in principle, never seen) every such entry is popped and compared.
        """
        heap = self.heap
        top = self._pop_valid(heap, not self.by_score)
        if top is None:
            return None
        found = self._peek_tied(top)
        if found is not None:  # the common case: read where they lie, none popped
            keys = [top[2], *found]
            tied = tuple([(key >> SHIFT, key & MASK) for key in keys[:MAX_TIED_RECORDED]])
            return keys[0], tied if len(keys) > 1 else (), len(keys) > MAX_TIED_RECORDED
        group = [top]
        seen = {top[2]}
        exhaustive = False
        while heap and (exhaustive or len(group) <= MAX_TIED_RECORDED):
            if heap[0][0] != top[0]:
                break  # stored values bound the real ones from above: nothing else ties
            entry = self._pop_valid(heap, not self.by_score)
            if entry is None:
                break
            if entry[2] in seen:
                continue  # a second entry of a pair already held: the held one stays
            if entry[0] != top[0]:
                heapq.heappush(heap, entry)
                break
            group.append(entry)
            seen.add(entry[2])
            if self.by_score and not exhaustive and self._exact(entry[2]) != self._exact(top[2]):
                exhaustive = True
        popped = group
        if self.by_score and exhaustive:
            best = max(self._exact(entry[2]) for entry in group)
            group = [entry for entry in group if self._exact(entry[2]) == best]
        for entry in popped:
            if entry is not group[0]:  # the winner's entry goes: its pair is merged now
                heapq.heappush(heap, entry)
        # group is in heap order: value, then rank, so its head is the winner
        keys = [entry[2] for entry in group]
        tied = tuple([(key >> SHIFT, key & MASK) for key in keys[:MAX_TIED_RECORDED]])
        return keys[0], tied if len(keys) > 1 else (), len(keys) > MAX_TIED_RECORDED

    def _peek_tied(self, top: Entry) -> list[int] | None:
        """The pairs tied with ``top`` (just popped), as ``_choose`` would pop them: up to
        ``MAX_TIED_RECORDED``, read from the heap in its order without popping (the smallest
        entries of a heap lie in a subtree at its root: walked best first through a small
        heap of its edge). An entry whose pair is gone, counted lower or (score rule) not its
        pair's latest is no tie and is passed over. None when a tied pair's first place moved
        or a tied score is another fraction than ``top``'s: ``_choose`` then pops, as that
        needs fixing."""
        heap, value = self.heap, top[0]
        if not heap or heap[0][0] != value:
            return []
        counts, token_count, first_rule = self.counts, self.token_count, self.first_rule
        seq, nxt, where, by_score = self.seq, self.nxt, self.where, self.by_score
        count_top = counts[top[2]]
        product_top = token_count[top[2] >> SHIFT] * token_count[top[2] & MASK]
        seen, found, size = {top[2]}, [], len(heap)
        edge = [(heap[0], 0)]
        while edge and len(found) < MAX_TIED_RECORDED:
            entry, index = heapq.heappop(edge)
            if entry[0] != value:
                break  # stored values bound the real ones from above: nothing else ties
            negative, rank, key = entry
            count = counts.get(key)
            if key not in seen and count is not None:  # (a pair gone: no tie)
                left, right = key >> SHIFT, key & MASK
                product = token_count[left] * token_count[right]
                if by_score:
                    if self.floors[key][2] != negative or -negative != count / product:
                        count = None  # an older entry, or a bound above the score: no tie
                    elif count * product_top != count_top * product:
                        return None  # another fraction with the same float
                elif -negative != count:
                    count = None  # counted lower since: no tie
            if key not in seen and count is not None:
                if first_rule and not (
                    where[key][0] == rank
                    and seq[rank] == left
                    and (after := nxt[rank]) >= 0
                    and seq[after] == right
                ):
                    return None
                seen.add(key)
                found.append(key)
            for child in (2 * index + 1, 2 * index + 2):
                if child < size:
                    heapq.heappush(edge, (heap[child], child))
        return found

    def _exact(self, key: int) -> Fraction:
        count = self.counts[key]
        return Fraction(count, self.token_count[key >> SHIFT] * self.token_count[key & MASK])

    def _most_frequent(self, winner: int) -> tuple[Pair, int] | None:
        """The most frequent pair (tie rule among equals) when it is not ``winner``."""
        entry = self._pop_valid(self.frequent, True)
        assert entry is not None, "the winner is counted"
        heapq.heappush(self.frequent, entry)
        key = entry[2]
        if key == winner or self.counts[key] == self.counts[winner]:
            return None  # the winner is (one of) the most frequent
        return (key >> SHIFT, key & MASK), self.counts[key]

    def _merge(self, best: int, new_id: int) -> int:
        """Merge the pair in every word that holds it, left to right, overlaps once; keep the
        counts of pairs and tokens right and queue what changed. Returns the merges made.

        Occurrence by occurrence (``pair_merge.merge_pair``, shared with BPE), or, for a pair
        of two different tokens found at ``VECTOR_FROM`` positions or more, by numpy all at
        once (its occurrences cannot overlap).
        """
        a, b = best >> SHIFT, best & MASK
        holders = self.where.pop(best)
        if a != b and len(holders) >= VECTOR_FROM:
            made, replacements = self._merge_many(holders, a, b, new_id)
        else:
            merged = merge_pair(
                holders, a, b, new_id, self.seq, self.nxt, self.prv, self.weight, self.counts
            )
            self._forget(merged.emptied)
            made, replacements = merged.made(new_id), merged.replacements
        token_count = self.token_count
        token_count[a] -= replacements
        token_count[b] -= replacements
        token_count[new_id] += replacements
        self.counts.pop(best, None)
        if self.by_score:
            self.floors.pop(best, None)
            self._release(a, token_count[a] + replacements * (1 + (a == b)))
            if b != a:
                self._release(b, token_count[b] + replacements)
        self._queue_made(made)
        return replacements

    def _merge_many(
        self, holders: list[int], a: int, b: int, new_id: int
    ) -> tuple[Iterable[tuple[int, int, list[int]]], int]:
        """``merge_pair`` for ``a != b``, vectorised: the pairs lost counted down, the new
        pairs ``(key, count, positions)``, and the merges made. Occurrences ``a b a b`` in a
        row are the one case where merges touch: the ``b a`` between them becomes ``new
        new``, once."""
        seq, nxt, prv, role = self.seq_np, self.nxt_np, self.prv_np, self.role
        at = np.array(holders, dtype=np.int64)
        at = at[seq[at] == a]
        then = nxt[at]
        at, then = at[then >= 0], then[then >= 0]
        found = seq[then] == b
        at, then = at[found], then[found]
        w = self.weight_np[at]
        before, after = prv[at], nxt[then]
        role[at], role[then] = 1, 2
        # -1 (no neighbour) reads the last role: masked out by the sign test
        left = (before >= 0) & (role[before] != 2)
        right = after >= 0
        after_merged = right & (role[after] == 1)
        role[at] = role[then] = 0
        x = seq[before[left]] << SHIFT
        y = seq[after[right]]
        y_new = np.where(after_merged[right], new_id, y)
        lost_keys, lost_totals = _totals(np.concatenate([x | a, (b << SHIFT) | y]), w, left, right)
        self._forget(count_down(self.counts, lost_keys, lost_totals))
        made_keys = np.concatenate([x | new_id, (new_id << SHIFT) | y_new])
        keys, totals = _totals(made_keys, w, left, right)
        places = _grouped(made_keys, np.concatenate([before[left], at[right]]))
        seq[at] = new_id
        seq[then] = -1
        nxt[at] = after
        prv[after[right]] = at[right]
        made = [(key, total, places[key]) for key, total in zip(keys, totals, strict=True)]
        return made, int(w.sum())

    def _forget(self, keys: Iterable[int]) -> None:
        """Drop what is kept of pairs that no longer occur (their counts are gone)."""
        where, first_at, floors = self.where, self.first_at, self.floors
        for key in keys:
            where.pop(key, None)
            first_at.pop(key, None)
            floors.pop(key, None)

    def _queue_made(self, made: Iterable[tuple[int, int, list[int]]]) -> None:
        """Count, place and queue the pairs a merge made, ``(key, count, positions)``: each
        gets a fresh entry (its value grew, and its first position may have moved left). A
        merged token that existed may have had these pairs already: counts add up, and a
        pair whose count falls to zero (``abab``) is forgotten."""
        counts, where, first_at = self.counts, self.where, self.first_at
        heap, push = self.heap, heapq.heappush
        seq, nxt, first_rule, ids_down = self.seq, self.nxt, self.first_rule, self._ids_down
        token_count, by_score, wait = self.token_count, self.by_score, self._wait_slack
        for key, change, holders in made:
            count = counts.get(key, 0) + change
            if count <= 0:
                if key in counts:
                    del counts[key]
                    self._forget([key])
                continue
            if key in where:
                where[key] = holders = sorted({*where[key], *holders})
            else:
                where[key] = holders
            counts[key] = count
            left, right = key >> SHIFT, key & MASK
            if first_rule:
                rank = holders[0]
                following = nxt[rank]
                if seq[rank] == left and following >= 0 and seq[following] == right:
                    first_at[key] = rank
                else:
                    rank = self._first_live(key)
            else:
                rank = ids_down * key
            if by_score:
                push(heap, (wait(key, count, token_count[left], token_count[right]), rank, key))
                push(self.frequent, (-count, rank, key))
            else:
                push(heap, (-count, rank, key))

    def _wait(self, key: int, count: int, left_floor: int, right_floor: int) -> float:
        """The entry value of ``key`` (occurring ``count`` times) as if its two tokens
        occurred as often as these floors, noted as its latest: the pair is queued again when
        one of them falls below its floor (``_release``)."""
        negative = -count / (left_floor * right_floor)
        self.floors[key] = (left_floor, right_floor, negative)
        waiting = self.waiting
        waiting[key >> SHIFT][left_floor].append(key)
        waiting[key & MASK][right_floor].append(key)
        return negative

    def _wait_slack(self, key: int, count: int, left_count: int, right_count: int) -> float:
        """``_wait`` with the floors SLACK below the counts given."""
        left_floor = left_count - left_count // SLACK
        return self._wait(key, count, left_floor, right_count - right_count // SLACK)

    def _release(self, token: int, before: int) -> None:
        """Under the score rule, ``token`` occurs less often now than ``before``, so every
        pair holding it scores higher. A queued score stays an upper bound while the token's
        count is at or above the floor it assumed: only the pairs whose floor it fell below
        are queued again (with fresh floors). Their first positions are lower bounds still
        (pairs only lose occurrences here). The merged token's own pairs only score lower."""
        buckets = self.waiting.get(token)
        now = self.token_count[token]
        if not buckets:
            return
        if before - now <= len(buckets):
            fallen = [floor for floor in range(now + 1, before + 1) if floor in buckets]
        else:
            fallen = [floor for floor in buckets if floor > now]
        counts, token_count, floors = self.counts, self.token_count, self.floors
        first_at, first_rule, ids_down = self.first_at, self.first_rule, self._ids_down
        heap, push, waiting = self.heap, heapq.heappush, self.waiting
        for floor in fallen:
            for key in buckets.pop(floor):
                held = floors.get(key)
                left, right = key >> SHIFT, key & MASK
                if held is None or not (
                    (left == token and held[0] == floor) or (right == token and held[1] == floor)
                ):
                    continue  # a floor this pair no longer waits on
                # _wait_slack, inlined (this runs ~40,000 times a megabyte)
                left_count, right_count = token_count[left], token_count[right]
                left_floor = left_count - left_count // SLACK
                right_floor = right_count - right_count // SLACK
                negative = -counts[key] / (left_floor * right_floor)
                floors[key] = (left_floor, right_floor, negative)
                waiting[left][left_floor].append(key)
                waiting[right][right_floor].append(key)
                push(heap, (negative, first_at[key] if first_rule else ids_down * key, key))
