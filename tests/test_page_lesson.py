"""The lesson in the app (``bpeviz/app/lesson/view.py``) under AppTest: a link opens the
bundled lesson, Next and Previous apply each slide's view (page, sidebar, page settings), and
the link follows the slide."""

from __future__ import annotations

import json

import pytest
from apptest_support import downloaded, keep_downloads, new_app, plain, run
from streamlit.testing.v1 import AppTest

from bpeviz.app.lesson.slides import (
    PAGES,
    bundled_lessons,
    lesson_from_link,
    lesson_to_link,
    parse_lesson,
)

SLIDES = len(bundled_lessons()["bpe"].slides)  # "slide i of n" on the bar
PAGE_TITLES = {
    "step": "Step through training",
    "tokenize": "Tokenize text",
    "compression": "Compression",
    "compare": "Compare tokenizers",
    "runs": "Two training runs",
    "export": "Export / import",
    "about": "About bpeviz",
}


def page_title(at: AppTest) -> str:
    return at.title[0].value


def bar_text(at: AppTest) -> str:
    return next(m.value for m in at.markdown if " of " in m.value and "slide" in m.value)


def test_every_page_a_slide_may_name_has_a_title_here() -> None:
    assert set(PAGE_TITLES) == set(PAGES)


def test_a_link_opens_the_bundled_lesson_at_its_first_slide() -> None:
    at = run(new_app(lesson="bpe"))
    lesson = bundled_lessons()["bpe"]
    assert page_title(at) == "Tokenize text"
    assert f"slide 1 of {SLIDES}" in bar_text(at)
    assert at.query_params["lesson"] == "bpe" and at.query_params["slide"] == "1"
    assert at.radio(key="tok_model").value == "UTF-8 bytes"  # the bytes alone, no merge
    assert at.text_area(key="tok_text").value == lesson.slides[0].view["tok_text"]
    tokens = next(m for m in at.metric if m.label == "Tokens")
    assert tokens.value == str(len(lesson.slides[0].view["tok_text"].encode("utf-8")))
    assert at.button(key="lesson_previous").disabled
    notes = " ".join(m.value for m in at.markdown)
    # The speaker notes: a teacher's Markdown kept (lesson_markdown), only links escaped.
    assert "Before any tokenizer there are bytes." in notes


def test_next_and_previous_apply_each_slides_view() -> None:
    """Every slide of the bundled lesson, forward then one back: the page and every value the
    slide names reach the widgets (a value the slide leaves out takes its default)."""
    lesson = bundled_lessons()["bpe"]
    at = run(new_app(lesson="bpe"))
    for number, slide in enumerate(lesson.slides, start=1):
        assert page_title(at).startswith(PAGE_TITLES[slide.page]), number
        assert f"slide {number} of {len(lesson.slides)}" in bar_text(at)
        assert at.query_params["slide"] == str(number)
        for key, value in slide.view.items():
            if key in ("quiz", "pieces", "text_when"):
                continue  # the step view's, drawn in the browser (tests/browser/test_lesson.py)
            held = at.session_state[key]
            assert str(held) == str(value), (number, key, held, value)
        if slide.page == "step":
            assert at.query_params.get("step", "0") == str(slide.view.get("step", 0))
        if number < len(lesson.slides):
            at = run(at.button(key="lesson_next").click())
    assert at.button(key="lesson_next").disabled
    at = run(at.button(key="lesson_previous").click())
    assert f"slide {len(lesson.slides) - 1} of {len(lesson.slides)}" in bar_text(at)
    assert "Recap" in bar_text(at)


def step_start(at: AppTest) -> dict:
    """Where the page's step view starts (the data given to the browser's component)."""
    for node in at.main:
        if getattr(node, "type", None) == "bidi_component":
            proto = node.proto
            if proto.component_name != "bpeviz_step":
                continue
            kind = proto.WhichOneof("data")
            data = json.loads(proto.mixed.json if kind == "mixed" else proto.json)
            if data.get("kind") == "step":
                return data["start"]
    raise AssertionError("no step view on the page")


def test_the_quiz_and_pieces_slides_start_the_step_view_with_them() -> None:
    """The bundled lesson, read by hand: slide 8 ("Your turn") is the English sample at step 3
    with the quiz on; slide 9 ("Pieces") the same sample at step 100 with Show pieces on and
    no quiz (it does not name the quiz: off). Neither names text_when (After merge)."""
    at = run(new_app(lesson="bpe", slide="7"))
    at = run(at.button(key="lesson_next").click())
    assert f"slide 8 of {SLIDES}" in bar_text(at)
    assert step_start(at) == {"step": 3, "when": "after", "quiz": True, "pieces": False}
    assert at.query_params["quiz"] == "1" and "pieces" not in at.query_params
    assert "text_when" not in at.query_params
    at = run(at.button(key="lesson_next").click())
    assert f"slide 9 of {SLIDES}" in bar_text(at)
    assert step_start(at) == {"step": 100, "when": "after", "quiz": False, "pieces": True}
    assert at.query_params["pieces"] == "1" and "quiz" not in at.query_params
    at = run(at.button(key="lesson_previous").click())  # back: the quiz again, pieces off
    assert step_start(at) == {"step": 3, "when": "after", "quiz": True, "pieces": False}


def test_going_back_restores_what_the_later_slide_changed() -> None:
    """Slide 2 shows token ids; back on slide 1 the view is text again (its default)."""
    at = run(new_app(lesson="bpe"))
    at = run(at.button(key="lesson_next").click())
    assert at.session_state["tok_view"] == "Token ids"
    at = run(at.button(key="lesson_previous").click())
    assert at.session_state["tok_view"] == "Text"
    assert "tok_view" not in at.query_params


def test_a_link_to_a_slide_keeps_the_view_the_link_holds() -> None:
    """A reload (or a copied link) mid-lesson stays on that slide and keeps what the
    presenter changed there (here the step), rather than replaying the slide."""
    at = run(new_app(lesson="bpe", slide="6", sample="aaabdaaabac", step="3"))
    assert f"slide 6 of {SLIDES}" in bar_text(at)
    assert page_title(at) == "Step through training"
    assert at.session_state["step"] == 3


def test_an_unknown_lesson_in_the_link_is_said_and_ignored() -> None:
    at = run(new_app(lesson="nope"))
    assert any("lesson='nope' is not a bundled lesson (bpe)" in plain(w.value) for w in at.warning)
    assert not [m for m in at.markdown if "slide 1 of" in m.value]


def test_ending_the_lesson_removes_the_bar() -> None:
    at = run(new_app(lesson="bpe"))
    at = run(at.button(key="lesson_end").click())
    assert not [m for m in at.markdown if "slide 1 of" in m.value]
    assert "lesson" not in at.query_params and "slide" not in at.query_params


TEACHERS_LESSON = """title = "Ties in ten minutes"

[[slides]]
title = "Wikipedia's example"
page = "step"
view = { sample = "aaabdaaabac", step = 1 }

[[slides]]
title = "About"
page = "about"
"""


def test_a_link_holding_a_teachers_lesson_opens_it_and_keeps_it_from_slide_to_slide() -> None:
    at = run(new_app(lesson_file=lesson_to_link(parse_lesson(TEACHERS_LESSON))))
    assert "slide 1 of 2" in bar_text(at) and "Ties in ten minutes" in bar_text(at)
    assert page_title(at) == "Step through training"
    assert at.session_state["sample"] == "aaabdaaabac" and at.session_state["step"] == 1
    packed = at.query_params["lesson_file"]
    at = run(at.button(key="lesson_next").click())
    assert "slide 2 of 2" in bar_text(at)
    assert at.query_params["lesson_file"] == packed and at.query_params["slide"] == "2"
    assert parse_lesson(TEACHERS_LESSON) == lesson_from_link(packed)


def test_a_cut_lesson_link_is_said_and_nothing_else_changes() -> None:
    packed = lesson_to_link(parse_lesson(TEACHERS_LESSON))
    at = run(new_app(lesson_file=packed[:-8], sample="aaabdaaabac"))
    assert any("cut short or changed" in plain(w.value) for w in at.warning)
    assert not [m for m in at.markdown if "slide 1 of" in m.value]
    assert at.session_state["sample"] == "aaabdaaabac"  # the rest of the link still applies
    assert not at.exception


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> dict:
    return keep_downloads(monkeypatch)


def test_downloading_the_bundled_lesson_gives_a_file_that_reads_back_the_same(served) -> None:
    at = run(new_app(lesson="bpe"))
    at = run(at.button(key="lesson_next").click())  # mid-lesson: still the whole lesson
    data, file_name = downloaded(at, "lesson_download", served)
    assert file_name == "lesson.toml"
    lesson = parse_lesson(data)
    assert lesson == bundled_lessons()["bpe"]
    assert len(lesson.slides) == 20 and lesson.slides[7].view["quiz"] is True


def test_downloading_an_uploaded_lesson_gives_the_teachers_lesson_back(served) -> None:
    """The teacher's file, read by hand: "Ties in ten minutes", a Step slide of aaabdaaabac
    at step 1, then the About page."""
    at = run(new_app())
    uploader = at.sidebar.file_uploader(key="lesson_upload")
    at = run(uploader.upload("ties.toml", TEACHERS_LESSON.encode("utf-8")))
    assert "slide 1 of 2" in bar_text(at)
    data, file_name = downloaded(at, "lesson_download", served)
    assert file_name == "lesson.toml"
    lesson = parse_lesson(data)
    assert lesson.title == "Ties in ten minutes"
    assert [(slide.title, slide.page) for slide in lesson.slides] == [
        ("Wikipedia's example", "step"),
        ("About", "about"),
    ]
    assert lesson.slides[0].view == {"sample": "aaabdaaabac", "step": 1}
    assert lesson == parse_lesson(TEACHERS_LESSON)


def test_presentation_mode_stays_on_from_the_lessons_link_through_its_slides() -> None:
    """A slide's page is switched to before the sidebar draws the Presentation mode toggle
    (so that a class's bar never names a slide's run on the page before): the switch keeps
    the link's ``present``, which the toggle reads when it is first drawn."""
    at = run(new_app(lesson="bpe", present="true"))
    for slide in (1, 2, 3):  # Tokenize, Tokenize, then Step: a page switch
        assert at.query_params["slide"] == str(slide)
        assert at.toggle(key="present").value is True, slide
        at = run(at.button(key="lesson_next").click())
