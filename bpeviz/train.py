"""BPE training that records every merge, fast enough for a megabyte in a class demo.

The recipe is the textbook one: count adjacent pairs, take the most frequent (ties broken by a
named rule), give it the next id, replace its occurrences left to right, record the merge,
repeat. The textbook loop recounts the whole text for every merge; this one does the same
work incrementally, and gives exactly the same merges (``tests/oracle.py`` is the textbook
loop, and the tests hold the two equal):

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
boundary before it vanished (``death``), and one :class:`MergeStep` per merge.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from bpeviz.corpus import Corpus, base_size, build_corpus, symbol_bytes
from bpeviz.pretokenize import check_pretokenizer

TIE_BREAKS: tuple[str, ...] = ("first", "lexmin", "lexmax")
TIE_BREAK_DESCRIPTIONS: dict[str, str] = {
    "first": "the tied pair that occurs first in the text (minbpe's rule)",
    "lexmin": "the tied pair with the smallest token ids (Hugging Face tokenizers' rule)",
    "lexmax": "the tied pair with the largest token ids",
}
MAX_VOCAB_SIZE = 1_000_000
MAX_TIED_RECORDED = 50
NEVER = np.iinfo(np.int32).max  # a boundary that no merge removes (a chunk edge)

Pair = tuple[int, int]
ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class MergeStep:
    """One merge: what was joined, how often it occurred, and what the tie rule decided.

    ``step`` counts from 1; the merge creates ``new_id``. ``count`` is the pair's frequency
    (overlaps counted, so ``aaa`` has two ``(a, a)``); ``replacements`` is how many were
    actually merged (one in ``aaa``). ``tied`` lists the pairs that shared the top count,
    the winner first and the rest in the rule's order, when there was a tie (at most
    ``MAX_TIED_RECORDED`` of them; ``tie_count`` says how many there were).
    ``tokens_after`` is the token count of the whole training text after this merge.
    """

    step: int
    pair: Pair
    new_id: int
    token: bytes
    count: int
    replacements: int
    tied: tuple[Pair, ...]
    tie_count: int
    rule: str
    tokens_after: int


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


def check_tie_break(name: str) -> None:
    """Raise a ``ValueError`` naming the valid rules when ``name`` is not one of them."""
    if name not in TIE_BREAKS:
        raise ValueError(f"unknown tie-break rule {name!r}: choose one of {', '.join(TIE_BREAKS)}")


def max_useful_vocab_size(corpus: Corpus) -> int:
    """Vocab size past which no merge is possible: each merge removes at least one token."""
    symbols = len(corpus.unique_symbols)
    chunks = int(corpus.unique_chunk_start.sum())
    return base_size(corpus.end_of_word) + max(symbols - chunks, 0)


def run_training(
    source: str | bytes,
    vocab_size: int,
    *,
    pretokenizer: str = "bytes",
    tie_break: str = "first",
    special_tokens: Iterable[str] = (),
    end_of_word: bool = False,
    min_frequency: int = 1,
    pattern: str | None = None,
    progress: ProgressCallback | None = None,
) -> TrainingRun:
    """Train BPE on ``source`` up to ``vocab_size`` (bytes + merges; specials come after).

    Raises ``ValueError`` with a message saying how to fix the input when the settings make
    no sense. Stopping early is not an error: ``stop_reason`` says why it stopped.
    """
    check_pretokenizer(pretokenizer)
    check_tie_break(tie_break)
    if end_of_word and pretokenizer != "words":
        raise ValueError("the </w> end-of-word marker needs the 'words' pre-tokenizer")
    base = base_size(end_of_word)
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, int):
        raise ValueError(f"vocab size must be a whole number, got {vocab_size!r}")
    if vocab_size < base:
        raise ValueError(
            f"vocab size {vocab_size} is smaller than the {base} base symbols: "
            f"use at least {base} (each merge adds one token)"
        )
    if vocab_size > MAX_VOCAB_SIZE:
        raise ValueError(f"vocab size {vocab_size:,} is too large: the limit is {MAX_VOCAB_SIZE:,}")
    if min_frequency < 1:
        raise ValueError(f"minimum frequency must be at least 1, got {min_frequency}")
    specials = tuple(dict.fromkeys(s for s in special_tokens if s))
    corpus = build_corpus(
        source, pretokenizer, special_tokens=specials, end_of_word=end_of_word, pattern=pattern
    )
    if not corpus.text:
        raise ValueError("the text is empty: paste or upload some text to train on")

    trainer = _IncrementalTrainer(corpus, base, tie_break)
    steps, stop_reason = trainer.run(vocab_size - base, min_frequency, progress)
    return TrainingRun(
        corpus=corpus,
        pretokenizer=pretokenizer,
        pattern=pattern,
        tie_break=tie_break,
        special_tokens=specials,
        requested_vocab_size=vocab_size,
        steps=tuple(steps),
        stop_reason=stop_reason,
        death=np.array(trainer.death, dtype=np.int32),
    )


class _IncrementalTrainer:
    """The merge loop over a linked list of tokens (see the module docstring)."""

    def __init__(self, corpus: Corpus, base: int, tie_break: str) -> None:
        self.base = base
        self.tie_break = tie_break
        symbols = corpus.unique_symbols
        size = len(symbols)
        self.seq: list[int] = symbols.tolist()  # token id at each live position, -1 if dead
        self.weight: list[int] = corpus.unique_weights.tolist()
        has_right = np.ones(size, dtype=bool)
        if size:
            has_right[:-1] = ~corpus.unique_chunk_start[1:]
            has_right[-1] = False
        positions = np.arange(size, dtype=np.int64)
        self.nxt: list[int] = np.where(has_right, positions + 1, -1).tolist()
        self.prv: list[int] = np.where(corpus.unique_chunk_start, -1, positions - 1).tolist()
        self.death: list[int] = [NEVER] * size
        self.tokens_total = corpus.symbol_count
        self.token_bytes: list[bytes] = [symbol_bytes(s) for s in range(base)]

        # Initial pair counts and positions, vectorised: group positions by pair code.
        self.stride = 1 << 21
        left = positions[has_right]
        codes = symbols[left].astype(np.int64) * self.stride + symbols[left + 1]
        order = np.argsort(codes, kind="stable")
        sorted_codes, sorted_positions = codes[order], left[order]
        unique_codes, group_starts = np.unique(sorted_codes, return_index=True)
        weights = corpus.unique_weights[sorted_positions]
        totals = np.add.reduceat(weights, group_starts) if len(weights) else weights
        bounds = [*group_starts.tolist(), len(sorted_codes)]
        self.counts: dict[Pair, int] = {}
        self.where: dict[Pair, list[int]] = {}
        for index, code in enumerate(unique_codes.tolist()):
            pair = divmod(code, self.stride)
            self.counts[pair] = int(totals[index])
            self.where[pair] = sorted_positions[bounds[index] : bounds[index + 1]].tolist()
        self.heap: list[tuple[int, int, int]] = [(-c, a, b) for (a, b), c in self.counts.items()]
        heapq.heapify(self.heap)

    def run(
        self, merges_wanted: int, min_frequency: int, progress: ProgressCallback | None
    ) -> tuple[list[MergeStep], str]:
        steps: list[MergeStep] = []
        report_every = max(1, merges_wanted // 100)
        reason = f"reached the vocab size ({self.base + merges_wanted})"
        for step in range(1, merges_wanted + 1):
            tied = self._pop_tied()
            if not tied:
                reason = (
                    f"stopped after {step - 1} merges: no pair left to merge "
                    "(every piece of the text is already a single token)"
                )
                break
            count = self.counts[tied[0]]
            if count < min_frequency:
                reason = (
                    f"stopped after {step - 1} merges: the most frequent pair occurs "
                    f"{count} time(s), below the minimum frequency {min_frequency}"
                )
                break
            ranked = self._rank(tied)
            pair = ranked[0]
            for loser in ranked[1:]:
                heapq.heappush(self.heap, (-count, loser[0], loser[1]))
            new_id = self.base + step - 1
            self.token_bytes.append(self.token_bytes[pair[0]] + self.token_bytes[pair[1]])
            replacements = self._merge(pair, new_id, step)
            self.tokens_total -= replacements
            steps.append(
                MergeStep(
                    step=step,
                    pair=pair,
                    new_id=new_id,
                    token=self.token_bytes[new_id],
                    count=count,
                    replacements=replacements,
                    tied=tuple(ranked[:MAX_TIED_RECORDED]) if len(ranked) > 1 else (),
                    tie_count=len(ranked) if len(ranked) > 1 else 0,
                    rule=self.tie_break,
                    tokens_after=self.tokens_total,
                )
            )
            if progress is not None and (step % report_every == 0 or step == merges_wanted):
                progress(step, merges_wanted)
        return steps, reason

    def _pop_tied(self) -> list[Pair]:
        """Pop every pair that has the current top count (stale entries are skipped)."""
        heap, counts = self.heap, self.counts
        tied: list[Pair] = []
        seen: set[Pair] = set()
        top = 0
        while heap:
            negative, a, b = heap[0]
            stored = -negative
            if tied and stored != top:
                break
            heapq.heappop(heap)
            pair = (a, b)
            current = counts.get(pair, 0)
            if current != stored:
                if 0 < current < stored:  # went down since pushed: queue it at its real count
                    heapq.heappush(heap, (-current, a, b))
                continue
            if pair not in seen:
                seen.add(pair)
                tied.append(pair)
                top = stored
        return tied

    def _rank(self, tied: list[Pair]) -> list[Pair]:
        """Order tied pairs by the tie rule, winner first."""
        if len(tied) == 1:
            return tied
        if self.tie_break == "lexmin":
            return sorted(tied)
        if self.tie_break == "lexmax":
            return sorted(tied, reverse=True)
        return sorted(tied, key=self._first_position)

    def _first_position(self, pair: Pair) -> int:
        """Where the pair first occurs now (and forget positions where it no longer is)."""
        a, b = pair
        seq, nxt = self.seq, self.nxt
        live = [i for i in self.where[pair] if seq[i] == a and nxt[i] >= 0 and seq[nxt[i]] == b]
        self.where[pair] = live
        return min(live)

    def _merge(self, pair: Pair, new_id: int, step: int) -> int:
        """Replace the pair left to right, keeping neighbours' counts right; return merges."""
        a, b = pair
        seq, nxt, prv, weight, death = self.seq, self.nxt, self.prv, self.weight, self.death
        counts, where = self.counts, self.where
        touched: set[Pair] = set()
        replacements = 0
        for i in sorted(set(where.pop(pair))):
            if seq[i] != a:
                continue
            j = nxt[i]
            if j < 0 or seq[j] != b:
                continue
            w = weight[i]
            p = prv[i]
            if p >= 0:
                x = seq[p]
                counts[(x, a)] -= w
                joined = (x, new_id)
                counts[joined] = counts.get(joined, 0) + w
                where.setdefault(joined, []).append(p)
                touched.add(joined)
            k = nxt[j]
            if k >= 0:
                y = seq[k]
                counts[(b, y)] -= w
                joined = (new_id, y)
                counts[joined] = counts.get(joined, 0) + w
                where.setdefault(joined, []).append(i)
                touched.add(joined)
                prv[k] = i
            seq[i] = new_id
            seq[j] = -1
            nxt[i] = k
            death[j] = step
            replacements += w
        del counts[pair]
        for joined in touched:
            count = counts[joined]
            if count > 0:
                heapq.heappush(self.heap, (-count, joined[0], joined[1]))
        return replacements
