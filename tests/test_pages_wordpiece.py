"""AppTest: every page that shows a trained tokenizer, with a WordPiece run in the sidebar.

The run is the Hugging Face course's corpus by score to vocab 15, worked by hand in
``tests/js/wordpiece.test.mjs``: its vocabulary is [UNK], b g h n p s u, ##g ##n ##s ##u, then
##gs, hu and hugs. Encoding by longest match, worked by hand from that vocabulary:
"hugs" is the token hugs; "bug" is b ##u ##g; "hugging" has an "i", in no token, so it is
[UNK]; "hug" is hu ##g ("hug" itself is no token). Tokenize and Compare use it; Compression
measures it as "yours"; Two runs and Export say what they do with it.
"""

from __future__ import annotations

from typing import Any

from apptest_support import new_app, plain, run, token_views

from bpeviz.records.schema import VOCAB_FIELDS, named

COURSE = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
LINK = {"algo": "wordpiece", "src": "paste", "paste": COURSE, "vocab": "15"}


def open_with_wordpiece(page: str, **params: str) -> Any:
    at = run(new_app(**LINK, **params))
    at.switch_page(f"app_pages/{page}.py")
    return run(at)


def drawn_tokens(record: dict[str, Any]) -> list[str]:
    """The labels a tokens record draws, in order."""
    entries = (named(VOCAB_FIELDS, record["vocab"][str(token_id)]) for token_id in record["ids"])
    return [entry["label"] for entry in entries]


def test_tokenize_encodes_by_longest_match_and_traces_a_word() -> None:
    at = open_with_wordpiece("tokenize", tok_text="hugs bug hugging")
    assert at.radio(key="tok_model").value == "Trained here"
    assert not at.error, [plain(e.value) for e in at.error]
    record = token_views(at)["tok_spans"]
    # the library's record labels ##u as u and outlines each word's start instead
    assert drawn_tokens(record) == ["hugs", "b", "u", "g", "[UNK]"]
    assert record["pieces"] == [0, 1, 4]
    assert any("longest vocabulary entry that matches" in plain(i.value) for i in at.info)
    assert at.selectbox(key="tok_wp_word").options == ["hugs", "bug", "hugging"]
    run(at.selectbox(key="tok_wp_word").set_value("hugging"))
    lines = [plain(markdown.value) for markdown in at.markdown]
    assert "**hugging** → [UNK]" in lines
    trace = [line for line in lines if line.startswith("- At character")]
    assert trace == [
        "- At character 1, “hugging” is left: the longest entry that matches is “hu”.",
        "- At character 3, “##gging” is left: the longest entry that matches is “##g”.",
        "- At character 4, “##ging” is left: the longest entry that matches is “##g”.",
        "- At character 5, “##ing” is left: no entry of the vocabulary matches, so the whole "
        "word is “[UNK]”.",
    ]
    captions = [plain(caption.value) for caption in at.caption]
    assert "Every word of the training text encodes as training left it." in captions


def test_compare_puts_the_wordpiece_run_beside_another_tokenizer() -> None:
    at = open_with_wordpiece("compare", cmp_left="Trained here", compare_text="hug bug")
    assert not at.error, [plain(e.value) for e in at.error]
    headers = [plain(header.value) for header in at.header]
    assert any(header.startswith("Yours: WordPiece by score · vocab 15") for header in headers)


def test_compression_measures_the_wordpiece_run_as_yours() -> None:
    at = open_with_wordpiece("compression")
    assert not at.error, [plain(e.value) for e in at.error]
    captions = " ".join(plain(caption.value) for caption in at.caption)
    assert "“yours” is the sidebar's tokenizer (WordPiece by score · vocab 15" in captions


def test_two_runs_opens_on_a_wordpiece_sidebar_and_no_longer_says_it_takes_bpe_only() -> None:
    """Two runs takes any algorithm now (each run its own): its old sentence is gone."""
    at = open_with_wordpiece("two_runs")
    assert not at.error, [plain(e.value) for e in at.error]
    assert not any("does not take WordPiece" in plain(info.value) for info in at.info)


def test_export_offers_the_wordpiece_tokenizer_json_and_the_page() -> None:
    at = open_with_wordpiece("export")
    assert not at.error, [plain(e.value) for e in at.error]
    labels = [button.label for button in at.get("download_button")]
    assert labels[:2] == ["tokenizer.json", "Download this run as an HTML page"]
