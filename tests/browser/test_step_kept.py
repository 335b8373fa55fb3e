"""The step survives a visit to another page, the browser's Back and Forward buttons and a
reload (issue 18: the link said step=3 and the view showed 0 of 256; a remounted view started
where it first began; the link lagged the view by up to seconds)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlparse

import pytest

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser


def nav(app: AppPage, label: str) -> None:
    link = app.page.locator('[data-testid="stSidebarNav"] a').filter(has_text=label).first
    app.rerun(link.click)


def at_step_three(app: AppPage) -> None:
    """The Step page after three clicks of Next, once the view has told the server."""
    app.open("step")
    app.wait_view(0)
    for k in range(1, 4):
        app.step(app.step_button("Next").click, k)
    app.wait_reported(3)


def test_the_step_survives_a_visit_to_another_page(app: AppPage) -> None:
    at_step_three(app)
    nav(app, "Tokenize text")
    nav(app, "Step through training")
    assert app.shown_step() == 3


def test_the_step_survives_the_browsers_back_button(app: AppPage) -> None:
    at_step_three(app)
    nav(app, "Tokenize text")
    app.rerun(app.page.go_back)
    assert app.shown_step() == 3


def query(app: AppPage) -> dict[str, str]:
    return {key: values[-1] for key, values in parse_qs(urlparse(app.page.url).query).items()}


def at_step_three_before(app: AppPage) -> None:
    """Three clicks of Next and Before merge, read at once: the view has not yet told the
    server (it does 600 ms after stepping stops), only the address holds the step."""
    app.open("step")
    app.wait_view(0)
    for k in range(1, 4):
        app.step(app.step_button("Next").click, k)
    app.step(app.step_button("Before merge").click, 3, "before")


def test_back_and_forward_right_after_stepping_keep_the_step(app: AppPage) -> None:
    at_step_three_before(app)
    nav(app, "Tokenize text")
    app.rerun(app.page.go_back)
    app.wait_view(3, "before")
    assert query(app).get("step") == "3" and query(app).get("text_when") == "Before merge"
    app.rerun(app.page.go_forward)
    assert urlparse(app.page.url).path.endswith("/tokenize")
    assert not app.page.locator(app.STEP_ROOT).count()
    app.rerun(app.page.go_back)
    app.wait_view(3, "before")
    assert query(app).get("step") == "3"
    app.assert_clean()


def test_a_reload_right_after_stepping_keeps_the_step(app: AppPage) -> None:
    at_step_three_before(app)
    app.page.reload(wait_until="domcontentloaded")
    app.wait_idle()
    app.wait_view(3, "before")
    app.assert_clean()


def test_the_step_survives_a_page_switch_right_after_stepping(app: AppPage) -> None:
    """Step to 3, Before merge, and leave through the sidebar at once: the view has not told
    the server yet (it does 600 ms after stepping stops), and the switch drops the query.
    Coming back through the sidebar still shows step 3, before its merge."""
    at_step_three_before(app)
    assert app.page.locator(app.STEP_ROOT).get_attribute("data-report-due") == "true"
    nav(app, "Tokenize text")
    nav(app, "Step through training")
    app.wait_view(3, "before")
    app.assert_clean()
