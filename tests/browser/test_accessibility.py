"""Accessibility (issue 19): axe-core over every page, the step view's states and an exported
run; the step view driven by keyboard alone; names and announcements a screen reader reads.

axe-core is npm's package, pinned in ``package.json``/``package-lock.json`` and installed by
``make test`` (``npm ci``) into ``node_modules``; each test injects its ``axe.min.js`` from
disk, so nothing is fetched while the tests run. Without it the axe tests skip and say why;
under ``BPEVIZ_REQUIRE_BROWSER=1`` they fail instead.

The rules run are axe's WCAG 2.0 and 2.1 A and AA rules and its best practices (heading
order, empty table headers). Any violation fails the test, whatever its impact, except inside
Streamlit's own file uploader (:data:`STREAMLIT_EXCLUDED`): its drop zone is a
``<section role="presentation" tabindex="-1">`` (axe's minor ``presentation-role-conflict``),
markup we do not write and cannot change. Streamlit's sidebar, header and toolbar have no
violation under these rules today, so they are checked with the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import keep_screenshot
from sample_runs import sample_history
from step_outline import step_outline

from bpeviz.records.schema import label_runs
from bpeviz.records.step import payload_json
from bpeviz.web import PALETTE, step_page

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
STREAMLIT_EXCLUDED = ['[data-testid="stFileUploaderDropzone"]']
# Each page's document title: its name in the sidebar (app.py), then the app's.
PAGES = {
    "step": "Step through training · bpeviz",
    "tokenize": "Tokenize text · bpeviz",
    "compression": "Compression · bpeviz",
    "compare": "Compare tokenizers · bpeviz",
    "runs": "Two training runs · bpeviz",
    "export": "Export / import · bpeviz",
    "about": "About · bpeviz",
}

_RUN_AXE_JS = """
async ([tags, excluded]) => {
  const context = {include: [document], exclude: excluded.map((selector) => [selector])};
  // Only the violations are read: axe then keeps one node, not all, of every rule that
  // passed or did not apply (its documented resultTypes option), a quarter less of
  // Chromium's CPU on the Step page (3.2 CPU-s a run, now 2.3); the violations are as many.
  const result = await axe.run(
    context, {runOnly: {type: "tag", values: tags}, resultTypes: ["violations"]});
  return result.violations.map((rule) => ({
    id: rule.id, impact: rule.impact,
    nodes: rule.nodes.map((node) => node.target.join(" >> ")).slice(0, 5),
  }));
}
"""


@pytest.fixture(scope="module")
def axe_path(unavailable: Callable[[str], None]) -> Path:
    if not AXE.exists():
        unavailable(f"{AXE.relative_to(REPO)} not found: run `npm ci` (make test does)")
    return AXE


def violations(page: Any, axe: Path) -> list[dict[str, Any]]:
    """axe's violations on ``page`` as it stands (axe injected once per document)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(path=str(axe))
    return list(page.evaluate(_RUN_AXE_JS, [AXE_TAGS, STREAMLIT_EXCLUDED]))


def assert_no_violations(page: Any, axe: Path, where: str) -> None:
    found = violations(page, axe)
    assert found == [], f"axe on {where}:\n" + "\n".join(
        f"{rule['impact']} {rule['id']}: {rule['nodes']}" for rule in found
    )


def switch(page: Any, name: str) -> Any:
    """One of the step view's checkboxes by its label."""
    return page.locator(".bpe-root label").filter(has_text=name).locator("input")


# ---- axe ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PAGES))
def test_axe_finds_nothing_on_the_page_and_its_headings_go_in_order(
    kept_app: AppPage, axe_path: Path, name: str
) -> None:
    """axe on the page as drawn, then its headings (:func:`assert_headings_in_order`): one
    page for both, as each open costs Chromium seconds of CPU. The pages are one session's,
    reached by the sidebar's links (each page's fresh open is test_pages.py's)."""
    app = kept_app
    app.navigate(name)
    if name == "step":
        app.wait_view(0)
    assert_no_violations(app.page, axe_path, name)
    app.page.wait_for_function("title => document.title === title", arg=PAGES[name])
    if name == "step":
        app.step(app.click_next, 1)
        headings = assert_headings_in_order(app.page, "step 1")
        title = app.page.locator(".bpe-card-title")
        assert title.evaluate("e => e.tagName") in {"H2", "H3"}, "the merge card's title"
        assert [level for level, text in headings if text.startswith("Merge 1 of")] != []
    elif name == "runs":  # the card where the runs part is a heading too, in order
        headings = assert_headings_in_order(app.page, name)
        title = app.page.locator(".bpe-card-title").inner_text()
        assert [2, title] in headings, f"the card's title {title!r} is no h2: {headings}"
    else:
        assert_headings_in_order(app.page, name)
    app.assert_clean()


def test_axe_finds_nothing_in_the_step_views_states(app: AppPage, axe_path: Path) -> None:
    """Seven states of the view, on a short text whose tokens take every colour of the
    palette (so every token colour's contrast is checked): the default sample's 5,034 token
    spans made each axe run 3 CPU-s of Chromium's, the same few kinds of span again and again
    (the default page itself: test_axe_finds_nothing_on_the_page_and_its_headings_go_in_order)."""
    app.open("step", sample="low_lower")
    app.wait_view(0)
    page = app.page
    app.step(app.click_next, 1)
    colours = page.evaluate(
        """() => new Set([...document.querySelectorAll('.bpe-scroll .bpe-t')].flatMap(
             (span) => [...span.classList].filter((name) => /^bpe-c\\d+$/.test(name)))).size"""
    )
    assert colours == len(PALETTE), f"{colours} of the palette's {len(PALETTE)} colours drawn"
    assert_no_violations(page, axe_path, "step 1")
    app.step(lambda: app.step_button("Before merge").click(), 1, "before")
    assert_no_violations(page, axe_path, "step 1, before the merge")
    page.locator(".bpe-read summary").click()
    page.locator(".bpe-read-tokens:not(:empty)").wait_for()
    assert_no_violations(page, axe_path, "the tokens read as text")
    page.locator(".bpe-scroll .bpe-t").first.click()
    page.locator(".bpe-inspector").wait_for()
    assert_no_violations(page, axe_path, "the inspector open")
    switch(page, "Show pieces").check()
    app.wait_view(1)
    page.locator(".bpe-piece").first.wait_for()
    assert_no_violations(page, axe_path, "pieces on")
    switch(page, "Guess the next merge").check()
    app.wait_view(1, "quiz")
    assert_no_violations(page, axe_path, "the quiz asked")
    page.locator(".bpe-choice").first.click()
    page.locator(".bpe-verdict").wait_for()
    assert_no_violations(page, axe_path, "the quiz answered")
    app.assert_clean()


def test_axe_finds_nothing_on_an_exported_page(
    browser: Any, axe_path: Path, tmp_path: Path
) -> None:
    path = tmp_path / "english.html"
    path.write_text(
        step_page(payload_json(sample_history("english")), title="English", subtitle="vocab 512"),
        "utf-8",
    )
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    try:
        page = context.new_page()
        page.goto(path.as_uri() + "#step=5&when=after")
        page.wait_for_function(
            "() => document.querySelector('.bpe-root')?.dataset.ready === 'true'"
        )
        assert_no_violations(page, axe_path, "an exported page")
    finally:
        context.close()


# ---- keyboard -----------------------------------------------------------------------------


def focused(page: Any) -> dict[str, Any]:
    """What has focus: its tag, class, data-id, data-row (a quiz choice's), accessible name
    (aria-label) and text."""
    return page.evaluate(
        """() => { const e = document.activeElement;
          return {tag: e.tagName.toLowerCase(), cls: String(e.className), id: e.dataset.id ?? null,
                  row: e.dataset.row ?? null, name: e.getAttribute("aria-label"),
                  text: e.textContent}; }"""
    )


def test_tokens_by_keyboard_alone(app: AppPage) -> None:
    """Tab into the text (one stop), arrows between tokens, Enter inspects, Escape returns."""
    history = sample_history("english")
    app.open("step", step=1)
    app.wait_view(1)
    page = app.page
    app.step_button("After merge").focus()
    page.keyboard.press("Tab")
    assert "bpe-scroll" in focused(page)["cls"], focused(page)
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    second = focused(page)
    ids = history.segmentation(1).ids.tolist()
    assert second["id"] == str(ids[1]), second
    assert page.evaluate("document.activeElement.tabIndex") == -1  # roving: not a Tab stop
    assert app.shown_step() == 1, "the arrows moved between tokens, not between steps"

    page.keyboard.press("Enter")
    inspector = page.locator(".bpe-inspector")
    inspector.wait_for()
    assert "bpe-inspector" in focused(page)["cls"]
    assert inspector.locator("b").inner_text() == f"Token id {ids[1]}"
    assert page.get_by_role("button", name="Close", exact=True).count() == 1
    current = page.locator(".bpe-scroll [aria-current=true]").evaluate_all(
        "spans => spans.map((span) => span.dataset.id)"
    )
    assert current == [str(ids[1])] * ids.count(ids[1])  # every place of it, said in words

    page.keyboard.press("Escape")
    inspector.wait_for(state="detached")
    back = focused(page)
    assert back["id"] == str(ids[1]) and "bpe-t" in back["cls"], back
    assert page.locator(".bpe-scroll [aria-current]").count() == 0

    page.keyboard.press(" ")  # Space inspects too
    inspector.wait_for()
    app.assert_clean()


def test_escape_in_the_text_closes_the_inspector(app: AppPage) -> None:
    """A keyboard user who goes back into the text with the inspector open (to compare
    another token) closes it with Escape there too; focus stays on the token they are on."""
    ids = sample_history("english").segmentation(1).ids.tolist()
    app.open("step", step=1)
    app.wait_view(1)
    page = app.page
    text = page.locator(".bpe-scroll")
    text.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    inspector = page.locator(".bpe-inspector")
    inspector.wait_for()
    assert "bpe-inspector" in focused(page)["cls"]
    text.focus()  # back in the text (Shift+Tab passes the tables and the chart on the way)
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert focused(page)["id"] == str(ids[2]), focused(page)
    page.keyboard.press("Escape")
    inspector.wait_for(state="detached")
    assert focused(page)["id"] == str(ids[2]), "focus stayed on the token"
    assert page.locator(".bpe-scroll [aria-current]").count() == 0
    app.assert_clean()


def test_tokens_by_keyboard_on_tokenize(app: AppPage) -> None:
    """The Tokenize page's tokens are one Tab stop, next after the text box (they are drawn
    right under it, before the tokenizer's choices); arrows, Enter inspects (ids from
    tiktoken's cl100k_base), Escape returns to the token."""
    from tiktoken_oracle import tiktoken_encoding

    text = "Hello world, tokens!"
    ids = tiktoken_encoding("cl100k_base").encode(text)
    app.open("tokenize", tok_text=text, tok_model="cl100k_base")
    page = app.page
    page.locator(".bpe-scroll .bpe-t").first.wait_for()  # drawn after the run, by the component
    page.locator(".st-key-tok_text textarea, textarea").first.focus()
    page.keyboard.press("Tab")
    assert "bpe-scroll" in focused(page)["cls"], focused(page)
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    token = focused(page)
    assert token["id"] == str(ids[-2]), token
    page.keyboard.press("Enter")
    inspector = page.locator(".bpe-inspector")
    inspector.wait_for()
    assert "bpe-inspector" in focused(page)["cls"], focused(page)
    assert inspector.locator("b").inner_text() == f"Token id {ids[-2]}"
    page.keyboard.press("Escape")
    inspector.wait_for(state="detached")
    back = focused(page)
    assert back["id"] == str(ids[-2]) and "bpe-t" in back["cls"], back
    app.assert_clean()


def test_build_tree_and_vocabulary_rows_by_keyboard(app: AppPage) -> None:
    history = sample_history("english")
    k = 40
    app.open("step", step=k)
    app.wait_view(k)
    page = app.page
    page.locator(".bpe-vocab-scroll").focus()
    page.keyboard.press("ArrowDown")
    row = focused(page)
    assert row["tag"] == "tr" and row["id"] == str(history.steps[k - 1].new_id), row
    page.keyboard.press("Enter")
    page.locator(".bpe-inspector").wait_for()
    assert page.locator(".bpe-inspector b").inner_text() == f"Token id {row['id']}"

    page.keyboard.press("Tab")  # the close button, then the tree
    page.keyboard.press("Tab")
    assert "bpe-tree" in focused(page)["cls"], focused(page)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    node = focused(page)
    left = history.steps[k - 1].pair[0]
    assert node["id"] == str(left), node  # the tree's root, then its left child
    page.keyboard.press("Enter")
    page.wait_for_function(
        "id => document.querySelector('.bpe-inspector b')?.textContent === `Token id ${id}`",
        arg=left,
    )
    page.keyboard.press("Escape")
    page.locator(".bpe-inspector").wait_for(state="detached")
    assert focused(page)["id"] == row["id"], "focus went back to the vocabulary row"
    app.assert_clean()


def test_shortcuts_act_only_with_focus_in_the_view(app: AppPage) -> None:
    app.open("step", step=3)
    app.wait_view(3)
    page = app.page
    outside = {  # a sidebar link, and the page's own button in the main area, under the view
        "sidebar link": page.locator('[data-testid="stSidebarNav"] a').first,
        "download button": page.locator(".st-key-pairs_csv button"),
    }
    for where, widget in outside.items():
        widget.focus()
        for key in ("ArrowRight", "ArrowLeft", "Home", "End", "k", "K"):
            page.keyboard.press(key)
            assert page.locator(app.STEP_ROOT).get_attribute("data-step") == "3", (where, key)
        assert app.step_button("Play").count() == 1, f"K on the {where} started autoplay"
    page.locator(".bpe-card").click()  # focus in the view: the keys act
    app.step(lambda: page.keyboard.press("ArrowRight"), 4)
    assert "bpe-keys" in page.locator(".bpe-root .bpe-keys").get_attribute("class")
    app.assert_clean()


def test_presentation_mode_shows_the_keys_on_the_options_line(
    app: AppPage, screenshots: Path
) -> None:
    """On a projector the full key help is left to screen readers (rows are dear at
    1280×720), but a sighted keyboard user still sees the keys and where they act: a short
    line at the end of the step buttons' row, on the first screen, taking no row of its own. It
    says every step key (each acts: K starts autoplay once focus is in the view)."""
    app.page.set_viewport_size({"width": 1280, "height": 720})
    app.open("step", present="true", step=3)
    app.wait_view(3)
    page = app.page
    hint = page.locator(".bpe-step .bpe-keys-short")
    assert hint.is_visible(), "no key help shown in presentation mode"
    text = hint.inner_text()
    assert "view" in text and all(key in text for key in ("←", "→", "Home", "End", "K")), text
    box = hint.bounding_box()
    buttons = app.step_button("Next").bounding_box()
    middle = box["y"] + box["height"] / 2
    on_line = buttons["y"] <= middle <= buttons["y"] + buttons["height"]
    assert on_line, ("not on the step buttons' line", box)
    assert box["y"] + box["height"] <= 720, "below the first screen"
    keep_screenshot(page, screenshots / "presentation-keys-1280x720.png")
    page.locator(".bpe-card").click()
    page.keyboard.press("K")
    app.step_button("Pause").wait_for()
    app.assert_clean()


def test_sidebar_links_show_focus(kept_app: AppPage) -> None:
    """On the page the axe tests above read (the module's one page: no open of its own)."""
    app = kept_app
    app.navigate("about")
    links = app.page.locator('[data-testid="stSidebarNav"] a')
    links.first.focus()
    app.page.keyboard.press("Tab")  # focus moved by the keyboard: :focus-visible
    style = app.page.evaluate(
        """() => { const s = getComputedStyle(document.activeElement);
                   return [document.activeElement.tagName, s.outlineStyle, s.outlineColor]; }"""
    )
    assert style == ["A", "solid", "rgb(0, 114, 178)"], style


def test_the_quiz_by_keyboard(app: AppPage) -> None:
    app.open("step", step=1)
    app.wait_view(1)
    page = app.page
    switch(page, "Guess the next merge").focus()
    page.keyboard.press("Space")
    app.wait_view(1, "quiz")
    page.keyboard.press("Tab")  # from the switch to the first choice
    assert "bpe-choice" in focused(page)["cls"], focused(page)
    if focused(page)["row"] == "0":  # the right one: Tab on to a wrong guess
        page.keyboard.press("Tab")
    assert focused(page)["row"] not in {None, "0"}, focused(page)
    page.keyboard.press("Enter")
    page.locator(".bpe-verdict").wait_for()
    assert focused(page)["text"].startswith("Next question"), focused(page)
    assert page.locator(".bpe-verdict").inner_text().startswith("✗ Not this one")
    wrong = page.locator(".bpe-choice.bpe-wrong .bpe-mark").inner_text()
    right = page.locator(".bpe-choice.bpe-right .bpe-mark").inner_text()
    assert (wrong, right) == ("✗ your guess", "✓ right")
    assert page.locator(".bpe-root [aria-live=polite]").inner_text().startswith("Not this one")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
    assert outline != "none", "focus on Next question is visible"

    page.keyboard.press("Enter")
    app.wait_view(2, "quiz")
    first = page.locator(".bpe-choice").first
    assert first.evaluate("choice => choice === document.activeElement"), focused(page)
    ring = first.evaluate(
        """(e) => { const s = getComputedStyle(e);
          return [e.matches(":focus-visible"), s.outlineStyle, s.outlineColor]; }"""
    )
    assert ring == [True, "solid", "rgb(0, 114, 178)"], ring
    app.assert_clean()


# ---- what a screen reader reads -----------------------------------------------------------


def label_of(data: bytes) -> str:
    """A token's text as the engine labels its bytes (its runs joined)."""
    runs = label_runs(data)
    return runs if isinstance(runs, str) else "".join(runs)


def label(history: Any, token_id: int) -> str:
    """A token's text as the engine labels it."""
    return label_of(history.tokenizer.token_bytes(token_id))


def test_steps_are_announced_and_tokens_named(app: AppPage) -> None:
    history = sample_history("english")
    merges = history.merge_count
    app.open("step")
    app.wait_view(0)
    page = app.page
    live = page.locator(".bpe-root [aria-live=polite]")
    app.step(app.click_next, 1)
    step = history.steps[0]
    left, right = step.pair
    tokens = len(history.segmentation(1).ids)
    assert live.inner_text() == (
        f"Merge 1 of {merges}: {label(history, left)} + {label(history, right)} → "
        f"{label(history, step.new_id)}; {tokens:,} tokens in the text."
    )
    assert page.locator(".bpe-slider").get_attribute("aria-valuetext") == f"1 of {merges}"
    assert app.step_button("After merge").get_attribute("aria-pressed") == "true"

    app.step(lambda: app.step_button("Before merge").click(), 1, "before")
    assert app.step_button("Before merge").get_attribute("aria-pressed") == "true"
    names = page.locator(".bpe-scroll .bpe-t").evaluate_all(
        "spans => spans.map((span) => span.getAttribute('aria-label'))"
    )
    outline = step_outline(history, 1, before=True)
    words = {"ps": ", start of the pair about to merge", "pe": ", end of the pair about to merge",
             "new": ", new token", "": ""}  # fmt: skip
    want = [
        f"{label(history, token_id)}, id {token_id}{words[mark]}"
        for token_id, mark in zip(outline.shown.ids.tolist(), outline.marks, strict=True)
    ]
    assert names == want
    assert any("start of the pair about to merge" in name for name in names)
    chart = page.locator(".bpe-chart").get_attribute("aria-label")
    assert chart.endswith(f"at step 1: {len(history.segmentation(1).ids):,}.")
    app.assert_clean()


def test_an_exported_page_reflows_at_320_px(browser: Any, tmp_path: Path) -> None:
    """400% zoom of a 1280 px window is 320 CSS px: nothing may need sideways scrolling
    (WCAG 1.4.10)."""
    path = tmp_path / "english.html"
    path.write_text(
        step_page(payload_json(sample_history("english")), title="English", subtitle="vocab 512"),
        "utf-8",
    )
    context = browser.new_context(viewport={"width": 320, "height": 256})
    try:
        page = context.new_page()
        page.goto(path.as_uri() + "#step=5&when=after")
        page.wait_for_function(
            "() => document.querySelector('.bpe-root')?.dataset.ready === 'true'"
        )
        wide = page.evaluate(
            """() => { const width = document.documentElement.clientWidth;
              return [...document.querySelectorAll("body *")]
                .filter((e) => e.getBoundingClientRect().right > width + 1)
                .map((e) => e.tagName + "." + (e.className.baseVal ?? e.className)); }"""
        )
        assert wide == [], f"past the right edge at 320 px: {wide}"
    finally:
        context.close()


def test_side_by_side_token_boxes_have_their_own_names(app: AppPage) -> None:
    """Compare and Two runs draw two boxes of tokens: a screen reader must not hear the same
    name twice, and each name says whose tokens they are; each box has its tokens as text."""
    for page_name, sides in (
        ("compare", ("cl100k_base", "o200k_base")),
        ("runs", ("Run A", "Run B")),
    ):
        if page_name == "compare":
            app.open("compare", cmp_left=sides[0], cmp_right=sides[1])
        else:
            app.navigate("runs")
        boxes = app.page.locator(".bpe-scroll.bpe-tokens")
        boxes.nth(1).wait_for()
        names = boxes.evaluate_all("boxes => boxes.map((box) => box.getAttribute('aria-label'))")
        assert len(names) == 2 and len(set(names)) == 2, f"{page_name}: {names}"
        for name, side in zip(names, sides, strict=True):
            assert side in name, f"{page_name}: {name!r} does not say {side}"
        readers = app.page.locator(".bpe-read-tokens").evaluate_all(
            "boxes => boxes.map((box) => box.getAttribute('aria-label'))"
        )
        assert readers == [f"{name}, as text" for name in names], f"{page_name}: {readers}"
        app.assert_clean()


_HEADINGS_JS = """() => [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")]
  .filter((h) => h.getClientRects().length && h.textContent.trim())
  .map((h) => [Number(h.tagName[1]), h.textContent.trim()])"""


def assert_headings_in_order(page: Any, where: str) -> list[list[Any]]:
    """The page's shown headings start with one h1 and never skip a level going down."""
    headings = page.evaluate(_HEADINGS_JS)
    assert headings and headings[0][0] == 1, f"{where}: {headings}"
    assert [level for level, _ in headings].count(1) == 1, f"{where}: {headings}"
    for (before, _), (level, text) in pairwise(headings):
        assert level <= before + 1, f"{where}: h{level} {text!r} after h{before}: {headings}"
    return headings


# What scrolls sideways: the page itself, or any box on screen that scrolls, except data
# tables, each in its own named box (WCAG 1.4.10 excepts content that needs its two dimensions
# to mean anything, as a table's rows and columns or a chart; no chart here needs it). The
# collapsed sidebar waits off screen, to the left: it is not on screen.
_SIDEWAYS_JS = """(tables) => [document.scrollingElement, ...document.querySelectorAll("body *")]
  .filter((e) => e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0
    && e.getBoundingClientRect().right > 0
    && (e === document.scrollingElement
        || ["auto", "scroll"].includes(getComputedStyle(e).overflowX) && !e.closest(tables)))
  .map((e) => `${e.tagName}.${String(e.className).slice(0, 50)} ${e.scrollWidth}>${e.clientWidth}`)
"""
TABLES_MAY_SCROLL = "[data-testid=stDataFrame], [data-testid=stTable], table, .bpe-vocab-scroll"


# Each page at 320 px (WCAG 1.4.10, _SIDEWAYS_JS) is checked in test_glance.py's phone pass:
# opened at 390x844 (its sidebar collapsed on load, as at 320), then narrowed to 320 px after
# its own checks, one open for both (test_glance.assert_reflows_at_320_px).


def test_the_tokens_read_as_text(app: AppPage) -> None:
    """A blind student can read the text's tokens at step k in order, one after another, from
    a text alternative: "Read the tokens" lists them, separated, as the engine cuts them."""
    history = sample_history("english")
    app.open("step")
    app.wait_view(0)
    app.step(app.click_next, 1)
    page = app.page
    reader = page.locator(".bpe-read")
    reader.locator("summary").click()
    reader.locator(".bpe-read-tokens:not(:empty)").wait_for()  # written on the toggle event
    outline = step_outline(history, 1, before=False)
    pieces = [label(history, token_id) for token_id in outline.shown.ids.tolist()]
    text = reader.locator(".bpe-read-tokens").inner_text()
    assert text == " | ".join(pieces)
    count = reader.locator("summary").inner_text()
    assert f"{len(pieces):,} tokens" in count
    app.step(app.click_next, 2)
    two = step_outline(history, 2, before=False).shown.ids.tolist()
    assert reader.locator(".bpe-read-tokens").inner_text() == " | ".join(
        label(history, token_id) for token_id in two
    )
    app.assert_clean()


def test_the_tokens_read_as_text_on_tokenize(app: AppPage) -> None:
    """Every page that draws a text's tokens offers the same reader: on Tokenize, the tokens
    cl100k_base gives a short text, ids and bytes from tiktoken (its published ranks), in
    order; 🙂 is two tokens of partial bytes, read as bytes."""
    from tiktoken_oracle import tiktoken_encoding

    text = "Hello world, naïve tokens 🙂!"
    encoding = tiktoken_encoding("cl100k_base")
    pieces = [label_of(encoding.decode_single_token_bytes(i)) for i in encoding.encode(text)]
    app.open("tokenize", tok_text=text, tok_model="cl100k_base")
    reader = app.page.locator(".bpe-read")
    assert reader.count() == 1, "one reader, under the text's tokens (none in the trace)"
    summary = reader.locator("summary")
    assert summary.inner_text().startswith(f"Read the tokens as text: {len(pieces)} tokens")
    summary.click()
    reader.locator(".bpe-read-tokens:not(:empty)").wait_for()  # written on the toggle event
    assert reader.locator(".bpe-read-tokens").inner_text() == " | ".join(pieces)
    app.assert_clean()


@pytest.mark.parametrize("reduce", [True, False], ids=["reduced motion", "motion"])
def test_reduced_motion_is_kept(app: AppPage, reduce: bool) -> None:
    """With ``prefers-reduced-motion: reduce`` nothing slides on Next (and "Animate merges"
    starts off); without it, the merge slides (so the check can fail)."""
    page = app.page
    page.emulate_media(reduced_motion="reduce" if reduce else "no-preference")
    app.open("step")
    app.wait_view(0)
    assert switch(page, "Animate merges").is_checked() is not reduce
    page.evaluate(
        """() => { window.slid = false;
          new MutationObserver(() => { window.slid ||= !!document.querySelector(".bpe-sliding"); })
            .observe(document.querySelector(".bpe-root"),
                     {attributes: true, subtree: true, childList: true}); }"""
    )
    app.step(app.click_next, 1)
    assert page.evaluate("window.slid") is not reduce
    app.assert_clean()


_BEFORE_CONTENT_JS = "(e) => getComputedStyle(e, '::before').content"


def test_chosen_toggles_show_it_without_colour(app: AppPage) -> None:
    """The chosen one of a set of buttons says so to a screen reader (aria-pressed, or
    aria-checked on Streamlit's segmented controls) and to the eye with a ✓, not by colour
    alone (WCAG 1.4.1): Before/After merge on Step, Text/Token ids on Tokenize."""
    app.open("step")
    app.wait_view(0)
    app.step(app.click_next, 1)
    chosen, other = app.step_button("After merge"), app.step_button("Before merge")
    assert (chosen.get_attribute("aria-pressed"), other.get_attribute("aria-pressed")) == (
        "true",
        "false",
    )
    assert "✓" in chosen.evaluate(_BEFORE_CONTENT_JS)
    assert "✓" not in other.evaluate(_BEFORE_CONTENT_JS)
    app.navigate("tokenize")
    segments = app.page.locator("[data-testid=stButtonGroup] button[role=radio]")
    segments.first.wait_for()
    states = segments.evaluate_all(
        f"""(buttons) => buttons.map((b) => [b.getAttribute("aria-checked"),
                                              ({_BEFORE_CONTENT_JS})(b)])"""
    )
    assert any(checked == "true" for checked, _ in states)
    for checked, mark in states:
        assert ("✓" in mark) is (checked == "true"), states
    app.assert_clean()
