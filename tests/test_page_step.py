"""AppTest: the Step page hands the browser exactly what the engine recorded, and keeps the
step a student stopped at in the link and the downloads.

The view itself is drawn by ``bpeviz/web`` (its browser tests compare what it
draws with the engine at every step). Here: the record the page gives the component equals
:func:`bpeviz.records.step.payload` of a history trained in the test, the start step comes from
the link or the session, and the server's own parts follow. The autouse fixture
(``tests/conftest.py``'s fixture) clears caches around each test.
"""

from __future__ import annotations

import gc
import json
from typing import Any

import pytest
import streamlit as st
from apptest_support import new_app, plain, run
from sample_runs import sample_history
from streamlit.testing.v1 import AppTest

from bpeviz.app.frame import training
from bpeviz.app.shared.chart_clicks import KEY_UNDO, StepTarget, click_undo, step_settings
from bpeviz.engine.config import MAX_VOCAB_SIZE
from bpeviz.engine.history import History, train
from bpeviz.engine.samples import get_sample
from bpeviz.engine.wordpiece_history import WordPieceHistory
from bpeviz.records.step import TOP_PAIRS, payload


def view_data(at: AppTest) -> dict[str, Any]:
    """What the page gave the step view: ``{kind, key, payload (JSON text), start}``."""
    views = [node for node in at.main if getattr(node, "type", None) == "bidi_component"]
    assert len(views) == 1
    proto = views[0].proto
    assert proto.component_name == "bpeviz_step"
    kind = proto.WhichOneof("data")
    return json.loads(proto.mixed.json if kind == "mixed" else proto.json)


def downloads(at: AppTest) -> list[str]:
    return [button.label for button in at.get("download_button")]


@pytest.mark.parametrize("key", ["english", "japanese", "aaabdaaabac"])
def test_the_view_is_given_the_engines_record(key: str) -> None:
    at = run(new_app(sample=key))
    data = view_data(at)
    assert data["kind"] == "step"
    assert json.loads(data["payload"]) == payload(sample_history(key))
    assert data["start"] == {"step": 0, "when": "after", "quiz": False, "pieces": False}


def test_the_view_is_given_the_wikipedia_walk_through() -> None:
    """The aaabdaaabac sample (lexmin), as Wikipedia's "Byte pair encoding" article works it:
    aa -> Z (counted 4 times, overlaps included), ab -> Y (2), ZY -> X (2); the text goes
    from 11 bytes to ZabdZabac (9), ZYdZYac (7), XdXac (5)."""
    record = json.loads(view_data(run(new_app(sample="aaabdaaabac")))["payload"])
    assert record["symbols"] == list(b"aaabdaaabac")
    assert [merge[:4] for merge in record["merges"]] == [
        [ord("a"), ord("a"), 256, 4],
        [ord("a"), ord("b"), 257, 2],
        [256, 257, 258, 2],
    ]
    assert record["tokens"] == [11, 9, 7, 5]


def test_a_link_opens_at_its_step_before_or_after() -> None:
    """``text_when`` travels in the URL as the option text links have always used."""
    at = run(new_app(sample="aaabdaaabac", step="2", text_when="Before merge"))
    assert view_data(at)["start"] == {"step": 2, "when": "before", "quiz": False, "pieces": False}
    assert at.query_params["step"] == "2" and at.query_params["text_when"] == "Before merge"
    assert "Download merges 1–2 (CSV)" in downloads(at)


def test_a_step_past_the_end_is_kept_in_range() -> None:
    at = run(new_app(sample="aaabdaaabac", step="99"))
    assert view_data(at)["start"]["step"] == 3  # the sample's 3 merges (vocab 259)


def test_a_step_set_elsewhere_restarts_the_view_there() -> None:
    """The Compression chart's click sets the session's step: the view starts there, with the
    same record, and the downloads and the link follow."""
    at = run(new_app(sample="aaabdaaabac"))
    before = view_data(at)
    at.session_state["step"] = 3
    run(at)
    after = view_data(at)
    assert after["start"] == {"step": 3, "when": "after", "quiz": False, "pieces": False}
    assert after["key"] == before["key"]
    assert "Download merges 1–3 (CSV)" in downloads(at)
    assert at.query_params["step"] == "3"


def test_choosing_another_sample_starts_it_at_step_zero() -> None:
    at = run(new_app(step="3"))
    run(at.selectbox(key="sample").set_value("ties"))
    assert view_data(at)["start"]["step"] == 0
    assert json.loads(view_data(at)["payload"]) == payload(sample_history("ties"))


def test_the_downloads_name_the_step() -> None:
    """aaabdaaabac before merge 3 is Z Y d Z Y a c: 5 different pairs, ZY twice."""
    at = run(new_app(sample="aaabdaaabac", step="3"))
    assert downloads(at) == [
        "Download all 5 pairs before merge 3 (CSV)",
        "Download merges 1–3 (CSV)",
    ]


def test_presentation_mode_hides_the_downloads() -> None:
    at = run(new_app(present="true", step="3"))
    assert at.toggle(key="present").value is True
    assert not at.get("download_button")


def test_training_that_stops_early_says_how_far_it_got() -> None:
    at = run(new_app(src="paste", paste="abab abab"))
    info = " ".join(plain(i.value) for i in at.info)
    assert "Training stopped early" in info
    # gpt4 pieces "abab" and " abab": a+b (4 times), then ab+ab (2), then " "+abab (1); then
    # each piece is one token and no pair is left.
    assert json.loads(view_data(at)["payload"])["merge_count"] == 3


def test_a_text_with_nothing_to_merge_has_no_steps() -> None:
    at = run(new_app(src="paste", paste="a"))
    record = json.loads(view_data(at)["payload"])
    assert record["merge_count"] == 0
    assert record["start"] == [
        "The text is 1 byte: 1 token, one per byte.",
        "No pair of tokens occurs in this text, so there is nothing to merge.",
    ]
    assert len(at.warning) == 1 and not at.info


def test_bad_settings_stop_the_page_with_a_message() -> None:
    at = run(new_app(vocab=str(MAX_VOCAB_SIZE + 1)))
    assert any("above the limit" in plain(e.value) for e in at.error)
    assert not [node for node in at.main if getattr(node, "type", None) == "bidi_component"]


def test_a_long_text_draws_the_part_that_holds_the_merge() -> None:
    """A long paste (English, then Japanese): the view draws the part where the merge shown
    first applies (merge 1 joins two bytes of a Japanese character, so not the start), and a
    step set elsewhere (the chart's click) at a merge that part lacks moves it there."""
    text = get_sample("english").text * 3 + get_sample("japanese").text
    at = run(new_app(src="paste", paste="x"))
    run(at.text_area(key="paste").input(text))
    first = json.loads(view_data(at)["payload"])
    assert not first["window"]["whole"] and 1 in first["death"]
    history = train(text, 512, pretokenizer="gpt4", top_pairs=TOP_PAIRS)
    late = next(step.step for step in history.steps if step.step not in first["death"])
    at.session_state["step"] = late
    run(at)
    moved = json.loads(view_data(at)["payload"])
    assert moved["window"]["from"] != first["window"]["from"] and late in moved["death"]
    assert view_data(at)["start"]["step"] == late


def test_a_chart_click_says_what_it_changed_and_goes_back() -> None:
    """As the Compression chart's click does (app_pages/compression.py): the ties sample at
    step 2 becomes the English sample at vocab 768, gpt4, step 120. The Step page says so,
    and Go back puts the ties sample and step 2 back."""
    at = run(new_app(sample="ties", step="2"))
    changed = step_settings(
        StepTarget("english", 120), vocab_size=768, pretokenizer="gpt4", tie_break="first"
    )
    before = {key: at.session_state[key] for key in (*changed, "step")}
    at.session_state[KEY_UNDO] = click_undo(before, changed)
    for key, value in {**changed, "step": 120}.items():
        at.session_state[key] = value
    run(at)
    said = " ".join(info.value for info in at.info)
    assert "The chart click changed the sidebar: sample ties → english, vocab size" in said
    at.button(key="chart_click_undo").click()
    at.run(timeout=180)
    assert not at.exception
    assert at.session_state["sample"] == "ties" and at.session_state["step"] == 2
    assert at.session_state["pretok"] == before["pretok"]


@pytest.mark.parametrize("algorithm", ["bpe", "wordpiece"])
def test_an_open_sessions_downloads_keep_no_run_the_cache_let_go(
    algorithm: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 29: the runs of pasted texts are bounded in bytes (``training.RUN_BYTES``), but
    the CSV downloads, made when clicked, kept the session's run in their callables (which
    Streamlit keeps as long as the session): twenty open sessions at the budget held all
    twenty runs, 240 MB, after the cache had let them go. A download now names the run by
    its text and settings, and finds it (or trains it again) when clicked."""
    kept: list[Any] = []  # what Streamlit keeps of each download for an open session
    draw = st.download_button

    def keeping(label: str, data: Any, **options: Any) -> Any:
        kept.append(data)
        return draw(label, data, **options)

    monkeypatch.setattr(st, "download_button", keeping)
    text = "aaabdaaabac hug pug pun bun"
    link = {"src": "paste", "paste": text, "algo": algorithm, "pretok": "gpt2", "step": "2"}
    at = run(new_app(**link, vocab="260" if algorithm == "bpe" else "40"))
    assert len(downloads(at)) == 2
    made = [data() for data in kept]
    training._runs.clear()  # the cache lets every run go, as the next sessions' runs make it
    training.step_records.clear()
    gc.collect()
    runs = [obj for obj in gc.get_objects() if isinstance(obj, History | WordPieceHistory)]
    assert not [held for held in runs if text in str(held.text)]
    assert [data() for data in kept] == made  # clicked later: the same files
