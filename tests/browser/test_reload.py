"""A reload keeps what the student typed: texts too long for the link included.

A pasted text of more than 1,000 characters never goes into the link, and a reload of the
page (F5, or a phone that dropped the tab) lost it: the caption said so, but it was still a
loss. The student's typed texts are what the checks expect back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from test_robustness import choose_source, paste_into

from bpeviz.app.frame.links import MAX_LINK_TEXT_CHARS

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

LONG = "Merges never cross a piece boundary, said the printer. " * (MAX_LINK_TEXT_CHARS // 40)


def reload(app: AppPage) -> None:
    app.page.reload(wait_until="domcontentloaded")
    app.wait_idle()


def test_a_long_paste_in_the_sidebar_survives_a_reload(app: AppPage) -> None:
    assert len(LONG) > MAX_LINK_TEXT_CHARS
    app.open("step")
    choose_source(app, "Paste")
    paste_into(app, ".st-key-paste textarea", LONG)
    assert "paste" not in app.page.url.split("?", 1)[-1].split("&")
    reload(app)
    assert app.page.locator(".st-key-paste textarea").input_value() == LONG
    app.assert_clean()


def test_a_long_text_in_the_tokenize_box_survives_a_reload(app: AppPage) -> None:
    app.open("tokenize")
    paste_into(app, ".st-key-tok_text textarea", LONG)
    reload(app)
    assert app.page.locator(".st-key-tok_text textarea").input_value() == LONG
    app.assert_clean()
