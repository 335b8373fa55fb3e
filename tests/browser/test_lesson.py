"""The guided lesson in a real browser (issue 18): the bundled lesson played from its first
slide to its last with the bar's button and a clicker's PageDown, keys typed in a box left
alone, and a teacher's lesson file loaded, a malformed one included (a clear message, and
the lesson and view kept)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import keep_screenshot
from test_accessibility import AXE, REPO, assert_no_violations

from bpeviz.app.lesson.slides import PRESENTERS, bundled_lessons

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

PAGE_TITLES = {
    "step": "Step through training",
    "tokenize": "Tokenize text",
    "compression": "Compression",
    "runs": "Two training runs",
    "about": "About bpeviz",
}
SLIDES = len(bundled_lessons()["bpe"].slides)  # "slide i of n" on the bar
SIDEBAR = '[data-testid="stSidebar"]'
UPLOADER = ".st-key-lesson_upload"


def bar(app: AppPage) -> str:
    """The lesson bar's line: the slide's title, "slide i of n", the lesson's title."""
    return str(app.page.locator(".st-key-lesson_bar").inner_text())


def wait_slide(app: AppPage, number: int, total: int) -> None:
    app.page.locator(".st-key-lesson_bar").filter(has_text=f"slide {number} of {total}").wait_for(
        timeout=60_000
    )
    app.wait_idle()


def heading(app: AppPage) -> str:
    return str(app.page.locator('[data-testid="stMain"] h1').first.inner_text())


def check_slide(app: AppPage, number: int) -> None:
    """The slide's page, its step (Step page) and no error of any kind."""
    lesson = bundled_lessons()["bpe"]
    slide = lesson.slides[number - 1]
    wait_slide(app, number, len(lesson.slides))
    assert slide.title in bar(app)
    assert heading(app).startswith(PAGE_TITLES[slide.page]), (number, heading(app))
    if slide.page == "step":
        app.wait_view(int(slide.view.get("step", 0)))
    app.assert_clean()
    assert not app.alerts("Error"), (number, app.alerts("Error"))
    assert f"slide={number}" in app.page.url and "lesson=bpe" in app.page.url


def press(app: AppPage, key: str) -> None:
    app.rerun(lambda: app.page.keyboard.press(key))


@pytest.fixture
def axe(unavailable: Callable[[str], None]) -> Path:
    """axe-core, as tests/browser/test_accessibility.py finds it."""
    if not AXE.exists():
        unavailable(f"{AXE.relative_to(REPO)} not found: run `npm ci` (make test does)")
    return AXE


# A slide of each page the bundled lesson visits (Tokenize, the Step page's quiz, Two runs,
# Compression, a Unigram run on the Step page, About), its first and its last (a button
# disabled): where axe looks at the bar.
AXE_SLIDES = (1, 8, 10, 11, 18, 19, 20)


def test_axe_finds_nothing_on_a_slide_with_its_notes_open(app: AppPage, axe: Path) -> None:
    app.open("step", lesson="bpe", slide=6, sample="aaabdaaabac", step=2)
    wait_slide(app, 6, SLIDES)
    app.wait_view(2)
    app.page.get_by_role("button", name="Speaker notes").click()
    app.page.get_by_text("Before merge 2 two pairs are tied").wait_for()
    assert_no_violations(app.page, axe, "a lesson's slide and its speaker notes")


def test_page_down_typed_in_a_text_box_does_not_change_the_slide(app: AppPage) -> None:
    app.open("step", lesson="bpe")
    wait_slide(app, 1, SLIDES)
    box = app.page.get_by_label("Text to tokenize")
    box.click()
    box.press("PageDown")  # the box's own key: scrolls the text, nothing sent
    app.page.locator('[data-testid="stMain"] h1').first.click()
    press(app, "PageDown")
    check_slide(app, 2)  # one slide on, not two


BAD_LESSON = b'title = "Mine"\n[[slides]]\ntitle = "Home"\npage = "home"\n'
GOOD_LESSON = (
    b'title = "Two views"\n[[slides]]\ntitle = "Ties"\npage = "step"\n'
    b'[slides.view]\nsample = "ties"\nstep = 1\n'
    b'[[slides]]\ntitle = "About"\npage = "about"\n'
)


def upload_lesson(app: AppPage, name: str, data: bytes) -> None:
    expander = app.page.locator(SIDEBAR).get_by_text("Lesson", exact=True)
    if not app.page.locator(f"{UPLOADER} input[type=file]").is_visible():
        expander.click()
    app.upload_files(
        f"{UPLOADER} input[type=file]",
        [{"name": name, "mimeType": "application/toml", "buffer": data}],
    )


def test_a_malformed_lesson_says_what_to_fix_and_keeps_the_lesson_and_view(
    app: AppPage,
) -> None:
    app.open("step", lesson="bpe", slide=4, sample="cat_sat", step=1)
    wait_slide(app, 4, SLIDES)
    app.wait_view(1)
    upload_lesson(app, "mine.toml", BAD_LESSON)
    # the message is the state to wait for: a loaded machine draws it a rerun after the
    # upload's first (a run of this file with the lecture-hall tests read no error box)
    boxes = app.page.locator('[data-testid="stAlertContentError"]')
    boxes.filter(has_text="mine.toml").first.wait_for(timeout=60_000)
    errors = " ".join(app.alerts("Error"))
    assert "mine.toml: Slide 1 (Home)'s page 'home' is not one of: step, tokenize" in errors
    assert "The lesson and the view you had are kept." in errors
    assert "Traceback" not in app.page.content()
    wait_slide(app, 4, SLIDES)  # nothing lost: the same slide, page, step and link
    assert app.shown_step() == 1
    assert re.search(r"[?&]sample=cat_sat\b", app.page.url)
    app.assert_clean()

    upload_lesson(app, "good.toml", GOOD_LESSON)  # a good file replaces it, message gone
    wait_slide(app, 1, 2)
    assert "Ties" in bar(app) and "Two views" in bar(app)
    assert app.shown_step() == 1
    assert not app.alerts("Error")
    assert "lesson_file=z1." in app.page.url  # an uploaded lesson travels whole in the link


# The text's first token on a page that shows one (tests/browser/test_projector.py).
FIRST_TOKEN = {
    "step": ".bpe-step .bpe-scroll .bpe-t",
    "tokenize": ".st-key-tok_spans .bpe-scroll .bpe-t",
}


def in_first_screen(app: AppPage, selector: str) -> bool:
    """Whether the element's box lies wholly inside the window, unscrolled."""
    return bool(
        app.page.evaluate(
            """selector => {
              const box = document.querySelector(selector)?.getBoundingClientRect();
              return !!box && box.height > 0 && box.top >= 0 && box.bottom <= innerHeight;
            }""",
            selector,
        )
    )


def phone_link(app: AppPage) -> str:
    """The projector's slide, as its own link opened without presentation mode."""
    return app.page.url.replace("present=true", "present=false")


def slide_settings(url: str) -> dict[str, list[str]]:
    """A link's settings, whatever their order, but for the presenter's own (presentation
    mode, its Focus view: a phone not presenting leaves them out)."""
    settings = parse_qs(urlsplit(url).query)
    return {key: value for key, value in settings.items() if key not in PRESENTERS}


PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 900}  # conftest's window: the lesson as a laptop shows it


def sidebar_collapsed(app: AppPage) -> bool:
    return bool(app.page.locator(f'{SIDEBAR}[data-collapsed="true"]').count())


def axe_on_a_laptop(app: AppPage, axe: Path, number: int) -> None:
    """Slide ``number`` as a laptop shows it, the sidebar's Lesson box open: axe finds
    nothing, and no error; then the page is the phone it was (the sidebar collapsed, as a
    phone opens it, and 390×844)."""
    app.page.set_viewport_size(LAPTOP)
    # As on a slide opened by its link: no tooltip of the button just clicked.
    app.page.mouse.move(0, 400)
    app.page.wait_for_function(
        "() => !document.querySelector('#stFloatingOverlayPortal')?.childElementCount"
    )
    if sidebar_collapsed(app):
        app.page.locator('[data-testid="stExpandSidebarButton"]').click()
    end = app.page.get_by_role("button", name="End the lesson")
    if not end.is_visible():
        app.page.locator(SIDEBAR).get_by_text("Lesson", exact=True).click()
    end.wait_for()
    assert_no_violations(app.page, axe, f"slide {number} of the bundled lesson")
    app.assert_clean()
    if not sidebar_collapsed(app):
        app.page.get_by_role("button", name="Collapse sidebar").click()
        app.page.locator(f'{SIDEBAR}[data-collapsed="true"]').wait_for(state="attached")
    app.page.set_viewport_size(PHONE)


@pytest.mark.timeout(480)  # twenty slides on two pages, seven axe runs: minutes under load
def test_the_bundled_lesson_plays_from_first_slide_to_last_as_the_back_row_sees_it(
    app: AppPage, new_page: Any, screenshots: Path, axe: Path
) -> None:
    """Each slide on a projector (1280×720 and 1920×1080, presentation mode) and on a phone
    (390×844, on the slide's own link): the slide's controls on the first screen, no sideways
    scrolling on the phone, a screenshot of each to look at.

    The phone plays the lesson as a person does, from the first slide's link: Next slide
    clicked on odd slides, PageDown pressed on even ones (what a presenter's clicker sends),
    each slide's page, step, link and no error checked (:func:`check_slide`), its address the
    slide's own link but for the presenter's settings; at the last slide Next is disabled and
    PageUp goes back one. On the slides of :data:`AXE_SLIDES` the phone is a laptop for a
    moment (1366×900, the sidebar's Lesson box open): axe finds nothing in the bar.

    One walk for all of it: opening each slide's link afresh cost twenty page loads, 43 s in
    CI, and a laptop's walk of its own twenty more reruns (40 s)."""
    lesson = bundled_lessons()["bpe"]
    total = len(lesson.slides)
    assert max(AXE_SLIDES) == total
    phone = new_page()
    for page in (app, phone):
        page.poll_ms = 250  # two pages' walk on two cores: a wait's look every 50 ms took CPU
    phone.page.set_viewport_size(PHONE)
    app.page.set_viewport_size({"width": 1280, "height": 720})
    app.open("step", lesson="bpe", present="true")
    phone.goto(phone_link(app))
    for number in range(1, total + 1):
        wait_slide(app, number, total)
        slide = lesson.slides[number - 1]
        app.page.mouse.move(0, 400)  # off the button just clicked: its tooltip goes
        if slide.page == "step":
            app.wait_view(int(slide.view.get("step", 0)))
        elif slide.page == "tokenize":
            app.page.wait_for_selector('.st-key-tok_spans .bpe-root[data-ready="true"]')
        # presentation mode stays on from slide to slide
        assert app.page.get_by_role("switch", name="Presentation mode").is_checked(), number
        for width, height in ((1920, 1080), (1280, 720)):
            app.page.set_viewport_size({"width": width, "height": height})
            assert in_first_screen(app, ".st-key-lesson_next"), (number, width)
            if slide.page in FIRST_TOKEN:  # as on the projector without a lesson
                assert in_first_screen(app, FIRST_TOKEN[slide.page]), (number, width)
            keep_screenshot(app.page, screenshots / f"slide{number:02}_{width}x{height}.png")
        check_slide(phone, number)
        assert slide_settings(phone.page.url) == slide_settings(app.page.url), number
        # Streamlit's main area is what scrolls (the document stays the window's width)
        wide = phone.page.evaluate(
            "Math.max(document.documentElement.scrollWidth,"
            " document.querySelector('[data-testid=\"stMain\"]').scrollWidth)"
        )
        assert wide <= 390, (number, wide)
        keep_screenshot(phone.page, screenshots / f"slide{number:02}_390x844.png")
        if number in AXE_SLIDES:
            axe_on_a_laptop(phone, axe, number)
        if number == total:
            break
        app.rerun(app.page.locator(".st-key-lesson_next button").first.click)
        if number % 2:  # on a phone the button's first node is an empty one: the visible one
            phone.rerun(phone.page.locator(".st-key-lesson_next button:visible").click)
        else:
            press(phone, "PageDown")
    assert phone.page.locator(".st-key-lesson_next button").first.is_disabled()
    press(phone, "PageUp")
    check_slide(phone, total - 1)
    phone.assert_clean()
