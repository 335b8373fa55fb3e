"""BPE training that records every merge, fast enough for a megabyte in a class demo.

The recipe is the textbook one: count adjacent pairs, take the most frequent (ties broken by a
named rule), give it the next id, replace its occurrences left to right, record the merge,
repeat. Read it first in ``bpeviz/engine/textbook.py``, the textbook recipe in a few short
functions. That loop recounts the whole text for every merge; this one does the same work
incrementally and gives exactly the same merges (the tests hold the two equal):

- the text is a buffer of distinct chunks weighted by their frequency (``corpus.py``);
- tokens are nodes of a linked list over buffer positions (a token lives at the position
  of its first symbol), so a merge touches only the occurrences of the chosen pair;
- pair counts are kept up to date as neighbours change, never recounted;
- a heap finds the most frequent pair; entries go stale when counts drop and are checked
  when they reach the top;
- ``first`` ties go to the pair whose first occurrence comes earliest in the current
  sequence, which is what minbpe's ``max(stats, key=stats.get)`` picks.

Overlaps follow the usual convention: ``aaa`` counts ``(a, a)`` twice but merges it once.

What the loop keeps for the history is tiny: for every buffer position, the step at which the
boundary before it vanished (``death``), and one :class:`MergeStep` per merge. A merge's new
token is kept as where it first occurs in the buffer, not as bytes: trained far, a small text's
tokens grow as long as the text, and their bytes would sum to its length squared.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

from bpeviz.engine.budget import Budget, check_budget, token_stop_reason
from bpeviz.engine.config import TrainingConfig
from bpeviz.engine.corpus import Corpus, base_size, build_corpus
from bpeviz.engine.gc_pause import gc_paused
from bpeviz.engine.pair_merge import MASK, SHIFT, merge_pair
from bpeviz.engine.readable import counted
from bpeviz.engine.tie_rules import tie_rule

MAX_TIED_RECORDED = 2  # MergeStep.tied: the winner and the runner-up
NEVER = np.iinfo(np.int32).max  # a boundary that no merge removes (a chunk edge)
SHORT_NEVER = np.iinfo(np.int16).max  # the same, in a run of fewer merges (see _compact)

Pair = tuple[int, int]
ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class MergeStep:
    """One merge: what was joined, how often it occurred, and what the tie rule decided.

    ``step`` counts from 1; the merge creates ``new_id``. ``count`` is the pair's frequency
    (overlaps counted, so ``aaa`` has two ``(a, a)``); ``replacements`` is how many were
    actually merged (one in ``aaa``). When another pair had the same top count, ``tied`` is
    ``(winner, runner-up)``, the runner-up being the next pair by the rule, else ``()``;
    ``more_tied`` says whether a third pair tied too. ``History.tied_pairs`` lists every
    tied pair (recording them all would cost a scan of the tie per merge, and a megabyte
    of text has dozens of tied pairs at most steps).
    ``tokens_after`` is the token count of the whole training text after this merge.
    ``token`` is the new token's bytes, read when asked from where it first occurred
    (``token_at``, ``token_symbols`` symbols of the corpus's buffer).
    """

    step: int
    pair: Pair
    new_id: int
    count: int
    replacements: int
    tied: tuple[Pair, ...]
    more_tied: bool
    rule: str
    tokens_after: int
    token_at: int
    token_symbols: int
    corpus: Corpus = field(repr=False, compare=False)

    @property
    def token(self) -> bytes:
        """The new token's bytes (``</w>`` spelled out)."""
        return self.corpus.buffer_bytes(self.token_at, self.token_at + self.token_symbols)


@dataclass(frozen=True, slots=True)
class PairTop:
    """The head of the pair table before one merge: what the Step page's table shows.

    ``rows`` are the best pairs as ``(left, right, count)``, in the order the trainer picks
    them (``History.pair_table`` order); ``tied`` is how many pairs share the top count (1
    when the winner stood alone), counted up to ``len(rows) + 1``: that value means "so many
    or more".
    """

    rows: tuple[tuple[int, int, int], ...]
    tied: int


class PairTops:
    """The :class:`PairTop` of every step, kept as three arrays rather than as objects.

    A run at the app's budget records thousands of steps of a dozen rows: as tuples of ints
    that was about 160,000 small objects per run, and a server that let a run go got its
    arenas back only where no other object had come to sit among them. As arrays they are
    three blocks, freed whole. Reading one step builds its :class:`PairTop` afresh.

    >>> tops = PairTops.of([PairTop(((97, 97, 4), (97, 98, 2)), 1), PairTop((), 0)])
    >>> len(tops), tops[0], tops[-1]
    (2, PairTop(rows=((97, 97, 4), (97, 98, 2)), tied=1), PairTop(rows=(), tied=0))
    >>> list(tops) == [tops[0], tops[1]]
    True
    """

    def __init__(self, rows: np.ndarray, ends: np.ndarray, tied: np.ndarray) -> None:
        self.rows = rows  # every step's rows, one after another: (left, right, count)
        self.ends = ends  # where each step's rows end in ``rows``
        self.tied = tied  # per step, PairTop.tied

    @classmethod
    def of(cls, tops: list[PairTop]) -> PairTops:
        rows = [row for top in tops for row in top.rows]
        return cls(
            np.array(rows, dtype=np.int64).reshape(len(rows), 3),
            np.cumsum([len(top.rows) for top in tops], dtype=np.int64),
            np.array([top.tied for top in tops], dtype=np.int64),
        )

    def __len__(self) -> int:
        return len(self.tied)

    def __getitem__(self, k: int) -> PairTop:
        k = range(len(self))[k]  # an IndexError past the end, negative steps from it
        start = int(self.ends[k - 1]) if k else 0
        rows = map(tuple, self.rows[start : int(self.ends[k])].tolist())
        return PairTop(tuple(rows), int(self.tied[k]))

    def __iter__(self) -> Iterator[PairTop]:
        rows = list(map(tuple, self.rows.tolist()))  # one conversion for every step's
        starts = [0, *self.ends.tolist()]
        for k, tied in enumerate(self.tied.tolist()):
            yield PairTop(tuple(rows[starts[k] : starts[k + 1]]), tied)

    def memory_bytes(self) -> int:
        return int(self.rows.nbytes + self.ends.nbytes + self.tied.nbytes)


def _no_pair_tops() -> PairTops:
    return PairTops.of([])


@dataclass(frozen=True)
class TrainingRun:
    """What the trainer produced: the corpus, the merges, and what history needs."""

    corpus: Corpus
    pretokenizer: str
    pattern: str | None
    tie_break: str
    special_tokens: tuple[str, ...]
    requested_vocab_size: int
    steps: tuple[MergeStep, ...]
    stop_reason: str
    death: np.ndarray  # per unique-buffer position: step that removed the boundary before it
    # at steps 0..len(steps), when asked (``top_pairs``)
    pair_tops: PairTops = field(default_factory=_no_pair_tops)
    top_pairs: int = 0  # how many rows each of ``pair_tops`` holds at most


def max_useful_vocab_size(corpus: Corpus) -> int:
    """Vocab size past which no merge is possible: each merge removes at least one token."""
    symbols = len(corpus.unique_symbols)
    chunks = int(corpus.unique_chunk_start.sum())
    return base_size(corpus.end_of_word) + max(symbols - chunks, 0)


def run_training(
    source: str | bytes | Corpus,
    config: TrainingConfig,
    *,
    pattern: str | None = None,
    progress: ProgressCallback | None = None,
    top_pairs: int = 0,
    budget: Budget | None = None,
) -> TrainingRun:
    """Train BPE on ``source`` up to ``config.vocab_size`` (bytes + merges; specials after).

    With ``top_pairs``, the best ``top_pairs`` rows of the pair table before every merge are
    recorded too (:class:`PairTop`): what the browser's step view shows at every step, which
    recounting the table at each of thousands of steps would take minutes to give.

    With a ``budget`` (:mod:`bpeviz.engine.budget`), a run that would cost more is refused before
    the first merge (:class:`~bpeviz.engine.budget.OverBudget`), and training stops once the new
    tokens hold its ``token_symbols``.

    Raises ``ValueError`` with :meth:`TrainingConfig.problems` when the settings make no
    sense. Stopping early is not an error: ``stop_reason`` says why it stopped. A ``Corpus``
    as ``source`` is used as it is (built once by a caller that needed it first, the CLI).
    """
    problems = config.problems()
    if problems:
        raise ValueError(" ".join(problems))
    base, specials = config.base_size, config.special_tokens
    corpus = source if isinstance(source, Corpus) else corpus_for(source, config, pattern=pattern)
    check_run(corpus, config, budget)

    with gc_paused():
        trainer = _IncrementalTrainer(corpus, base, config.tie_break)
        steps, stop_reason = trainer.run(
            config.vocab_size - base,
            config.min_frequency,
            progress,
            top_pairs,
            token_limit=budget.token_symbols if budget is not None else None,
        )
        death = _compact(np.array(trainer.death, dtype=np.int32), len(steps))
        pair_tops = trainer.pair_tops
        del trainer  # freed by reference counting, before the collector is back
    return TrainingRun(
        corpus=corpus,
        pretokenizer=config.pretokenizer,
        pattern=pattern,
        tie_break=config.tie_break,
        special_tokens=specials,
        requested_vocab_size=config.vocab_size,
        steps=tuple(steps),
        stop_reason=stop_reason,
        death=death,
        pair_tops=PairTops.of(pair_tops),
        top_pairs=top_pairs,
    )


def corpus_for(
    source: str | bytes, config: TrainingConfig, *, pattern: str | None = None
) -> Corpus:
    """The corpus :func:`run_training` trains ``source`` on, for a caller that checks it first."""
    return build_corpus(
        source,
        config.pretokenizer,
        special_tokens=config.special_tokens,
        end_of_word=config.end_of_word,
        pattern=pattern,
    )


def check_run(corpus: Corpus, config: TrainingConfig, budget: Budget | None) -> None:
    """Raise ``ValueError`` when ``corpus`` cannot be trained under ``config`` (empty), or
    :class:`~bpeviz.engine.budget.OverBudget` when the run would cost more than ``budget``."""
    if not corpus.text:
        raise ValueError("the text is empty: paste or upload some text to train on")
    if budget is not None:
        useful = max_useful_vocab_size(corpus)
        check_budget(corpus, config.base_size, config.vocab_size, useful, budget)


def _compact(death: np.ndarray, merges: int) -> np.ndarray:
    """``death`` in two bytes a boundary when every step and "never" fit (fewer than 32,767
    merges, as every vocabulary up to 33,000 has): half of what a run keeps of its text, so a
    history stays within 10 bytes a text byte (``benchmarks/run.py``, figure 5). "Never" only
    has to outlast every step, so it becomes :data:`SHORT_NEVER`.

    >>> _compact(np.array([NEVER, 1, 2], dtype=np.int32), 2)
    array([32767,     1,     2], dtype=int16)
    >>> _compact(np.array([NEVER, 40000], dtype=np.int32), 40000).dtype
    dtype('int32')
    """
    if merges >= SHORT_NEVER:
        return death
    return np.minimum(death, SHORT_NEVER).astype(np.int16)


class _IncrementalTrainer:
    """The merge loop over a linked list of tokens (see the module docstring).

    A pair ``(a, b)`` is keyed by the int ``a << SHIFT | b`` (cheaper to hash than a tuple).
    Three facts keep the bookkeeping small and exact:

    - every occurrence of a pair is born in one merge (the one that creates the later of
      its two tokens; for two bytes, at the start), so each pair's position list is sorted
      and free of duplicates, and a pair's first occurrence only ever moves right;
    - no count ever grows past the current top: counts only drop, and a new pair occurs at
      most as often as the merge that made it. So pairs wait in buckets by count, and only
      the top bucket needs ordering (a small heap by the tie rule); the others are plain
      lists, heapified when the top reaches them;
    - queued entries may be stale, but never better than the truth (counts only drop, first
      positions only grow), so the first entry that checks out is the true best pair.
    """

    def __init__(self, corpus: Corpus, base: int, tie_break: str) -> None:
        self.base = base
        self.tie_break = tie_break
        self.first_rule = tie_rule(tie_break).by_position
        self.largest_ids = tie_rule(tie_break).largest_ids
        symbols = corpus.unique_symbols
        size = len(symbols)
        # One int object per position, shared by every list below: a megabyte of text would
        # otherwise hold several million separate ints (28 bytes each).
        ints = list(range(size + 1))
        self.seq: list[int] = symbols.tolist()  # token id at each live position, -1 if dead
        self.weight: list[int] = corpus.weights_at(np.arange(size)).tolist()
        self.nxt: list[int] = ints[1:]  # next live position in the chunk, or -1
        self.prv: list[int] = [-1, *ints[: size - 1]] if size else []
        chunk_starts = corpus.chunk_starts.tolist()
        for start in chunk_starts:
            self.prv[start] = -1
            if start:
                self.nxt[start - 1] = -1
        if size:
            self.nxt[size - 1] = -1
        self.death: list[int] = [NEVER] * size
        self.tokens_total = corpus.symbol_count
        self.corpus = corpus
        self.width: list[int] = [1] * base  # symbols of each token, by id
        self.pair_tops: list[PairTop] = []

        # Initial pair counts and positions, vectorised: group positions by pair key.
        has_right = np.ones(size, dtype=bool)
        if size:
            has_right[:-1] = ~corpus.unique_chunk_start[1:]
            has_right[-1] = False
        left = np.flatnonzero(has_right)
        keys = (symbols[left].astype(np.int64) << SHIFT) | symbols[left + 1]
        order = np.argsort(keys, kind="stable")  # stable: positions stay sorted per pair
        sorted_keys, sorted_positions = keys[order], left[order]
        del keys, order, left, has_right
        unique_keys, group_starts = np.unique(sorted_keys, return_index=True)
        del sorted_keys
        weights = corpus.weights_at(sorted_positions)
        totals = np.add.reduceat(weights, group_starts).tolist() if len(weights) else []
        del weights
        bounds = [*group_starts.tolist(), len(sorted_positions)]
        self.counts: dict[int, int] = dict(zip(unique_keys.tolist(), totals, strict=True))
        positions = list(map(ints.__getitem__, sorted_positions.tolist()))
        self.where: dict[int, list[int]] = {
            key: positions[bounds[index] : bounds[index + 1]]
            for index, key in enumerate(unique_keys.tolist())
        }
        del positions
        self.buckets: dict[int, list[tuple[int, int]]] = {}
        self.top = max(totals, default=0)
        for key, count in self.counts.items():
            self.buckets.setdefault(count, []).append((self._rank(key, self.where[key][0]), key))
        if self.top:
            heapq.heapify(self.buckets[self.top])

    def _rank(self, key: int, first_position: int) -> int:
        """Order inside a bucket (smaller is better): the tie rule's preference."""
        if self.first_rule:
            return first_position
        return -key if self.largest_ids else key

    def _queue(self, key: int, count: int) -> None:
        """Put a pair in its count's bucket (a heap only for the top bucket)."""
        entry = (self._rank(key, self._first_live(key) if self.first_rule else 0), key)
        if count == self.top:
            heapq.heappush(self.buckets[self.top], entry)
        else:
            bucket = self.buckets.get(count)
            if bucket is None:
                self.buckets[count] = [entry]
            else:
                bucket.append(entry)

    def run(
        self,
        merges_wanted: int,
        min_frequency: int,
        progress: ProgressCallback | None,
        top_pairs: int = 0,
        *,
        token_limit: int | None = None,
    ) -> tuple[list[MergeStep], str]:
        steps: list[MergeStep] = []
        token_symbols = 0  # of every new token together
        report_every = max(1, merges_wanted // 100)
        reason = f"reached the vocab size ({self.base + merges_wanted})"
        for step in range(1, merges_wanted + 1):
            if top_pairs:
                self.pair_tops.append(self._top_rows(top_pairs))
            best = self._pop_best()
            if best is None:
                reason = (
                    f"stopped after {counted(step - 1, 'merge')}: no pair left to merge "
                    "(every piece of the text is already a single token)"
                )
                break
            count = self.top
            if count < min_frequency:
                reason = (
                    f"stopped after {counted(step - 1, 'merge')}: the most frequent pair "
                    f"occurs {counted(count, 'time')}, below the minimum frequency {min_frequency}"
                )
                break
            tied, more_tied = self._tied_with(best)
            pair = (best >> SHIFT, best & MASK)
            new_id = self.base + step - 1
            token_at, replacements = self._merge(best, new_id, step)
            self.tokens_total -= replacements
            steps.append(
                MergeStep(
                    step=step,
                    pair=pair,
                    new_id=new_id,
                    count=count,
                    replacements=replacements,
                    tied=tuple((key >> SHIFT, key & MASK) for key in tied),
                    more_tied=more_tied,
                    rule=self.tie_break,
                    tokens_after=self.tokens_total,
                    token_at=token_at,
                    token_symbols=self.width[new_id],
                    corpus=self.corpus,
                )
            )
            if progress is not None and (step % report_every == 0 or step == merges_wanted):
                progress(step, merges_wanted)
            token_symbols += self.width[new_id]
            if token_limit is not None and token_symbols >= token_limit and step < merges_wanted:
                reason = token_stop_reason(step, token_symbols)
                break
        if top_pairs and len(self.pair_tops) == len(steps):  # the table after the last merge
            self.pair_tops.append(self._top_rows(top_pairs))
        return steps, reason

    def _is_live(self, key: int, position: int) -> bool:
        """Whether the pair ``key`` still occurs at ``position``."""
        seq = self.seq
        following = self.nxt[position]
        return seq[position] == key >> SHIFT and following >= 0 and seq[following] == key & MASK

    def _first_live(self, key: int) -> int:
        """First position where the pair occurs; dead positions before it are dropped."""
        positions = self.where[key]
        index = 0
        while not self._is_live(key, positions[index]):
            index += 1
        if index:
            del positions[:index]
        return positions[0]

    def _pop_best(self) -> int | None:
        """Pop the best pair's key, moving down to lower buckets as the top one empties."""
        while self.top > 0:
            entry = self._pop_top()
            if entry is not None:
                return entry[1]
            del self.buckets[self.top]
            self.top -= 1
            while self.top > 0 and self.top not in self.buckets:
                self.top -= 1
            if self.top:
                heapq.heapify(self.buckets[self.top])
        return None

    def _pop_top(self) -> tuple[int, int] | None:
        """Pop the best valid ``(rank, key)`` of the top bucket, or None when none is left.

        A stale entry (its pair's count dropped, or its first occurrence moved) is queued
        again where it now belongs.
        """
        bucket, counts, top = self.buckets.get(self.top), self.counts, self.top
        seq, nxt, first_rule = self.seq, self.nxt, self.first_rule
        while bucket:
            entry = heapq.heappop(bucket)
            rank, key = entry
            current = counts.get(key, 0)
            if current != top:
                if current > 0:
                    self._queue(key, current)
                continue
            if first_rule:
                following = nxt[rank]
                if not (
                    seq[rank] == key >> SHIFT and following >= 0 and seq[following] == key & MASK
                ):
                    heapq.heappush(bucket, (self._first_live(key), key))
                    continue
            return entry
        return None

    def _top_rows(self, limit: int) -> PairTop:
        """The best ``limit`` pairs now, in the order the trainer picks them, and how many
        share the top count (counted up to ``limit + 1``: a small text trained far ties
        thousands of pairs at count 1, and counting them all at every merge would cost more
        than the training).

        The top bucket is a heap: its best live entries are popped as ``_pop_top`` does
        (stale ones requeued where they belong) and pushed back, like ``_tied_with``. Lower
        buckets, read only when the top one has fewer live pairs than ``limit``, are cleaned
        the same way and sorted by the rule (a sorted list is a valid heap). The merges that
        follow are therefore the same, with or without this record.
        """
        popped: list[tuple[int, int]] = []
        while len(popped) <= limit:
            entry = self._pop_top()
            if entry is None:
                break
            popped.append(entry)
        for entry in popped:
            heapq.heappush(self.buckets[self.top], entry)
        rows = [(key >> SHIFT, key & MASK, self.top) for _, key in popped[:limit]]
        tied = len(popped)
        counts = self.counts
        waiting = [-count for count in self.buckets if count < self.top]  # largest first
        heapq.heapify(waiting)
        while waiting and len(rows) < limit:
            count = -heapq.heappop(waiting)
            bucket = self.buckets[count]
            live: dict[int, int] = {}
            stale: list[tuple[int, int]] = []
            for _, key in bucket:
                if key in live:
                    continue
                current = counts.get(key, 0)
                if current == count:
                    live[key] = self._rank(key, self._first_live(key) if self.first_rule else 0)
                elif current > 0:
                    stale.append((key, current))
            bucket[:] = sorted((rank, key) for key, rank in live.items())
            for key, current in stale:
                if current not in self.buckets:
                    heapq.heappush(waiting, -current)
                self._queue(key, current)
            if bucket and not tied:
                tied = min(len(bucket), limit + 1)
            rows += [(key >> SHIFT, key & MASK, count) for _, key in bucket[: limit - len(rows)]]
        return PairTop(tuple(rows), tied)

    def _tied_with(self, best: int) -> tuple[list[int], bool]:
        """``[winner, runner-up]`` when another pair has the same count (else ``[]``), and
        whether a third one does too.

        Both are popped by the rule's order and put back; ``History.tied_pairs`` lists them
        all (recording every tied pair would cost a scan of the tie at every merge).
        """
        popped = []  # the recorded runners-up, and one more to tell whether more pairs tied
        while len(popped) < MAX_TIED_RECORDED:
            entry = self._pop_top()
            if entry is None:
                break
            popped.append(entry)
        if not popped:
            return [], False
        for entry in popped:
            heapq.heappush(self.buckets[self.top], entry)
        runners_up = [key for _, key in popped[: MAX_TIED_RECORDED - 1]]
        return [best, *runners_up], len(popped) >= MAX_TIED_RECORDED

    def _record_new_pairs(
        self,
        left_positions: dict[int, list[int]],
        left_counts: dict[int, int],
        right_positions: dict[int, list[int]],
        right_counts: dict[int, int],
        new_id: int,
    ) -> None:
        """Count and queue the pairs a merge created (this runs ~50,000 times a megabyte,
        hence the inlined checks)."""
        counts, where, buckets, top = self.counts, self.where, self.buckets, self.top
        seq, nxt = self.seq, self.nxt
        first_rule, lexmax = self.first_rule, self.largest_ids
        new_high = new_id << SHIFT
        for side_counts, side_positions, left_side in (
            (left_counts, left_positions, True),
            (right_counts, right_positions, False),
        ):
            for other, count in side_counts.items():
                if count <= 0:
                    continue
                key = (other << SHIFT) | new_id if left_side else new_high | other
                positions = side_positions[other]
                counts[key] = count
                where[key] = positions
                if first_rule:
                    first = positions[0]
                    following = nxt[first]
                    if not (
                        seq[first] == key >> SHIFT
                        and following >= 0
                        and seq[following] == key & MASK
                    ):
                        first = self._first_live(key)
                    entry = (first, key)
                else:
                    entry = (-key if lexmax else key, key)
                if count == top:
                    heapq.heappush(buckets[top], entry)
                else:
                    bucket = buckets.get(count)
                    if bucket is None:
                        buckets[count] = [entry]
                    else:
                        bucket.append(entry)

    def _merge(self, best: int, new_id: int, step: int) -> tuple[int, int]:
        """Replace the pair left to right (``pair_merge.merge_pair``, shared with WordPiece),
        keeping neighbours' counts right; return where the new token first occurs and how
        many were merged (weighted)."""
        a, b = best >> SHIFT, best & MASK
        holders = self.where.pop(best)
        merged = merge_pair(
            holders, a, b, new_id, self.seq, self.nxt, self.prv, self.weight, self.counts
        )
        death = self.death
        for j in merged.joined:
            death[j] = step
        self.width.append(self.width[a] + self.width[b])  # new_id is the next id
        del self.counts[best]
        self._record_new_pairs(
            merged.before_at, merged.before, merged.after_at, merged.after, new_id
        )
        first = self.prv[merged.joined[0]]  # a merged position keeps its link to the left
        return first, merged.replacements
