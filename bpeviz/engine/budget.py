"""What one training run may cost a shared server, said before it starts.

The trainer's memory grows with the symbols it trains on (each distinct piece once: the
whole text in ``bytes`` mode), and its work with them and the merges it makes, so the budget
is on the symbols, at most ``symbols``, and on their product with the merges,
``merge_symbols`` (:data:`SERVER_BUDGET`). It is
checked on the text's corpus, before the first merge, against the merges the vocab size
asks for (no more than the text allows): a run past it is refused with one sentence that
says the most this server trains for this text, and how to get more.

One cost cannot be known before training: the new tokens themselves. Trained far, a small
text's tokens grow as long as the text (its last token is the whole text), and every
vocabulary, table and record that spells them out grows with their sum. So the trainer also
stops once its new tokens hold ``token_symbols`` symbols together, and says so as its stop
reason. Neither limit touches a class's usual runs: Tiny Shakespeare (1.1 MB, 110,918
symbols in ``gpt4`` mode) to vocab 4096 is 426 million merge-symbols, with 30 KB of tokens.

WordPiece trains as BPE does, on each distinct word's characters once, and is held to the
same :class:`Budget` (:func:`check_wordpiece_budget`); its new tokens are bounded before it
trains, as no token is longer than the longest word. Unigram's cost is its seed, every
substring of a word up to 16 characters, and each pass of its training steps through the
words one character at a time: :class:`UnigramBudget` bounds both (:func:`check_unigram_budget`).

The command line applies the same budgets unless told ``--no-budget`` (a big run on one's
own computer).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from bpeviz.engine.corpus import Corpus
from bpeviz.engine.readable import counted

NO_BUDGET_FLAG = "--no-budget"


@dataclass(frozen=True)
class Budget:
    """The most one run may cost: ``symbols`` trained on and ``merge_symbols`` (merges ×
    symbols), checked before training, and ``token_symbols`` (the new tokens' symbols
    together; training stops there)."""

    symbols: int
    merge_symbols: int
    token_symbols: int


# 2,000,000 symbols: a 2 MB paste in ``bytes`` mode, about 320 MB at the trainer's peak.
SERVER_BUDGET = Budget(symbols=2_000_000, merge_symbols=500_000_000, token_symbols=4_000_000)
# WordPiece trains on whole words' characters, not on pieces (Tiny Shakespeare: 181,971 of
# them, where BPE's ``gpt4`` pieces hold 110,918), so 3,996 merges to vocab 4096 are 727
# million merge-symbols.
SERVER_WORDPIECE_BUDGET = Budget(
    symbols=2_000_000, merge_symbols=800_000_000, token_symbols=4_000_000
)


class OverBudget(ValueError):
    """A run the budget refuses (a ``ValueError``: bad input, said in one sentence)."""


def trained_symbols(corpus: Corpus) -> int:
    """The symbols the trainer works on: each distinct piece once (the text in ``bytes``)."""
    return len(corpus.unique_symbols)


def most_vocab_size(corpus: Corpus, base: int, budget: Budget) -> int:
    """The largest vocab size ``budget`` trains on ``corpus`` (``base`` symbols + merges).

    >>> from bpeviz.engine.corpus import build_corpus
    >>> most_vocab_size(build_corpus("ab" * 500, "bytes"), 256, Budget(10**6, 10_000, 100))
    266
    """
    symbols = trained_symbols(corpus)
    return base + budget.merge_symbols // max(symbols, 1)


def check_budget(corpus: Corpus, base: int, vocab_size: int, useful: int, budget: Budget) -> None:
    """Raise :class:`OverBudget` when ``vocab_size`` costs more than ``budget`` on
    ``corpus``; ``useful`` is the vocab size past which the text allows no merge."""
    merges = max(min(vocab_size, useful) - base, 0)
    symbols = trained_symbols(corpus)
    if symbols > budget.symbols:
        raise OverBudget(
            f"this text is {counted(symbols, 'symbol')} to train on, and the training budget "
            f"is at most {budget.symbols:,} (each symbol takes the trainer a few hundred "
            "bytes): use a shorter text, a pre-tokenizer that trains on each distinct piece "
            f"once (gpt4), or train on your own computer with python -m bpeviz train FILE "
            f"{NO_BUDGET_FLAG}"
        )
    if merges * symbols <= budget.merge_symbols:
        return
    most = most_vocab_size(corpus, base, budget)
    raise OverBudget(
        f"vocab size {vocab_size:,} is past the training budget for this text: merges × the "
        f"{counted(symbols, 'symbol')} it trains on may reach {budget.merge_symbols:,}, so the "
        f"most is vocab size {most:,} (choose that or less, use a shorter text, or train on "
        f"your own computer with python -m bpeviz train FILE --vocab-size {vocab_size} "
        f"{NO_BUDGET_FLAG})"
    )


def token_stop_reason(merges: int, token_symbols: int) -> str:
    """The trainer's stop reason when the new tokens reached the budget's ``token_symbols``."""
    return (
        f"stopped after {counted(merges, 'merge')}: its new tokens hold "
        f"{counted(token_symbols, 'symbol')} together, the most this server keeps for one run "
        f"(their length grows with the text: a shorter text trains further, and so does "
        f"python -m bpeviz train {NO_BUDGET_FLAG})"
    )


def check_wordpiece_budget(
    words: Collection[str], first_size: int, vocab_size: int, budget: Budget
) -> None:
    """Raise :class:`OverBudget` when WordPiece to ``vocab_size`` on the distinct ``words``
    (starting from ``first_size`` tokens) costs more than ``budget``: its characters, merges
    × characters, and merges × the longest word (what the new tokens may hold together)."""
    symbols = sum(map(len, words))
    longest = max(map(len, words), default=0)
    merges = max(min(vocab_size - first_size, symbols - len(words)), 0)
    fix = f"python -m bpeviz train FILE --algorithm wordpiece --vocab-size {vocab_size} "
    if symbols > budget.symbols:
        raise OverBudget(
            f"this text's distinct words are {counted(symbols, 'character')} to train on, and "
            f"the training budget is at most {budget.symbols:,}: use a shorter text, or train "
            f"on your own computer with {fix}{NO_BUDGET_FLAG}"
        )
    most = min(budget.merge_symbols // max(symbols, 1), budget.token_symbols // max(longest, 1))
    if merges <= most:
        return
    raise OverBudget(
        f"vocab size {vocab_size:,} is past the training budget for this text: merges × the "
        f"{counted(symbols, 'character')} it trains on may reach {budget.merge_symbols:,}, "
        f"and merges × its longest word ({counted(longest, 'character')}, the longest a new "
        f"token can be) {budget.token_symbols:,}, so the most is vocab size "
        f"{first_size + most:,} (choose that or less, use a shorter text, or train on your "
        f"own computer with {fix}{NO_BUDGET_FLAG})"
    )


@dataclass(frozen=True)
class UnigramBudget:
    """The most one Unigram run may cost: ``substrings`` in its seed (every substring of a
    distinct word up to the longest piece, the lattices' edges, each held as a Python string
    and a few numbers) and ``word_chars`` in its longest word (each pass of EM and pruning
    steps through the words one character at a time, a few numpy calls a step)."""

    substrings: int
    word_chars: int


# Tiny Shakespeare's words hold 1,011,052 substrings of up to 16 characters (about 250 bytes
# each at training's peak), and 24 characters at most.
SERVER_UNIGRAM_BUDGET = UnigramBudget(substrings=1_500_000, word_chars=1_000)


def seed_substrings(length: int, max_piece_length: int) -> int:
    """How many substrings of at most ``max_piece_length`` a word of ``length`` holds.

    >>> seed_substrings(4, 16), seed_substrings(5, 2)
    (10, 9)
    """
    if length <= max_piece_length:
        return length * (length + 1) // 2
    return max_piece_length * length - max_piece_length * (max_piece_length - 1) // 2


def check_unigram_budget(
    words: Collection[str], max_piece_length: int, budget: UnigramBudget
) -> None:
    """Raise :class:`OverBudget` when Unigram on the distinct ``words`` costs more than
    ``budget`` (the vocab size changes little: a smaller one prunes a few rounds more)."""
    fix = "train on your own computer with python -m bpeviz train FILE --algorithm unigram "
    longest = max(map(len, words), default=0)
    if longest > budget.word_chars:
        raise OverBudget(
            f"this text's longest word is {counted(longest, 'character')}, and the Unigram "
            f"training budget is at most {budget.word_chars:,} (training steps through a word "
            f"one character at a time): put spaces in it, use a shorter text, or {fix}"
            f"{NO_BUDGET_FLAG}"
        )
    substrings = sum(seed_substrings(len(word), max_piece_length) for word in words)
    if substrings > budget.substrings:
        raise OverBudget(
            f"this text's distinct words hold {counted(substrings, 'substring')} of up to "
            f"{max_piece_length} characters to train on, and the Unigram training budget is "
            f"at most {budget.substrings:,}: use a shorter text, or {fix}{NO_BUDGET_FLAG}"
        )
