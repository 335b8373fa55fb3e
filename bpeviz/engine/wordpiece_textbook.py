"""The WordPiece training recipe: slow, short and obviously right. Read it before
``wordpiece.py``, which does the same work incrementally (the tests hold the two equal).

1. cut the text into words and count them; each word starts as ``h ##u ##g``;
2. count every token and every adjacent pair in every word, weighted by the word's count;
3. take the best pair: by score ``count(ab) / (count(a) x count(b))`` (exact fractions) or
   by count, ties broken by the tie rule (``first``: the pair seen first in the text);
4. replace it left to right in every word, the merged token keeping the right one's text
   without ``##``; add it to the vocabulary unless it is there already;
5. repeat until the vocabulary is full or no pair is left.

Everything that makes the fast trainer fast is left out: this recounts the whole text for
every merge. Only the pre-tokenizer and the first vocabulary come from ``wordpiece.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise

from bpeviz.engine.wordpiece import UNK, initial_vocab, merged_text, split_words, word_symbols

StringPair = tuple[str, str]


@dataclass(frozen=True)
class TextbookWordPieceStep:
    """One merge as the recipe saw it (``tied``: every pair that tied with it, rule order)."""

    pair: StringPair
    token: str
    count: int
    score: Fraction
    tied: tuple[StringPair, ...]
    most_frequent: tuple[StringPair, int] | None  # when the score rule picked a rarer pair


def pair_table(
    splits: dict[str, list[str]], word_counts: Counter[str]
) -> tuple[dict[StringPair, int], Counter[str]]:
    """Pair counts (in scan order: first seen first) and token counts of the words now.

    >>> pair_table({"hug": ["h", "##u", "##g"]}, Counter({"hug": 2}))
    ({('h', '##u'): 2, ('##u', '##g'): 2}, Counter({'h': 2, '##u': 2, '##g': 2}))
    """
    pairs: dict[StringPair, int] = {}
    tokens: Counter[str] = Counter()
    for word, split in splits.items():
        weight = word_counts[word]
        for token in split:
            tokens[token] += weight
        for pair in pairwise(split):
            pairs[pair] = pairs.get(pair, 0) + weight
    return pairs, tokens


def merge_word(split: list[str], pair: StringPair) -> list[str]:
    """Replace ``pair`` left to right, never overlapping.

    >>> merge_word(["h", "##u", "##g", "##u", "##g"], ("##u", "##g"))
    ['h', '##ug', '##ug']
    """
    out: list[str] = []
    i = 0
    while i < len(split):
        if i + 1 < len(split) and (split[i], split[i + 1]) == pair:
            out.append(merged_text(*pair))
            i += 2
        else:
            out.append(split[i])
            i += 1
    return out


def train(
    text: str,
    vocab_size: int,
    *,
    pretokenizer: str = "words",
    special_tokens: Sequence[str] = (UNK,),
    continuation_order: Sequence[str] | None = None,
    score_rule: str = "score",
    tie_break: str = "first",
    tables: list[list[tuple[StringPair, int]]] | None = None,
) -> tuple[list[str], list[TextbookWordPieceStep]]:
    """The vocabulary and the merges, recounting everything at every step. The settings are
    ``train_wordpiece``'s, in the order the recipe uses them: the words (1), the first
    vocabulary, then the rule and its ties (3). A ``tables`` list gets every pair and its
    count, best first, after each number of merges.

    >>> vocab, steps = train("hug " * 10 + "hugs " * 5, 11)
    >>> [(step.token, str(step.score), len(step.tied)) for step in steps]
    [('hu', '1/15', 3), ('hug', '1/15', 2), ('hugs', '1/15', 0)]
    """
    word_counts = Counter(split_words(text, pretokenizer))
    vocab = initial_vocab(word_counts, special_tokens, continuation_order)
    ids = {token: index for index, token in enumerate(vocab)}
    splits = {word: word_symbols(word) for word in word_counts}
    steps: list[TextbookWordPieceStep] = []

    def _by_rule(pairs_in_scan_order: list[StringPair]) -> list[StringPair]:
        """Equal pairs in the tie rule's order (``first``: as scanned)."""
        if tie_break == "lexmin":
            return sorted(pairs_in_scan_order, key=lambda pair: (ids[pair[0]], ids[pair[1]]))
        if tie_break == "lexmax":
            return sorted(pairs_in_scan_order, key=lambda pair: (-ids[pair[0]], -ids[pair[1]]))
        return pairs_in_scan_order

    while True:
        pairs, tokens = pair_table(splits, word_counts)
        if tables is not None:
            tables.append(_ranked(pairs, tokens, score_rule, tie_break, ids))
        if len(vocab) >= vocab_size or not pairs:
            break

        values = {
            pair: Fraction(count)
            if score_rule == "frequency"
            else Fraction(count, tokens[pair[0]] * tokens[pair[1]])
            for pair, count in pairs.items()
        }
        best_value = max(values.values())
        tied = [pair for pair, value in values.items() if value == best_value]  # scan order
        tied = _by_rule(tied)
        pair = tied[0]
        most_frequent = None
        if score_rule == "score":
            top_count = max(pairs.values())
            frequent = _by_rule([p for p, count in pairs.items() if count == top_count])
            if pairs[pair] != top_count:
                most_frequent = (frequent[0], top_count)
        token = merged_text(*pair)
        if token not in ids:
            ids[token] = len(vocab)
            vocab.append(token)
        splits = {word: merge_word(split, pair) for word, split in splits.items()}
        steps.append(
            TextbookWordPieceStep(
                pair=pair,
                token=token,
                count=pairs[pair],
                score=Fraction(pairs[pair], tokens[pair[0]] * tokens[pair[1]]),
                tied=tuple(tied) if len(tied) > 1 else (),
                most_frequent=most_frequent,
            )
        )
    return vocab, steps


def _ranked(
    pairs: dict[StringPair, int],
    tokens: Counter[str],
    score_rule: str,
    tie_break: str,
    ids: dict[str, int],
) -> list[tuple[StringPair, int]]:
    """Every pair and its count, best first: by value, then the tie rule (``sorted`` is
    stable, so ``first`` keeps the scan order among equals)."""

    def value(pair: StringPair) -> Fraction:
        if score_rule == "frequency":
            return Fraction(pairs[pair])
        return Fraction(pairs[pair], tokens[pair[0]] * tokens[pair[1]])

    def order(pair: StringPair) -> tuple[Fraction, int, int]:
        left, right = ids[pair[0]], ids[pair[1]]
        if tie_break == "lexmin":
            return -value(pair), left, right
        if tie_break == "lexmax":
            return -value(pair), -left, -right
        return -value(pair), 0, 0

    return [(pair, pairs[pair]) for pair in sorted(pairs, key=order)]
