"""AppTest for the Export / import page: download buttons, </w> models, uploads good and bad."""

from __future__ import annotations

import json
import re

import pytest
from apptest_support import downloaded, keep_downloads, open_page, token_views

from bpeviz.app.frame.state import KEY_IMPORTED
from bpeviz.app.step.view import step_page_for
from bpeviz.engine.config import MAX_VOCAB_SIZE
from bpeviz.engine.history import train
from bpeviz.engine.samples import get_sample
from bpeviz.formats.gpt2 import to_gpt2_files
from bpeviz.formats.minbpe import to_minbpe_model
from bpeviz.records.step import payload

PAGE = "app_pages/export.py"
DOWNLOADS = [
    ".model",
    ".vocab (for reading)",
    "vocab.json",
    "merges.txt",
    ".tiktoken",
    "tokenizer.json",
    "Download this run as an HTML page",
    "History CSV",
]


def plain(text: str) -> str:
    """A message as the reader sees it (``show_messages`` backslash-escapes Markdown)."""
    return re.sub(r"\\(.)", r"\1", text)


def download_labels(at) -> list[str]:
    return [button.label for button in at.get("download_button")]


def test_every_format_and_the_history_are_offered() -> None:
    at = open_page(PAGE)
    assert at.title[0].value == "Export / import"
    assert download_labels(at) == DOWNLOADS
    history = at.dataframe[0].value
    assert list(history.columns[:4]) == ["merge", "left_id", "right_id", "new_id"]
    assert len(history) == 256  # the English sample opens at vocab size 512


def test_end_of_word_models_explain_why_there_are_no_files() -> None:
    at = open_page(PAGE)
    at.selectbox(key="pretok").set_value("words").run()
    at.checkbox(key="eow").check().run()
    assert not at.exception
    assert download_labels(at) == ["Download this run as an HTML page", "History CSV"]
    warnings = [plain(warning.value) for warning in at.warning]
    assert len(warnings) == 4
    assert all("end-of-word marker" in text for text in warnings)


def test_uploading_a_model_shows_it_and_offers_it_to_the_tokenize_page() -> None:
    at = open_page(PAGE)
    model = to_minbpe_model(train("aaabdaaabac", 259).tokenizer).encode()
    at.file_uploader(key="export_model_files").upload("wiki.model", model).run()
    assert not at.exception
    assert any("Loaded wiki.model as a minbpe .model" in plain(s.value) for s in at.success)
    summary = at.dataframe[-2].value
    assert summary.values.tolist()[:3] == [
        ["kind", "minbpe .model"],
        ["vocab size", "259"],
        ["merges", "3"],
    ]
    first = at.dataframe[-1].value
    assert first["token"].tolist() == ["aa", "aaa", "aaab"]
    name, tokenizer = at.session_state[KEY_IMPORTED]
    assert name == "wiki.model"
    assert tokenizer.encode("aaabdaaabac") == [258, 100, 258, 97, 99]
    # The Tokenize page now offers it.
    at.switch_page("app_pages/tokenize.py").run()
    assert not at.exception
    assert "wiki\\.model" in at.radio(key="tok_model").options


def test_uploading_a_gpt2_pair() -> None:
    at = open_page(PAGE)
    vocab_json, merges_txt = to_gpt2_files(train("the cat sat", 260).tokenizer)
    uploader = at.file_uploader(key="export_model_files")
    uploader.set_value(
        [
            ("vocab.json", vocab_json.encode(), "application/json"),
            ("merges.txt", merges_txt.encode(), "text/plain"),
        ]
    ).run()
    assert not at.exception
    assert any("GPT-2 vocab.json + merges.txt" in s.value for s in at.success)


def test_a_malformed_model_names_the_line() -> None:
    at = open_page(PAGE)
    bad = b"minbpe v1\n\n0\n97 97\n97 oops\n"
    at.file_uploader(key="export_model_files").upload("bad.model", bad).run()
    assert not at.exception
    errors = [plain(error.value) for error in at.error]
    assert len(errors) == 1
    assert "line 5 of the .model file" in errors[0]
    assert KEY_IMPORTED not in at.session_state


def test_a_lone_vocab_json_asks_for_its_merges() -> None:
    at = open_page(PAGE)
    at.file_uploader(key="export_model_files").upload("vocab.json", b"{}").run()
    assert not at.exception
    assert any("half of a GPT-2 tokenizer" in plain(error.value) for error in at.error)


def test_impossible_sidebar_settings_still_allow_uploads() -> None:
    at = open_page(PAGE)
    at.number_input(key="vocab").set_value(MAX_VOCAB_SIZE + 1).run()
    assert not at.exception
    assert download_labels(at) == []
    assert [uploader.key for uploader in at.main.file_uploader] == ["export_model_files"]


def test_uploading_a_tokenizer_json_offers_it_to_tokenize_and_compare() -> None:
    """A file that Hugging Face tokenizers writes: the ids on both pages are its own."""
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import models, pre_tokenizers, trainers

    hf = HFTokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>"],
        show_progress=False,
    )
    hf.train_from_iterator(["the cat sat on the mat, the cat ate the rat"] * 20, trainer=trainer)
    at = open_page(PAGE)
    at.file_uploader(key="export_model_files").upload("tokenizer.json", hf.to_str().encode())
    at.run()
    assert not at.exception
    assert any("as a Hugging Face tokenizer.json" in plain(s.value) for s in at.success)
    text = "the cat<|endoftext|>"
    at.switch_page("app_pages/tokenize.py")
    at.query_params["tok_model"] = "Imported"
    at.run()
    at.radio(key="tok_model").set_value("Imported")
    at.segmented_control(key="tok_view").set_value("Token ids")
    at.text_area(key="tok_text").input(text).run()
    assert not at.exception
    views = token_views(at)
    assert views["tok_spans"]["ids"] == hf.encode(text).ids
    engine = [c.value for c in at.caption if c.value.startswith("Encoded by")]
    assert engine == ["Encoded by bpeviz: trace and build tree available."]
    assert at.selectbox(key="tok_word").value == "the"  # "why was this split" replays it
    assert "tok_trace_0" in views
    at.switch_page("app_pages/compare.py").run()
    at.selectbox(key="cmp_left").set_value("Imported")
    at.text_area(key="compare_text").input(text).run()
    assert not at.exception
    assert next(m.value for m in at.metric if m.label == "Tokens") == str(len(hf.encode(text).ids))


def test_a_wordpiece_file_goes_to_the_library_and_a_broken_one_gets_a_message() -> None:
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import models

    wordpiece = HFTokenizer(models.WordPiece({"[UNK]": 0, "a": 1}, unk_token="[UNK]")).to_str()
    at = open_page(PAGE)
    at.file_uploader(key="export_model_files").upload("tokenizer.json", wordpiece.encode()).run()
    assert not at.exception
    assert not at.error
    assert any("WordPiece model" in plain(info.value) for info in at.info)
    assert at.session_state[KEY_IMPORTED][1].encode("a") == [1]
    at.file_uploader(key="export_model_files").upload("tokenizer.json", b'{"model": [').run()
    assert not at.exception
    assert any("not valid JSON" in plain(error.value) for error in at.error)


def test_the_run_downloads_as_one_html_page() -> None:
    """The page carries the same record the Step page's view gets."""
    at = open_page(PAGE)
    assert "Download this run as an HTML page" in download_labels(at)
    sample = get_sample("english")
    history = train(sample.text, 512, pretokenizer=sample.settings.pretokenizer, top_pairs=12)
    page = step_page_for(history, name=sample.title, summary="s")
    record = json.loads(page.split('id="bpeviz-run">')[1].split("</script>")[0])
    assert record == payload(history)


def test_sessions_importing_the_same_file_share_one_copy_of_the_model() -> None:
    """Each import of a 9.9 MB tokenizer.json cost a session about 225 MB: a class importing
    the file the teacher handed out multiplied it. The same bytes now make one model."""
    model = to_minbpe_model(train("aaabdaaabac", 259).tokenizer).encode()
    imported = []
    for name in ("wiki.model", "copy-of-wiki.model"):
        at = open_page(PAGE)
        at.file_uploader(key="export_model_files").upload(name, model).run()
        assert not at.exception
        imported.append(at.session_state[KEY_IMPORTED])
    assert imported[0][1] is imported[1][1]
    assert [name for name, _ in imported] == [
        "wiki.model",
        "copy-of-wiki.model",
    ]


@pytest.mark.parametrize("kind", ["wordpiece", "unigram", "llama3-style"])
def test_a_tokenizer_json_our_reader_refuses_is_encoded_by_the_library(kind: str) -> None:
    """Uploaded, then on the Tokenize page: the ids are the tokenizers library's own, the page
    says which engine encoded them, and the outlined word starts follow ## / ▁ / Ġ."""
    from hf_files import KINDS
    from tokenizers import Tokenizer as Library

    document = KINDS[kind]().to_str()
    at = open_page(PAGE)
    at.file_uploader(key="export_model_files").upload("tokenizer.json", document.encode()).run()
    assert not at.exception
    assert any("encoded by Hugging Face tokenizers" in plain(s.value) for s in at.success)
    assert any("no merge trace" in plain(info.value) for info in at.info)
    at.switch_page("app_pages/tokenize.py").run()
    at.radio(key="tok_model").set_value("Imported").run()
    text = "The reprinters uncounted 1234 pairs! 駅前"
    at.text_area(key="tok_text").input(text).run()
    assert not at.exception
    assert any("Encoded by Hugging Face tokenizers" in plain(info.value) for info in at.info)
    assert not [c for c in at.caption if c.value.startswith("Encoded by bpeviz")]
    expected = Library.from_str(document).encode(text)
    record = token_views(at)["tok_spans"]
    assert record["ids"] == expected.ids
    assert at.metric[2].value == f"{len(expected.ids):,}"
    # A word starts at a special token, at a token without WordPiece's ##, with
    # SentencePiece's ▁, or (byte-level) at the text's first token and at a space (Ġ).
    starts = [
        index
        for index, (token, special) in enumerate(
            zip(expected.tokens, expected.special_tokens_mask, strict=True)
        )
        if special
        or {
            "wordpiece": not token.startswith("##"),
            "unigram": token.startswith("▁"),
            "llama3-style": token.startswith("Ġ") or index == 1,  # 0 is the BOS
        }[kind]
    ]
    assert record["pieces"] == starts


def test_the_html_page_is_named_by_its_merges(monkeypatch: pytest.MonkeyPatch) -> None:
    """Wikipedia's aaabdaaabac at vocab size 259: 259 - 256 bytes = 3 merges (Z, Y, X), so the
    page is named for 3 merges (it was "-259-steps": the vocab size read as a step count)."""
    served = keep_downloads(monkeypatch)
    at = open_page(PAGE, sample="aaabdaaabac", vocab="259")
    data, file_name = downloaded(at, "export_html_page", served)
    assert file_name == "bpeviz-aaabdaaabac-wikipedia-3-merges.html"
    assert data.lstrip().lower().startswith(b"<!doctype html")


def test_compare_it_and_tokenize_with_it_open_on_the_uploaded_file() -> None:
    """After an upload, the two buttons open their pages with it chosen (followed in a real
    browser in tests/browser/test_glance.py); the menus name it by its file name, and the
    link holds the option's key, which opens it whatever the file is called."""
    at = open_page(PAGE)
    model = to_minbpe_model(train("aaabdaaabac", 259).tokenizer).encode()
    at.file_uploader(key="export_model_files").upload("wiki.model", model).run()
    at.button(key="export_open_compare").click().run()
    assert not at.exception
    assert at.selectbox(key="cmp_left").value == "Imported"
    assert at.selectbox(key="cmp_right").value == "cl100k_base"
    assert at.selectbox(key="cmp_left").options[-1] == "wiki.model"  # a select box: plain text
    assert "Imported" not in at.selectbox(key="cmp_left").options
    assert at.query_params["cmp_left"] == "Imported"
    assert at.header[0].value == "wiki\\.model"  # the left pane's title
    assert not at.warning
    at.switch_page("app_pages/export.py").run()
    at.file_uploader(key="export_model_files").upload("wiki.model", model).run()
    at.button(key="export_open_tokenize").click().run()
    assert at.radio(key="tok_model").value == "Imported"
    assert at.radio(key="tok_model").options[-1] == "wiki\\.model"  # Markdown, made inert
    assert at.query_params["tok_model"] == "Imported"


def test_a_hostile_file_name_is_shown_as_its_characters_in_the_menus() -> None:
    """A radio's labels are Markdown: a file named like a link and emphasis is escaped there
    (every punctuation mark, a word joiner before the scheme's colon: inert.py); the select
    box shows plain text, only a right-to-left override made visible."""
    at = open_page(PAGE)
    model = to_minbpe_model(train("aaabdaaabac", 259).tokenizer).encode()
    name = "**b** [x](http://e.org)\u202e.model"
    at.file_uploader(key="export_model_files").upload(name, model).run()
    at.button(key="export_open_tokenize").click().run()
    assert not at.exception
    assert at.radio(key="tok_model").options[-1] == (
        "\\*\\*b\\*\\* \\[x\\]\\(http\u2060\\:\\/\\/e\\.org\\)\\\\u202e\\.model"
    )
    at.switch_page("app_pages/compare.py").run()
    at.selectbox(key="cmp_left").set_value("Imported").run()
    assert at.selectbox(key="cmp_left").options[-1] == "**b** [x](http://e.org)\\u202e.model"


def test_a_link_to_the_imported_file_opens_it_in_a_session_that_has_one() -> None:
    """The link's key, not the label: ?tok_model=Imported chooses the file imported, and the
    menu keeps the link's key when the person chooses another tokenizer."""
    at = open_page(PAGE)
    model = to_minbpe_model(train("aaabdaaabac", 259).tokenizer).encode()
    at.file_uploader(key="export_model_files").upload("wiki.model", model).run()
    at.switch_page("app_pages/tokenize.py")
    at.query_params["tok_model"] = "Imported"
    at.run()
    assert at.radio(key="tok_model").value == "Imported"
    at.radio(key="tok_model").set_value("o200k_base").run()
    assert at.query_params["tok_model"] == "o200k_base"
    at.radio(key="tok_model").set_value("Trained here").run()  # the default: no parameter
    assert "tok_model" not in at.query_params
