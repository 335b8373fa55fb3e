"""Compression curves: bytes per token against vocabulary size, from one training run each.

The merges of a run are a prefix of each other, so the tokenizer with vocabulary ``256 + k``
is just the first ``k`` merges. On the training text itself the token count after ``k`` merges
is already in the history (:meth:`History.token_count`), so a whole curve costs nothing. On
another text the tokenizer has to encode it, so that curve is measured at a sample of vocabulary
sizes (:func:`sampled_steps`) instead of at every one.

Everything here returns pandas DataFrames in "long" form (one row per point), which is what the
chart (:mod:`bpeviz.charts`), the table and the CSV download all use. What is left out: any
training. The caller passes finished histories (the app trains them once, cached).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

import pandas as pd

from bpeviz.app.frame.run_settings import Settings
from bpeviz.app.shared.csv_cells import csv_bytes
from bpeviz.engine.history import History, bytes_per_token
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.engine.wordpiece_history import WordPieceHistory
from bpeviz.formats.hf_models import LibraryTokenizer

CURVE_COLUMNS: tuple[str, ...] = (
    "trained_on",
    "measured_on",
    "kind",
    "vocab_size",
    "merges",
    "tokens",
    "bytes",
    "bytes_per_token",
)
# The vocab sizes the Compression page trains its two samples up to (a link and a lesson's
# ``compression_vocab`` hold one of them).
VOCAB_CHOICES: tuple[int, ...] = (512, 768, 1024, 1536, 2048, 3072, 4096)
# What the page trains, whatever the sidebar holds: the two bundled samples, by the language
# the chart names them with, under GPT-4's pre-tokenizer and the tie rule "first".
SAMPLES: dict[str, str] = {"English": "english", "Japanese": "japanese"}
PRETOKENIZER, TIE_BREAK = "gpt4", "first"
REFERENCE_COLUMNS: tuple[str, ...] = (
    "tokenizer",
    "measured_on",
    "tokens",
    "bytes",
    "bytes_per_token",
)
OWN = "own text"
OTHER = "other language"
WORDPIECE = "WordPiece, own text"  # a WordPiece run on the same sample, beside BPE's
REAL = "real (hover: its name)"  # a reference line: a real tokenizer, yours or one imported
DEFAULT_POINTS = 20


def sampled_steps(merge_count: int, points: int = DEFAULT_POINTS) -> list[int]:
    """About ``points`` merge counts spread evenly over ``0..merge_count``, both ends included.

    >>> sampled_steps(10, 4)
    [0, 3, 7, 10]
    >>> sampled_steps(2, 20)
    [0, 1, 2]
    """
    if merge_count < 0:
        raise ValueError(f"merge_count must be 0 or more, got {merge_count}")
    if points < 2:
        raise ValueError(f"a curve needs at least 2 points, got {points}")
    if merge_count + 1 <= points:
        return list(range(merge_count + 1))
    return sorted({round(i * merge_count / (points - 1)) for i in range(points)})


def own_curve(history: History, *, language: str) -> pd.DataFrame:
    """Bytes per token on the training text after every ``k`` merges, ``k = 0..merges``.

    No encoding happens: the token counts come from the history.

    >>> from bpeviz.engine.history import train
    >>> curve = own_curve(train("aaabdaaabac", 259), language="toy")
    >>> curve["tokens"].tolist()
    [11, 9, 7, 5]
    """
    byte_count = len(history.text)
    rows = []
    for k in range(history.merge_count + 1):
        tokens = history.token_count(k)
        rows.append(
            (language, language, OWN, history.base + k, k, tokens, byte_count,
             bytes_per_token(byte_count, tokens))
        )  # fmt: skip
    return pd.DataFrame(rows, columns=list(CURVE_COLUMNS))


def wordpiece_name(language: str) -> str:
    """What a WordPiece curve is called on the chart and in the table.

    >>> wordpiece_name("English")
    'English · WordPiece'
    """
    return f"{language} · WordPiece"


def wordpiece_curve(history: WordPieceHistory, *, language: str) -> pd.DataFrame:
    """Bytes per token of a WordPiece run on its training text after every ``k`` merges.

    As for BPE, no encoding happens: the history holds each step's token count, which is
    what encoding the text by longest match gives (``tests/test_compression.py`` holds the
    last point equal to the ``tokenizers`` library's count). The spaces between words count
    as bytes but are no token, and the vocab size is the run's (characters, their ``##``
    forms, ``[UNK]``), so the curve starts above 1 byte per token and right of 256.
    """
    byte_count = len(history.text.encode("utf-8", errors="surrogateescape"))
    name = wordpiece_name(language)
    rows = []
    size = history.base
    for k in range(history.merge_count + 1):
        if k:
            size += not history.run.steps[k - 1].existed
        tokens = history.token_count(k)
        rows.append(
            (name, language, WORDPIECE, size, k, tokens, byte_count,
             bytes_per_token(byte_count, tokens))
        )  # fmt: skip
    return pd.DataFrame(rows, columns=list(CURVE_COLUMNS))


def cross_curve(
    history: History,
    text: str | bytes,
    *,
    trained_on: str,
    measured_on: str,
    steps: list[int] | None = None,
) -> pd.DataFrame:
    """Bytes per token of ``text`` encoded by the tokenizer after ``k`` merges, for ``k`` in steps.

    ``steps`` defaults to :func:`sampled_steps` of the run (about 20 points): each point is one
    full encode of ``text``.
    """
    data = text.encode("utf-8", errors="surrogateescape") if isinstance(text, str) else text
    if steps is None:
        steps = sampled_steps(history.merge_count)
    rows = []
    for k in steps:
        tokens = len(history.tokenizer_at(k).encode(data))
        rows.append(
            (trained_on, measured_on, OTHER, history.base + k, k, tokens, len(data),
             bytes_per_token(len(data), tokens))
        )  # fmt: skip
    return pd.DataFrame(rows, columns=list(CURVE_COLUMNS))


def compression_curves(
    histories: Mapping[str, History], *, points: int = DEFAULT_POINTS, cross: bool = True
) -> pd.DataFrame:
    """Every tokenizer measured on every training text, one long table.

    ``histories`` maps a language name to the run trained on it. Each run gets its full curve
    on its own text and, with ``cross``, a sampled curve (``points`` encodes) on each other
    run's text.

    >>> from bpeviz.engine.history import train
    >>> data = compression_curves({"a": train("aaab", 257), "b": train("bbba", 257)})
    >>> data[["trained_on", "measured_on", "tokens"]].values.tolist()
    [['a', 'a', 4], ['a', 'a', 3], ['a', 'b', 4], ['a', 'b', 4], ['b', 'b', 4], ['b', 'b', 3], \
['b', 'a', 4], ['b', 'a', 4]]
    """
    frames = []
    for trained_on, history in histories.items():
        frames.append(own_curve(history, language=trained_on))
        steps = sampled_steps(history.merge_count, points)
        for measured_on, other in histories.items():
            if cross and measured_on != trained_on:
                frames.append(
                    cross_curve(
                        history, other.text, trained_on=trained_on, measured_on=measured_on,
                        steps=steps,
                    )
                )  # fmt: skip
    if not frames:
        return pd.DataFrame(columns=list(CURVE_COLUMNS))
    return pd.concat(frames, ignore_index=True)


CHART_POINTS = 150  # per own-text curve on the chart: every merge of a 4,096 run is too many


def chart_points(curves: pd.DataFrame, points: int = CHART_POINTS) -> pd.DataFrame:
    """The curves with each own-text curve thinned to about ``points`` merges, both ends kept
    (:func:`sampled_steps`): the browser draws and hit-tests every point, and a line through
    150 of them looks the same as through 3,840. The table and the CSV keep every merge.

    >>> from bpeviz.engine.history import train
    >>> full = compression_curves({"toy": train("aaabdaaabac", 259)}, cross=False)
    >>> chart_points(full, 3)["merges"].tolist()
    [0, 2, 3]
    """
    own = curves["kind"].isin([OWN, WORDPIECE])
    keep = pd.Series(~own, index=curves.index)
    for _, rows in curves[own].groupby("trained_on", sort=False):
        wanted = set(sampled_steps(int(rows["merges"].max()), points))
        keep |= curves.index.isin(rows.index[rows["merges"].isin(wanted)])
    return curves[keep].reset_index(drop=True)


def reference_ratios(
    tokenizer: Tokenizer | LibraryTokenizer,
    texts: Mapping[str, str | bytes],
    *,
    name: str = "cl100k_base",
) -> pd.DataFrame:
    """Bytes per token of a fixed tokenizer (e.g. ``cl100k_base``) on each named text.

    Text that spells a special token counts as text; a file the ``tokenizers`` library
    encodes counts the tokens its template adds too (it decides them, not the caller).

    >>> from bpeviz.engine.tokenizer import Tokenizer
    >>> reference_ratios(Tokenizer(), {"toy": "abcd"})["bytes_per_token"].tolist()
    [1.0]
    """
    rows = []
    for measured_on, text in texts.items():
        data = text.encode("utf-8", errors="surrogateescape") if isinstance(text, str) else text
        tokens = len(tokenizer.encode(data, allow_special=False))
        rows.append((name, measured_on, tokens, len(data), bytes_per_token(len(data), tokens)))
    return pd.DataFrame(rows, columns=list(REFERENCE_COLUMNS))


def references_for(
    tokenizers: Mapping[str, Tokenizer | LibraryTokenizer], texts: Mapping[str, str | bytes]
) -> pd.DataFrame:
    """:func:`reference_ratios` of several named tokenizers, one table (in the given order)."""
    frames = [
        reference_ratios(tokenizer, texts, name=name) for name, tokenizer in tokenizers.items()
    ]
    if not frames:
        return pd.DataFrame(columns=list(REFERENCE_COLUMNS))
    return pd.concat(frames, ignore_index=True)


def on_a_curve(
    settings: Settings, sample_keys: Collection[str], *, pretokenizer: str, tie_break: str,
    max_vocab: int,
) -> bool:
    """Whether the sidebar's tokenizer is already a point of this page's curves: one of their
    samples, trained with their settings, at a vocab size they reach. Otherwise the page
    measures it as a reference line of its own.

    >>> curves = {"sample_keys": ["english"], "pretokenizer": "gpt4", "tie_break": "first"}
    >>> on_a_curve(Settings(sample_key="english"), **curves, max_vocab=1024)
    True
    >>> on_a_curve(Settings(sample_key="english", pretokenizer="bytes"), **curves, max_vocab=1024)
    False
    """
    return (
        settings.is_bpe
        and settings.source == "sample"
        and settings.sample_key in sample_keys
        and (settings.pretokenizer, settings.tie_break) == (pretokenizer, tie_break)
        and not settings.special_tokens
        and not settings.end_of_word
        and settings.vocab_size <= max_vocab
    )


def language_costs(
    references: pd.DataFrame, *, base: str = "English", other: str = "Japanese"
) -> dict[str, float]:
    """Per reference tokenizer: how many times more tokens ``other`` needs than ``base`` for
    the same number of UTF-8 bytes (``base``'s bytes per token over ``other``'s).

    >>> table = pd.DataFrame(
    ...     [("t", "English", 10, 40, 4.0), ("t", "Japanese", 20, 40, 2.0)],
    ...     columns=list(REFERENCE_COLUMNS),
    ... )
    >>> language_costs(table)
    {'t': 2.0}
    """
    costs: dict[str, float] = {}
    for name, rows in references.groupby("tokenizer", sort=False):
        ratios = dict(zip(rows["measured_on"], rows["bytes_per_token"], strict=True))
        if base in ratios and other in ratios and ratios[other] > 0:
            costs[str(name)] = float(ratios[base]) / float(ratios[other])
    return costs


def ratio_at(curves: pd.DataFrame, *, trained_on: str, measured_on: str, vocab_size: int) -> float:
    """The bytes per token of one curve at the largest measured vocab size ``<= vocab_size``.

    Returns ``nan`` when the curve has no point that small (or does not exist).
    """
    rows = curves[
        (curves["trained_on"] == trained_on)
        & (curves["measured_on"] == measured_on)
        & (curves["vocab_size"] <= vocab_size)
    ]
    if rows.empty:
        return float("nan")
    return float(rows.sort_values("vocab_size")["bytes_per_token"].iloc[-1])


COST_COLUMN = "per byte of UTF-8, Japanese takes × as many tokens"


def numbers_table(
    curves: pd.DataFrame,
    references: pd.DataFrame | None,
    *,
    vocab_size: int,
    languages: Sequence[str] = ("English", "Japanese"),
) -> pd.DataFrame:
    """Bytes per token at ``vocab_size``, as text that fits any screen: a row per tokenizer,
    a column per text, and how many times as many tokens per byte the second text takes.

    A tokenizer trained here has its number on its own text only (its other-language curve
    is sampled, so it has no point at every vocab size). A table wraps where twelve metrics
    side by side were cut to ``2…`` at 1366 px.

    >>> from bpeviz.engine.history import train
    >>> curves = compression_curves({"toy": train("aaab", 257)}, cross=False)
    >>> numbers_table(curves, None, vocab_size=257, languages=("toy",)).values.tolist()
    [['trained on toy', '1.33']]
    """
    rows = []
    for name in languages:
        ratio = ratio_at(curves, trained_on=name, measured_on=name, vocab_size=vocab_size)
        rows.append({"tokenizer": f"trained on {name}", name: _cell(ratio)})
    for name in languages:
        wordpiece = wordpiece_name(name)
        if (curves["trained_on"] == wordpiece).any():
            ratio = ratio_at(curves, trained_on=wordpiece, measured_on=name, vocab_size=vocab_size)
            rows.append({"tokenizer": wordpiece, name: _cell(ratio)})
    if references is not None:
        costs = language_costs(references, base=languages[0], other=languages[-1])
        for name, table in references.groupby("tokenizer", sort=False):
            ratios = dict(zip(table["measured_on"], table["bytes_per_token"], strict=True))
            row = {"tokenizer": str(name)} | {
                language: f"{ratios[language]:.2f}" for language in languages if language in ratios
            }
            if name in costs and len(languages) > 1:
                row[COST_COLUMN] = f"{costs[str(name)]:.1f}×"
            rows.append(row)
    columns = ["tokenizer", *languages, *([COST_COLUMN] if len(languages) > 1 else [])]
    return pd.DataFrame([dict.fromkeys(columns, "") | row for row in rows], columns=columns)


def _cell(ratio: float) -> str:
    """A ratio as the table shows it; a dash where the curve has no point that small."""
    return "–" if math.isnan(ratio) else f"{ratio:.2f}"


def curves_csv(curves: pd.DataFrame, references: pd.DataFrame | None = None) -> bytes:
    """The curves (and reference rows, with ``kind`` = ``reference``) as UTF-8 CSV bytes."""
    table = curves.copy()
    if references is not None and not references.empty:
        extra = references.rename(columns={"tokenizer": "trained_on"}).assign(
            kind="reference", vocab_size=pd.NA, merges=pd.NA
        )
        table = pd.concat([table, extra[list(CURVE_COLUMNS)]], ignore_index=True)
    return csv_bytes(table, float_format="%.4f")
