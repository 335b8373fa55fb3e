"""Browser tests: a WordPiece run stepped through, in the app, in an exported page, and in a
live class.

The run is the Hugging Face course's corpus ("hug" 10, "pug" 5, "pun" 12, "bun" 4, "hugs" 5)
by score, worked by hand (``tests/js/wordpiece.test.mjs`` has the working): merge 1 is
##g + ##s at 5 / (20 × 5) = 1/20 while ##u + ##g occurs most (20 times, 1/36); merge 2 is
h + ##u, six pairs tied at 1/36; merge 3 is hu + ##gs at 1/15, and hu + ##g, which the course
says ties with it, scores 10 / (15 × 15) = 2/45.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from conftest import AppPage, keep_screenshot
from test_accessibility import AXE, assert_no_violations
from test_live_class import join, wait_connected
from test_step_view import exported_page, wait_step
from test_wordpiece_record import LONG, LONG_VOCAB

from bpeviz.engine.wordpiece import train_wordpiece
from bpeviz.engine.wordpiece_history import WordPieceHistory
from bpeviz.records.step import TOP_PAIRS
from bpeviz.records.wordpiece_step import payload_json
from bpeviz.web import step_page

pytestmark = pytest.mark.browser

COURSE = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
LINK = {"algo": "wordpiece", "src": "paste", "paste": COURSE, "vocab": 15}
SCORE_SENTENCE = "This run merges the pair with the best score, count(ab) / (count(a) × count(b))"

# The first word's tokens and the last's, as drawn ("##" drawn apart, read with the label).
_WORDS_JS = """
() => {
  const root = document.querySelector('.bpe-root');
  const text = root.querySelector('.bpe-scroll .bpe-text');
  const words = [...text.querySelectorAll('.bpe-word, .bpe-piece')];
  const read = (word) => [...word.querySelectorAll('.bpe-t')].map((span) => span.textContent);
  return {first: read(words[0]), last: read(words[words.length - 1]), count: words.length,
          marked: root.querySelectorAll('.bpe-scroll .bpe-t .bpe-cont').length};
}
"""


def score_cells(page: Any) -> list[list[str]]:
    """The pair table's rows as drawn: [pair, count, count(a), count(b), score]."""
    return page.evaluate(
        """() => [...document.querySelectorAll('table.bpe-score-table tr[data-pair]')].map(
             (row) => [...row.querySelectorAll('td')].slice(1, 6).map((td) => td.textContent))"""
    )


def test_stepping_through_a_wordpiece_run_by_score(app: AppPage, screenshots: Path) -> None:
    app.open("step", **LINK)
    app.wait_view(0)
    card = app.page.locator(".bpe-card")
    assert SCORE_SENTENCE in card.inner_text()
    words = app.page.evaluate(_WORDS_JS)
    assert words["first"] == ["h", "##u", "##g"] and words["last"] == ["h", "##u", "##g", "##s"]
    assert words["count"] == 36 and words["marked"] == 31 * 2 + 5 * 3  # every inner character
    rows = score_cells(app.page)
    assert rows[0] == ["##g + ##s", "5", "20", "5", "1/20 ≈ 0.0500"]
    assert ["##u + ##g", "20", "36", "20", "1/36 ≈ 0.0278"] in rows

    app.step(lambda: app.step_button("Next").click(), 1)
    text = card.inner_text()
    assert "Merge 1 of 3" in text
    assert "“##g” + “##s” has the best score, 5 / (20 × 5) = 1/20 ≈ 0.0500" in text
    assert "The most frequent pair, “##u” + “##g”, occurs 20 times" in text
    assert SCORE_SENTENCE in text
    assert app.page.evaluate(_WORDS_JS)["last"] == ["h", "##u", "##gs"]

    app.step(lambda: app.step_button("Next").click(), 2)
    assert "6 pairs share the score 1/36 ≈ 0.0278" in card.inner_text()
    marks = app.page.locator("table.bpe-score-table .bpe-note").all_inner_texts()
    assert marks.count("tied") == 5  # the other five, the sixth merged

    app.step(lambda: app.step_button("Next").click(), 3)
    assert "“hu” + “##gs” has the best score, 5 / (15 × 5) = 1/15" in card.inner_text()
    rows = score_cells(app.page)
    assert rows[0][0] == "hu + ##gs" and rows[0][4] == "1/15 ≈ 0.0667"
    assert ["hu + ##g", "10", "15", "15", "2/45 ≈ 0.0444"] in rows
    assert app.page.evaluate(_WORDS_JS)["last"] == ["hugs"]
    keep_screenshot(app.page, screenshots / "wordpiece-step-3.png", full_page=True)
    # axe reads a colour under the app's sticky header as the background: from the top.
    app.page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")
    assert_no_violations(app.page, AXE, "a WordPiece run's step 3")
    app.assert_clean()


def test_the_quiz_asks_for_the_best_score(app: AppPage, screenshots: Path) -> None:
    app.open("step", **LINK, quiz=1)
    app.wait_view(0, "quiz")
    question = app.page.locator(".bpe-quiz").inner_text()
    assert "Which pair has the best score, count(ab) / (count(a) × count(b))?" in question
    # The most frequent pair (##u + ##g, 20 times) is offered, and is wrong.
    frequent = app.page.locator(".bpe-choice").filter(has_text="u").filter(has_text="g")
    pairs = app.page.locator(".bpe-choice").evaluate_all(
        "(choices) => choices.map((choice) => [choice.dataset.row, choice.textContent])"
    )
    assert frequent.count() >= 1, pairs
    app.page.locator(".bpe-choice[data-row='0']").click()
    app.page.get_by_text("✓ Right!").wait_for()
    right = app.page.locator(".bpe-choice[data-row='0']").inner_text()
    assert "##g" in right and "##s" in right and "score 1/20 ≈ 0.0500" in right
    keep_screenshot(app.page, screenshots / "wordpiece-quiz.png", full_page=True)
    app.assert_clean()


def test_an_exported_wordpiece_page_steps_from_disk(
    browser: Any, tmp_path: Path, screenshots: Path
) -> None:
    history = WordPieceHistory(COURSE, train_wordpiece(COURSE, 15, top_pairs=TOP_PAIRS))
    path = tmp_path / "course.html"
    page_text = step_page(payload_json(history), title="HF course", subtitle="WordPiece by score")
    path.write_text(page_text, "utf-8")
    page = exported_page(browser, path)
    try:
        assert SCORE_SENTENCE in page.locator(".bpe-card").inner_text()
        page.locator(".bpe-root button").filter(has_text="Last").click()
        wait_step(page, 3)
        assert "1/15" in page.locator(".bpe-card").inner_text()
        chips = page.locator(".bpe-card .bpe-chip").all_inner_texts()
        assert chips == ["hu", "##gs", "hugs"]
        keep_screenshot(page, screenshots / "wordpiece-exported.png", full_page=True)
        assert page.bpeviz_errors == []
    finally:
        page.context.close()


def test_a_live_class_steps_through_a_wordpiece_run(app: AppPage, new_page: Any) -> None:
    teacher = app
    teacher.open("step", **LINK)
    teacher.wait_view(0)
    teacher.goto(teacher.page.url + "&class=new")
    teacher.page.wait_for_selector(".bpe-class-teacher", timeout=30_000)
    teacher.page.wait_for_function("() => /[?&]class=[A-Z0-9]{6}/.test(location.search)")
    code = teacher.page.evaluate("new URLSearchParams(location.search).get('class')")
    teacher.wait_view()
    student = new_page()  # one: the class's rules are test_live_class.py's; here, WordPiece
    join(student, code)
    student.wait_view(0)
    wait_connected(teacher, 1)
    assert SCORE_SENTENCE in student.page.locator(".bpe-card").inner_text()
    teacher.step(lambda: teacher.step_button("Next").click(), 1)
    student.wait_view(1)
    assert "1/20" in student.page.locator(".bpe-card").inner_text()
    # The class quiz on merge 2, by score: a six-way tie at 1/36, so row 3 is right too.
    teacher.page.get_by_label("Guess the next merge").check()
    teacher.page.wait_for_selector(".bpe-class-quiz", timeout=10_000)
    student.page.wait_for_selector(".bpe-class-quiz .bpe-choice:not(:disabled)")
    assert "best score" in student.page.locator(".bpe-class-quiz").inner_text()
    student.page.locator(".bpe-class-quiz .bpe-choice[data-row='3']").click()
    student.page.get_by_text("Your answer is in").wait_for()
    teacher.page.locator(".bpe-class-tally").filter(has_text="1 of 1 student answered").wait_for()
    teacher.page.get_by_role("button", name="Reveal the answer").click()
    student.page.get_by_text("✓ Right!").wait_for()
    teacher.page.get_by_text("Class score: 1 of 1 right").first.wait_for()
    for page in (teacher, student):
        page.assert_clean()


def test_tokenize_encodes_with_the_wordpiece_run(app: AppPage, screenshots: Path) -> None:
    """By longest match from the run's vocabulary (worked by hand: [UNK], b g h n p s u,
    ##g ##n ##s ##u, ##gs, hu, hugs): "hugs" is hugs, "bug" b ##u ##g, "hugging" [UNK]
    (no token holds an i)."""
    app.open("tokenize", **LINK, tok_text="hugs bug hugging")
    app.page.get_by_text("Why was this word split like this?").wait_for()
    texts = [span["text"] for span in app.spans(".bpe-scroll")]
    assert texts == ["hugs", "b", "u", "g", "[UNK]"]  # the library's view: ## as an outline
    assert app.page.locator(".bpe-scroll .bpe-piece, .bpe-scroll .bpe-word").count() == 3
    main = app.main_text()
    assert "longest vocabulary entry that matches" in main
    assert "At character 1, “hugs” is left: the longest entry that matches is “hugs”." in main
    keep_screenshot(app.page, screenshots / "wordpiece-tokenize.png", full_page=True)
    app.assert_clean()


def test_a_long_text_redraws_where_the_merge_a_student_stops_at_applies(
    app: AppPage, screenshots: Path
) -> None:
    """``tests/test_wordpiece_record.py``'s long text, worked by hand: merge 2 (x + ##y, score
    1/1) joins "xy" at character 9,003 only, past the part drawn first. A student who jumps to
    step 2 sees the part where it applies, its new token outlined, and the note that says
    which bytes are drawn."""
    app.open("step", algo="wordpiece", vocab=LONG_VOCAB)
    radio = app.page.locator(".st-key-src").get_by_text("Paste", exact=True)
    app.rerun(radio.click)
    box = app.page.locator(".st-key-paste textarea")
    box.fill(LONG)
    app.rerun(lambda: box.press("Control+Enter"))
    app.wait_view(0)
    note = app.page.locator(".bpe-root")
    size = f"{len(LONG):,}"
    assert "Long text: showing its first" in note.inner_text() and f"of {size}" in note.inner_text()
    assert "xy" not in app.page.locator(".bpe-scroll").inner_text().replace(" ", "")
    jump = app.page.locator(".bpe-jump")
    jump.fill("2")
    jump.press("Enter")
    app.page.wait_for_function(
        """() => { const root = document.querySelector('.bpe-root');
             return root.dataset.ready === 'true' && root.dataset.step === '2'
               && [...root.querySelectorAll('.bpe-scroll .bpe-new')]
                    .some((token) => token.textContent === 'xy'); }""",
        timeout=60_000,
    )
    shown = app.page.locator(".bpe-root").inner_text()
    late = LONG.find("xy")
    match = re.search(r"Long text: showing bytes ([\d,]+)–([\d,]+) of ([\d,]+)", shown)
    assert match, shown
    start, end, total = (int(group.replace(",", "")) for group in match.groups())
    assert start <= late + 1 and end == total == len(LONG)
    keep_screenshot(app.page, screenshots / "wordpiece-long-text.png", full_page=True)
    app.assert_clean()


def test_the_inspector_shows_how_a_wordpiece_token_was_built(app: AppPage) -> None:
    """After the course corpus's three merges (worked by hand in tests/test_wordpiece.py:
    ##g + ##s, h + ##u, hu + ##gs), a click on the last word's token ``hugs`` says merge 3
    made it from hu + ##gs, and its build tree goes down to h ##u ##g ##s."""
    app.open("step", **LINK, step=3)
    app.wait_view(3)
    hugs = app.page.locator(".bpe-scroll .bpe-t").filter(has_text="hugs").last
    hugs.click()
    inspector = app.page.locator(".bpe-inspector")
    inspector.wait_for()
    text = inspector.inner_text()
    assert "Made by merge 3" in text, text
    assert "hu" in text and "##gs" in text
    tree = inspector.locator(".bpe-tree").inner_text()
    for piece in ("hu", "##gs", "h", "##u", "##g", "##s"):
        assert piece in tree, tree
    assert "single characters" in text
    app.assert_clean()
