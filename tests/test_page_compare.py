"""AppTest for the Compare page: counts, the token views' records (ids from the tokenizers,
text as text), the differing cuts, bad input."""

from __future__ import annotations

import pytest
from apptest_support import open_page, plain, token_views
from tekken_oracle import OFFERED as TEKKEN_OFFERED

from bpeviz.engine.config import MAX_VOCAB_SIZE
from bpeviz.records.schema import VOCAB_FIELDS, named

PAGE = "app_pages/compare.py"


def metrics(at) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for metric in at.metric:
        found.setdefault(metric.label, []).append(metric.value)
    return found


def span_views(at) -> list[dict]:
    """The records given to the two panes' token views, left then right."""
    views = token_views(at)
    return [views[key] for key in ("cmp_spans_left", "cmp_spans_right") if key in views]


def labels(view: dict) -> str:
    runs = (named(VOCAB_FIELDS, view["vocab"][str(token_id)])["label"] for token_id in view["ids"])
    return "".join(run if isinstance(run, str) else "".join(run) for run in runs)


def test_default_text_compares_both_tokenizers() -> None:
    at = open_page(PAGE)
    assert at.title[0].value == "Compare tokenizers"
    assert at.selectbox(key="cmp_left").value == "Trained here"
    assert at.selectbox(key="cmp_right").value == "cl100k_base"
    found = metrics(at)
    assert len(found["Tokens"]) == 2
    assert len(found["Bytes per token"]) == 2
    assert {"Cuts both make", "Only yours", "Only cl100k_base"} <= set(found)
    assert len(span_views(at)) == 2
    assert len(at.dataframe) == 1  # the table of differing cuts
    table = at.dataframe[0].value
    assert list(table.columns) == ["byte_offset", "only_in", "before", "after"]
    assert set(table["only_in"]) <= {"yours", "cl100k_base"}


def test_a_hand_checkable_text() -> None:
    """cl100k_base reads "the cat" as 2 tokens: "the" and " cat" (ids 1820, 8415)."""
    at = open_page(PAGE)
    at.text_area(key="compare_text").set_value("the cat").run()
    assert not at.exception
    assert metrics(at)["Tokens"][1] == "2"
    theirs = span_views(at)[1]
    assert theirs["ids"] == [1820, 8415] and theirs["unit"] == "rank"


def test_identical_cuts_say_so() -> None:
    at = open_page(PAGE)
    at.text_area(key="compare_text").set_value("a").run()
    assert not at.exception
    assert any("exactly the same places" in message.value for message in at.success)
    assert len(at.dataframe) == 0


def test_empty_text_shows_a_message() -> None:
    at = open_page(PAGE)
    at.text_area(key="compare_text").set_value("").run()
    assert not at.exception
    assert any("Type or paste some text" in info.value for info in at.info)
    assert span_views(at) == []


def test_token_text_is_given_as_text() -> None:
    """The records hold the markup as text (the browser sets it as text: tests/browser)."""
    text = '<script>alert("x")</script><b>bold</b>'
    at = open_page(PAGE)
    at.text_area(key="compare_text").set_value(text).run()
    assert not at.exception
    assert [labels(view) for view in span_views(at)] == [text, text]


def test_impossible_sidebar_settings_show_a_message() -> None:
    at = open_page(PAGE)
    at.number_input(key="vocab").set_value(MAX_VOCAB_SIZE + 1).run()
    assert not at.exception
    assert any("above the limit" in error.value for error in at.error)
    assert span_views(at) == []


def test_any_two_real_tokenizers_and_their_cuts() -> None:
    """cl100k_base against o200k_base: both sides' ids and the cuts come from tiktoken."""
    from tiktoken_oracle import tiktoken_encoding

    text = "CamelCase and 12345 in 東京"
    at = open_page(PAGE)
    at.selectbox(key="cmp_left").set_value("cl100k_base")
    at.selectbox(key="cmp_right").set_value("o200k_base")
    at.text_area(key="compare_text").set_value(text).run()
    assert not at.exception
    expected = [tiktoken_encoding(name).encode(text) for name in ("cl100k_base", "o200k_base")]
    found = metrics(at)
    assert found["Tokens"] == [str(len(expected[0])), str(len(expected[1]))]
    cuts = []
    for name, ids in zip(("cl100k_base", "o200k_base"), expected, strict=True):
        encoding = tiktoken_encoding(name)
        ends, offset = set(), 0
        for token in ids[:-1]:
            offset += len(encoding.decode_single_token_bytes(token))
            ends.add(offset)
        cuts.append(ends)
    assert found["Only cl100k_base"] == [str(len(cuts[0] - cuts[1]))]
    assert found["Only o200k_base"] == [str(len(cuts[1] - cuts[0]))]
    assert [view["ids"] for view in span_views(at)] == expected


def test_tekken_against_cl100k_compares_the_texts_own_tokens(unavailable) -> None:
    """Tekken's side is the text's ids from tiktoken on its file (no BOS: the caption says
    it is left out), so both sides tile the same bytes."""
    from tekken_oracle import recipe_ids
    from tiktoken_oracle import tiktoken_encoding

    if not TEKKEN_OFFERED:
        unavailable("the mistral-common wheel is not downloaded (make tekken)")
    text = "CamelCase and 12345 in 東京"
    at = open_page(PAGE)
    at.selectbox(key="cmp_left").set_value("tekken_240911")
    at.selectbox(key="cmp_right").set_value("cl100k_base")
    at.text_area(key="compare_text").set_value(text).run()
    assert not at.exception
    expected = [recipe_ids(text), tiktoken_encoding("cl100k_base").encode(text)]
    assert [view["ids"] for view in span_views(at)] == expected
    assert metrics(at)["Tokens"] == [str(len(expected[0])), str(len(expected[1]))]
    notes = [plain(caption.value) for caption in at.caption]
    assert any("the <s> Mistral puts before a prompt is left out" in note for note in notes)


def test_the_same_tokenizer_twice_asks_for_two() -> None:
    at = open_page(PAGE)
    at.selectbox(key="cmp_right").set_value("Trained here").run()
    assert not at.exception
    assert any("choose two different" in info.value for info in at.info)
    assert span_views(at) == []


def test_bad_training_settings_still_compare_the_real_ones() -> None:
    at = open_page(PAGE, vocab=str(MAX_VOCAB_SIZE + 1))
    assert not at.exception
    assert at.selectbox(key="cmp_left").options == [
        "cl100k_base",
        "o200k_base",
        "r50k_base",
        "p50k_base",
        *TEKKEN_OFFERED,
        "UTF-8 bytes",
    ]
    assert len(span_views(at)) == 2


def import_file(at, name: str, data: bytes):
    """Upload a model file on the Export / import page, then come back to Compare."""
    at.switch_page("app_pages/export.py").run()
    at.file_uploader(key="export_model_files").upload(name, data).run()
    assert not at.exception
    return at.switch_page(PAGE).run()


@pytest.mark.parametrize("kind", ["wordpiece", "unigram", "sentencepiece-bpe", "llama3-style"])
def test_an_imported_library_file_against_cl100k(kind: str) -> None:
    """A file only the tokenizers library encodes is offered too: its ids are the library's,
    cl100k_base's are tiktoken's, and its cuts are where the library's offsets end (an ASCII
    text with one token per offset range, so each end is one cut)."""
    from hf_files import KINDS
    from tiktoken_oracle import tiktoken_encoding
    from tokenizers import Tokenizer as Library

    document = KINDS[kind]().to_str()
    text = "The reprinters uncounted 1234 pairs!"
    at = import_file(open_page(PAGE), "tokenizer.json", document.encode())
    assert "tokenizer.json" in at.selectbox(key="cmp_left").options  # named by its file name
    at.selectbox(key="cmp_left").set_value("Imported")
    at.selectbox(key="cmp_right").set_value("cl100k_base")
    at.text_area(key="compare_text").set_value(text).run()
    assert not at.exception
    library = Library.from_str(document).encode(text)
    tiktoken_ids = tiktoken_encoding("cl100k_base").encode(text)
    assert [view["ids"] for view in span_views(at)] == [library.ids, tiktoken_ids]
    found = metrics(at)
    assert found["Tokens"] == [str(len(library.ids)), str(len(tiktoken_ids))]
    ordinary = [o for o, special in zip(library.offsets, library.special_tokens_mask, strict=True)
                if not special]  # fmt: skip
    assert len(set(ordinary)) == len(ordinary)  # one token per offset range
    ours = {end for _, end in library.offsets} - {0, len(text)}
    encoding = tiktoken_encoding("cl100k_base")
    theirs, offset = set(), 0
    for token in tiktoken_ids[:-1]:
        offset += len(encoding.decode_single_token_bytes(token))
        theirs.add(offset)
    assert found["Cuts both make"] == [str(len(ours & theirs))]
    assert found["Only imported"] == [str(len(ours - theirs))]
    assert found["Only cl100k_base"] == [str(len(theirs - ours))]
    assert any("Hugging Face tokenizers" in caption.value for caption in at.caption)
