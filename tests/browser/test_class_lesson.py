"""Browser tests: students follow the teacher's lesson in a live class (issue 18: "in a live
class, students follow the teacher's slides"). A slide sets the sidebar's settings and its
page's, so the class's run moves with it: each following student gets the teacher's run, page
and step; a slide that moves only the step costs the students no rerun; an exploring student
keeps their own run until they follow again.

Expected values are the bundled lesson's own slides (bpeviz/lessons/bpe.toml) and Wikipedia's
worked example: ``aaabdaaabac``'s first merge is ``a`` + ``a`` (ids 97, 97) into 256.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import AppPage
from test_live_class import join, start_class, wait_connected

from bpeviz.app.lesson.slides import bundled_lessons

pytestmark = pytest.mark.browser

SLIDES = bundled_lessons()["bpe"].slides


def next_slide(teacher: AppPage, number: int) -> None:
    """The teacher's Next slide, until the bar shows slide ``number``."""
    teacher.rerun(teacher.page.locator(".st-key-lesson_next button").first.click)
    teacher.page.locator(".st-key-lesson_bar").filter(has_text=f"slide {number} of").wait_for(
        timeout=60_000
    )
    teacher.wait_idle()


def text_box(app: AppPage) -> str:
    return str(app.page.locator(".st-key-tok_text textarea").input_value())


def wait_text(app: AppPage, text: str) -> None:
    app.page.wait_for_function(
        """text => {
          const box = document.querySelector(".st-key-tok_text textarea");
          return !!box && box.value === text;
        }""",
        arg=text,
        timeout=60_000,
    )
    app.wait_idle()


@pytest.fixture
def classroom(app: AppPage, new_page: Any) -> tuple[AppPage, list[AppPage]]:
    start_class(app)
    code = app.page.evaluate("new URLSearchParams(location.search).get('class')")
    students = [new_page() for _ in range(2)]
    for student in students:
        join(student, code)
        student.wait_view(0)
    wait_connected(app, 2)
    return app, students


def test_students_follow_the_teachers_slides_settings_and_all(classroom: Any) -> None:
    teacher, students = classroom
    assert SLIDES[0].page == "tokenize" and SLIDES[2].page == "step"
    sidebar = teacher.page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Lesson", exact=True).click()
    teacher.rerun(sidebar.get_by_role("button", name="Start this lesson").click)
    teacher.page.locator(".st-key-lesson_bar").filter(has_text="slide 1 of").wait_for()
    # Slide 1: the Tokenize page with the slide's own text, on every student's screen.
    for student in students:
        student.page.wait_for_url("**/tokenize**", timeout=60_000)
        wait_text(student, SLIDES[0].view["tok_text"])
    # Slide 2: the same text as token ids.
    assert SLIDES[1].view["tok_view"] == "Token ids"
    next_slide(teacher, 2)
    for student in students:
        student.page.wait_for_url("**tok_view=Token+ids**", timeout=60_000)
        assert text_box(student) == SLIDES[1].view["tok_text"]
    # Slide 3: the Step page on the cat_sat sample at step 0; slide 4 moves only the step.
    next_slide(teacher, 3)
    for student in students:
        student.page.wait_for_url("**sample=cat_sat**", timeout=60_000)
        student.wait_view(0)
        student.wait_idle()
    sent_before = [student.sent() for student in students]
    next_slide(teacher, 4)
    for student in students:
        student.wait_view(int(SLIDES[3].view["step"]))
        assert student.card_title() == teacher.card_title()
    assert [student.sent() for student in students] == sent_before  # no rerun for a step
    # Slide 5: Wikipedia's aaabdaaabac at step 1, a new run: a, a (97, 97) became 256.
    assert SLIDES[4].view == {"sample": "aaabdaaabac", "step": 1}
    next_slide(teacher, 5)
    for student in students:
        student.page.wait_for_url("**sample=aaabdaaabac**", timeout=60_000)
        student.wait_view(1)
        assert student.shown_merge() == (1, 3, [97, 97, 256])
        student.assert_clean()
    teacher.assert_clean()


def test_an_exploring_student_keeps_their_run_until_they_follow(classroom: Any) -> None:
    teacher, (explorer, follower) = classroom
    explorer.page.get_by_role("button", name="Explore on my own").click()
    explorer.page.get_by_text("○ Exploring on my own").wait_for()
    sidebar = teacher.page.locator('[data-testid="stSidebar"]')
    sidebar.get_by_text("Lesson", exact=True).click()
    teacher.rerun(sidebar.get_by_role("button", name="Start this lesson").click)
    follower.page.wait_for_url("**/tokenize**", timeout=60_000)
    wait_text(follower, SLIDES[0].view["tok_text"])
    explorer.wait_idle()
    assert "/tokenize" not in explorer.page.url and explorer.shown_step() == 0
    explorer.page.get_by_role("button", name="Follow the teacher").click()
    explorer.page.wait_for_url("**/tokenize**", timeout=60_000)
    wait_text(explorer, SLIDES[0].view["tok_text"])
    explorer.page.get_by_text("● Following the teacher").wait_for()
    explorer.assert_clean()
