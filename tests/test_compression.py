"""Tests for bpeviz.app.compression.curves: bytes-per-token curves from one training run each."""

from __future__ import annotations

import io
import math

import pandas as pd
import pytest

from bpeviz.app.compression.curves import (
    CURVE_COLUMNS,
    OTHER,
    OWN,
    REFERENCE_COLUMNS,
    WORDPIECE,
    compression_curves,
    cross_curve,
    curves_csv,
    numbers_table,
    own_curve,
    ratio_at,
    reference_ratios,
    sampled_steps,
    wordpiece_curve,
    wordpiece_name,
)
from bpeviz.engine.history import bytes_per_token, train
from bpeviz.engine.samples import get_sample
from bpeviz.engine.tokenizer import Tokenizer


@pytest.fixture(scope="module")
def wikipedia():
    """``aaabdaaabac`` with three merges (rule ``first``): aa, aaa, aaab."""
    return train("aaabdaaabac", 259, tie_break="first")


def test_own_curve_matches_the_wikipedia_walkthrough(wikipedia) -> None:
    """Token counts 11, 9, 7, 5 after 0..3 merges: the Wikipedia walk-through's (and minbpe's)."""
    curve = own_curve(wikipedia, language="toy")
    assert list(curve.columns) == list(CURVE_COLUMNS)
    assert curve["tokens"].tolist() == [11, 9, 7, 5]
    assert curve["bytes_per_token"].tolist() == [11 / 11, 11 / 9, 11 / 7, 11 / 5]
    assert curve["vocab_size"].tolist() == [256, 257, 258, 259]
    assert curve["merges"].tolist() == [0, 1, 2, 3]
    assert set(curve["kind"]) == {OWN}
    assert set(curve["trained_on"]) == set(curve["measured_on"]) == {"toy"}


def test_own_curve_agrees_with_encoding_the_training_text() -> None:
    """The history's counts are what the tokenizer at step k really produces on that text."""
    text = get_sample("english").text[:1500]
    history = train(text, 256 + 120, pretokenizer="gpt4")
    curve = own_curve(history, language="en")
    for k in (0, 1, 7, 50, history.merge_count):
        assert curve["tokens"].iloc[k] == len(history.tokenizer_at(k).encode(text))


def test_cross_curve_by_hand(wikipedia) -> None:
    """Merges aa, aaa, aaab on ``aaaab``: 5 tokens, then aa|aa|b = 3, and no later merge applies."""
    curve = cross_curve(wikipedia, "aaaab", trained_on="toy", measured_on="other")
    assert curve["merges"].tolist() == [0, 1, 2, 3]
    assert curve["tokens"].tolist() == [5, 3, 3, 3]
    assert curve["bytes_per_token"].tolist() == [1.0, 5 / 3, 5 / 3, 5 / 3]
    assert set(curve["kind"]) == {OTHER}


def test_cross_curve_counts_utf8_bytes_not_characters(wikipedia) -> None:
    curve = cross_curve(wikipedia, "日本", trained_on="toy", measured_on="ja", steps=[0])
    assert curve["bytes"].tolist() == [6]
    assert curve["tokens"].tolist() == [6]


@pytest.mark.parametrize(
    ("merge_count", "points", "expected"),
    [
        (0, 20, [0]),
        (2, 20, [0, 1, 2]),
        (10, 4, [0, 3, 7, 10]),
        (19, 20, list(range(20))),
    ],
    ids=["no-merges", "fewer-than-points", "spread", "exactly-points"],
)
def test_sampled_steps(merge_count: int, points: int, expected: list[int]) -> None:
    assert sampled_steps(merge_count, points) == expected


def test_sampled_steps_on_a_long_run_is_about_the_asked_number() -> None:
    steps = sampled_steps(1460, 20)
    assert steps[0] == 0 and steps[-1] == 1460
    assert steps == sorted(set(steps))
    assert 16 <= len(steps) <= 24


@pytest.mark.parametrize(("merge_count", "points"), [(-1, 20), (10, 1)])
def test_sampled_steps_rejects_nonsense(merge_count: int, points: int) -> None:
    with pytest.raises(ValueError, match=r"must be|at least"):
        sampled_steps(merge_count, points)


def test_compression_curves_measure_every_tokenizer_on_every_text() -> None:
    histories = {"en": train("aaabdaaabac", 259), "ja": train("日本日本", 258)}
    data = compression_curves(histories, points=20)
    combos = set(zip(data["trained_on"], data["measured_on"], data["kind"], strict=True))
    assert combos == {
        ("en", "en", OWN),
        ("ja", "ja", OWN),
        ("en", "ja", OTHER),
        ("ja", "en", OTHER),
    }
    # The ja tokenizer (merges E6+97, then that+A5) measured on aaabdaaabac cannot merge anything.
    assert set(data[(data["trained_on"] == "ja") & (data["measured_on"] == "en")]["tokens"]) == {11}
    # The en tokenizer cannot merge Japanese bytes: 12 bytes, 12 tokens.
    assert set(data[(data["trained_on"] == "en") & (data["measured_on"] == "ja")]["tokens"]) == {12}


def test_compression_curves_without_cross_measurements() -> None:
    histories = {"en": train("aaabdaaabac", 259), "ja": train("日本日本", 258)}
    data = compression_curves(histories, cross=False)
    assert set(data["kind"]) == {OWN}
    assert len(data) == 4 + 3


def test_compression_curves_of_nothing_is_an_empty_table() -> None:
    data = compression_curves({})
    assert data.empty
    assert list(data.columns) == list(CURVE_COLUMNS)


def test_reference_ratios_use_utf8_bytes() -> None:
    table = reference_ratios(Tokenizer(), {"en": "abcd", "ja": "日本"}, name="bytes only")
    assert list(table.columns) == list(REFERENCE_COLUMNS)
    assert table["tokenizer"].tolist() == ["bytes only", "bytes only"]
    assert table["bytes"].tolist() == [4, 6]
    assert table["bytes_per_token"].tolist() == [1.0, 1.0]


def test_reference_ratios_treat_special_token_text_as_text() -> None:
    tokenizer = Tokenizer.from_merges([], special_tokens=["<|x|>"])
    table = reference_ratios(tokenizer, {"t": "<|x|>"})
    assert table["tokens"].tolist() == [5]


def test_bytes_per_token_of_an_empty_text_is_zero() -> None:
    assert bytes_per_token(0, 0) == 0.0
    assert bytes_per_token(11, 5) == 2.2


def test_ratio_at_takes_the_last_point_at_or_below(wikipedia) -> None:
    curves = own_curve(wikipedia, language="toy")
    assert ratio_at(curves, trained_on="toy", measured_on="toy", vocab_size=258) == 11 / 7
    assert ratio_at(curves, trained_on="toy", measured_on="toy", vocab_size=5000) == 11 / 5
    assert math.isnan(ratio_at(curves, trained_on="toy", measured_on="toy", vocab_size=100))
    assert math.isnan(ratio_at(curves, trained_on="x", measured_on="toy", vocab_size=300))


def test_curves_csv_has_the_curves_and_the_reference_rows(wikipedia) -> None:
    curves = own_curve(wikipedia, language="toy")
    references = reference_ratios(Tokenizer(), {"toy": "aaabdaaabac"}, name="bytes only")
    table = pd.read_csv(io.BytesIO(curves_csv(curves, references)))
    assert list(table.columns) == list(CURVE_COLUMNS)
    assert len(table) == 5
    assert table["tokens"].tolist() == [11, 9, 7, 5, 11]
    last = table.iloc[-1]
    assert (last["trained_on"], last["kind"]) == ("bytes only", "reference")
    assert pd.isna(last["vocab_size"])
    assert table["bytes_per_token"].iloc[3] == pytest.approx(2.2)


def test_curves_csv_without_references(wikipedia) -> None:
    text = curves_csv(own_curve(wikipedia, language="toy")).decode("utf-8")
    assert text.splitlines()[0] == ",".join(CURVE_COLUMNS)
    assert text.splitlines()[1] == "toy,toy,own text,256,0,11,11,1.0000"


def test_english_and_japanese_samples_behave_as_the_page_explains() -> None:
    """Japanese starts at 1 byte per token and ends far above English on its own text."""
    histories = {
        "English": train(get_sample("english").text, 512, pretokenizer="gpt4"),
        "Japanese": train(get_sample("japanese").text, 512, pretokenizer="gpt4"),
    }
    data = compression_curves(histories, points=8)
    own = data[data["kind"] == OWN]
    assert own.groupby("trained_on")["bytes_per_token"].first().tolist() == [1.0, 1.0]
    japanese = own[own["trained_on"] == "Japanese"]["bytes_per_token"].tolist()
    assert japanese == sorted(japanese)  # more merges never make the training text longer
    # The English tokenizer barely compresses Japanese (it learned no Japanese byte pairs).
    en_on_ja = data[(data["trained_on"] == "English") & (data["measured_on"] == "Japanese")]
    assert en_on_ja["bytes_per_token"].max() < 1.2


def test_the_numbers_table_says_the_language_cost_per_byte_and_as_many() -> None:
    """English at 4 bytes a token and Japanese at 2 (the docstring's table): the same bytes
    of UTF-8 text take twice as many tokens in Japanese. The lecturer's "1.5× more tokens,
    per byte" left open per byte of what, and whether "more" meant 1.5× or 2.5×."""
    references = pd.DataFrame(
        [("t", "English", 10, 40, 4.0), ("t", "Japanese", 20, 40, 2.0)],
        columns=list(REFERENCE_COLUMNS),
    )
    curves = pd.DataFrame(columns=list(CURVE_COLUMNS))
    table = numbers_table(curves, references, vocab_size=512)
    assert table.columns[-1] == "per byte of UTF-8, Japanese takes × as many tokens"
    assert table.values.tolist()[-1] == ["t", "4.00", "2.00", "2.0×"]


# The Hugging Face course's WordPiece corpus (LLM course, chapter 6): 149 bytes, 34 words.
COURSE = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5


def test_wordpiece_curve_by_hand() -> None:
    """Worked by hand. Bytes: 4×10 + 4×5 + 4×12 + 4×4 + 5×5 = 149 (the spaces count; they are
    no token). First vocabulary: [UNK], every character plain as the ``tokenizers`` library
    keeps them (b g h n p s u) and the ``##`` forms of those inside a word (##g ##n ##s ##u):
    1 + 7 + 4 = 12. Tokens before any merge:
    a character each, 3×(10+5+12+4) + 4×5 = 113. The score rule merges ##g+##s (in the 5 hugs:
    113 - 5 = 108), then h+##u (10 hug + 5 hugs: 93), then hu+##gs (5 hugs: 88); each adds
    a token (vocab 13, 14, 15)."""
    from bpeviz.engine.wordpiece import train_wordpiece
    from bpeviz.engine.wordpiece_history import WordPieceHistory

    curve = wordpiece_curve(WordPieceHistory(COURSE, train_wordpiece(COURSE, 15)), language="toy")
    assert curve["trained_on"].unique().tolist() == [wordpiece_name("toy")]
    assert curve["measured_on"].unique().tolist() == ["toy"]
    assert curve["kind"].unique().tolist() == [WORDPIECE]
    assert curve["vocab_size"].tolist() == [12, 13, 14, 15]
    assert curve["merges"].tolist() == [0, 1, 2, 3]
    assert curve["tokens"].tolist() == [113, 108, 93, 88]
    assert curve["bytes"].unique().tolist() == [149]
    assert curve["bytes_per_token"].iloc[0] == pytest.approx(149 / 113)


def test_wordpiece_curve_ends_at_the_tokenizers_librarys_count() -> None:
    """The last point's tokens are those the ``tokenizers`` library's WordPiece model (on the
    exported vocabulary) cuts the English sample into: the curve counts what encoding gives."""
    from tokenizers import Tokenizer as LibraryWordPiece

    from bpeviz.engine.wordpiece import train_wordpiece
    from bpeviz.engine.wordpiece_history import WordPieceHistory
    from bpeviz.formats.hf_wordpiece import to_hf_wordpiece_json

    text = get_sample("english").text
    run = train_wordpiece(text, 1024, pretokenizer="bert")
    curve = wordpiece_curve(WordPieceHistory(text, run), language="English")
    library = LibraryWordPiece.from_str(to_hf_wordpiece_json(run))
    expected = len(library.encode(text, add_special_tokens=False).ids)
    assert curve["tokens"].iloc[-1] == expected
    assert curve["vocab_size"].iloc[-1] == run.vocab_size


def test_numbers_table_has_a_row_per_wordpiece_curve() -> None:
    from bpeviz.engine.wordpiece import train_wordpiece
    from bpeviz.engine.wordpiece_history import WordPieceHistory

    bpe = compression_curves({"toy": train("aaab", 257)}, cross=False)
    history = WordPieceHistory(COURSE, train_wordpiece(COURSE, 15))
    wordpiece = wordpiece_curve(history, language="toy")
    table = numbers_table(pd.concat([bpe, wordpiece]), None, vocab_size=257, languages=("toy",))
    assert table.values.tolist() == [
        ["trained on toy", "1.33"],  # 4 bytes in 3 tokens
        [wordpiece_name("toy"), f"{149 / 88:.2f}"],  # its largest, vocab 15: 88 tokens
    ]
    # Below WordPiece's first vocabulary (12) it has no number: a dash, not nan.
    table = numbers_table(pd.concat([bpe, wordpiece]), None, vocab_size=11, languages=("toy",))
    assert table.values.tolist()[1] == [wordpiece_name("toy"), "–"]
