"""What a lecturer found wrong or confusing on screen (issue 18), each fixed and checked in a
real browser on an exported page (the same script as the app's Step page; no server).

Expected values are worked by hand on Wikipedia's ``aaabdaaabac`` and the low/lower
sample's words, as the docstring of each test says.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import keep_screenshot
from test_step_teach import candidates, open_run, toggle

from bpeviz.engine.history import train
from bpeviz.records.step import TOP_PAIRS

pytestmark = pytest.mark.browser


def wikipedia(merges: int = 3) -> Any:
    return train("aaabdaaabac", 256 + merges, pretokenizer="bytes", top_pairs=TOP_PAIRS)


def test_a_pair_tied_with_the_merge_is_a_right_answer(browser: Any, tmp_path: Path) -> None:
    """After merge 1 (aa → Z) the text is ZabdZabac: Za and ab both occur twice, the rule
    picks one. Choosing the other is right too: the counts cannot tell them apart."""
    history = wikipedia()
    aa = 256
    tied = {(aa, ord("a")), (ord("a"), ord("b"))}
    assert set(history.tied_pairs(2)) == tied  # the hand count, held against the engine
    page = open_run(browser, tmp_path, history, step=1)
    toggle(page, "Guess the next merge")
    (other,) = tied - {history.steps[1].pair}
    assert other in candidates(page)
    page.locator(f'.bpe-choice[data-pair="{other[0]},{other[1]}"]').click()
    assert page.locator(".bpe-verdict").inner_text().startswith("✓ Right: your pair tied with")
    assert page.locator(".bpe-score").inner_text() == "Score: 1 of 1"
    marks = page.locator(".bpe-choice .bpe-mark").all_inner_texts()
    assert sorted(marks) == ["✓ right", "✓ tied"]  # the two pairs of count 2, no ✗
    assert page.bpeviz_errors == []


def pair_rows(page: Any) -> list[str]:
    return page.locator("table.bpe-pair-table tr[data-pair]").evaluate_all(
        "rows => rows.map(row => [...row.cells].slice(0, 3).map(c => c.textContent).join('|'))"
    )


def test_the_pair_table_shows_the_end_of_word_marker(browser: Any, tmp_path: Path) -> None:
    """``west west`` with words and ``</w>``: each word is w e s t </w>, so before merge 1
    the four pairs w+e, e+s, s+t and t+</w> occur twice each (the rule "first" picks w+e).
    The lecturer saw "t + " where the pair is t + </w>."""
    history = train("west west", 261, pretokenizer="words", end_of_word=True, top_pairs=TOP_PAIRS)
    page = open_run(browser, tmp_path, history, step=0)
    assert pair_rows(page) == ["1|w + e|2", "2|e + s|2", "3|s + t|2", "4|t + </w>|2"]
    page.evaluate("window.bpevizStepView.show(4, 'after')")
    assert pair_rows(page) == ["1|west + </w>|2"]  # before merge 4
    assert page.bpeviz_errors == []


# For each piece drawn (selector): how many lines its tokens sit on, and whether the piece
# is as wide as the text (a piece longer than a line has to wrap).
_PIECE_LINES = """
(selector) => [...document.querySelectorAll(selector)].map((piece) => {
  // a token more than 12 px below the one before it starts a new line (outlines and
  // grouped characters move a token's top by a few px within one line)
  const tops = [...piece.querySelectorAll(".bpe-t")].map((t) => t.getBoundingClientRect().top);
  const lines = 1 + tops.filter((top, i) => i > 0 && top > tops[i - 1] + 12).length;
  const line = piece.closest(".bpe-text").getBoundingClientRect().width;
  return [lines, piece.getBoundingClientRect().width >= line - 24];
})
"""


@pytest.mark.parametrize("pieces", ["shown", "not shown"])
def test_lines_break_between_pieces_never_inside_one(
    browser: Any, tmp_path: Path, pieces: str
) -> None:
    """A narrow window wraps the English sample's lines; with gpt4's pieces (a word with the
    space before it) each piece that fits on a line sits on one line: the lecturer saw
    "␣o | ld", one piece looking like two, against the rule the view teaches."""
    from sample_runs import sample_history

    page = open_run(browser, tmp_path, sample_history("english"), step=3)
    page.set_viewport_size({"width": 420, "height": 900})
    selector = ".bpe-scroll .bpe-piece"
    if pieces == "shown":
        toggle(page, "Show pieces")
    else:
        selector = ".bpe-scroll .bpe-word"
    page.wait_for_function("() => document.querySelector('.bpe-root').dataset.ready === 'true'")
    drawn = page.evaluate(_PIECE_LINES, selector)
    assert len(drawn) > 100, f"too few pieces drawn to tell: {len(drawn)}"
    split = [lines for lines, full_width in drawn if lines > 1 and not full_width]
    assert split == [], f"{len(split)} pieces that fit on a line were broken across lines"
    assert page.bpeviz_errors == []


@pytest.mark.parametrize(("width", "height"), [(1366, 900), (390, 844)], ids=["laptop", "phone"])
def test_the_inspector_opens_without_moving_the_clicked_token(
    browser: Any, tmp_path: Path, screenshots: Path, width: int, height: int
) -> None:
    """The lecturer's click inserted the inspector above the text and the token jumped about
    450 px down, off a phone's screen. It now opens over the text's lower part, at the
    bottom of the screen (a bottom sheet on a phone), and the token stays where it was."""
    from sample_runs import sample_history

    page = open_run(browser, tmp_path, sample_history("english"), step=5)
    page.set_viewport_size({"width": width, "height": height})
    token = page.locator(".bpe-scroll .bpe-new").first
    token.scroll_into_view_if_needed()
    before = token.bounding_box()
    token.click()
    page.locator(".bpe-inspector").wait_for()
    after = token.bounding_box()
    assert before and after and abs(after["y"] - before["y"]) < 2, (before, after)
    sheet = page.locator(".bpe-inspector").bounding_box()
    assert sheet and sheet["y"] >= 0 and sheet["y"] + sheet["height"] <= height + 1, sheet
    assert sheet["height"] <= 0.6 * height, "the sheet leaves most of the text in sight"
    keep_screenshot(page, screenshots / f"inspector-sheet-{width}x{height}.png")
    assert page.bpeviz_errors == []


_IN_VIEW = """(el) => { const r = el.getBoundingClientRect();
  return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight; }"""


def test_on_a_phone_next_stays_in_reach_and_shows_what_changed(
    browser: Any, tmp_path: Path, screenshots: Path
) -> None:
    """390x844: a student scrolls down to the text; the step buttons stay on screen, and
    after each Next the new token is on screen, wherever in the text it is."""
    from sample_runs import sample_history

    page = open_run(browser, tmp_path, sample_history("english"), step=5)
    page.set_viewport_size({"width": 390, "height": 844})
    page.locator(".bpe-scroll").scroll_into_view_if_needed()
    page.mouse.wheel(0, 600)
    next_button = page.locator(".bpe-root button").filter(has_text="Next").first
    for k in range(6, 12):
        assert next_button.evaluate(_IN_VIEW), f"Next is off screen before step {k}"
        next_button.click()
        page.wait_for_function(
            "k => { const r = document.querySelector('.bpe-root');"
            " return r.dataset.ready === 'true' && r.dataset.step === String(k); }",
            arg=k,
        )
        mark = page.locator(".bpe-scroll .bpe-new").first
        page.wait_for_function(_IN_VIEW, arg=mark.element_handle(), timeout=5_000)
    keep_screenshot(page, screenshots / "phone-after-next-390x844.png")
    assert page.bpeviz_errors == []
