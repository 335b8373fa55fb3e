"""A WordPiece run with its text, as the app and the step view read it: where each word's
boundaries vanish, step by step.

:class:`~bpeviz.engine.wordpiece.WordPieceRun` keeps each distinct word's cut after the last
step only. A view that shows the text at any step needs more: for each boundary between two
characters of a word, the merge that joined them (:meth:`WordPieceHistory.word_deaths`). It is
found by replaying the run's merges on the word, the earliest applicable merge first, as
training applied them (every occurrence of a pair, left to right); the replay ends where the
trainer ended (``tests/test_wordpiece_history.py`` holds the two equal).

Left out: training (``bpeviz/engine/wordpiece.py``) and encoding, which is not a replay of the
merges (``bpeviz/engine/wordpiece_encode.py``).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from itertools import pairwise

import numpy as np

from bpeviz.engine.pair_merge import SHIFT
from bpeviz.engine.tie_rules import tie_rule
from bpeviz.engine.wordpiece import CONTINUATION, WORD_PATTERNS, PairRow, WordPieceRun

NEVER = sys.maxsize  # the death of a word's first boundary: no merge joins two words
_STEP_BYTES = 400  # a WordPieceStep and its strings, roughly (memory_bytes)


@dataclass(frozen=True)
class WordPieceHistory:
    """A WordPiece run and the text it was trained on."""

    text: str
    run: WordPieceRun
    _deaths: dict[str, tuple[int, ...]] = field(default_factory=dict, compare=False, repr=False)

    @property
    def merge_count(self) -> int:
        return len(self.run.steps)

    @property
    def stop_reason(self) -> str:
        return self.run.stop_reason

    @property
    def vocab_size(self) -> int:
        return self.run.vocab_size

    @property
    def base(self) -> int:
        """Tokens before any merge: the special tokens, the characters and their ``##`` forms."""
        return self.run.initial_size

    def token_count(self, k: int) -> int:
        """Tokens in the whole text after ``k`` merges."""
        return self.run.steps[k - 1].tokens_after if k else self.run.tokens_before

    def vocab_size_at(self, k: int) -> int:
        """The vocabulary after ``k`` merges (a merge whose token existed adds nothing)."""
        return self.base + sum(not step.existed for step in self.run.steps[:k])

    @cached_property
    def _merges_of_pair(self) -> dict[tuple[int, int], list[int]]:
        steps_of: dict[tuple[int, int], list[int]] = defaultdict(list)
        for step in self.run.steps:
            steps_of[step.pair].append(step.step)
        return dict(steps_of)

    def initial_ids(self, word: str) -> list[int]:
        """A word's first symbols as vocabulary ids: ``hugs`` is ``h ##u ##g ##s``."""
        index = self._index
        return [index[word[0]], *(index[CONTINUATION + char] for char in word[1:])]

    @cached_property
    def _all_ids(self) -> dict[str, int]:
        return self.run.vocab_ids()

    @cached_property
    def _index(self) -> dict[str, int]:
        return {token: number for number, token in enumerate(self.run.vocab[: self.base])}

    def word_deaths(self, word: str) -> tuple[int, ...]:
        """Per character of ``word``, the merge that joined it to the one before (the first:
        :data:`NEVER`; one never joined: ``merge_count + 1``).

        >>> from bpeviz.engine.wordpiece import train_wordpiece
        >>> course = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
        >>> run = train_wordpiece(course, 15)
        >>> WordPieceHistory("", run).word_deaths("hugs")  # ##g+##s, then h+##u, then hu+##gs
        (9223372036854775807, 2, 3, 1)
        """
        held = self._deaths.get(word)
        if held is not None:
            return held
        steps, pairs = self.run.steps, self._merges_of_pair
        never_joined = len(steps) + 1
        tokens = list(zip(self.initial_ids(word), range(len(word)), strict=True))
        deaths = [NEVER, *([never_joined] * (len(word) - 1))]
        done = 0
        while len(tokens) > 1:
            following = [
                later
                for left, right in pairwise(tokens)
                for later in pairs.get((left[0], right[0]), ())
                if later > done
            ]
            if not following:
                break
            done = min(following)
            step = steps[done - 1]
            merged: list[tuple[int, int]] = []
            at = 0
            while at < len(tokens):
                if at + 1 < len(tokens) and (tokens[at][0], tokens[at + 1][0]) == step.pair:
                    deaths[tokens[at + 1][1]] = done
                    merged.append((step.new_id, tokens[at][1]))
                    at += 2
                else:
                    merged.append(tokens[at])
                    at += 1
            tokens = merged
        result = tuple(deaths)
        self._deaths[word] = result
        return result

    def cut(self, word: str, k: int) -> list[int]:
        """``word``'s tokens (ids) after ``k`` merges.

        >>> from bpeviz.engine.wordpiece import train_wordpiece
        >>> course = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
        >>> history = WordPieceHistory("", train_wordpiece(course, 15))
        >>> [history.run.vocab[token] for token in history.cut("hugs", 2)]
        ['hu', '##gs']
        """
        starts = [at for at, death in enumerate(self.word_deaths(word)) if death > k]
        ids = self._all_ids
        return [
            ids[word[start:end] if start == 0 else CONTINUATION + word[start:end]]
            for start, end in zip(starts, [*starts[1:], len(word)], strict=True)
        ]

    def pair_table(self, k: int) -> list[PairRow]:
        """Every pair after ``k`` merges, as the run's rule ranks them: by score (exact) or
        count, then the tie rule (``first``: the pair that occurs first in the text). What
        a download of the whole table holds; the run keeps only its head at each step."""
        run = self.run
        pairs: dict[tuple[int, int], int] = {}
        tokens: dict[int, int] = defaultdict(int)
        for word, weight in zip(run.words, run.weights, strict=True):  # first seen first
            cut = self.cut(word, k)
            for token in cut:
                tokens[token] += weight
            for pair in pairwise(cut):
                pairs[pair] = pairs.get(pair, 0) + weight
        rows = [
            PairRow(left, right, count, tokens[left], tokens[right])
            for (left, right), count in pairs.items()
        ]
        by_score = run.score_rule == "score"
        rule = tie_rule(run.tie_break)

        def order(row: PairRow) -> tuple[Fraction, int]:
            value = row.score if by_score else Fraction(row.count)
            if rule.by_position:
                return -value, 0
            key = row.left << SHIFT | row.right
            return -value, -key if rule.largest_ids else key

        return sorted(rows, key=order)

    @cached_property
    def text_deaths(self) -> tuple[np.ndarray, np.ndarray]:
        """The text's words as one row of characters, for a view that looks for a merge's
        places in a long text: the character where each word starts (plus the row's end), and
        per character the merge that joined it to the one before (0 at a word's start,
        ``merge_count + 1``: never).

        >>> from bpeviz.engine.wordpiece import train_wordpiece
        >>> course = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
        >>> starts, deaths = WordPieceHistory("hug hugs", train_wordpiece(course, 15)).text_deaths
        >>> starts.tolist(), deaths.tolist()  # h+##u is merge 2; ##g+##s 1, hu+##gs 3; 4: never
        ([0, 3, 7], [0, 2, 4, 0, 2, 3, 1])
        """
        never = self.merge_count + 1
        words = self.words()
        starts = np.zeros(len(words) + 1, dtype=np.int64)
        deaths: list[int] = []
        for index, (_, word) in enumerate(words):
            deaths.append(0)
            deaths.extend(min(died, never) for died in self.word_deaths(word)[1:])
            starts[index + 1] = len(deaths)
        return starts, np.array(deaths, dtype=np.int32)

    def words(self) -> list[tuple[int, str]]:
        """The text's words in order, each with the character offset where it starts."""
        pattern = WORD_PATTERNS[self.run.pretokenizer]
        return [(match.start(), match.group()) for match in pattern.finditer(self.text)]

    def memory_bytes(self) -> int:
        """Approximate size of what this history keeps (the server's caches are bounded in
        these bytes): the text, the words and their cuts, the steps and their pair tables."""
        run = self.run
        words = sum(len(word) + 60 for word in run.words) + 16 * len(run.words)
        cuts = sum(8 * len(cut) + 56 for cut in run.segmentations)
        tables = 48 * sum(len(table) for table in run.pair_tables)
        deaths = sum(8 * len(held) + 56 for held in self._deaths.values())
        vocab = sum(len(token) + 50 for token in run.vocab)
        steps = _STEP_BYTES * len(run.steps)
        if "text_deaths" in self.__dict__:  # a long text's step view made it
            deaths += sum(array.nbytes for array in self.text_deaths)
        return len(self.text) * 2 + words + cuts + tables + deaths + vocab + steps
