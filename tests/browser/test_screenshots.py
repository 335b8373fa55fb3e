"""Presentation mode, for a projector: every page in large type, screenshots to look at.

``?present=true`` is the link form of the sidebar's "Presentation mode" toggle. The link opens
a page, and the sidebar's links keep the mode from page to page: on every page (its title) the
sidebar is collapsed, Streamlit's menu is hidden and
the type is the projector's (``bpeviz/app/frame/styles.py``: the title 2.6rem, body text 1.2rem, at
the browser's 16 px rem: 41.6 px and 19.2 px; without it the first paragraph is 14 px). Each
page is saved full page as ``<page>-present.png`` in ``$BPEVIZ_SCREENSHOTS`` (when set), and
the Step page also as the one screen a projector shows (``step-present-screen.png``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import keep_screenshot

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

# Each page and its title (app.py's st.Page titles, as the sidebar lists them).
PAGES = {
    "step": "Step through training",
    "tokenize": "Tokenize text",
    "compression": "Compression",
    "compare": "Compare tokenizers",
    "runs": "Two training runs",
    "export": "Export / import",
    "about": "About",
}
TITLE_PX = 41.6  # 2.6rem
BODY_PX = 19.2  # 1.2rem

# What presentation mode changes on any page: the sidebar, the menu, the type.
_PRESENTED_JS = """() => {
  const px = (element) => element ? parseFloat(getComputedStyle(element).fontSize) : null;
  const menu = document.querySelector('[data-testid="stMainMenu"]');
  return {
    sidebar: document.querySelector('[data-testid="stSidebar"]').dataset.collapsed,
    menu: !!menu && menu.getBoundingClientRect().height > 0,
    title: px(document.querySelector(".stMain h1")),
    body: px(document.querySelector(".stMain [data-testid='stMarkdownContainer'] p")),
  };
}"""


def test_presentation_mode_keeps_a_step_on_one_screen(app: AppPage, screenshots: Path) -> None:
    app.open("step", present="true")
    app.wait_view(0)
    # Presentation mode starts with the sidebar collapsed and hides Streamlit's chrome.
    sidebar = app.page.locator('[data-testid="stSidebar"]')
    assert sidebar.get_attribute("data-collapsed") == "true"
    chrome = app.page.locator('[data-testid="stMainMenu"], [data-testid="stAppDeployButton"]')
    assert not any(element.is_visible() for element in chrome.all())
    keep_screenshot(app.page, screenshots / "step-present-screen.png")
    # The merge and the text it changes share the one screen a projector shows.
    screen_height = app.page.viewport_size["height"]
    for selector in (".bpe-card", ".bpe-scroll .bpe-t"):
        box = app.page.locator(selector).first.bounding_box()
        assert box and box["y"] + box["height"] <= screen_height, f"{selector} below the fold"
    size = app.page.locator(".bpe-text").first.evaluate("e => getComputedStyle(e).fontSize")
    assert float(size.removesuffix("px")) >= 20, f"token text is {size} on a projector"


@pytest.mark.parametrize("page", list(PAGES))
def test_presentation_mode_on_each_page(kept_app: AppPage, screenshots: Path, page: str) -> None:
    """The first page is opened by a ``?present=true`` link, the others reached by the
    sidebar's links as a presenter moves on: presentation mode holds on each (an open costs
    Chromium seconds of CPU)."""
    app = kept_app
    if parse_qs(urlsplit(app.page.url).query).get("present") == ["true"]:
        app.navigate(page)
    else:
        app.open(page, present="true")
    assert app.page.title() == f"{PAGES[page]} · bpeviz", f"?present=true on {page}"
    presented = app.page.evaluate(_PRESENTED_JS)
    assert presented == {"sidebar": "true", "menu": False, "title": TITLE_PX, "body": BODY_PX}
    app.screenshot(screenshots / f"{page}-present.png")
    app.assert_clean()
