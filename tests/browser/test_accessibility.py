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
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from sample_runs import sample_history

from bpeviz.stepdata import payload_json
from bpeviz.web import step_page

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
STREAMLIT_EXCLUDED = ['[data-testid="stFileUploaderDropzone"]']
PAGES = ["step", "tokenize", "compression", "compare", "runs", "export", "about"]

_RUN_AXE_JS = """
async ([tags, excluded]) => {
  const context = {include: [document], exclude: excluded.map((selector) => [selector])};
  const result = await axe.run(context, {runOnly: {type: "tag", values: tags}});
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


@pytest.mark.parametrize("name", PAGES)
def test_axe_finds_nothing_on_the_page(app: AppPage, axe_path: Path, name: str) -> None:
    app.open(name)
    if name == "step":
        app.wait_view(0)
    assert_no_violations(app.page, axe_path, name)
    app.assert_clean()


def test_axe_finds_nothing_in_the_step_views_states(app: AppPage, axe_path: Path) -> None:
    app.open("step")
    app.wait_view(0)
    page = app.page
    app.step(app.click_next, 1)
    assert_no_violations(page, axe_path, "step 1")
    app.step(lambda: app.step_button("Before merge").click(), 1, "before")
    assert_no_violations(page, axe_path, "step 1, before the merge")
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
