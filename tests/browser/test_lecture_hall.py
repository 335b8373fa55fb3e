"""Browser tests: a lecture hall (issue 28). A teacher on a laptop or a projector, students
on phones (390x844, touch).

The expected values are the issue's own: at 390x844 the element under the centre of Next
is Next at every scroll position (not Streamlit's header, not the class bar); the merge
just made stays named on screen after Next; a student who joined by code has the sidebar
closed and a class bar of one line; the projector's code is at least 72 px tall.
"""

from __future__ import annotations

import tomllib
import urllib.request
from collections.abc import Iterator
from importlib.resources import files
from typing import Any

import pytest
from conftest import _MESSAGE_COUNTER_JS, AppPage, _leave_no_trace, keep_screenshot
from test_live_class import join, start_class, wait_connected

from bpeviz.web import script_address, script_bytes

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


@pytest.fixture(scope="module")
def phones(browser: Any) -> Iterator[Any]:
    """The module's phone: a browser context at 390x844, touch, no hover, each test's phone a
    new tab in it, cleared after (:func:`phone`): a new context for each phone cost Chromium
    about 2 s more CPU a page (its cache empty; conftest's ``app_context``)."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, locale="en-US")
    context.add_init_script(_MESSAGE_COUNTER_JS)
    context.set_default_timeout(30_000)
    context.new_page()  # the blank first tab _leave_no_trace keeps
    try:
        yield context
    finally:
        context.close()


@pytest.fixture
def phone(phones: Any, app_server: Any) -> Iterator[AppPage]:
    """A student's phone on the app: a new tab (a new Streamlit session) in :func:`phones`,
    closed after the test with its cookies and storage cleared (the next one is a new
    student's)."""
    page = phones.new_page()
    app_page = AppPage(page, app_server.url)
    page.on("pageerror", lambda error: app_page.errors.append(f"pageerror: {error}"))
    try:
        yield app_page
    finally:
        _leave_no_trace(phones, app_server.url)


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
def phone_in_class(app: AppPage, phone: AppPage) -> tuple[AppPage, AppPage, str]:
    code = start_class(app)
    join_by_typing(phone, code)
    wait_connected(app, 1)
    return app, phone, code


def test_a_phone_that_joined_by_code_has_the_sidebar_closed_a_one_line_bar_and_the_quiz_in_sight(
    phone_in_class: Any, screenshots: Any
) -> None:
    """Then, on the same phone as it joined (a class of its own for each cost a teacher's and
    a phone's page load), :func:`the_whole_class_bar_is_below_streamlits_header` and
    :func:`the_class_quiz_card_is_in_sight_after_answering_and_at_the_reveal`."""
    teacher, phone, _ = phone_in_class
    phone.page.wait_for_function(
        "() => document.querySelector('[data-testid=\"stSidebar\"]').dataset.collapsed === 'true'"
    )
    bar = phone.page.locator(".bpe-class-student").bounding_box()
    assert bar is not None and bar["height"] <= 60, f"the class bar is {bar} tall on a phone"
    keep_screenshot(phone.page, screenshots / "lecture_phone_joined_390x844.png")
    the_whole_class_bar_is_below_streamlits_header(phone, screenshots)
    phone.assert_clean()
    the_class_quiz_card_is_in_sight_after_answering_and_at_the_reveal(teacher, phone, screenshots)


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
    keep_screenshot(phone.page, screenshots / "lecture_phone_next_at_bottom_390x844.png")
    phone.assert_clean()


def test_the_projector_shows_a_large_code_then_folds_it_once_students_join(
    app: AppPage, new_page: Any, screenshots: Any
) -> None:
    """1280x720 in presentation mode, the bundled lesson's slide 4 (a Step slide): the code
    is at least 72 px tall before anyone joins and the loopback link is warned about; once
    a student is in, the panel folds and the slide's tokens are on the first screen, and
    the student's bar names the slide."""
    app.page.set_viewport_size({"width": 1280, "height": 720})
    # The teacher starts the class on the slide, in the slide link's load (a load of the
    # slide, then of its link with class=new, cost a page load more for the same page).
    slide_link = app.url_for("step", present="true", lesson="bpe", slide=4, sample="cat_sat",
                             step=1)  # fmt: skip
    app.goto(f"{slide_link}&class=new")
    app.page.wait_for_selector(".bpe-class-teacher", timeout=30_000)
    app.wait_view(1)
    code_box = app.page.locator(".bpe-class-code")
    height = code_box.evaluate("(el) => parseFloat(getComputedStyle(el).fontSize)")
    assert height >= 72, f"the join code is {height} px tall"
    assert (code_box.bounding_box() or {}).get("height", 0) >= 72
    warning = app.page.locator(".bpe-class-warning")
    assert warning.is_visible()
    assert "127.0.0.1 is this computer" in warning.inner_text()
    assert "BPEVIZ_PUBLIC_URL" in warning.inner_text()
    keep_screenshot(app.page, screenshots / "lecture_projector_before_join_1280x720.png")
    code = app.page.evaluate("new URLSearchParams(location.search).get('class')")
    student = new_page()
    join(student, code)
    wait_connected(app, 1)
    app.page.wait_for_function("() => document.querySelector('.bpe-class-join').hidden")
    token = app.page.locator(".bpe-step .bpe-scroll .bpe-t").first
    assert token.evaluate(
        "(el) => { const r = el.getBoundingClientRect();"
        " return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }"
    ), "no token of the slide on the projector's first screen"
    assert app.page.get_by_role("button", name="Show join code").is_visible()
    keep_screenshot(app.page, screenshots / "lecture_projector_after_join_1280x720.png")
    slide = student.page.locator(".bpe-class-slide")
    student.page.wait_for_function(
        "() => document.querySelector('.bpe-class-slide')?.textContent.startsWith('Slide 4 of')"
    )
    assert slide.is_visible()
    student.wait_view(1)  # the slide's step, the teacher's before the class began
    app.assert_clean()
    student.assert_clean()


def answer(student: AppPage, row: int) -> None:
    student.page.locator(f".bpe-class-quiz .bpe-choice[data-row='{row}']:not(:disabled)").click()
    student.page.get_by_text("Your answer is in").wait_for()


def test_the_results_of_a_two_question_class_download_as_the_answers_given(
    app: AppPage, new_page: Any, tmp_path: Any
) -> None:
    """Two students (one nickname a spreadsheet formula) answer two class questions; the
    teacher downloads the results as CSV and JSON: they hold what each student answered, the
    counts, and the formula as text. While a question is open the teacher's card counts
    the answers but shows no spread."""
    import csv
    import json

    code = start_class(app)
    students = [new_page(), new_page()]
    for student, nick in zip(students, ("Ada", "=1+2"), strict=True):
        join(student, code)
        box = student.page.get_by_label("Nickname shown on the teacher's screen (optional)")
        box.fill(nick)
        box.press("Enter")
    wait_connected(app, 2)
    app.page.get_by_label("Guess the next merge").check()
    tally = app.page.locator(".bpe-class-tally")
    given = [(0, 1), (2, 0)]  # per question: Ada's row, then the other's
    for number, rows in enumerate(given):
        for student in students:
            student.wait_view(number, "quiz")
        for student, row in zip(students, rows, strict=True):
            answer(student, row)
        tally.filter(has_text="2 of 2 students answered").wait_for()
        assert app.page.locator(".bpe-class-quiz .bpe-choice-votes").count() == 0
        app.page.get_by_role("button", name="Reveal the answer").click()
        app.page.locator(".bpe-class-quiz .bpe-choice-votes").first.wait_for()
        if number == 0:
            app.page.get_by_role("button", name="Next question ›").click()
            app.wait_view(1, "quiz")
    csv_button = app.page.get_by_role("button", name="Class results, 2 questions (CSV)")
    csv_button.wait_for(timeout=30_000)
    with app.page.expect_download() as download:
        csv_button.click()
    rows = list(csv.DictReader(download.value.path().read_text(encoding="utf-8").splitlines()))
    with app.page.expect_download() as download:
        app.page.get_by_role("button", name="(JSON)").click()
    results = json.loads(download.value.path().read_text(encoding="utf-8"))
    assert results["class"] == code
    questions = results["questions"]
    assert [(q["asked"], q["number"]) for q in questions] == [("merge", 1), ("merge", 2)]
    for question, (ada, other) in zip(questions, given, strict=True):
        assert question["answers"] == [
            {"student": "Ada", "choice": ada},
            {"student": "=1+2", "choice": other},
        ]
        counts = [0] * 4
        counts[ada] += 1
        counts[other] += 1
        assert question["counts"] == counts
        assert 0 in question["right_rows"] and all(question["choices"])
    assert len(rows) == 8  # two questions, four pairs each
    chose = {(r["number"], r["choice"]): r["students"] for r in rows if r["students"]}
    assert chose == {("1", "0"): "Ada", ("1", "1"): "'=1+2", ("2", "2"): "Ada", ("2", "0"): "'=1+2"}
    app.assert_clean()


# The element's text is drawn whole: nothing cut off at its edges (no ellipsis, no overflow).
_WHOLE = """(el) => { const r = el.getBoundingClientRect();
  return r.height > 0 && r.left >= 0 && r.right <= window.innerWidth
    && el.scrollWidth <= el.clientWidth && getComputedStyle(el).textOverflow !== 'ellipsis'; }"""


# From the bottom of the slide's line to the top of the page title's letters: at most a line
# of body text (24 px) is not blank space on a phone.
_BLANK_UNDER_SLIDE = """() => {
  const slide = document.querySelector('.bpe-class-slide').getBoundingClientRect();
  const words = document.createRange();
  words.selectNodeContents(document.querySelector('[data-testid="stMain"] h1'));
  return words.getBoundingClientRect().top - slide.bottom; }"""


def test_a_phone_sees_the_slides_number_and_whole_title_beside_a_one_line_bar(
    app: AppPage, phone: AppPage, screenshots: Any
) -> None:
    """The bundled lesson's slide 4 (its title, 'One merge: a new token for the winning
    pair', is longer than a 390 px line holds beside the mode and its button): the student's
    phone shows 'Slide 4 of N' and the whole title, uncut, and the bar is still one line; the
    page's title follows close under it (50 px of blank space lay between them)."""
    app.goto(app.url_for("step", lesson="bpe", slide=4, sample="cat_sat", step=1) + "&class=new")
    app.page.wait_for_selector(".bpe-class-teacher", timeout=30_000)
    app.wait_view(1)
    code = app.page.evaluate("new URLSearchParams(location.search).get('class')")
    join(phone, code)
    slides = tomllib.loads(files("bpeviz.lessons").joinpath("bpe.toml").read_text("utf-8"))
    words = f"Slide 4 of {len(slides['slides'])}: One merge: a new token for the winning pair"
    phone.page.wait_for_function(
        "(words) => document.querySelector('.bpe-class-slide')?.textContent === words",
        arg=words,
    )
    phone.wait_idle()
    slide = phone.page.locator(".bpe-class-slide")
    assert slide.is_visible()
    assert slide.evaluate(_WHOLE), "the slide's title is cut on a phone"
    row = phone.page.locator(".bpe-class-student > .bpe-class-row")
    tops = row.evaluate(
        "(el) => [...el.children].filter((c) => c.getBoundingClientRect().height > 0)"
        ".map((c) => Math.round(c.getBoundingClientRect().top))"
    )
    assert len(set(tops)) == 1, f"the bar's row is not one line: tops {tops}"
    bar = phone.page.locator(".bpe-class-student").bounding_box()
    assert bar is not None and bar["height"] <= 60, f"the class bar is {bar} tall"
    blank = phone.page.evaluate(_BLANK_UNDER_SLIDE)
    assert blank <= 24, f"{blank:.0f} px of blank space under the slide's title"
    keep_screenshot(phone.page, screenshots / "lecture_phone_slide_title_390x844.png")
    phone.assert_clean()
    app.assert_clean()


# Whether the points of `el` a person sees first (its top edge, inset past the rounded corners,
# and its centre) are drawn by `el`: nothing (Streamlit's header, the sticky step bar) lies
# over it, and it is on screen.
_UNCOVERED = """(el) => { const r = el.getBoundingClientRect();
  if (r.height <= 0 || r.top < 0 || r.bottom > window.innerHeight) return false;
  const inset = Math.min(12, r.width / 4);
  const points = [[r.left + inset, r.top + 1], [r.right - inset, r.top + 1],
    [r.left + r.width / 2, r.top + r.height / 2]];
  return points.every(([x, y]) => { const hit = document.elementFromPoint(x, y);
    return el === hit || el.contains(hit); }); }"""


def the_whole_class_bar_is_below_streamlits_header(phone: AppPage, screenshots: Any) -> None:
    """The top of the page at 390x844: the class bar's top edge (its corners) and its centre
    are the bar's, not Streamlit's header's (the header hid the bar's top border)."""
    bar = phone.page.locator(".bpe-class-student")
    assert bar.evaluate(_UNCOVERED), (
        f"the header covers the class bar: bar {bar.bounding_box()}, header "
        f"{phone.page.locator('[data-testid=stHeader]').bounding_box()}"
    )
    keep_screenshot(phone.page, screenshots / "lecture_phone_bar_below_header_390x844.png")


def assert_in_sight(phone: AppPage, part: Any, what: str) -> None:
    assert part.evaluate(_UNCOVERED), (
        f"{what} {part.bounding_box()} is hidden; the step bar at "
        f"{phone.page.locator('.bpe-step-bar').bounding_box()}"
    )


def assert_card_in_sight(phone: AppPage) -> None:
    """The card's verdict (it names the merge) and the control that has the focus are drawn on
    screen, neither under the sticky step bar nor under Streamlit's header."""
    assert_in_sight(phone, phone.page.locator(".bpe-step .bpe-card .bpe-verdict").first, "verdict")
    focused = phone.page.evaluate_handle("document.activeElement")
    assert_in_sight(phone, focused, focused.evaluate("(el) => el.outerHTML.slice(0, 60)"))


def test_a_phone_sees_the_solo_quiz_card_after_answering(phone: AppPage, screenshots: Any) -> None:
    """390x844, the Step page alone, Guess the next merge: the student taps a choice where it
    stands on the first screen. The card's verdict is in sight, not under the sticky step bar,
    and the bar's line names the merge just revealed (it said 'Step 0: ... nothing merged
    yet'); after Next question the new question's title and choices are in sight (they were
    under the bar and the header)."""
    phone.open("step")
    phone.wait_view(0)
    phone.page.locator(".bpe-root label").filter(has_text="Guess the next merge").click()
    phone.wait_view(0, "quiz")
    for k in (0, 1, 2):
        choice = phone.page.locator(".bpe-quiz .bpe-choice[data-row='1']:not(:disabled)")
        assert choice.evaluate(_TAPPABLE), f"the choice is not tappable on question {k + 1}"
        box = choice.bounding_box()
        assert box is not None
        phone.page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        phone.page.locator(".bpe-quiz .bpe-verdict").wait_for()
        assert_card_in_sight(phone)
        line = phone.page.locator(".bpe-merge-line")
        assert line.inner_text().startswith(f"Merge {k + 1}: "), line.inner_text()
        if k == 0:
            keep_screenshot(phone.page, screenshots / "lecture_phone_solo_quiz_390x844.png")
        next_question = phone.page.get_by_role("button", name="Next question ›")
        assert next_question.evaluate(_TAPPABLE)
        box = next_question.bounding_box()
        assert box is not None
        phone.page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        phone.wait_view(k + 1, "quiz")
        for part in (".bpe-quiz .bpe-card-title", ".bpe-quiz .bpe-choice"):
            assert_in_sight(phone, phone.page.locator(part).first, part)
    phone.assert_clean()


def the_class_quiz_card_is_in_sight_after_answering_and_at_the_reveal(
    app: AppPage, phone: AppPage, screenshots: Any
) -> None:
    """A student's phone in a class quiz: after the answer and after the teacher's reveal,
    the card's verdict is in sight, not under the step bar or the header."""
    app.page.get_by_label("Guess the next merge").check()
    phone.wait_view(0, "quiz")
    choice = phone.page.locator(".bpe-class-quiz .bpe-choice[data-row='1']:not(:disabled)")
    choice.scroll_into_view_if_needed()
    choice.tap()
    phone.page.get_by_text("Your answer is in").wait_for()
    assert_card_in_sight(phone)
    app.page.locator(".bpe-class-tally").filter(has_text="1 of 1").wait_for()
    app.page.get_by_role("button", name="Reveal the answer").click()
    phone.page.locator(".bpe-class-quiz .bpe-choice-votes").first.wait_for()
    phone.page.wait_for_function(
        "() => !document.querySelector('.bpe-step .bpe-scroll .bpe-laid-out')"
    )
    assert_card_in_sight(phone)
    keep_screenshot(phone.page, screenshots / "lecture_phone_class_reveal_390x844.png")
    phone.assert_clean()


def test_a_touch_phone_shows_no_key_help_even_projected_or_after_a_key(
    phone: AppPage,
) -> None:
    """A touch-only phone (no hover, a coarse pointer) has no keys to learn: the Step page's
    key help is not drawn, in presentation mode (which shows the short line on a projector)
    and after a key gives the view a visible focus (which shows it on a laptop)."""
    phone.open("step", present="true")
    phone.wait_view(0)
    assert phone.page.evaluate("matchMedia('(hover: none) and (pointer: coarse)').matches")
    phone.step_button("Next").focus()
    phone.page.keyboard.press("Tab")  # a key: the focus is now :focus-visible
    assert phone.page.locator(".bpe-step :focus-visible").count() == 1
    for help_line in (".bpe-step .bpe-keys-short", ".bpe-step .bpe-keys"):
        assert (
            phone.page.locator(help_line).evaluate("(el) => getComputedStyle(el).display") == "none"
        ), f"{help_line} is drawn on a touch phone"
    phone.assert_clean()


def test_a_phone_can_tap_unigrams_next_round_at_the_bottom_of_the_page(
    phone: AppPage, screenshots: Any
) -> None:
    """The bundled lesson's Unigram slide (low_lower, vocab 15) on a 390x844 phone: scrolled
    to the bottom of the long page (lattice, loss chart, tables), Next ▶ is tappable and
    steps to the next round (the round's controls scrolled away with the page). Nothing
    scrolls sideways (Streamlit's main area is what scrolls: the round's table of tokens made
    it 476 px wide)."""
    root = ".bpe-root.bpe-unigram"
    phone.open("step", sample="low_lower", algo="unigram", vocab=15, step=1)
    phone.page.wait_for_selector(f'{root}[data-ready=true][data-step="1"]', timeout=30_000)
    next_round = phone.page.locator(f"{root} button").filter(has_text="Next ▶").first
    wide = phone.page.evaluate("document.querySelector('[data-testid=\"stMain\"]').scrollWidth")
    assert wide <= PHONE["width"], f"the page is {wide} px wide"
    assert phone.page.evaluate(_SCROLL, "bottom") > 844, "the page is not long"
    assert next_round.evaluate(_TAPPABLE), "Next ▶ is not tappable at the page's bottom"
    box = next_round.bounding_box()
    assert box is not None
    phone.page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    phone.page.wait_for_selector(f'{root}[data-ready=true][data-step="2"]', timeout=30_000)
    keep_screenshot(phone.page, screenshots / "lecture_phone_unigram_bottom_390x844.png")
    phone.assert_clean()


def test_a_phone_sees_unigrams_quiz_card_after_answering(phone: AppPage, screenshots: Any) -> None:
    """The Unigram page's solo quiz on a 390x844 phone: after a tap on one of the four tokens
    the quiz card's title and verdict are in sight, not under the sticky round row."""
    root = ".bpe-root.bpe-unigram"
    phone.open("step", sample="low_lower", algo="unigram", vocab=15, step=0)
    phone.page.wait_for_selector(f'{root}[data-ready=true][data-step="0"]', timeout=30_000)
    phone.page.get_by_label("Quiz: which token goes next?").check()
    choice = phone.page.locator(f"{root} .bpe-unigram-quiz .bpe-choice").first
    choice.wait_for()
    if not choice.evaluate(_TAPPABLE):
        phone.page.evaluate("(el) => el.scrollIntoView({block: 'center'})", choice.element_handle())
    assert choice.evaluate(_TAPPABLE)
    box = choice.bounding_box()
    assert box is not None
    phone.page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    quiz = phone.page.locator(f"{root} .bpe-unigram-quiz")
    quiz.locator(".bpe-choice:disabled").first.wait_for()
    for part in (".bpe-card-title", ".bpe-verdict"):
        found = quiz.locator(part).first
        assert found.evaluate(_UNCOVERED), f"{part} {found.bounding_box()} is hidden"
    keep_screenshot(phone.page, screenshots / "lecture_phone_unigram_quiz_390x844.png")
    phone.assert_clean()


def test_a_slide_change_sends_kilobytes_not_the_views_script(app: AppPage) -> None:
    """A page heard 219 KB for this slide (a new run of an 11-byte sample): Streamlit sends a
    component's inline script in each of its elements a run changes, and the step view and
    the class bar are one component of 178 KB (a student's page heard 400 KB a slide, 120
    students 48 MB over a campus's Wi-Fi). The page imports the script from the app, by an
    address named by its content, kept for good: a slide's messages together are then
    smaller than the script alone (40 KB here, 23 of them the view's record), which no run
    carrying the script inline can be."""
    app.open("step", lesson="bpe", slide=4, sample="cat_sat", step=1)
    app.wait_view(1)
    heard = app.page.evaluate("window.__bpevizBytes")
    app.rerun(app.page.locator(".st-key-lesson_next button").first.click)  # slide 5: a new run
    app.page.wait_for_function("() => location.search.includes('sample=aaabdaaabac')")
    app.wait_view(1)
    heard = app.page.evaluate("window.__bpevizBytes") - heard
    assert heard < len(script_bytes()), f"{heard / 1000:.0f} KB heard for one slide"
    with urllib.request.urlopen(app.base_url + script_address(), timeout=10) as answer:
        assert answer.headers["Cache-Control"] == "public, max-age=31536000, immutable"
        assert answer.read() == script_bytes()
    app.assert_clean()
