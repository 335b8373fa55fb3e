"""Browser tests: students follow the teacher's lesson in a live class (issue 18: "in a live
class, students follow the teacher's slides"): an exploring student keeps their own run until
they follow again. That each following student gets the teacher's run, page and step, slide
by slide, and that a slide that moves only the step costs the students no rerun, is checked
in the walk through the whole lesson (tests/browser/test_class_mirror.py, with the bundled
lesson's own slides and Wikipedia's worked example).
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import AppPage
from test_live_class import join, start_class, wait_connected

from bpeviz.app.lesson.slides import bundled_lessons

pytestmark = pytest.mark.browser

SLIDES = bundled_lessons()["bpe"].slides


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
