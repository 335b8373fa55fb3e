"""The training algorithms a run can use: one registry read by the CLI (and later the app).

``bpe`` merges the most frequent pair (``bpeviz/engine/trainer.py``); ``wordpiece`` merges the pair
with the best score, count(ab) / (count(a) x count(b)), or by frequency as the ``tokenizers``
library does (``bpeviz/engine/wordpiece.py``); ``unigram`` starts from every substring and prunes
the tokens whose removal raises the loss least (``bpeviz/engine/unigram.py``). Each lists the
pre-tokenizers it can run after: BPE is byte-level and takes every one; WordPiece and Unigram
work on characters and need words (Unigram's are SentencePiece's: whitespace, ``▁`` in front).
"""

from __future__ import annotations

from dataclasses import dataclass

from bpeviz.engine.pretokenize import PRETOKENIZERS


@dataclass(frozen=True, slots=True)
class Algorithm:
    """One training algorithm: its name, how a sentence writes it, one line on what it merges,
    and its pre-tokenizers (for WordPiece and Unigram, the first is the one they start with)."""

    name: str
    title: str
    description: str
    pretokenizers: tuple[str, ...]


ALGORITHM_REGISTRY: dict[str, Algorithm] = {
    info.name: info
    for info in (
        Algorithm("bpe", "BPE", "byte-pair encoding: merge the most frequent pair", PRETOKENIZERS),
        Algorithm(
            "wordpiece",
            "WordPiece",
            "WordPiece: merge the pair with the best score, count(ab) / (count(a) x count(b))",
            ("words", "bert"),
        ),
        Algorithm(
            "unigram",
            "Unigram",
            "Unigram: start from every substring, prune the tokens the text needs least",
            ("words",),
        ),
    )
}
ALGORITHMS: tuple[str, ...] = tuple(ALGORITHM_REGISTRY)


def algorithm_problems(algorithm: str, pretokenizer: str) -> list[str]:
    """Why ``algorithm`` cannot run after ``pretokenizer``, in words that say how to fix it.

    >>> algorithm_problems("wordpiece", "gpt2")
    ["WordPiece needs words: use the pre-tokenizer 'words' or 'bert', not 'gpt2'."]
    """
    if algorithm not in ALGORITHM_REGISTRY:
        return [f"Unknown algorithm {algorithm!r}: choose one of {', '.join(ALGORITHMS)}."]
    info = ALGORITHM_REGISTRY[algorithm]
    if pretokenizer in info.pretokenizers:
        return []
    if algorithm == "bpe":
        return [
            f"BPE cannot use the pre-tokenizer {pretokenizer!r}: choose one of "
            f"{', '.join(info.pretokenizers)}."
        ]
    allowed = " or ".join(repr(name) for name in info.pretokenizers)
    return [f"{info.title} needs words: use the pre-tokenizer {allowed}, not {pretokenizer!r}."]
