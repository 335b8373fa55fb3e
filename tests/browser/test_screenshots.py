"""Presentation mode, for a projector: every page in large type, screenshots to look at.

``?present=true`` is the link form of the sidebar's "Presentation mode" toggle. Each page is
saved full page as ``<page>-present.png`` in ``$BPEVIZ_SCREENSHOTS``, and the Step page also
as the one screen a projector shows (``step-present-screen.png``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

PAGES = ["step", "tokenize", "compression", "compare", "runs", "export", "about"]


def test_presentation_mode_on_every_page(app: AppPage, screenshots: Path) -> None:
    app.open("step", present="true")
    app.wait_view(0)
    # Presentation mode starts with the sidebar collapsed and hides Streamlit's chrome.
    sidebar = app.page.locator('[data-testid="stSidebar"]')
    assert sidebar.get_attribute("data-collapsed") == "true"
    chrome = app.page.locator('[data-testid="stMainMenu"], [data-testid="stAppDeployButton"]')
    assert not any(element.is_visible() for element in chrome.all())
    app.page.screenshot(path=str(screenshots / "step-present-screen.png"))
    # The merge and the text it changes share the one screen a projector shows.
    screen_height = app.page.viewport_size["height"]
    for selector in (".bpe-card", ".bpe-scroll .bpe-t"):
        box = app.page.locator(selector).first.bounding_box()
        assert box and box["y"] + box["height"] <= screen_height, f"{selector} below the fold"
    size = app.page.locator(".bpe-text").first.evaluate("e => getComputedStyle(e).fontSize")
    assert float(size.removesuffix("px")) >= 20, f"token text is {size} on a projector"

    for page in PAGES:
        app.open(page, present="true")
        app.screenshot(screenshots / f"{page}-present.png")
        app.assert_clean()
