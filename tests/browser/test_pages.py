"""Every page opens cleanly, on the English and on the Japanese sample.

The sample is chosen by the link (``?sample=japanese``), as a shared link would choose it.
Clean means what a person would call clean: the page's title is drawn, the sidebar names the
chosen sample, and there is no exception box, no error box and no browser console error.
Each page also leaves a full-page screenshot, ``<page>-<sample>.png``, in
``$BPEVIZ_SCREENSHOTS``: look at them.

At 800 px with the sidebar open nothing is cut off at the window's right edge: the pages
other than Step are checked in the English page's own open, the window narrowed after its
checks (each open costs Chromium seconds of CPU), the Step page at step 150 in one of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from test_glance import _SETTLED_JS, SETTLE_MS

from bpeviz.engine.samples import get_sample

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

TITLES = {
    "step": "Step through training",
    "tokenize": "Tokenize text",
    "compression": "Compression",
    "compare": "Compare tokenizers",
    "runs": "Two training runs",
    "export": "Export / import",
    "about": "About bpeviz",
}
SAMPLES = ["english", "japanese"]


@pytest.mark.parametrize("sample", SAMPLES)
@pytest.mark.parametrize("page", list(TITLES))
def test_page_opens_without_errors(app: AppPage, screenshots: Path, page: str, sample: str) -> None:
    app.open(page, sample=sample)
    app.screenshot(screenshots / f"{page}-{sample}.png")

    heading = app.page.locator('[data-testid="stMain"] h1').first
    assert heading.inner_text().strip().startswith(TITLES[page])
    chosen = app.page.locator('[data-testid="stSidebar"] .st-key-sample input').input_value()
    assert chosen == get_sample(sample).title
    assert app.alerts("Error") == []
    app.assert_clean()
    if sample == "english" and page in NARROWED:
        app.page.set_viewport_size({"width": 800, "height": 900})
        assert app.page.evaluate(_SETTLED_JS, [SETTLE_MS, 15_000]), "still changing at 800 px"
        assert_nothing_cut_off_at_800_px(app, screenshots, page)


def test_navigating_between_pages_keeps_the_sample(app: AppPage) -> None:
    """Clicking through the sidebar's page links: each page draws, on the sample chosen."""
    app.open("step", sample="japanese")
    for page, title in TITLES.items():
        link = app.page.locator('[data-testid="stSidebarNav"] a').filter(has_text=_nav_label(page))
        app.rerun(link.click)
        heading = app.page.locator('[data-testid="stMain"] h1').first
        assert heading.inner_text().strip().startswith(title)
        assert "sample=japanese" in app.page.url
        app.assert_clean()


def _nav_label(page: str) -> str:
    return {"step": "Step through training", "about": "About"}.get(page, TITLES[page])


# Everything a reader needs must be inside the window, not cut at its right edge.
CUT_OFF = """() => {
    const width = document.documentElement.clientWidth;
    const cut = [];
    const main = document.querySelector('[data-testid="stMain"]');
    const shown = '[data-testid="stMetric"], [data-testid="stDataFrame"], .bpe-controls, '
      + '.bpe-card, .bpe-metric, .bpe-scroll, .bpe-pair-table, .bpe-chart, .bpe-vocab-table';
    for (const e of main.querySelectorAll(shown)) {
        const box = e.getBoundingClientRect();
        const name = e.dataset.testid || e.getAttribute("class");
        if (box.right > width + 1) cut.push(name + " ends at " + box.right);
    }
    const labels = '[data-testid="stMetricLabel"] *, .bpe-metric-label';
    for (const e of document.querySelectorAll(labels)) {
        if (e.scrollWidth > e.clientWidth + 1) cut.push("label cut: " + e.textContent);
    }
    return cut;
}"""


# The pages checked at 800 px in their English open (test_page_opens_without_errors).
NARROWED = ["tokenize", "compare", "compression", "runs"]


def assert_nothing_cut_off_at_800_px(app: AppPage, screenshots: Path, page: str) -> None:
    """Side-by-side panes stack when the main area is narrow (about 480 px here)."""
    sidebar = app.page.locator('[data-testid="stSidebar"]')
    assert sidebar.bounding_box()["width"] > 200, "the test means the sidebar open"
    assert app.page.evaluate(CUT_OFF) == []
    if page == "step":  # the pair table has room for all four of its columns
        table = app.page.locator('[data-testid="stMain"] table.bpe-pair-table')
        assert table.first.bounding_box()["width"] >= 340
        cells = table.first.locator("tr[data-pair]").first.locator("td")
        assert cells.count() == 4 and cells.nth(3).inner_text() == "◀ merge 150"
    app.screenshot(screenshots / f"{page}-800px.png")
    app.assert_clean()


def test_an_800_pixel_window_with_the_sidebar_open_cuts_nothing_off_on_step_150(
    app: AppPage, screenshots: Path
) -> None:
    """The Step page opened at 800 px on step 150 (the other pages: NARROWED)."""
    app.page.set_viewport_size({"width": 800, "height": 900})
    app.open("step", step=150)
    app.wait_view(150)
    assert_nothing_cut_off_at_800_px(app, screenshots, "step")
