"""The step survives a visit to another page and the browser's Back button (issue 18: the
link said step=3 and the view showed 0 of 256; a remounted view started where it first began)."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
