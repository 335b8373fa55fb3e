"""Browser tests: a lecture hall (issue 28). A teacher on a laptop or a projector, students
on phones (390x844, touch).

The expected values are the issue's own: at 390x844 the element under the centre of Next
is Next at every scroll position (not Streamlit's header, not the class bar); the merge
just made stays named on screen after Next; a student who joined by code has the sidebar
closed and a class bar of one line; the projector's code is at least 72 px tall.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import _MESSAGE_COUNTER_JS, AppPage
from test_live_class import start_class, wait_connected

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}

# What is drawn at the centre of `el` is `el` or inside it (a tap there reaches it).
_TAPPABLE = """(el) => { const r = el.getBoundingClientRect();
  if (r.height <= 0 || r.top < 0 || r.bottom > window.innerHeight) return false;
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return el === hit || el.contains(hit); }"""

# Scroll Streamlit's main area (the window does not scroll: stMain does) to `to`
# ("bottom", or a number of pixels), and say where it stands.
_SCROLL = """(to) => { const main = document.querySelector('[data-testid="stMain"]');
  const boxes = [main, document.scrollingElement].filter(Boolean);
  for (const box of boxes) box.scrollTop = to === "bottom" ? box.scrollHeight : to;
  return Math.max(...boxes.map((box) => box.scrollTop)); }"""


def phone_page(browser: Any, base_url: str) -> AppPage:
    """A student's phone: 390x844, touch, no hover."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-US")
    context.add_init_script(_MESSAGE_COUNTER_JS)
    context.set_default_timeout(30_000)
    page = context.new_page()
    app_page = AppPage(page, base_url)
    page.on("pageerror", lambda error: app_page.errors.append(f"pageerror: {error}"))
    return app_page


def join_by_typing(phone: AppPage, code: str) -> None:
    """Open the sidebar, type the code from the projector into the Live class box."""
    phone.open("step")
    phone.page.locator('[data-testid="stExpandSidebarButton"]').click()
    phone.page.get_by_text("Live class", exact=True).first.click()
    box = phone.page.get_by_label("Join with a class code")
    box.fill(code.lower())
    box.press("Enter")
    phone.page.wait_for_selector(".bpe-class-student", timeout=30_000)
    phone.page.wait_for_function("() => window.bpevizClass && window.bpevizClass.status === 'live'")
    phone.wait_idle()


@pytest.fixture
def phone_in_class(app: AppPage, browser: Any, app_server: Any) -> Any:
    code = start_class(app)
    phone = phone_page(browser, app_server.url)
    try:
        join_by_typing(phone, code)
        wait_connected(app, 1)
        yield app, phone, code
    finally:
        phone.page.context.close()


def test_a_phone_that_joined_by_code_has_the_sidebar_closed_and_a_one_line_bar(
    phone_in_class: Any, screenshots: Any
) -> None:
    _, phone, _ = phone_in_class
    phone.page.wait_for_function(
        "() => document.querySelector('[data-testid=\"stSidebar\"]').dataset.collapsed === 'true'"
    )
    bar = phone.page.locator(".bpe-class-student").bounding_box()
    assert bar is not None and bar["height"] <= 60, f"the class bar is {bar} tall on a phone"
    phone.page.screenshot(path=str(screenshots / "lecture_phone_joined_390x844.png"))
    phone.assert_clean()


def test_a_phone_can_tap_next_at_every_scroll_position(
    phone_in_class: Any, screenshots: Any
) -> None:
    """The student explores (their own Next), scrolls to the bottom of the long Step page,
    and taps Next: the tap reaches Next, and the merge just made is named on screen."""
    _, phone, _ = phone_in_class
    phone.wait_view(0)
    phone.page.get_by_role("button", name="Explore").click()
    next_button = phone.step_button("Next")
    for k, where in enumerate(["bottom", 900, 0, "bottom"], start=1):
        phone.page.evaluate(_SCROLL, where)
        assert next_button.evaluate(_TAPPABLE), f"Next is not tappable scrolled to {where}"
        box = next_button.bounding_box()
        assert box is not None
        phone.page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        phone.wait_view(k)
        summary = phone.page.locator(".bpe-merge-line")
        assert summary.evaluate(_TAPPABLE.replace("el === hit || el.contains(hit)", "true"))
        assert f"Merge {k}" in summary.inner_text(), summary.inner_text()
    phone.page.screenshot(path=str(screenshots / "lecture_phone_next_at_bottom_390x844.png"))
    phone.assert_clean()
