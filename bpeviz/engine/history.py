"""The merge history: any step of training, shown instantly, without retraining.

Storing the token sequence after every merge would cost text length × steps. Instead, for each
boundary between two adjacent symbols we keep the step at which it vanished (``death``); a
chunk edge never vanishes. Then, at step ``k``:

- the tokens are the runs between boundaries still alive (``death > k``);
- a token's id comes from the last merge inside it: ``base + max(death inside) - 1``
  (a single symbol keeps its own id);
- pair counts are those runs' neighbours, counted on the distinct chunks with their weights.

All three are a few vectorised passes over arrays of a few bytes per text byte. The merges
themselves are a prefix of the final list, so the tokenizer "as of step k" is free too.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from bpeviz.engine.config import TrainingConfig
from bpeviz.engine.corpus import Corpus, TextLayout, base_size, text_layout
from bpeviz.engine.tie_rules import pair_order, tie_rule
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.engine.trainer import (
    NEVER,
    MergeStep,
    Pair,
    PairTop,
    ProgressCallback,
    TrainingRun,
    run_training,
)

# Python objects per record, as tracemalloc counts them (CPython 3.11, 64-bit): a MergeStep
# with its pairs and numbers (the recorded pair tables are arrays: PairTops).
_STEP_BYTES = 680


def bytes_per_token(byte_count: int, token_count: int) -> float:
    """The compression ratio; an empty text (no tokens) counts as 0.0, not a division error.

    >>> bytes_per_token(11, 5)
    2.2
    """
    return byte_count / token_count if token_count else 0.0


@dataclass(frozen=True)
class Segmentation:
    """Tokens of the training text at one step: byte spans ``[starts, ends)`` and ``ids``."""

    starts: np.ndarray
    ends: np.ndarray
    ids: np.ndarray

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class PairTable:
    """Every adjacent pair at one step with its count, best first (ties in rule order).

    ``first_positions`` is where each pair first occurs in the buffer of distinct chunks (the
    order the ``first`` rule uses).
    """

    lefts: np.ndarray
    rights: np.ndarray
    counts: np.ndarray
    first_positions: np.ndarray

    def __len__(self) -> int:
        return len(self.counts)

    def pairs(self) -> list[Pair]:
        return list(zip(self.lefts.tolist(), self.rights.tolist(), strict=True))


class History:
    """A finished training run, queryable at any step ``k`` in ``0..len(steps)``.

    Step ``k`` means "after the first ``k`` merges"; ``k = 0`` is the raw bytes.

    >>> history = train("aaabdaaabac", 259)
    >>> [step.token for step in history.steps]
    [b'aa', b'aaa', b'aaab']
    >>> [history.token_count(k) for k in range(4)]
    [11, 9, 7, 5]
    """

    def __init__(self, run: TrainingRun) -> None:
        self.run = run
        self.steps: tuple[MergeStep, ...] = run.steps
        self.stop_reason = run.stop_reason
        self.text: bytes = run.corpus.text
        self.base = base_size(run.corpus.end_of_word)

    @cached_property
    def tokenizer(self) -> Tokenizer:
        """The trained tokenizer: all the merges, special tokens after them."""
        return Tokenizer.from_merges(
            [step.pair for step in self.steps],
            pretokenizer=self.run.pretokenizer,
            pattern=self.run.pattern,
            special_tokens=self.run.special_tokens,
            end_of_word=self.run.corpus.end_of_word,
        )

    @property
    def merge_count(self) -> int:
        return len(self.steps)

    @property
    def vocab_size(self) -> int:
        """Bytes (and ``</w>``) plus merges; special tokens come after."""
        return self.base + len(self.steps)

    def _check_step(self, k: int) -> int:
        if not 0 <= k <= len(self.steps):
            raise ValueError(f"step {k} is out of range: choose 0..{len(self.steps)}")
        return int(k)

    def token_count(self, k: int) -> int:
        """Tokens in the whole training text after ``k`` merges."""
        k = self._check_step(k)
        return self.steps[k - 1].tokens_after if k else self.run.corpus.symbol_count

    def compression_ratio(self, k: int) -> float:
        """Bytes per token after ``k`` merges (1.0 before any merge)."""
        return bytes_per_token(len(self.text), self.token_count(k))

    def tokenizer_at(self, k: int) -> Tokenizer:
        """The tokenizer made of the first ``k`` merges (merges are a prefix: no retraining)."""
        k = self._check_step(k)
        return self.tokenizer.truncated(k)

    @cached_property
    def _text_index(self) -> tuple[TextLayout, np.ndarray]:
        """The text's layout and the death step of every boundary in the whole text.

        Built once, on first use. In ``bytes`` mode the text is its own chunk buffer, so the
        trainer's array is shared rather than copied.
        """
        layout = text_layout(self.run.corpus)
        gather = layout.gather
        assert gather is not None
        if len(gather) == len(self.run.death) and np.array_equal(gather, np.arange(len(gather))):
            death = self.run.death
        else:
            death = np.full(len(gather), NEVER, dtype=np.int32)
            chunk_positions = gather >= 0
            death[chunk_positions] = self.run.death[gather[chunk_positions]]
            if layout.special_inner is not None:
                death[layout.special_inner] = 0  # inside a special token: joined from the start
        return replace(layout, gather=None), death

    @cached_property
    def _special_ids(self) -> np.ndarray:
        ids = self.tokenizer.special_tokens
        texts = self._text_index[0].special_texts
        return np.array([ids[text] for text in texts], dtype=np.int64)

    def segmentation(self, k: int) -> Segmentation:
        """Token spans (byte offsets) and ids of the whole training text after ``k`` merges."""
        k = self._check_step(k)
        layout, death = self._text_index
        starts, ids = _tokens_at(death, layout.symbols, k, self.base)
        if len(layout.special_starts):
            where = np.searchsorted(starts, layout.special_starts)
            ids[where] = self._special_ids
        ends = np.empty_like(starts)
        ends[:-1] = starts[1:]
        if len(starts):
            ends[-1] = len(layout.symbols)
        offsets = layout.symbol_offsets
        if offsets is None:
            return Segmentation(starts=starts, ends=ends, ids=ids)
        return Segmentation(starts=offsets[starts], ends=offsets[ends], ids=ids)

    def text_symbols(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The whole text as symbols, for a view that cuts it at any step by itself.

        Returns each symbol's id (the first symbol of a special token carries the special
        token's id), the byte offset where each symbol starts (plus the text's length), and
        the step at which the boundary before each symbol vanished (``NEVER`` at a chunk
        edge, 0 inside a special token). :meth:`segmentation` is these three cut at ``k``.
        """
        layout, death = self._text_index
        symbols = layout.symbols.astype(np.int64)
        if len(layout.special_starts):
            symbols[layout.special_starts] = self._special_ids
        offsets = layout.symbol_offsets
        if offsets is None:
            offsets = np.arange(len(symbols) + 1)
        return symbols, offsets, death

    def piece_starts(self) -> np.ndarray:
        """The symbols of the text where a piece of the pre-tokenizer starts: no merge ever
        joins across one (each whitespace symbol of ``words`` is a piece of its own)."""
        layout = text_layout(self.run.corpus)
        gather = layout.gather
        assert gather is not None
        starts = np.ones(len(gather), dtype=bool)
        inside = gather >= 0
        starts[inside] = self.run.corpus.unique_chunk_start[gather[inside]]
        if layout.special_inner is not None:
            starts[layout.special_inner] = False
        return np.flatnonzero(starts)

    def tied_pairs(self, step: int) -> list[Pair]:
        """Every pair that shared the top count at merge ``step`` (1-based), winner first.

        The trainer records only the first few (``MergeStep.tied``); this recounts them all
        from the pair table just before that merge.
        """
        if not 1 <= step <= len(self.steps):
            raise ValueError(f"merge {step} does not exist: choose 1..{len(self.steps)}")
        table = self.pair_table(step - 1)
        top = int(np.count_nonzero(table.counts == self.steps[step - 1].count))
        return table.pairs()[:top] if top > 1 else []

    def tie_count(self, step: int) -> int:
        """How many pairs shared the top count at merge ``step`` (0 when there was no tie)."""
        record = self.steps[step - 1]
        return len(self.tied_pairs(step)) if record.more_tied else len(record.tied)

    def pair_top(self, k: int, limit: int) -> PairTop:
        """The first ``limit`` rows of :meth:`pair_table` at step ``k``, and how many pairs
        share its top count (up to ``limit + 1``, "so many or more"): from the trainer's
        record when it kept one this long (``top_pairs``), else counted from the table.
        """
        k = self._check_step(k)
        if limit <= self.run.top_pairs and k < len(self.run.pair_tops):
            recorded = self.run.pair_tops[k]
            return PairTop(recorded.rows[:limit], recorded.tied)
        table = self.pair_table(k)
        rows = zip(table.lefts[:limit].tolist(), table.rights[:limit].tolist(),
                   table.counts[:limit].tolist(), strict=True)  # fmt: skip
        tied = int(np.count_nonzero(table.counts == table.counts[0])) if len(table) else 0
        return PairTop(tuple(rows), min(tied, limit + 1))

    def pair_tops(self, limit: int) -> list[PairTop]:
        """:meth:`pair_top` at every step ``0..merge_count`` (from the trainer's record at once
        when it kept rows this long)."""
        recorded = self.run.pair_tops
        if limit == self.run.top_pairs and len(recorded) == len(self.steps) + 1:
            return list(recorded)
        return [self.pair_top(k, limit) for k in range(len(self.steps) + 1)]

    def memory_bytes(self) -> int:
        """Approximate size of what the history keeps: arrays, merge records, the pair tables
        recorded at each step, the text, and the tokenizer once built (the server's caches
        are bounded in these bytes; ``tests/test_held_bytes.py`` holds it to tracemalloc)."""
        corpus = self.run.corpus
        arrays = [self.run.death, corpus.unique_symbols, corpus.unique_chunk_start]
        arrays += [corpus.chunk_starts, corpus.chunk_weights]
        if "_text_index" in self.__dict__:
            layout, death = self._text_index
            arrays += [death, layout.symbols, layout.symbol_offsets, layout.special_inner]
        owners = {id(array): array for array in arrays if array is not None and array.base is None}
        step_bytes = _STEP_BYTES * len(self.steps)
        row_bytes = self.run.pair_tops.memory_bytes()
        tokenizer = self.__dict__.get("tokenizer")
        tokenizer_bytes = tokenizer.memory_bytes() if tokenizer is not None else 0
        arrays = sum(int(a.nbytes) for a in owners.values())
        return len(self.text) + step_bytes + row_bytes + tokenizer_bytes + arrays

    def pair_table(self, k: int) -> PairTable:
        """Every adjacent pair after ``k`` merges, with counts, ordered as the trainer chooses.

        The first row is the pair merge ``k + 1`` picks (when there is one).
        """
        k = self._check_step(k)
        corpus = self.run.corpus
        starts, ids = _tokens_at(self.run.death, corpus.unique_symbols, k, self.base)
        joined = ~corpus.unique_chunk_start[starts[1:]]
        if not joined.any():
            empty = np.zeros(0, dtype=np.int64)
            return PairTable(empty, empty, empty, empty)
        lefts, rights = ids[:-1][joined], ids[1:][joined]
        positions = starts[:-1][joined]
        weights = corpus.weights_at(positions)
        # Group equal pairs with one stable argsort over compact codes (int32 when they fit,
        # which sorts much faster): the first of each group is its first occurrence.
        width = int(ids.max()) + 1
        code_type = np.int32 if width * width < 2**31 else np.int64
        codes = (lefts * width + rights).astype(code_type)
        order = np.argsort(codes, kind="stable")
        sorted_codes = codes[order]
        group_starts = np.flatnonzero(
            np.concatenate(([True], sorted_codes[1:] != sorted_codes[:-1]))
        )
        unique_codes = sorted_codes[group_starts].astype(np.int64)
        counts = np.add.reduceat(weights[order], group_starts).astype(np.int64)
        first_positions = positions[order[group_starts]]
        pair_lefts, pair_rights = np.divmod(unique_codes, width)
        rule = tie_rule(self.run.tie_break)
        order = pair_order(rule, counts, first_positions, pair_lefts, pair_rights)
        return PairTable(
            lefts=pair_lefts[order],
            rights=pair_rights[order],
            counts=counts[order],
            first_positions=first_positions[order],
        )


def _tokens_at(
    death: np.ndarray, symbols: np.ndarray, k: int, base: int
) -> tuple[np.ndarray, np.ndarray]:
    """Start positions and ids of the tokens after ``k`` merges, from boundary deaths."""
    alive = death > k
    starts = np.flatnonzero(alive)
    if not len(starts):
        return starts, np.zeros(0, dtype=np.int64)
    inner = np.where(alive, -1, death)  # -1 at token starts, the merge step elsewhere
    last_merge = np.maximum.reduceat(inner, starts)
    ids = np.where(last_merge > 0, base + last_merge.astype(np.int64) - 1, symbols[starts])
    return starts, ids.astype(np.int64)


def train(
    source: str | bytes | Corpus,
    vocab_size: int,
    *,
    pretokenizer: str = "bytes",
    tie_break: str = "first",
    special_tokens: tuple[str, ...] | list[str] = (),
    end_of_word: bool = False,
    min_frequency: int = 1,
    pattern: str | None = None,
    progress: ProgressCallback | None = None,
    top_pairs: int = 0,
) -> History:
    """Train BPE and return its full :class:`History` (see
    :func:`bpeviz.engine.trainer.run_training`).

    Repeated special tokens count once; an empty one is dropped.
    """
    config = TrainingConfig(
        vocab_size, pretokenizer, tie_break, tuple(special_tokens), end_of_word, min_frequency
    )
    run = run_training(source, config, pattern=pattern, progress=progress, top_pairs=top_pairs)
    return History(run)
