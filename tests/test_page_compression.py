"""AppTest for the Compression page (charts are checked in test_charts; here: it runs, and says)."""

from __future__ import annotations

import pytest
from apptest_support import open_page
from streamlit.testing.v1 import AppTest
from tekken_oracle import OFFERED as TEKKEN_OFFERED

from bpeviz.app.compression.curves import COST_COLUMN
from bpeviz.engine.config import MAX_VOCAB_SIZE

LANGUAGES = ("English", "Japanese")

PAGE = "app_pages/compression.py"


def numbers(at: AppTest) -> dict[str, str]:
    """The table "Bytes per token at vocab size N": ``{"cl100k_base on English": "4.34",
    "cl100k_base costs": "1.5×"...}``, empty cells left out."""
    tables = [table.value for table in at.table if "tokenizer" in table.value.columns]
    found: dict[str, str] = {}
    for table in tables[:1]:
        for _, row in table.iterrows():
            for column in table.columns[1:]:
                if row[column]:
                    key = "costs" if column == COST_COLUMN else f"on {column}"
                    found[f"{row['tokenizer']} {key}"] = row[column]
    return found


def metric_labels(at: AppTest) -> list[str]:
    return [key for key in numbers(at) if not key.endswith("costs")]


def test_page_shows_both_languages_and_every_real_tokenizer() -> None:
    at = open_page(PAGE)
    assert at.title[0].value == "Compression"
    assert at.markdown[0].value.count(".") <= 2  # the page opens with two sentences at most
    assert metric_labels(at) == [
        "trained on English on English",
        "trained on Japanese on Japanese",
        "cl100k_base on English",
        "cl100k_base on Japanese",
        "o200k_base on English",
        "o200k_base on Japanese",
        "r50k_base on English",
        "r50k_base on Japanese",
        "p50k_base on English",
        "p50k_base on Japanese",
        *(f"{name} on {language}" for name in TEKKEN_OFFERED for language in LANGUAGES),
    ]
    # Hand-checkable anchors: cl100k_base on the English sample is 5,034 bytes in 1,159 tokens.
    assert numbers(at)["cl100k_base on English"] == "4.34"
    assert len(at.get("vega_lite_chart")) == 1
    assert [button.label for button in at.get("download_button")] == ["Download the curves as CSV"]
    assert any("vocab size 512** (the grey line)" in m.value for m in at.markdown)


def test_real_tokenizers_numbers_and_language_cost_come_from_tiktoken() -> None:
    """Bytes per token and "per byte, Japanese takes N× as many tokens" for each real
    tokenizer, with token counts from tiktoken on the two bundled samples."""
    from tiktoken_oracle import tiktoken_encoding

    from bpeviz.engine.samples import get_sample

    at = open_page(PAGE)
    texts = {"English": get_sample("english").text, "Japanese": get_sample("japanese").text}
    values = numbers(at)
    for name in ("cl100k_base", "o200k_base", "r50k_base", "p50k_base"):
        ratio = {}
        for language, text in texts.items():
            tokens = len(tiktoken_encoding(name).encode(text, disallowed_special=()))
            ratio[language] = len(text.encode()) / tokens
            assert values[f"{name} on {language}"] == f"{ratio[language]:.2f}"
        assert values[f"{name} costs"] == f"{ratio['English'] / ratio['Japanese']:.1f}×"


def test_tekken_is_a_reference_line_with_the_recipes_counts(unavailable) -> None:
    """Tekken's bytes per token on each sample: its text's own tokens (no BOS), counted by
    tiktoken on the same file (tests/tekken_oracle.py)."""
    from tekken_oracle import recipe_ids

    from bpeviz.engine.samples import get_sample

    if not TEKKEN_OFFERED:
        unavailable("the mistral-common wheel is not downloaded (make tekken)")
    at = open_page(PAGE)
    values = numbers(at)
    for language in LANGUAGES:
        text = get_sample(language.lower()).text
        ratio = len(text.encode()) / len(recipe_ids(text))
        assert values[f"tekken_240911 on {language}"] == f"{ratio:.2f}"
    assert "tekken_240911 costs" in values


def test_the_marker_follows_the_sidebar_vocab_size() -> None:
    at = open_page(PAGE)
    at.number_input(key="vocab").set_value(300).run()
    assert not at.exception
    assert any("vocab size 300" in markdown.value for markdown in at.markdown)


def test_toggles_drop_the_reference_and_the_cross_measurements() -> None:
    at = open_page(PAGE)
    at.toggle(key="compression_real").set_value(False).run()
    assert not at.exception
    assert not any("_base" in label for label in metric_labels(at))
    assert not any(key.endswith("costs") for key in numbers(at))
    at.toggle(key="compression_cross").set_value(False).run()
    assert not at.exception
    assert len(at.get("vega_lite_chart")) == 1


def test_a_large_vocab_says_where_the_samples_run_out() -> None:
    at = open_page(PAGE)
    at.select_slider(key="compression_vocab").set_value(4096).run()
    assert not at.exception
    infos = [info.value for info in at.info]
    assert any("English sample ran out of pairs" in text for text in infos)
    assert any("Japanese sample ran out of pairs" in text for text in infos)


def test_bad_sidebar_settings_do_not_break_the_page() -> None:
    at = open_page(PAGE)
    at.number_input(key="vocab").set_value(MAX_VOCAB_SIZE + 1).run()
    assert not at.exception
    assert len(at.get("vega_lite_chart")) == 1
    assert any("above the 1,024 trained here" in caption.value for caption in at.caption)


def test_a_sidebar_vocab_above_the_trained_range_is_explained() -> None:
    at = open_page(PAGE)
    at.number_input(key="vocab").set_value(2000).run()
    assert not at.exception
    assert any("above the 1,024 trained here" in caption.value for caption in at.caption)


@pytest.mark.parametrize("kind", ["wordpiece", "unigram", "llama3-style", "byte-level"])
def test_an_imported_tokenizer_is_a_reference_line_too(kind: str) -> None:
    """A tokenizer.json imported on the Export / import page (one only the tokenizers library
    encodes, or a byte-level BPE bpeviz encodes itself) is measured on both samples; its token
    counts are the library's on the same file."""
    from hf_files import KINDS
    from tokenizers import Tokenizer as Library

    from bpeviz.engine.history import train
    from bpeviz.engine.samples import get_sample
    from bpeviz.formats.hf_json import to_hf_json

    if kind == "byte-level":
        document = to_hf_json(train(get_sample("english").text, 300, pretokenizer="gpt2").tokenizer)
    else:
        document = KINDS[kind]().to_str()
    at = open_page("app_pages/export.py")
    at.file_uploader(key="export_model_files").upload("tokenizer.json", document.encode()).run()
    at.switch_page(PAGE).run()
    assert not at.exception
    values = numbers(at)
    library = Library.from_str(document)
    ratio = {}
    for language, key in (("English", "english"), ("Japanese", "japanese")):
        text = get_sample(key).text
        ratio[language] = len(text.encode()) / len(library.encode(text).ids)
        assert values[f"imported on {language}"] == f"{ratio[language]:.2f}"
    assert values["imported costs"] == f"{ratio['English'] / ratio['Japanese']:.1f}×"
    assert "cl100k_base on English" in values


def test_the_sidebars_tokenizer_is_a_reference_line_when_no_curve_holds_it() -> None:
    """With the bytes pre-tokenizer the sidebar's run is none of this page's (gpt4) runs: it
    is measured on both samples. Counts: its export to tokenizer.json, encoded by tokenizers."""
    from tokenizers import Tokenizer as Library

    from bpeviz.engine.history import train
    from bpeviz.engine.samples import get_sample
    from bpeviz.formats.hf_json import to_hf_json

    at = open_page(PAGE, pretok="bytes", vocab="300")
    values = numbers(at)
    english = get_sample("english").text
    library = Library.from_str(to_hf_json(train(english, 300, pretokenizer="bytes").tokenizer))
    for language, key in (("English", "english"), ("Japanese", "japanese")):
        text = get_sample(key).text
        ratio = len(text.encode()) / len(library.encode(text).ids)
        assert values[f"yours on {language}"] == f"{ratio:.2f}"


def test_the_sidebars_tokenizer_on_a_curve_is_not_drawn_twice() -> None:
    """The default sidebar (the English sample, gpt4, first) is the English curve's point."""
    at = open_page(PAGE)
    assert not any(label.startswith("yours") for label in metric_labels(at))


def test_wordpiece_curves_beside_bpe_on_the_same_samples() -> None:
    """The "WordPiece curves" toggle adds a WordPiece run on each sample (BERT's pre-tokenizer,
    score rule) to the chart and the table. The English number at the marker (vocab 512) is the
    bytes of the sample over the tokens the ``tokenizers`` library's WordPiece cuts it into
    with the vocabulary of 512; the Japanese run's first vocabulary (each character, plain
    and with ``##``) is already larger than 512, so it has no number there."""
    from tokenizers import Tokenizer as LibraryWordPiece

    from bpeviz.engine.samples import get_sample
    from bpeviz.engine.wordpiece import train_wordpiece
    from bpeviz.formats.hf_wordpiece import to_hf_wordpiece_json

    at = open_page(PAGE)
    assert not any("WordPiece" in label for label in metric_labels(at))  # off by default
    at.toggle(key="compression_wordpiece").set_value(True).run()
    assert not at.exception
    text = get_sample("english").text
    library = LibraryWordPiece.from_str(
        to_hf_wordpiece_json(train_wordpiece(text, 512, pretokenizer="bert"))
    )
    tokens = len(library.encode(text, add_special_tokens=False).ids)
    values = numbers(at)
    assert values["English · WordPiece on English"] == f"{len(text.encode()) / tokens:.2f}"
    assert values["Japanese · WordPiece on Japanese"] == "–"
    spec = at.get("vega_lite_chart")[0].proto.spec
    assert "WordPiece, own text" in spec
    assert any("##" in caption.value for caption in at.caption)  # how its count differs


def test_a_second_visitor_finds_the_chart_and_numbers_without_hashing_a_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The chart and the numbers table are the same for every visitor on the same curves
    and references: they are kept, named by the page's settings and the sidebar's own
    tokenizer's few measured numbers, not found by hashing the curves' table (thousands of
    rows, on every run: about a fifth of each following student's run of the Compression
    slide, and a hundred students rerun it together)."""
    import pandas.util

    open_page(PAGE)
    hashed: list[int] = []
    real = pandas.util.hash_pandas_object
    monkeypatch.setattr(
        pandas.util,
        "hash_pandas_object",
        lambda obj, *a, **k: hashed.append(len(obj)) or real(obj, *a, **k),
    )
    second = open_page(PAGE)
    assert hashed == []
    assert numbers(second)["cl100k_base on English"] == "4.34"  # 5,034 bytes in 1,159 tokens
    assert len(second.get("vega_lite_chart")) == 1



def test_a_kept_chart_holds_its_data_as_arrow_already(monkeypatch: pytest.MonkeyPatch) -> None:
    """Streamlit converts a spec's datasets to Arrow on every run that draws it, unless they
    are Arrow already: the kept chart holds them so (each following student's run of the
    Compression slide converted the same 340 points again), and draws the same chart."""
    import streamlit as st

    first = open_page(PAGE).get("vega_lite_chart")[0].proto
    given: list[dict] = []
    real = st.vega_lite_chart
    monkeypatch.setattr(st, "vega_lite_chart", lambda **k: given.append(k["spec"]) or real(**k))
    second = open_page(PAGE).get("vega_lite_chart")[0].proto
    assert given and all(isinstance(data, bytes) for data in given[0]["datasets"].values())
    assert second.spec == first.spec and len(second.datasets) == len(first.datasets) > 0
    assert [d.data.data for d in second.datasets] == [d.data.data for d in first.datasets]
