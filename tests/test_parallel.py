"""The parallel passage (``sample_texts/parallel_*.txt``, ``bpeviz/app/compression/parallel.py``):
the same content in English and Japanese, and the tokens each costs. Real tokenizers' counts are
held to tiktoken's own encodings (``tiktoken_oracle``), not to ours."""

from __future__ import annotations

from pathlib import Path

import pytest
from apptest_support import open_page
from tiktoken_oracle import tiktoken_encoding

from bpeviz.app.compression.parallel import cost_sentence, passage_table, passages
from bpeviz.real.openai_ranks import REAL_ENCODING_NAMES, load_encoding


def test_the_passages_are_bundled_with_japanese_at_three_bytes_a_character() -> None:
    english, japanese = passages()
    assert (english.language, japanese.language) == ("English", "Japanese")
    assert english.bytes == english.characters  # plain ASCII
    # Every kana, kanji and Japanese punctuation mark is 3 bytes in UTF-8.
    assert japanese.bytes == 3 * japanese.characters


@pytest.mark.parametrize("name", REAL_ENCODING_NAMES)
def test_real_tokenizers_count_the_passage_as_tiktoken_does(name: str) -> None:
    texts = passages()
    table = passage_table({name: load_encoding(name)}, texts)
    expected = [len(tiktoken_encoding(name).encode(p.text)) for p in texts]
    row = table.iloc[0]
    assert [row["English"], row["Japanese"]] == expected
    assert row["Japanese ÷ English"] == pytest.approx(expected[1] / expected[0])
    assert f"({expected[1]:,} against {expected[0]:,})" in cost_sentence(row)


def test_the_compression_page_shows_the_passage_table_with_tiktokens_counts() -> None:
    at = open_page("app_pages/compression.py")
    texts = passages()
    table = next(
        frame.value for frame in at.dataframe if "Japanese ÷ English" in frame.value.columns
    )
    assert list(table["tokenizer"][:2]) == [
        "trained on English (vocab 1,024)",
        "trained on Japanese (vocab 1,024)",
    ]
    shown = dict(zip(table["tokenizer"], table["Japanese"], strict=True))
    sentences = " ".join(markdown.value for markdown in at.markdown)
    for name in REAL_ENCODING_NAMES:
        tokens = len(tiktoken_encoding(name).encode(texts[1].text))
        assert shown[name] == tokens
        assert f"{name}: the Japanese passage takes" in sentences
    assert "The same passage: 507 characters (507 bytes) in English, 202 characters" in sentences


def test_an_imported_wordpiece_file_costs_the_passage_what_the_library_counts() -> None:
    """A WordPiece tokenizer.json imported on the Export / import page (encoded by the
    tokenizers library) gets its own row: the library's own encode of the passage files,
    read here from ``sample_texts``, with the [CLS] and [SEP] its template adds."""
    from hf_files import wordpiece
    from tokenizers import Tokenizer as Library

    document = wordpiece().to_str()
    folder = Path(__file__).parents[1] / "sample_texts"
    expected = [
        len(Library.from_str(document).encode(path.read_text(encoding="utf-8")).ids)
        for path in (folder / "parallel_en.txt", folder / "parallel_ja.txt")
    ]
    at = open_page("app_pages/export.py")
    at.file_uploader(key="export_model_files").upload("tokenizer.json", document.encode()).run()
    at.switch_page("app_pages/compression.py").run()
    assert not at.exception
    table = next(
        frame.value for frame in at.dataframe if "Japanese ÷ English" in frame.value.columns
    )
    row = table[table["tokenizer"] == "imported"].iloc[0]
    assert [row["English"], row["Japanese"]] == expected
    sentences = " ".join(markdown.value for markdown in at.markdown)
    assert "imported: the Japanese passage takes" in sentences
