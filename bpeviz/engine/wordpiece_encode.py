"""Encoding with a WordPiece vocabulary as BERT does: greedy longest match first, per word.

WordPiece keeps no merges, only a vocabulary, so encoding cannot replay training. At each
position of a word it takes the longest vocabulary entry that matches there (with ``##``
before it past the word's start), and moves on after it. If some position has no match at
all, the whole word becomes ``[UNK]``; so does a word longer than ``MAX_WORD_CHARS``
characters (the ``tokenizers`` library's default). Training's own cut of a word can differ:
``words_cut_differently`` lists where.

Special tokens (``[UNK]``) are found in the text first, anywhere, as the library's added
tokens are. Left out: normalizers (lower-casing, accents), which this vocabulary never had.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import regex

from bpeviz.engine.wordpiece import CONTINUATION, UNK, WordPieceRun, split_words

MAX_WORD_CHARS = 100


@dataclass(frozen=True, slots=True)
class Match:
    """At ``position`` (a character offset in the word), the longest entry that matched, as it
    stands in the vocabulary (``##`` included past the start); ``None`` when nothing did."""

    position: int
    token: str | None


@dataclass(frozen=True, slots=True)
class WordTrace:
    """How one word was encoded: each position's longest match, and the tokens that came out
    (``[UNK]`` alone when a position had no match or the word is too long)."""

    word: str
    matches: tuple[Match, ...]
    tokens: tuple[str, ...]
    unknown: bool


class WordPieceEncoder:
    """Greedy longest-match-first over a vocabulary (id order), words cut by ``pretokenizer``.

    >>> encoder = WordPieceEncoder(["[UNK]", "h", "u", "##u", "##g", "hug", "##s"])
    >>> encoder.tokens("hugs hu uh")
    ['hug', '##s', 'h', '##u', '[UNK]']
    >>> [match.token for match in encoder.trace_word("hugs").matches]
    ['hug', '##s']
    """

    def __init__(
        self,
        vocab: Sequence[str],
        *,
        pretokenizer: str = "words",
        unk_token: str = UNK,
        special_tokens: Sequence[str] = (UNK,),
    ) -> None:
        self.vocab = list(vocab)
        self.ids = {token: index for index, token in enumerate(self.vocab)}
        if unk_token not in self.ids:
            raise ValueError(f"the vocabulary has no {unk_token!r} token for unknown words")
        self.unk_token = unk_token
        self.pretokenizer = pretokenizer
        self.longest = max(map(len, self.vocab))
        specials = sorted({s for s in special_tokens if s in self.ids}, key=len, reverse=True)
        self._specials = (
            regex.compile("(" + "|".join(map(regex.escape, specials)) + ")") if specials else None
        )
        self._cache: dict[str, WordTrace] = {}

    @classmethod
    def from_run(cls, run: WordPieceRun) -> WordPieceEncoder:
        """The encoder for a trained run's vocabulary and pre-tokenizer."""
        return cls(run.vocab, pretokenizer=run.pretokenizer, special_tokens=run.special_tokens)

    def trace_word(self, word: str) -> WordTrace:
        """Encode one word, keeping the match found at each position."""
        cached = self._cache.get(word)
        if cached is not None:
            return cached
        ids, longest = self.ids, self.longest
        matches: list[Match] = []
        tokens: list[str] = []
        unknown = len(word) > MAX_WORD_CHARS
        start = 0
        while not unknown and start < len(word):
            prefix = CONTINUATION if start else ""
            end = min(len(word), start + longest - len(prefix))
            found = None
            while end > start:
                candidate = prefix + word[start:end]
                if candidate in ids:
                    found = candidate
                    break
                end -= 1
            matches.append(Match(start, found))
            if found is None:
                unknown = True
                break
            tokens.append(found)
            start = end
        trace = WordTrace(
            word, tuple(matches), (self.unk_token,) if unknown else tuple(tokens), unknown
        )
        if len(self._cache) < 100_000:
            self._cache[word] = trace
        return trace

    def tokens(self, text: str) -> list[str]:
        """The tokens of ``text``: special tokens where they stand, words greedily."""
        parts = self._specials.split(text) if self._specials else [text]
        out: list[str] = []
        for index, part in enumerate(parts):
            if index % 2:  # a special token, kept whole
                out.append(part)
                continue
            for word in split_words(part, self.pretokenizer):
                out.extend(self.trace_word(word).tokens)
        return out

    def encode(self, text: str) -> list[int]:
        """The ids of ``text``'s tokens."""
        ids = self.ids
        return [ids[token] for token in self.tokens(text)]


@dataclass(frozen=True, slots=True)
class CutDifference:
    """A word of the training text that encoding cuts differently from training."""

    word: str
    count: int
    trained: tuple[str, ...]
    encoded: tuple[str, ...]


def words_cut_differently(run: WordPieceRun) -> list[CutDifference]:
    """Every training word whose greedy encoding differs from how training left it, most
    frequent first (then in order of appearance).

    Training merged pairs by score, so ``hugs`` may end as ``h ##ugs`` while the longest
    match from the start takes ``hug`` first; a word may even become ``[UNK]``.
    """
    encoder = WordPieceEncoder.from_run(run)
    found = []
    for word, count, ids in zip(run.words, run.weights, run.segmentations, strict=True):
        trained = tuple(run.vocab[i] for i in ids)
        encoded = encoder.trace_word(word).tokens
        if encoded != trained:
            found.append(CutDifference(word, count, trained, encoded))
    found.sort(key=lambda difference: -difference.count)
    return found
