"""Browser test: the presenter view (issue 28, item 2). The teacher's second window shows
the speaker notes, this and the next slide's titles and the slide's planned minutes, as the
bundled lesson file writes them, and its Next slide moves the class: a following student's
bar names the next slide. The projected window shows no notes during the class.
"""

from __future__ import annotations

import tomllib
from importlib.resources import files
from typing import Any

import pytest
from conftest import AppPage, keep_screenshot
from test_accessibility import AXE, assert_no_violations
from test_live_class import join, wait_connected

pytestmark = pytest.mark.browser

# The bundled lesson as written (the file, not the app's reading of it).
SLIDES = tomllib.loads(files("bpeviz.lessons").joinpath("bpe.toml").read_text("utf-8"))["slides"]


def words(text: str) -> str:
    return " ".join(text.split())


def test_the_presenter_window_shows_the_notes_and_drives_a_student(
    app: AppPage, new_page: Any, screenshots: Any
) -> None:
    app.page.set_viewport_size({"width": 1280, "height": 720})
    # the slide's link with the class started in the same load (a load of the slide first,
    # then of its link with ``class=new``, cost a page load more for the same page)
    app.goto(app.url_for("tokenize", present="true", lesson="bpe", slide=1, **SLIDES[0]["view"])
             + "&class=new")  # fmt: skip
    app.page.wait_for_selector(".bpe-class-teacher", timeout=30_000)
    code = app.page.evaluate("new URLSearchParams(location.search).get('class')")
    keep_screenshot(app.page, screenshots / "presenter_projector_before_join.png")
    student = new_page()
    student.page.set_viewport_size({"width": 390, "height": 844})  # a phone
    join(student, code)
    wait_connected(app, 1)
    # projected during a class: the notes are not on the screen, the presenter view is offered
    assert app.page.get_by_text("Speaker notes").count() == 0
    keep_screenshot(app.page, screenshots / "presenter_projector_slide1.png")
    student.wait_idle()
    keep_screenshot(student.page, screenshots / "presenter_phone_slide1.png")
    with app.page.expect_popup() as opened:
        app.page.get_by_role("link", name="Presenter view").click()
    presenter = AppPage(opened.value, app.base_url)
    presenter.page.wait_for_selector(".bpe-presenter-now:not(:empty)", timeout=30_000)
    first, second, third = SLIDES[0], SLIDES[1], SLIDES[2]
    now = presenter.page.locator(".bpe-presenter-now")
    assert now.inner_text() == f"Slide 1 of {len(SLIDES)}: {first['title']}"
    assert presenter.page.locator(".bpe-presenter-next").inner_text() == (
        f"Next: {second['title']}"
    )
    notes = presenter.page.locator(".bpe-presenter-notes")
    assert words(notes.inner_text()) == words(first["notes"])
    lesson_minutes = sum(slide.get("minutes", 0) for slide in SLIDES)
    clocks = presenter.page.locator(".bpe-presenter-clocks").inner_text()
    assert f"of {first['minutes']} minutes planned" in clocks, clocks
    assert f"of {lesson_minutes} minutes" in clocks, clocks
    keep_screenshot(presenter.page, screenshots / "presenter_slide1.png")

    presenter.page.get_by_role("button", name="Next slide →").click()
    student.page.wait_for_function(
        "(title) => (document.querySelector('.bpe-class-slide') || {}).textContent === title",
        arg=f"Slide 2 of {len(SLIDES)}: {second['title']}",
        timeout=30_000,
    )
    presenter.page.wait_for_function(
        "(title) => document.querySelector('.bpe-presenter-now').textContent === title",
        arg=f"Slide 2 of {len(SLIDES)}: {second['title']}",
    )
    assert words(notes.inner_text()) == words(second["notes"])
    assert presenter.page.locator(".bpe-presenter-next").inner_text() == f"Next: {third['title']}"
    keep_screenshot(presenter.page, screenshots / "presenter_slide2.png")
    keep_screenshot(app.page, screenshots / "presenter_projector_slide2.png")
    student.wait_idle()
    keep_screenshot(student.page, screenshots / "presenter_phone_slide2.png")

    presenter.page.keyboard.press("PageDown")  # a clicker, in the presenter's window
    student.page.wait_for_function(
        "(title) => (document.querySelector('.bpe-class-slide') || {}).textContent === title",
        arg=f"Slide 3 of {len(SLIDES)}: {third['title']}",
        timeout=30_000,
    )
    student.wait_idle()
    student.wait_view(third["view"]["step"])
    keep_screenshot(student.page, screenshots / "presenter_phone_slide3.png")
    for page in (app, presenter, student):
        page.assert_clean()


def test_a_presenter_window_in_another_browser_is_refused(app: AppPage, new_page: Any) -> None:
    """The link names only the class: a browser without the teacher's key gets a sentence,
    no notes, no controls."""
    app.goto(app.url_for("tokenize", lesson="bpe", slide=1) + "&class=new")
    app.page.wait_for_selector(".bpe-class-teacher", timeout=30_000)
    code = app.page.evaluate("new URLSearchParams(location.search).get('class')")
    stranger = new_page()
    stranger.page.goto(f"{stranger.base_url}/?presenter={code}")
    refusal = stranger.page.wait_for_selector(".bpe-presenter-refused", timeout=30_000)
    assert "not the teacher's" in refusal.inner_text()
    assert stranger.page.locator(".bpe-presenter-notes").count() == 0


def test_the_presenter_shows_the_spread_while_the_projector_shows_only_the_count(
    app: AppPage, new_page: Any, screenshots: Any, unavailable: Any
) -> None:
    """Slide 3 asks the class for the first merge of "the cat sat on the mat". A student
    answers; while the question is open the presenter's window shows how the class voted
    (that one answer on that pair, none on the others) and the projector only how many
    answered. The presenter's Reveal then shows everyone: the right pair is “a” + “t”
    (3 times, in cat, sat and mat: counted by hand), and the projector shows the spread."""
    if not AXE.exists():
        unavailable(f"{AXE} not found: run `npm ci` (make test does)")
    app.page.set_viewport_size({"width": 1280, "height": 720})
    quiz = next(number for number, s in enumerate(SLIDES, 1) if s["view"].get("quiz"))
    slide = SLIDES[quiz - 1]
    assert slide["view"]["sample"] == "cat_sat" and slide["view"]["step"] == 0
    app.goto(app.url_for("step", present="true", lesson="bpe", slide=quiz, **slide["view"])
             + "&class=new")  # fmt: skip
    app.page.wait_for_selector(".bpe-class-teacher", timeout=30_000)
    code = app.page.evaluate("new URLSearchParams(location.search).get('class')")
    student = new_page()
    student.page.set_viewport_size({"width": 390, "height": 844})
    join(student, code)
    wait_connected(app, 1)
    with app.page.expect_popup() as opened:
        app.page.get_by_role("link", name="Presenter view").click()
    presenter = AppPage(opened.value, app.base_url)
    presenter.page.set_viewport_size({"width": 1280, "height": 800})
    spread = presenter.page.locator(".bpe-presenter-spread li")
    spread.first.wait_for(timeout=30_000)
    assert spread.count() == 4

    chosen = student.page.locator(".bpe-class-quiz .bpe-choice[data-row='2']:not(:disabled)")
    pair = words(chosen.inner_text()).replace(" + ", " ")
    chosen.click()
    student.page.get_by_text("Your answer is in").wait_for()
    answered = "1 of 1 student answered"
    presenter.page.locator(".bpe-presenter-answered").filter(has_text=answered).wait_for()
    votes = {
        words(item.locator(".bpe-presenter-pair").inner_text()): item.locator(
            ".bpe-presenter-votes"
        ).inner_text()
        for item in spread.all()
    }
    assert sorted(votes.values()) == ["0 answers", "0 answers", "0 answers", "1 answer"], votes
    voted = next(label for label, count in votes.items() if count == "1 answer")
    assert voted.replace("“", "").replace("”", "").replace(" + ", " ") == pair, (voted, pair)
    app.page.locator(".bpe-class-tally").filter(has_text=answered).wait_for()
    assert app.page.locator(".bpe-class-quiz .bpe-choice-votes").count() == 0  # count only
    keep_screenshot(presenter.page, screenshots / "presenter_quiz_open.png")
    assert_no_violations(presenter.page, AXE, "the presenter's window, a question open")
    keep_screenshot(app.page, screenshots / "presenter_projector_quiz_open.png")
    keep_screenshot(student.page, screenshots / "presenter_student_phone_answered.png")

    presenter.page.get_by_role("button", name="Reveal the answer").click()
    right = presenter.page.locator(".bpe-presenter-right")
    right.wait_for(timeout=30_000)
    assert words(right.locator(".bpe-presenter-pair").inner_text()) == "“a” + “t”"
    app.page.locator(".bpe-class-quiz .bpe-choice-votes").first.wait_for(timeout=30_000)
    student.page.locator(".bpe-verdict").first.wait_for(timeout=30_000)
    keep_screenshot(presenter.page, screenshots / "presenter_quiz_revealed.png")
    assert_no_violations(presenter.page, AXE, "the presenter's window, the answer revealed")
    keep_screenshot(app.page, screenshots / "presenter_projector_revealed.png")
    keep_screenshot(student.page, screenshots / "presenter_student_phone_revealed.png")
    for page in (app, presenter, student):
        page.assert_clean()
