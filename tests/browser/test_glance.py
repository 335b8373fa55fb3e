"""Every page read in one look, at a laptop's, a desktop's and a phone's size: no text cut
short (an element with ``text-overflow: ellipsis`` whose text overflows it, one that clips
its own text or value without a mark, as a menu's chosen option in the sidebar, or a ``…``
the data does not hold), and no two labels of a chart drawn over each other.

What the data holds is left out of the ``…`` check: token views (``.bpe-root``: a text may
hold ``…``, as the Tokenize page's default does) and what a person typed (inputs and text
areas). Charts: the Step page's SVG chart and the Altair charts (Streamlit has Vega draw
them as SVG), each label's box against every other label's of the same chart.

The phone's pass also narrows each page to 320 px, 400% zoom of a 1280 px window, after its
checks at 390x844: nothing may scroll sideways there (WCAG 1.4.10,
:func:`assert_reflows_at_320_px`), checked in the same open.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from test_accessibility import _SIDEWAYS_JS, TABLES_MAY_SCROLL

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

SIZES = {"1280x720": (1280, 720), "1366x768": (1366, 768), "1920x1080": (1920, 1080),
         "390x844": (390, 844)}  # fmt: skip
# The sizes read from one page open, the window resized between them: each open costs
# Chromium seconds of CPU. All three are a desktop's (the sidebar open, as a fresh page at
# that size has it); the phone's page is opened at its size, its sidebar collapsed on load.
RESIZED = {"desktops": ["1280x720", "1366x768", "1920x1080"], "390x844": ["390x844"]}
SETTLE_MS = 300  # no change to the page for this long after a resize: laid out and redrawn
PAGES = ["step", "tokenize", "compression", "compare", "runs", "export", "about"]

# Elements whose text is cut with an ellipsis, and visible text nodes holding "…" outside
# the data; each as "tag.class: text".
_CUT_JS = """
() => {
  const main = document.querySelector('[data-testid="stAppViewContainer"]');
  const name = (e) => `${e.tagName.toLowerCase()}.${[...e.classList].join(".")}`;
  // On screen: a collapsed sidebar's links are laid out, at zero width or off the left edge.
  const visible = (e) => {
    const box = e.getBoundingClientRect();
    return box.width > 0 && box.right > 0 && box.left < innerWidth
      && getComputedStyle(e).visibility !== "hidden";
  };
  // Text clipped without a mark: a box that hides what overflows it (a menu's chosen option
  // is an input's value, clipped at its edge), holding its own text or value. (A chart's
  // labels are SVG, checked below.)
  const ownText = (e) => e.tagName === "INPUT" ? e.value
    : [...e.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.data).join("");
  const clips = (style) => ["hidden", "clip"].includes(style.overflowX);
  const cut = [];
  for (const e of main.querySelectorAll("*")) {
    const style = getComputedStyle(e);
    const over = e.scrollWidth > e.clientWidth + 1 && visible(e);
    if (over && style.textOverflow === "ellipsis" && e.textContent.trim())
      cut.push(`${name(e)}: ${e.textContent.trim().slice(0, 60)}`);
    else if (over && clips(style) && ownText(e).trim() && !(e instanceof SVGElement)
             && !e.closest(".bpe-root, textarea"))
      cut.push(`clipped ${name(e)}: ${ownText(e).trim().slice(0, 60)}`);
  }
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.data.includes("…")) continue;
    const parent = node.parentElement;
    if (!parent || !visible(parent) || parent.closest(".bpe-root, textarea, input")) continue;
    cut.push(`… in ${name(parent)}: ${node.data.trim().slice(0, 60)}`);
  }
  return cut;
}
"""

# Pairs of overlapping text labels within one chart (the Step page's SVG; Vega's SVG), and
# labels that run past their chart's edge.
_OVERLAPS_JS = """
() => {
  const found = [];
  const charts = document.querySelectorAll("svg.bpe-chart, [data-testid='stVegaLiteChart'] svg");
  for (const chart of charts) {
    const boxes = [...chart.querySelectorAll("text")]
      .filter((t) => t.textContent.trim() && t.getClientRects().length)
      .map((t) => [t.textContent.trim(), t.getBoundingClientRect()]);
    // A label drawn past its chart's edge is cut off there (an axis title longer than a
    // short plot). A few pixels are the glyphs' own margin, not a cut.
    const edge = chart.getBoundingClientRect();
    for (const [text, box] of boxes) {
      const past = Math.max(edge.top - box.top, box.bottom - edge.bottom,
                            edge.left - box.left, box.right - edge.right);
      if (past > 4) found.push(`${text}: ${Math.round(past)} px past the chart's edge`);
    }
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, p] = boxes[i], [b, q] = boxes[j];
        const overlap = Math.min(p.right, q.right) - Math.max(p.left, q.left) > 1
          && Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) > 1;
        if (overlap) found.push(`${a} / ${b}`);
      }
  }
  return found;
}
"""


# Resolves true once nothing in the app has changed for ``quietMs`` (the charts redrawn for
# the new width: Vega and the step view redraw on a resize), false after ``limitMs``.
_SETTLED_JS = """
([quietMs, limitMs]) => new Promise((resolve) => {
  let quiet;
  const done = (settled) => { observer.disconnect(); clearTimeout(quiet); clearTimeout(limit);
                              resolve(settled); };
  const observer = new MutationObserver(() => {
    clearTimeout(quiet);
    quiet = setTimeout(() => done(true), quietMs);
  });
  observer.observe(document.documentElement,
                   {subtree: true, childList: true, attributes: true, characterData: true});
  quiet = setTimeout(() => done(true), quietMs);
  const limit = setTimeout(() => done(false), limitMs);
})
"""


def resize(app: AppPage, size: str) -> None:
    """The window at ``size``, the page laid out and its charts redrawn for it."""
    width, height = SIZES[size]
    app.page.set_viewport_size({"width": width, "height": height})
    assert app.page.evaluate(_SETTLED_JS, [SETTLE_MS, 15_000]), f"{size}: still changing"


@pytest.mark.parametrize("sizes", list(RESIZED))
def test_no_text_is_cut_and_no_chart_labels_overlap(
    app: AppPage, sizes: str, screenshots: Path
) -> None:
    """Each page is drawn at the first of ``sizes`` and checked at each, the window resized
    between them. Each is also saved full page as ``glance-<size>-<page>.png`` (when
    ``$BPEVIZ_SCREENSHOTS`` is set), after it is checked: the shot makes the window taller.
    The first page is opened, the others reached by the sidebar's links
    (:meth:`AppPage.navigate`: how a person moves on, and under half an open's CPU)."""
    problems = {}
    for page in PAGES:
        resize(app, RESIZED[sizes][0])
        app.navigate(page)
        if page == "step":
            app.wait_view()
        for size in RESIZED[sizes]:
            resize(app, size)
            found = app.page.evaluate(_CUT_JS) + app.page.evaluate(_OVERLAPS_JS)
            if found:
                problems[f"{page} at {size}"] = found
            app.screenshot(screenshots / f"glance-{size}-{page}.png")
        if sizes == "390x844":
            assert_reflows_at_320_px(app, screenshots, page)
    assert not problems, problems
    app.assert_clean()


def assert_reflows_at_320_px(app: AppPage, screenshots: Path, name: str) -> None:
    """400% zoom of a 1280 px window is 320 CSS px: no page may scroll sideways, nor any box
    in it but a table in its own box (WCAG 1.4.10). On About, the recipe's source is
    opened: code wraps (numbered lines show where a line goes on), it does not scroll.

    The page is open at a phone's size, its sidebar collapsed on load as it is at 320 px;
    the window is narrowed to 320 px here (each open costs Chromium seconds of CPU)."""
    if name == "step":
        app.wait_view(0)
    elif name in ("tokenize", "compare", "runs"):
        app.page.locator(".bpe-tokens .bpe-t").first.wait_for()
    elif name == "about":
        app.page.get_by_text("The whole recipe in Python").click()
        app.page.locator("[data-testid=stCode]").wait_for()
    app.page.set_viewport_size({"width": 320, "height": 640})
    assert app.page.evaluate(_SETTLED_JS, [SETTLE_MS, 15_000]), f"{name}: still changing"
    sideways = app.page.evaluate(_SIDEWAYS_JS, TABLES_MAY_SCROLL)
    app.screenshot(screenshots / f"reflow-320-{name}.png")
    assert sideways == [], f"{name} scrolls sideways at 320 px: {sideways}"
    app.assert_clean()


def switch(app: AppPage, name: str) -> Any:
    """One of the step view's checkboxes by its label."""
    return app.page.locator(".bpe-root label").filter(has_text=name).locator("input")


def test_the_step_page_keys_show_with_a_keyboard_and_the_colours_are_said(app: AppPage) -> None:
    app.page.set_viewport_size({"width": 1366, "height": 900})
    app.open("step", step=2)
    app.wait_view(2)
    page = app.page
    keys = page.locator(".bpe-step .bpe-keys-short")
    assert not keys.is_visible(), "the key line shows before any key is used"
    assert page.locator(".bpe-step .bpe-keys").bounding_box()["height"] <= 1  # said, not shown
    legend = page.locator(".bpe-step .bpe-legend").inner_text()
    assert "colour = token id; the same token, the same colour" in legend
    paces = page.locator("select.bpe-pace option").all_inner_texts()
    assert paces == ["20 steps / s", "5 steps / s", "2 steps / s", "1 step / s", "0.5 steps / s"]
    first_token = page.locator(".bpe-scroll .bpe-t").first.bounding_box()
    # At 1366x900 one line of tokens was on the first screen; now several are.
    assert first_token["y"] + 4 * first_token["height"] <= 900, first_token
    app.step_button("Next").focus()
    page.keyboard.press("Tab")  # focus moved by a key: the key line shows
    page.keyboard.press("Shift+Tab")
    keys.wait_for(state="visible")
    app.assert_clean()


def test_after_a_quiz_answer_there_is_one_way_on(app: AppPage) -> None:
    """Answered: the card's Next question is the way on (the bar's Next is hidden), and the
    numbers are those after the merge the answer revealed (step 1 -> merge 2 done)."""
    app.open("step", step=1)
    app.wait_view(1)
    page = app.page
    switch(app, "Guess the next merge").check()
    app.wait_view(1, "quiz")
    page.locator(".bpe-choice[data-row='1']").click()
    page.locator(".bpe-verdict").wait_for()
    assert not app.step_button("Next ›").is_visible()
    assert page.get_by_role("button", name="Next question ›").is_visible()
    merges = page.locator(".bpe-metric").filter(has_text="Merges done").inner_text()
    assert merges.split("\n")[-1].startswith("2 of"), merges
    rows = {box["y"] for box in (c.bounding_box() for c in page.locator(".bpe-choice").all())}
    assert len(rows) == 1 or page.viewport_size["width"] < 700, "a marked choice wrapped"
    app.assert_clean()


def test_windows_line_ends_and_no_break_spaces_are_in_the_legend(app: AppPage) -> None:
    app.open("tokenize", tok_model="cl100k_base", tok_text="one\r\ntwo\u00a0three")
    legend = app.page.locator(".st-key-tok_spans .bpe-legend").inner_text()
    assert "␍ carriage return" in legend and "⍽ no-break space" in legend
    assert "⇥" not in legend  # no tab drawn, none keyed
    app.assert_clean()


def test_compare_it_opens_on_the_uploaded_file(app: AppPage) -> None:
    from bpeviz.engine.history import train
    from bpeviz.formats.minbpe import to_minbpe_model

    model = to_minbpe_model(train("aaabdaaabac", 259).tokenizer).encode()
    app.open("export")
    app.upload_files(
        ".st-key-export_model_files input[type=file]",
        [{"name": "wiki.model", "mimeType": "application/octet-stream", "buffer": model}],
    )
    app.rerun(lambda: app.page.get_by_role("button", name="Compare it").click())
    app.page.locator("h1").filter(has_text="Compare tokenizers").wait_for()
    shown = app.page.locator(".st-key-cmp_left").evaluate(
        "box => box.textContent + [...box.querySelectorAll('input')].map((i) => i.value).join()"
    )
    assert "wiki.model" in shown, shown  # the menu names the file by its file name
    assert "Imported" not in shown, shown
    link = app.page.evaluate("new URLSearchParams(location.search).get('cmp_left')")
    assert link == "Imported", link  # the link keeps the option's key
    app.assert_clean()
