"""What a lecturer found wrong on screen (issue 18), in the app: the quiz and Show pieces
travel in the link, and the Token ids view's legend names only what it draws."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlparse

import pytest

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser


def query(app: AppPage) -> dict[str, str]:
    return {key: values[-1] for key, values in parse_qs(urlparse(app.page.url).query).items()}


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
    app.open("tokenize", tok_view="Token ids")
    app.page.locator('.st-key-tok_spans .bpe-root[data-ready="true"]').wait_for()
    ids_view = app.page.locator(LEGEND).inner_text() if app.page.locator(LEGEND).count() else ""
    assert "only part of a character" not in ids_view and "space" not in ids_view
    app.assert_clean()
