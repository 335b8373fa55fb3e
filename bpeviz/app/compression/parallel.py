"""One passage in English and in Japanese, token by token: what each language costs a
tokenizer on the same content.

The Compression page's curves measure two different texts, so their "N× more tokens" is per
byte of text. A parallel text (``sample_texts/parallel_en.txt`` and ``parallel_ja.txt``: one
passage and its translation) makes the plain comparison possible: the same thing said in
both languages, and the tokens each needs for the whole passage. What is left out: drawing
the table (the Compression page) and training (the caller passes tokenizers).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from bpeviz.engine.samples import get_sample
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats.hf_models import LibraryTokenizer

PASSAGE_SAMPLES: dict[str, str] = {"English": "parallel_en", "Japanese": "parallel_ja"}
COLUMNS: tuple[str, ...] = ("tokenizer", "English", "Japanese", "Japanese ÷ English")


@dataclass(frozen=True)
class Passage:
    """One language's passage, with its size in characters and UTF-8 bytes."""

    language: str
    text: str

    @property
    def characters(self) -> int:
        return len(self.text)

    @property
    def bytes(self) -> int:
        return len(self.text.encode("utf-8"))


def passages() -> tuple[Passage, ...]:
    """The bundled passage in each language, English first."""
    return tuple(Passage(lang, get_sample(key).text) for lang, key in PASSAGE_SAMPLES.items())


def passage_table(
    tokenizers: Mapping[str, Tokenizer | LibraryTokenizer], texts: tuple[Passage, ...]
) -> pd.DataFrame:
    """Tokens for the whole passage in each language, per tokenizer, and how many times more
    the second language needs than the first (the same content, so the ratio is per passage).
    A file the ``tokenizers`` library encodes counts the tokens its template adds, as the
    model is given them.
    """
    first, second = texts
    rows = []
    for name, tokenizer in tokenizers.items():
        counts = [len(tokenizer.encode(passage.text)) for passage in texts]
        rows.append((name, *counts, counts[1] / counts[0] if counts[0] else float("nan")))
    return pd.DataFrame(
        rows, columns=["tokenizer", first.language, second.language, COLUMNS[3]]
    ).astype({first.language: int, second.language: int})


def sizes_sentence(texts: tuple[Passage, ...]) -> str:
    """The passages' sizes, so that a reader sees what the token counts are counted on.

    >>> sizes_sentence((Passage("English", "a cat"), Passage("Japanese", "猫")))
    'The same passage: 5 characters (5 bytes) in English, 1 character (3 bytes) in Japanese.'
    """
    parts = [
        f"{p.characters:,} character{'s' * (p.characters != 1)} ({p.bytes:,} bytes) in {p.language}"
        for p in texts
    ]
    return f"The same passage: {', '.join(parts)}."


def cost_sentence(row: pd.Series) -> str:
    """One tokenizer's cost of the second language, for the whole passage, in words.

    >>> row = {"tokenizer": "t", "English": 100, "Japanese": 150, "Japanese ÷ English": 1.5}
    >>> print(cost_sentence(pd.Series(row)))  # doctest: +NORMALIZE_WHITESPACE
    t: the Japanese passage takes 1.5× as many tokens as the same passage in English
    (150 against 100).
    """
    first, second = COLUMNS[1], COLUMNS[2]
    return (
        f"{row['tokenizer']}: the {second} passage takes {row[COLUMNS[3]]:.1f}× as many tokens "
        f"as the same passage in {first} ({row[second]:,} against {row[first]:,})."
    )
