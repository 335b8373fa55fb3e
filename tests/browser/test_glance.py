"""Every page read in one look, at a laptop's, a desktop's and a phone's size: no text cut
short (an element with ``text-overflow: ellipsis`` whose text overflows it, or a ``…`` the
data does not hold), and no two labels of a chart drawn over each other.

What the data holds is left out of the ``…`` check: token views (``.bpe-root``: a text may
hold ``…``, as the Tokenize page's default does) and what a person typed (inputs and text
areas). Charts: the Step page's SVG chart and the Altair charts (Streamlit has Vega draw
them as SVG), each label's box against every other label's of the same chart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

SIZES = {"1280x720": (1280, 720), "1366x768": (1366, 768), "1920x1080": (1920, 1080),
         "390x844": (390, 844)}  # fmt: skip
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
  const cut = [];
  for (const e of main.querySelectorAll("*")) {
    const style = getComputedStyle(e);
    if (style.textOverflow === "ellipsis" && e.scrollWidth > e.clientWidth + 1
        && e.textContent.trim() && visible(e))
      cut.push(`${name(e)}: ${e.textContent.trim().slice(0, 60)}`);
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

# Pairs of overlapping text labels within one chart (the Step page's SVG; Vega's SVG).
_OVERLAPS_JS = """
() => {
  const found = [];
  const charts = document.querySelectorAll("svg.bpe-chart, [data-testid='stVegaLiteChart'] svg");
  for (const chart of charts) {
    const boxes = [...chart.querySelectorAll("text")]
      .filter((t) => t.textContent.trim() && t.getClientRects().length)
      .map((t) => [t.textContent.trim(), t.getBoundingClientRect()]);
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


@pytest.mark.parametrize("size", list(SIZES))
def test_no_text_is_cut_and_no_chart_labels_overlap(app: AppPage, size: str) -> None:
    width, height = SIZES[size]
    app.page.set_viewport_size({"width": width, "height": height})
    problems = {}
    for page in PAGES:
        app.open(page)
        if page == "step":
            app.wait_view()
        found = app.page.evaluate(_CUT_JS) + app.page.evaluate(_OVERLAPS_JS)
        if found:
            problems[page] = found
    assert not problems, problems
    app.assert_clean()
