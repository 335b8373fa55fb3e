"""One training configuration and its one set of checks.

:class:`TrainingConfig` is the one type of training settings: the trainers take it, the app's
sidebar (``bpeviz/app/frame/run_settings.py``) and each run of the Two runs page are it, and
a bundled sample's suggested settings are one. Its :meth:`TrainingConfig.problems` are raised by
the trainer, shown by the sidebar and printed by the CLI, so a setting is judged the same way
(and in the same words) wherever it comes from.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bpeviz.engine.algorithms import ALGORITHM_REGISTRY, algorithm_problems
from bpeviz.engine.corpus import BYTE_COUNT, base_size
from bpeviz.engine.pretokenize import END_OF_WORD, PRETOKENIZERS
from bpeviz.engine.tie_rules import TIE_BREAKS
from bpeviz.engine.unigram import EM_ITERATIONS, MAX_PIECE_LENGTH, SEED_SIZE, SHRINKING_FACTOR
from bpeviz.engine.wordpiece import SCORE_RULES

MAX_VOCAB_SIZE = 1_000_000
# What a person training a tokenizer gets unless they choose: the app's sidebar and the CLI's
# ``train``. GPT-4's split keeps merges inside words and numbers, as real tokenizers do. The
# library's own train() and TrainingConfig keep "bytes", minbpe's BasicTokenizer: the algorithm
# as published, the whole text one sequence.
DEFAULT_PRETOKENIZER = "gpt4"
# Unigram's own settings, SentencePiece's defaults, and the bounds a run may take: a piece of
# up to 32 characters (the seed holds every substring that long: the budget weighs it), a
# round keeping 5 % to 95 % of its tokens (past 0.95, hundreds of rounds), 1 to 10 EM
# iterations a round.
UNIGRAM_DEFAULTS: dict[str, int | float] = {
    "max_piece_length": MAX_PIECE_LENGTH,
    "seed_size": SEED_SIZE,
    "shrinking_factor": SHRINKING_FACTOR,
    "em_iterations": EM_ITERATIONS,
}
MAX_PIECE_LENGTH_LIMIT = 32
MAX_SEED_SIZE = SEED_SIZE
SHRINKING_BOUNDS = (0.05, 0.95)
MAX_EM_ITERATIONS = 10


def unique_special_tokens(tokens: Iterable[str]) -> tuple[str, ...]:
    """Special tokens as training numbers them: a repeated one counts once (its first place),
    an empty one is dropped; so two spellings of the same settings are one cache key.

    >>> unique_special_tokens(["<|endoftext|>", "", "<|pad|>", "<|endoftext|>"])
    ('<|endoftext|>', '<|pad|>')
    """
    return tuple(dict.fromkeys(token for token in tokens if token))


@dataclass(frozen=True)
class TrainingConfig:
    """What training depends on besides the text (a frozen value: safe as a cache key).

    ``algorithm`` is one of :data:`bpeviz.engine.algorithms.ALGORITHMS`; ``score_rule`` is
    WordPiece's (``score`` or ``frequency``: ``bpeviz/engine/wordpiece.py``), kept but unused by
    the others. For BPE ``vocab_size`` counts the base symbols (256 bytes, plus ``</w>`` when
    ``end_of_word``) and the merges, special tokens after; for WordPiece it is the whole
    vocabulary (``[UNK]``, the characters, the merges). ``end_of_word`` and ``min_frequency``
    are BPE's.
    """

    vocab_size: int
    pretokenizer: str = "bytes"
    tie_break: str = "first"
    special_tokens: tuple[str, ...] = ()
    end_of_word: bool = False
    min_frequency: int = 1
    algorithm: str = "bpe"
    score_rule: str = "score"
    max_piece_length: int = MAX_PIECE_LENGTH
    seed_size: int = SEED_SIZE
    shrinking_factor: float = SHRINKING_FACTOR
    em_iterations: int = EM_ITERATIONS

    def __post_init__(self) -> None:
        object.__setattr__(self, "special_tokens", unique_special_tokens(self.special_tokens))

    @property
    def base_size(self) -> int:
        """Tokens before any merge: 256 bytes, plus ``</w>`` when the marker is on (BPE's)."""
        return base_size(self.end_of_word)

    @property
    def is_bpe(self) -> bool:
        return self.algorithm == "bpe"

    def summary(self) -> str:
        """One line for a caption or a heading.

        >>> TrainingConfig(512, "gpt4").summary()
        'vocab 512 · gpt4 · ties: first'
        >>> TrainingConfig(30, "words", algorithm="wordpiece").summary()
        'WordPiece by score · vocab 30 · words · ties: first'
        >>> TrainingConfig(30, "words", algorithm="unigram").summary()  # no tie rule to choose
        'Unigram · vocab 30 · words'
        """
        parts = [f"vocab {self.vocab_size:,}", self.pretokenizer]
        if self.algorithm != "unigram":
            parts.append(f"ties: {self.tie_break}")
        else:
            parts.extend(self._unigram_summary())
        if not self.is_bpe:
            rule = f" by {self.score_rule}" if self.algorithm == "wordpiece" else ""
            parts.insert(0, self.algorithm_title + rule)
        if self.end_of_word:
            parts.append(END_OF_WORD)
        if self.special_tokens:
            parts.append("specials: " + " ".join(self.special_tokens))
        return " · ".join(parts)

    def _unigram_summary(self) -> list[str]:
        """Unigram's settings that are not SentencePiece's, as the summary names them."""
        parts = []
        if self.max_piece_length != MAX_PIECE_LENGTH:
            parts.append(f"pieces ≤ {self.max_piece_length} characters")
        if self.seed_size != SEED_SIZE:
            parts.append(f"seed {self.seed_size:,}")
        if self.shrinking_factor != SHRINKING_FACTOR:
            parts.append(f"keeps {self.shrinking_factor:g} a round")
        if self.em_iterations != EM_ITERATIONS:
            parts.append(f"EM {self.em_iterations} a round")
        return parts

    def unigram_problems(self) -> list[str]:
        """What is wrong with Unigram's own settings, one sentence each (see the bounds above).

        >>> TrainingConfig(30, algorithm="unigram", em_iterations=0).unigram_problems()
        ['EM iterations a round must be a whole number from 1 to 10, got 0.']
        """
        found = []
        for value, what, most in (
            (self.max_piece_length, "The longest piece", MAX_PIECE_LENGTH_LIMIT),
            (self.seed_size, "The seed size", MAX_SEED_SIZE),
            (self.em_iterations, "EM iterations a round", MAX_EM_ITERATIONS),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
                found.append(f"{what} must be a whole number from 1 to {most:,}, got {value!r}.")
        low, high = SHRINKING_BOUNDS
        factor = self.shrinking_factor
        if (
            isinstance(factor, bool)
            or not isinstance(factor, int | float)
            or not (low <= factor <= high)
        ):
            found.append(
                "The shrinking factor (the share of tokens a round keeps) must lie between "
                f"{low} and {high}, got {factor!r}."
            )
        return found

    @property
    def algorithm_title(self) -> str:
        """The algorithm as a sentence writes it (``WordPiece``), or its name if unknown."""
        known = ALGORITHM_REGISTRY.get(self.algorithm)
        return known.title if known else self.algorithm

    def problems(self) -> list[str]:
        """Every reason these settings cannot train, each saying how to fix it (empty: fine).

        >>> TrainingConfig(300).problems()
        []
        >>> TrainingConfig(100, tie_break="random").problems()[1]
        "Unknown tie rule 'random': choose one of first, lexmin, lexmax."
        """
        found: list[str] = []
        size, base = self.vocab_size, self.base_size if self.is_bpe else 1
        if isinstance(size, bool) or not isinstance(size, int):
            found.append(f"Vocab size must be a whole number, got {size!r}.")
        elif size < base and not self.is_bpe:
            found.append(f"Vocab size must be at least 1, got {size:,}.")
        elif size < base:
            marker = " single bytes and the </w> marker" if self.end_of_word else " bytes"
            what = f"{BYTE_COUNT}{marker}"
            found.append(
                f"Vocab size {size:,} is too small, smaller than the {base} base symbols "
                f"({what}): use at least {base}, then each merge adds one token."
            )
        elif size > MAX_VOCAB_SIZE:
            found.append(
                f"Vocab size {size:,} is above the limit of {MAX_VOCAB_SIZE:,}. Choose a smaller "
                "size: training also stops by itself once no pair is left."
            )
        if not self.is_bpe:
            found.extend(algorithm_problems(self.algorithm, self.pretokenizer))
        elif self.pretokenizer not in PRETOKENIZERS:
            found.append(
                f"Unknown pre-tokenizer {self.pretokenizer!r}: "
                f"choose one of {', '.join(PRETOKENIZERS)}."
            )
        if self.tie_break not in TIE_BREAKS:
            found.append(
                f"Unknown tie rule {self.tie_break!r}: choose one of {', '.join(TIE_BREAKS)}."
            )
        if self.algorithm == "unigram":
            found.extend(self.unigram_problems())
        if self.algorithm == "wordpiece" and self.score_rule not in SCORE_RULES:
            found.append(
                f"Unknown WordPiece rule {self.score_rule!r}: choose one of "
                f"{', '.join(SCORE_RULES)}."
            )
        if self.end_of_word and not self.is_bpe:
            found.append("The </w> end-of-word marker is BPE's: turn it off for this algorithm.")
        elif self.end_of_word and self.pretokenizer != "words":
            found.append("The </w> end-of-word marker needs the 'words' pre-tokenizer.")
        if self.min_frequency < 1:
            found.append(f"Minimum frequency must be at least 1, got {self.min_frequency}.")
        return found
