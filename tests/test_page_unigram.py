"""Unigram in the app's page logic (AppTest): the Step page hands the browser a Unigram record
of the sidebar's run, the link's step is kept, a text Unigram cannot train on is one
sentence, the Export page offers the run's files, and every other page either works or says
in one sentence why not. What a person sees is in tests/browser/test_unigram_views.py."""

from __future__ import annotations

import json
from typing import Any

from apptest_support import new_app, open_page, plain, run, token_views
from streamlit.testing.v1 import AppTest

from bpeviz.app.frame.text_input import TrainingText
from bpeviz.app.frame.unigram_runs import UNIGRAM_MAX_CHARS, unigram_text

COURSE = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
LINK = {"src": "paste", "paste": COURSE, "algo": "unigram", "pretok": "words", "vocab": "12"}


def step_record(at: AppTest) -> dict[str, Any]:
    for node in at.main:
        if getattr(node, "type", None) != "bidi_component":
            continue
        proto = node.proto
        kind = proto.WhichOneof("data")
        data = json.loads(proto.mixed.json if kind == "mixed" else proto.json)
        if data.get("kind") == "step":
            return data
    raise AssertionError("no step view on the page")


def test_the_step_page_gives_the_browser_the_run_s_rounds() -> None:
    """The course's corpus at vocab 12: seed 31, then 23, 17, 12 (worked in the browser test)."""
    at = run(new_app(**LINK, step="2"))
    data = step_record(at)
    record = json.loads(data["payload"])
    assert record["algorithm"] == "unigram"
    assert [r["size"] for r in record["rounds"]] == [31, 23, 17, 12]
    assert data["start"]["step"] == 2
    assert not at.error


def test_a_text_unigram_cannot_train_on_is_one_sentence() -> None:
    too_long = TrainingText("book", "a" * (UNIGRAM_MAX_CHARS + 1), "paste")
    assert [m.text for m in unigram_text(too_long)[1]] == [
        f"Unigram trains on at most {UNIGRAM_MAX_CHARS:,} characters here, and this text has "
        f"{UNIGRAM_MAX_CHARS + 1:,}: paste or upload a shorter part of it."
    ]
    binary = TrainingText("data.bin", b"\xff\xfe", "upload")
    assert [m.text for m in unigram_text(binary)[1]] == [
        "Unigram trains on text, and this upload is not UTF-8 text: choose BPE, which trains "
        "on bytes, or upload a UTF-8 file."
    ]
    assert unigram_text(TrainingText("ok", "hug pug", "paste")) == ("hug pug", [])


def test_the_export_page_offers_the_unigram_files() -> None:
    at = open_page("app_pages/export.py", **LINK)
    labels = [button.proto.label for button in at.get("download_button")]
    assert "tokenizer.json" in labels
    assert "Download this run as an HTML page" in labels
    assert not at.error


def test_the_tokenize_page_cuts_a_text_with_the_unigram_run_as_sentencepiece_does() -> None:
    """The trained choice is the run's tokenizer.json, cut by the tokenizers library; the
    expected pieces come from SentencePiece holding the same pieces and scores (bytes for
    語, which no piece covers: <0xE8><0xAA><0x9E>)."""
    from test_unigram_sentencepiece import model_pb2_float, processor

    from bpeviz import UnigramModel
    from bpeviz.engine.unigram import split_words, train_unigram

    text = "hugs bun 語"
    at = open_page("app_pages/tokenize.py", **LINK, tok_text=text, tok_model="Trained here")
    assert not at.error
    views = token_views(at)
    record = views["tok_spans"]
    shown = [record["vocab"][str(i)][0] for i in record["ids"]]
    model = train_unigram(COURSE, 12).model()
    rounded = UnigramModel.from_log_probs(
        {piece: model_pb2_float(score) for piece, score in model.log_probs.items()}
    )
    reference = processor(rounded, byte_fallback=True)
    expected = [
        piece for word in split_words(text) for piece in reference.encode(word, out_type=str)
    ]
    labels = [
        f"<{piece[3:5]}>" if piece.startswith("<0x") else piece.replace("▁", "␣")
        for piece in expected
    ]
    assert [label if isinstance(label, str) else "".join(label) for label in shown] == labels


def test_the_compare_page_puts_the_unigram_run_beside_a_real_tokenizer() -> None:
    at = open_page(
        "app_pages/compare.py", **LINK, cmp_left="Trained here", cmp_right="cl100k_base",
        compare_text="hugs bun",
    )  # fmt: skip
    assert not at.error
    assert len(token_views(at)) == 2


def test_the_two_runs_page_takes_a_unigram_run() -> None:
    """Its own test is tests/test_page_two_runs.py (BPE against Unigram, worked by hand)."""
    at = open_page("app_pages/two_runs.py", **LINK, runs_b_algo="unigram", runs_b_vocab="12")
    cards = [e.value for e in at.get("html") if e.value.startswith('<div class="bpe-card">')]
    assert len(cards) == 1 and "B is Unigram, which does not merge" in cards[0]
    assert not at.error


def test_unigram_settings_from_the_link_train_the_run() -> None:
    """The course's corpus with pieces of at most 2 characters: the seed is the 8 characters
    (▁ h u g p n b s) and the 9 pairs inside ▁hug ▁pug ▁pun ▁bun ▁hugs (▁h hu ug ▁p pu un ▁b bu
    gs), 17 pieces; keeping 0.5 a round would leave floor(8.5) = 8, below the vocab size 12,
    so round 1 removes 5 and round 2 stops at 12."""
    at = run(new_app(**LINK, umaxlen="2", ushrink="0.5", uem="1"))
    record = json.loads(step_record(at)["payload"])
    assert [r["size"] for r in record["rounds"]] == [17, 12]
    assert at.sidebar.number_input(key="umaxlen").value == 2
    assert at.sidebar.number_input(key="ushrink").value == 0.5
    assert at.sidebar.number_input(key="uem").value == 1
    assert {key: at.query_params[key] for key in ("umaxlen", "ushrink", "uem")} == {
        "umaxlen": "2", "ushrink": "0.5", "uem": "1"
    }  # fmt: skip
    assert not at.error


def test_a_unigram_setting_out_of_bounds_in_a_link_is_one_sentence() -> None:
    at = run(new_app(**LINK, ushrink="2", uem="many"))
    assert [plain(w.value) for w in at.warning] == [
        "The link's ushrink='2' is ignored: the shrinking factor (the share of tokens a round "
        "keeps) must lie between 0.05 and 0.95, got 2.0.",
        "The link's uem='many' is not a whole number; ignored.",
    ]
    assert at.sidebar.number_input(key="ushrink").value == 0.75
    assert not at.error


def test_unigram_settings_show_for_unigram_only_and_reach_the_link() -> None:
    at = run(new_app(src="paste", paste=COURSE))
    assert not [w for w in at.sidebar.number_input if w.key in ("umaxlen", "uem")]
    at.sidebar.selectbox(key="algo").set_value("unigram")
    run(at)
    at.sidebar.number_input(key="uem").set_value(3)
    run(at)
    assert at.query_params["uem"] == "3"
    assert "umaxlen" not in at.query_params  # SentencePiece's 16: the default


def test_the_compression_page_measures_the_unigram_run_as_yours() -> None:
    at = open_page("app_pages/compression.py", **LINK)
    said = [plain(c.value) for c in at.caption]
    assert any(
        sentence.startswith("“yours” is the sidebar's tokenizer (Unigram · vocab 12")
        for sentence in said
    ), said
    assert not at.error


def test_the_tokenize_page_says_why_a_word_was_cut_so() -> None:
    """The Viterbi table of one word of the box: one row per character of ▁hugs (5), and the
    pieces read back from its last row are the tokens the tokenizers library gave the word."""
    at = open_page("app_pages/tokenize.py", **LINK, tok_text="hugs bun", tok_model="Trained here")
    assert at.selectbox(key="tok_ug_word").options == ["▁hugs", "▁bun"]
    frame = at.dataframe[0].value
    assert frame["prefix"].tolist() == ["▁", "▁h", "▁hu", "▁hug", "▁hugs"]
    pieces, end = [], len(frame)
    while end:
        row = frame.iloc[end - 1]
        pieces.insert(0, row["best last piece"])
        end = int(row["starts at"]) - 1
    record = token_views(at)["tok_spans"]
    library = [record["vocab"][str(i)][0] for i in record["ids"]]
    assert [piece.replace("▁", "␣") for piece in pieces] == library[: len(pieces)]
    sentence = next(m.value for m in at.markdown if "is cut as" in m.value)
    assert plain(sentence).startswith("“▁hugs” is cut as “")
    assert not at.error
