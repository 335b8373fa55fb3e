"""What a lecturer found wrong on screen (issue 18), in the app: the link follows the view at
once, the quiz and Show pieces travel in the link, and the Token ids view's legend names only
what it draws."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlparse

import pytest

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser


def query(app: AppPage) -> dict[str, str]:
    return {key: values[-1] for key, values in parse_qs(urlparse(app.page.url).query).items()}


def switch(app: AppPage, name: str) -> Any:
    return app.page.locator(".bpe-root label").filter(has_text=name).locator("input")


def wait_drawn(app: AppPage, selector: str) -> None:
    """Wait until the view has drawn and ``selector`` is in it."""
    app.page.wait_for_function(
        """(selector) => {
          const root = document.querySelector(".bpe-root.bpe-step");
          return !!root && root.dataset.ready === "true" && !!root.querySelector(selector);
        }""",
        arg=selector,
    )


def test_the_link_follows_the_view_at_once(app: AppPage) -> None:
    """Each change read from the address as soon as the view shows it: before the view's
    report (600 ms after stepping stops) and the server's rerun. The lecturer's copied link
    lagged the view by 1-5 s.

    Opened by a link with a setting: Streamlit then holds a record of the address of its own
    (with none, it sends the address itself), which the server's write must agree with."""
    app.open("step", sample="japanese")
    app.wait_view(0)
    app.step(app.step_button("Next").click, 1)
    assert query(app).get("step") == "1"
    app.step(app.step_button("Next").click, 2)
    assert query(app).get("step") == "2"
    slider = app.page.locator(".bpe-slider")
    slider.focus()
    app.step(lambda: app.page.keyboard.press("ArrowRight"), 3)
    assert query(app).get("step") == "3"
    app.step(app.step_button("Before merge").click, 3, "before")
    assert query(app).get("text_when") == "Before merge" and query(app).get("step") == "3"
    app.step(app.step_button("After merge").click, 3, "after")
    assert "text_when" not in query(app)  # the default is left out, as the server leaves it
    switch(app, "Guess the next merge").check()
    app.wait_view(3, "quiz")
    assert query(app).get("quiz") == "1"
    switch(app, "Show pieces").check()
    wait_drawn(app, ".bpe-pieces-rule:not([hidden])")
    assert query(app).get("pieces") == "1" and query(app).get("quiz") == "1"
    switch(app, "Guess the next merge").uncheck()
    app.wait_view(3, "after")
    assert "quiz" not in query(app) and query(app).get("step") == "3"
    # The server, told a moment later, writes the same address: no entry is added to the
    # browser's history, even when one report both sets a value and drops another.
    app.wait_reported(3)
    assert query(app).get("step") == "3" and query(app).get("pieces") == "1"
    entries = app.page.evaluate("history.length")
    # The quiz on and back to step 0 in one go: a report that sets one value, drops another.
    both = """root => {
      [...root.querySelectorAll("label")].find((l) => l.textContent.includes("Guess"))
        .querySelector("input").click();
      [...root.querySelectorAll("button")].find((b) => b.textContent.includes("First")).click();
    }"""
    app.step(lambda: app.page.locator(app.STEP_ROOT).evaluate(both), 0, "quiz")
    assert "step" not in query(app) and query(app).get("quiz") == "1"
    app.wait_reported(0)
    assert "step" not in query(app) and query(app).get("quiz") == "1"
    assert query(app).get("pieces") == "1"
    assert app.page.evaluate("history.length") == entries
    app.assert_clean()


def test_a_late_answer_from_the_server_does_not_undo_a_newer_step(app: AppPage) -> None:
    """The student steps again the moment the view reports step 1: the server's answer,
    written for step 1, arrives after the view (and the address) moved to step 2. Every
    address the page holds from then on says step 2 (Chromium tells the page of each change
    of address: the Navigation API)."""
    app.open("step", sample="japanese")
    app.wait_view(0)
    app.page.locator(app.STEP_ROOT).evaluate(
        """root => {
          const next = () =>
            [...root.querySelectorAll("button")].find((b) => b.textContent.includes("Next"))
              .click();
          const seen = new MutationObserver(() => {
            if (root.dataset.reported !== "1|after") return;
            seen.disconnect();
            window.__addresses = [];
            navigation.addEventListener("currententrychange", () => {
              window.__addresses.push(location.search);
            });
            next();
          });
          seen.observe(root, { attributes: true, attributeFilter: ["data-reported"] });
          next();
        }"""
    )
    app.wait_view(2)
    app.wait_reported(2)
    addresses = app.page.evaluate("window.__addresses")
    assert addresses, "the address never changed after the second step"
    assert all(parse_qs(search[1:]).get("step") == ["2"] for search in addresses), addresses
    app.assert_clean()


def test_quiz_and_pieces_travel_in_the_link(app: AppPage, new_page: object) -> None:
    app.open("step")
    app.wait_view(0)
    for name in ("Guess the next merge", "Show pieces"):
        app.page.locator(".bpe-root label").filter(has_text=name).locator("input").check()
    # the view reports them once the student pauses; the server puts them in the link
    app.page.wait_for_function(
        "() => /[?&]quiz=1/.test(location.search) && /[?&]pieces=1/.test(location.search)"
    )
    app.wait_idle()
    link = app.page.url
    other = new_page()  # a student opening the link
    other.goto(link)
    other.wait_view(0, "quiz")
    assert other.page.locator(".bpe-root.bpe-quiz-on .bpe-choice").count() >= 2
    assert other.page.locator(".bpe-scroll .bpe-piece").count() > 0
    for name in ("Guess the next merge", "Show pieces"):
        box = other.page.locator(".bpe-root label").filter(has_text=name).locator("input")
        assert box.is_checked(), f"{name} is not checked"
    other.page.locator(".bpe-root label").filter(has_text="Guess the next merge").locator(
        "input"
    ).uncheck()
    other.page.wait_for_function("() => !/[?&]quiz=/.test(location.search)")  # off: left out
    assert query(other).get("pieces") == "1"
    app.assert_clean()
    other.assert_clean()


LEGEND = ".st-key-tok_spans .bpe-legend"


def test_the_token_ids_view_has_no_legend_for_what_it_does_not_draw(app: AppPage) -> None:
    """The page's default text has Japanese (bytes only part of a character, for the trained
    tokenizer) and spaces: the Text view keys both; the Token ids view draws ids, neither."""
    app.open("tokenize")
    text_view = app.page.locator(LEGEND).inner_text()
    assert "only part of a character" in text_view and "space" in text_view
    # switched on the page (a second load of it, by its link, cost a page load)
    app.rerun(app.page.locator(".st-key-tok_view").get_by_text("Token ids", exact=True).click)
    assert "tok_view=Token+ids" in app.page.url
    app.page.wait_for_function(  # the spans drawn again, as ids
        """() => /^\\d+$/.test(document.querySelector(
          '.st-key-tok_spans .bpe-root[data-ready="true"] .bpe-scroll .bpe-t')?.textContent
          ?? "")"""
    )
    ids_view = app.page.locator(LEGEND).inner_text() if app.page.locator(LEGEND).count() else ""
    assert "only part of a character" not in ids_view and "space" not in ids_view
    app.assert_clean()
