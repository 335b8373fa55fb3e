"""The projector layout (issue 18): in presentation mode, the first screen of the Step page
holds the step controls, the merge card and the first lines of the text as tokens, and the
first screen of the Tokenize page shows tokens; every label a class must read is at least
18 px on a 1280×720 projector.

"First screen" is what the viewport shows before any scrolling: an element's bounding box
ends above the viewport's height. Screenshots of each size go to ``$BPEVIZ_SCREENSHOTS`` as
``projector-<page>-<w>x<h>.png``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import AppPage, _leave_no_trace, keep_screenshot, new_app_page, warm_context

pytestmark = pytest.mark.browser

# The commonest lecture-hall projector first, then two common laptop and desktop screens.
SIZES = [(1280, 720), (1366, 768), (1920, 1080)]
SMALLEST_LABEL_PX = 18

# Whether an element's box ends within the first screen (measured in the page, unscrolled).
_ON_FIRST_SCREEN = """
(el) => {
  const box = el.getBoundingClientRect();
  return box.height > 0 && box.top >= 0 && box.bottom <= window.innerHeight;
}
"""


def on_first_screen(app: AppPage, selector: str) -> bool:
    locator = app.page.locator(selector).first
    locator.wait_for(state="attached")
    return bool(locator.evaluate(_ON_FIRST_SCREEN))


def open_present(app: AppPage, page: str, width: int, height: int) -> None:
    app.page.set_viewport_size({"width": width, "height": height})
    app.open(page, present="true")


@pytest.fixture(scope="module")
def projected(
    browser: Any, app_server: Any, lent_contexts: list[Any]
) -> Iterator[Callable[[str], AppPage]]:
    """The module's projector: ``projected(page)`` is that page in presentation mode at
    1280×720, opened once (a tab of a warm context, conftest's ``lent_contexts``) and read by
    every test that wants it as opened; a test that steps, resizes or switches on it puts it
    back. Each open cost Chromium about 2.5 CPU-s, and four tests opened the Step page,
    two the Tokenize page and two the Two runs page."""
    context = lent_contexts.pop() if lent_contexts else warm_context(browser)
    opened: dict[str, AppPage] = {}

    def projector(page: str) -> AppPage:
        if page not in opened:
            opened[page] = new_app_page(browser, app_server.url, context)
            open_present(opened[page], page, 1280, 720)
        return opened[page]

    try:
        yield projector
    finally:
        for app in opened.values():
            with contextlib.suppress(Exception):
                app.page.close()
        _leave_no_trace(context, app_server.url)
        lent_contexts.append(context)


def resize(app: AppPage, width: int, height: int) -> None:
    """Resize the window and wait until the page has drawn two frames at the new size (its
    layout and what its scripts do on a resize)."""
    app.page.set_viewport_size({"width": width, "height": height})
    app.page.evaluate(
        "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
    )


def test_step_page_first_screen_holds_controls_card_and_tokens(
    projected: Callable[[str], AppPage], screenshots: Path
) -> None:
    """At each of :data:`SIZES`, the window resized on one page (an open at each size cost a
    page load, about 2 s of Chromium's CPU, for the same layout)."""
    app = projected("step")
    app.wait_view(0)
    try:
        first_screens_of_the_step_page(app, screenshots)
    finally:
        resize(app, *SIZES[0])
        app.wait_reported(0)  # as opened for the next test: step 0, told to the server
    app.assert_clean()


def first_screens_of_the_step_page(app: AppPage, screenshots: Path) -> None:
    for width, height in SIZES:
        size = f"{width}x{height}"
        resize(app, width, height)
        keep_screenshot(app.page, screenshots / f"projector-step-{size}.png")
        for selector in (
            ".bpe-step .bpe-slider",
            ".bpe-step button.bpe-primary",  # Next
            ".bpe-card",
            ".bpe-step .bpe-scroll .bpe-t",  # the text's first token
        ):
            assert on_first_screen(app, selector), f"{selector} is not on the first screen, {size}"
        # and after a merge, with its bigger card (an equation of chips), too
        app.step(app.step_button("Next").click, 1)
        keep_screenshot(app.page, screenshots / f"projector-step1-{size}.png")
        for selector in (".bpe-card", ".bpe-step .bpe-scroll .bpe-new"):
            assert on_first_screen(app, selector), f"{selector} is not on screen at step 1, {size}"
        app.step(app.step_button("Previous").click, 0)


def test_tokenize_page_first_screen_shows_tokens(
    projected: Callable[[str], AppPage], screenshots: Path
) -> None:
    """At each of :data:`SIZES`, the window resized on one page."""
    app = projected("tokenize")
    try:
        for width, height in SIZES:
            resize(app, width, height)
            app.page.wait_for_selector('.st-key-tok_spans .bpe-root[data-ready="true"]')
            keep_screenshot(app.page, screenshots / f"projector-tokenize-{width}x{height}.png")
            assert on_first_screen(app, ".st-key-tok_spans .bpe-scroll .bpe-t"), (
                f"no token on screen, {width}x{height}"
            )
    finally:
        resize(app, *SIZES[0])
    app.assert_clean()


# Rendered size in CSS px: the computed font size times the element's scale on screen (an
# SVG's text is drawn in its viewBox's units, scaled to the SVG's width).
_SMALLEST = """
(selectors) => selectors.map((selector) => {
  const sizes = [...document.querySelectorAll(selector)].map((el) => {
    const size = parseFloat(getComputedStyle(el).fontSize);
    const scale = el instanceof SVGElement && el.getScreenCTM() ? el.getScreenCTM().a : 1;
    return size * scale;
  });
  return [selector, sizes.length ? Math.min(...sizes) : null];
})
"""

LABELS = [
    ".bpe-step-name",  # "Step: merges done"
    ".bpe-step-label",  # "3 of 256"
    ".bpe-chipid",  # "id 97"
    ".bpe-legend",
    ".bpe-legend .bpe-t",
    ".bpe-metric-label",
    ".bpe-metric-delta",
    ".bpe-tick",  # the chart's axes
    ".bpe-chart-title",
    ".bpe-pair-table",
    ".bpe-step .bpe-caption",
    ".bpe-field",
]


def test_projector_labels_are_at_least_18px(projected: Callable[[str], AppPage]) -> None:
    app = projected("step")
    app.wait_view(0)
    app.step(app.step_button("Next").click, 1)
    try:
        sizes = dict(app.page.evaluate(_SMALLEST, LABELS))
    finally:
        app.step(app.step_button("Previous").click, 0)
        app.wait_reported(0)
    missing = [selector for selector, size in sizes.items() if size is None]
    assert not missing, f"not on the page: {missing}"
    small = {key: round(size, 1) for key, size in sizes.items() if size < SMALLEST_LABEL_PX}
    assert not small, f"labels under {SMALLEST_LABEL_PX} px at 1280x720: {small}"


def test_the_focus_view_shows_the_card_and_the_text_large(app: AppPage, screenshots: Path) -> None:
    """Presentation mode's Focus view (in the link as ``focus=true``): the card and the text
    only, the text larger than the projector's usual size, the pair table, chart, counts and
    vocabulary gone; switching it off brings them back."""
    app.page.set_viewport_size({"width": 1280, "height": 720})
    app.open("step", present="true", step=5)
    app.wait_view(5)
    usual = app.page.locator(".bpe-step .bpe-scroll .bpe-t").first.evaluate(
        "el => parseFloat(getComputedStyle(el).fontSize)"
    )
    app.rerun(app.page.get_by_text("Focus view", exact=True).click)
    app.wait_view(5)
    keep_screenshot(app.page, screenshots / "projector-step-focus-1280x720.png")
    assert "focus=true" in app.page.url
    assert app.page.get_by_role("switch", name="Focus view").is_checked()
    for gone in (".bpe-table-pane", ".bpe-vocab", ".bpe-metrics"):
        assert not app.page.locator(f".bpe-step {gone}").first.is_visible(), gone
    large = app.page.locator(".bpe-step .bpe-scroll .bpe-t").first.evaluate(
        "el => parseFloat(getComputedStyle(el).fontSize)"
    )
    assert large >= 1.3 * usual, (large, usual)
    for selector in (".bpe-card", ".bpe-step .bpe-scroll .bpe-t", ".bpe-step button.bpe-primary"):
        assert on_first_screen(app, selector), f"{selector} is not on the first screen"
    app.rerun(app.page.get_by_text("Focus view", exact=True).click)
    app.wait_view(5)
    assert app.page.locator(".bpe-step .bpe-table-pane").first.is_visible()
    app.assert_clean()


# Every piece of text the page draws, as a person sees it: an element with text of its own
# (or a box with a value),
# not hidden, not a screen reader's 1 px box, not in a closed expander; its rendered size
# (font size times an SVG's scale, rotated or not; a chart's multi-line title is measured on
# its <text>).
_TEXT_SIZES = """
() => {
  const found = [];
  const hidden = '[aria-hidden="true"],[hidden],details:not([open]) > :not(summary)';
  for (let el of document.querySelectorAll('[data-testid="stMain"] *')) {
    const chosen = el.matches("select") && el.selectedOptions[0];
    const typed = chosen ? chosen.text : el.matches("input, textarea") ? el.value.trim() : "";
    if (el.matches("option")) continue; // drawn in its select's size
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own && !typed) continue;
    const text = (typed || el.textContent.trim()).slice(0, 30);
    if (el.tagName === "tspan") el = el.closest("text");
    const box = el.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1 || el.closest(hidden)) continue;
    if (!el.checkVisibility({ opacityProperty: true, visibilityProperty: true })) continue;
    const matrix = el instanceof SVGElement ? el.getScreenCTM() : null;
    const scale = matrix ? Math.hypot(matrix.a, matrix.b) : 1; // a rotated axis title too
    const size = parseFloat(getComputedStyle(el).fontSize) * scale;
    const id = el.dataset.testid ? `[${el.dataset.testid}]` : "";
    const name = `${el.tagName.toLowerCase()}${id}.${[...el.classList].slice(0, 2).join(".")}`;
    found.push([name, text, Math.round(size * 10) / 10]);
  }
  return found;
}
"""

# What each page's check waits for before reading the sizes: its tokens, or its chart.
PAGE_READY = {
    "step": '.bpe-step[data-ready="true"]',
    "tokenize": '.st-key-tok_spans .bpe-root[data-ready="true"]',
    "compression": '[data-testid="stVegaLiteChart"]',
    "runs": '.st-key-runs_spans_B .bpe-root[data-ready="true"]',
}


@pytest.mark.parametrize("page", list(PAGE_READY))
def test_every_text_on_the_page_is_at_least_18px(
    projected: Callable[[str], AppPage], screenshots: Path, page: str
) -> None:
    """The Step, Tokenize, Compression and Two runs pages in presentation mode at 1280×720:
    every text drawn in the page (the whole page, not only its first screen; a chart's SVG
    text too) is 18 px or more, and no table is a data grid (its canvas cells are 14 px). The
    charts' specs are checked too (tests/test_charts.py)."""
    app = projected(page)
    app.page.wait_for_selector(PAGE_READY[page])
    app.wait_idle()
    whole = screenshots / f"projector-{page}-whole-1280x720.png"
    keep_screenshot(app.page, whole, full_page=True)
    # A data grid draws its cells on a canvas at 14 px: presentation mode shows tables as HTML.
    grids = app.page.locator('[data-testid="stMain"] [data-testid="stDataFrame"]')
    assert not [grid for grid in grids.all() if grid.is_visible()], "a data grid is shown"
    small = [entry for entry in app.page.evaluate(_TEXT_SIZES) if entry[2] < SMALLEST_LABEL_PX]
    assert not small, f"{len(small)} texts under {SMALLEST_LABEL_PX} px on {page}: {small[:25]}"
    app.assert_clean()


def test_the_two_runs_chart_keeps_a_readable_plot_on_a_projector(
    projected: Callable[[str], AppPage],
) -> None:
    """At projector type the axes and legend took most of the chart's 300 px: the plot was
    about 30 px tall, with one tick ("2") on its y-axis. Now its y-axis reads at least four
    ticks, spread over 200 px or more."""
    app = projected("runs")
    app.page.wait_for_selector(PAGE_READY["runs"])
    axis = app.page.locator('[data-testid="stVegaLiteChart"] g[aria-label^="Y-axis"]').first
    axis.wait_for()
    tops = axis.locator(".role-axis-label text").evaluate_all(
        "labels => labels.map((label) => label.getBoundingClientRect().top)"
    )
    assert len(tops) >= 4 and max(tops) - min(tops) >= 200, tops
