"""One training configuration and its one set of checks.

The trainer raises :meth:`TrainingConfig.problems`, the sidebar shows them and the CLI prints
them, so a setting is judged the same way (and in the same words) wherever it comes from.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bpeviz.engine.corpus import BYTE_COUNT, base_size
from bpeviz.engine.pretokenize import PRETOKENIZERS
from bpeviz.engine.tie_rules import TIE_BREAKS

MAX_VOCAB_SIZE = 1_000_000
# What a person training a tokenizer gets unless they choose: the app's sidebar and the CLI's
# ``train``. GPT-4's split keeps merges inside words and numbers, as real tokenizers do. The
# library's own train() and TrainingConfig keep "bytes", minbpe's BasicTokenizer: the algorithm
# as published, the whole text one sequence.
DEFAULT_PRETOKENIZER = "gpt4"


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

    ``vocab_size`` counts the base symbols (256 bytes, plus ``</w>`` when ``end_of_word``)
    and the merges; special tokens come after.
    """

    vocab_size: int
    pretokenizer: str = "bytes"
    tie_break: str = "first"
    special_tokens: tuple[str, ...] = ()
    end_of_word: bool = False
    min_frequency: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "special_tokens", unique_special_tokens(self.special_tokens))

    @property
    def base_size(self) -> int:
        """Tokens before any merge: 256 bytes, plus ``</w>`` when the marker is on."""
        return base_size(self.end_of_word)

    def problems(self) -> list[str]:
        """Every reason these settings cannot train, each saying how to fix it (empty: fine).

        >>> TrainingConfig(300).problems()
        []
        >>> TrainingConfig(100, tie_break="random").problems()[1]
        "Unknown tie rule 'random': choose one of first, lexmin, lexmax."
        """
        found: list[str] = []
        size, base = self.vocab_size, self.base_size
        if isinstance(size, bool) or not isinstance(size, int):
            found.append(f"Vocab size must be a whole number, got {size!r}.")
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
        if self.pretokenizer not in PRETOKENIZERS:
            found.append(
                f"Unknown pre-tokenizer {self.pretokenizer!r}: "
                f"choose one of {', '.join(PRETOKENIZERS)}."
            )
        if self.tie_break not in TIE_BREAKS:
            found.append(
                f"Unknown tie rule {self.tie_break!r}: choose one of {', '.join(TIE_BREAKS)}."
            )
        if self.end_of_word and self.pretokenizer != "words":
            found.append("The </w> end-of-word marker needs the 'words' pre-tokenizer.")
        if self.min_frequency < 1:
            found.append(f"Minimum frequency must be at least 1, got {self.min_frequency}.")
        return found
