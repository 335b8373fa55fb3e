"""Unigram in the app, as a person sees it: the Step page steps through the rounds (card,
table, loss chart, tokens), a word's lattice opens and is sampled, the Export page's one-file
page works from disk, and a live class's student follows the teacher's Unigram run.

Expected values are worked by hand from the Hugging Face course's corpus (("hug",10)
("pug",5) ("pun",12) ("bun",4) ("hugs",5)) and the rules in ``bpeviz/engine/unigram.py``, or
come from SentencePiece:

- the seed is every substring of ▁hug ▁pug ▁pun ▁bun ▁hugs: 8 characters (▁ h u g p n b s),
  9 of two (▁h hu ug ▁p pu un ▁b bu gs), 8 of three (▁hu hug ▁pu pug pun ▁bu bun ugs), 5 of
  four (▁hug ▁pug ▁pun ▁bun hugs) and ▁hugs: 31;
- each round keeps floor(0.75 x size), never below the vocab size 12: 31 -> 23 -> 17 -> 12;
- a word of 5 characters with every substring in the vocabulary has 2^4 = 16 segmentations;
- near temperature 0 every sample is the best path;
- at the last step, the text is cut as SentencePiece cuts it with the same pieces and scores.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import keep_screenshot
from test_unigram_sentencepiece import model_pb2_float, processor

from bpeviz import UnigramModel
from bpeviz.engine.unigram import split_words, train_unigram

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

COURSE = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
ROUNDS = [(31, 23), (23, 17), (17, 12)]
ROOT = ".bpe-root.bpe-unigram"


def open_course(app: AppPage, **more: Any) -> None:
    app.open("step", src="paste", paste=COURSE, algo="unigram", pretok="words", vocab=12, **more)
    app.page.wait_for_selector(f"{ROOT}[data-ready=true]", timeout=60_000)


def wait_step(app: AppPage, k: int) -> None:
    app.page.wait_for_selector(f'{ROOT}[data-ready=true][data-step="{k}"]', timeout=30_000)


def shown_tokens(app: AppPage) -> list[list[str]]:
    """The words drawn, each as its tokens' texts (the space mark read back as ▁)."""
    return app.page.evaluate(
        """selector => [...document.querySelectorAll(selector + " .bpe-text [data-word]")]
             .map((word) => [...word.querySelectorAll(".bpe-t")]
             .map((span) => span.textContent.replaceAll("\u2423", "\u2581")))""",
        ROOT,
    )


def test_step_through_the_course_s_rounds(app: AppPage, screenshots: Path) -> None:
    open_course(app)
    page = app.page
    assert page.locator(".bpe-card-title").inner_text().startswith("The seed: 31 tokens; loss ")
    for k, (before, after) in enumerate(ROUNDS, start=1):
        page.locator(f"{ROOT} button").filter(has_text="Next").click()
        wait_step(app, k)
        title = page.locator(".bpe-card-title").inner_text()
        assert title.startswith(
            f"Round {k}: {before} → {after} tokens; removed the {before - after} whose removal "
            "raised the loss least; loss "
        ), title
        removed = page.locator(".bpe-unigram-rows tr.bpe-removed")
        assert removed.count() == before - after
        assert set(removed.locator("td:nth-child(5)").all_inner_texts()) == {"removed"}
        assert page.locator(".bpe-metric-value").nth(1).inner_text() == str(after)
    assert page.locator(f"{ROOT} button").filter(has_text="Next").is_disabled()
    note = page.locator(".bpe-card p").first.inner_text()
    assert note == "Training stopped: it reached the vocab size (12)."
    # the loss chart: the seed and three rounds, the marker on the last
    assert page.locator(".bpe-loss-chart .bpe-point").count() == 4
    label = page.locator(".bpe-loss-chart").get_attribute("aria-label")
    assert label and label.endswith(
        f"at step 3: {page.locator('.bpe-metric-value').nth(2).inner_text()}."
    )
    # the tokens at the last step, as SentencePiece cuts the text with the same pieces
    final = train_unigram(COURSE, 12).model()
    rounded = UnigramModel.from_log_probs(
        {piece: model_pb2_float(score) for piece, score in final.log_probs.items()}
    )
    reference = processor(rounded)
    expected = [reference.encode(word, out_type=str) for word in split_words(COURSE)]
    assert shown_tokens(app) == expected
    app.assert_clean()
    app.screenshot(screenshots / "unigram_step_last.png")


def test_the_link_opens_a_round_and_the_step_goes_into_the_link(app: AppPage) -> None:
    open_course(app, step=2)
    assert app.page.locator(".bpe-card-title").inner_text().startswith("Round 2: 23 → 17")
    app.page.locator(f"{ROOT} button").filter(has_text="Previous").click()
    wait_step(app, 1)
    app.page.wait_for_function("() => new URLSearchParams(location.search).get('step') === '1'")
    assert "algo=unigram" in app.page.url
    app.assert_clean()


def test_a_word_s_lattice_and_its_samples(app: AppPage, screenshots: Path) -> None:
    open_course(app)
    page = app.page
    page.locator(f"{ROOT} .bpe-text [data-word]").filter(has_text="hugs").first.click()
    lattice = page.locator(".bpe-lattice-box")
    assert lattice.locator("h3").inner_text() == "The lattice of “␣hugs” at step 0"
    assert lattice.locator("h4").nth(1).inner_text() == "Every segmentation (16)"
    viterbi = lattice.locator(".bpe-viterbi tr")
    assert viterbi.count() == 1 + 5  # a row per character of ▁hugs
    best = lattice.locator(".bpe-lattice-best .bpe-chip").all_inner_texts()
    assert "".join(best) == "␣hugs"
    assert lattice.locator(".bpe-segmentations tr.bpe-best").count() == 1
    # near temperature 0: every one of the 1,000 draws is the best path
    slider = lattice.locator(".bpe-temperature")
    slider.fill("0.05")
    slider.dispatch_event("change")
    lattice = page.locator(".bpe-lattice-box")
    lattice.locator("button").filter(has_text="Draw 1,000 samples").click()
    rows = lattice.locator(".bpe-sampled tr")
    assert rows.count() == 2
    assert rows.nth(1).locator("td").nth(1).inner_text() == "1,000"
    assert "".join(rows.nth(1).locator(".bpe-chip").all_inner_texts()) == "".join(best)
    # at temperature 3 several segmentations come up, each beside its expected share
    slider = lattice.locator(".bpe-temperature")
    slider.fill("3")
    slider.dispatch_event("change")
    lattice = page.locator(".bpe-lattice-box")
    lattice.locator("button").filter(has_text="Draw 1,000 samples").click()
    rows = lattice.locator(".bpe-sampled tr")
    assert rows.count() > 3
    counts = [
        int(text.replace(",", "")) for text in rows.locator("td:nth-child(2)").all_inner_texts()
    ]
    assert sum(counts) == 1000
    for row in range(1, min(rows.count(), 4)):
        cells = rows.nth(row).locator("td").all_inner_texts()
        drawn, expected = (float(cell.rstrip("%")) for cell in cells[2:4])
        assert abs(drawn - expected) < 5, cells  # 1,000 draws: sd at most 1.6 points
    # the word menu opens another word, by keyboard too
    menu = page.locator(".bpe-word-pick")
    menu.select_option(label="␣pun")
    assert page.locator(".bpe-lattice-box h3").inner_text() == "The lattice of “␣pun” at step 0"
    app.assert_clean()
    app.screenshot(screenshots / "unigram_lattice.png")


def test_the_exported_page_steps_from_disk(app: AppPage, tmp_path: Path, screenshots: Path) -> None:
    app.open("export", src="paste", paste=COURSE, algo="unigram", pretok="words", vocab=12)
    with app.page.expect_download() as download:
        app.page.get_by_role("button", name="Download this run as an HTML page").click()
    path = tmp_path / "unigram.html"
    download.value.save_as(path)
    assert re.fullmatch(r"bpeviz-.*-12-3-rounds\.html", download.value.suggested_filename)
    page = app.page.context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{path.as_uri()}#step=2")
    page.wait_for_selector(f'{ROOT}[data-ready=true][data-step="2"]')
    assert page.locator(".bpe-card-title").inner_text().startswith("Round 2: 23 → 17 tokens")
    page.locator(f"{ROOT} button").filter(has_text="Next").click()
    page.wait_for_selector(f'{ROOT}[data-step="3"]')
    page.wait_for_function("() => location.hash === '#step=3&when=after'")  # once it pauses
    page.locator(f"{ROOT} .bpe-text [data-word]").first.click()
    assert page.locator(".bpe-lattice-box h3").inner_text() == "The lattice of “␣hug” at step 3"
    assert errors == []
    keep_screenshot(page, screenshots / "unigram_exported.png", full_page=True)


def test_a_live_class_follows_the_teacher_s_unigram_rounds(app: AppPage, new_page: Any) -> None:
    """The class's rule, worked by hand: a student stands where the teacher stands, here on a
    Unigram run the student never chose (the class gives it)."""
    from test_live_class import join, wait_connected

    teacher = app
    teacher.goto(
        teacher.url_for(
            "step", src="paste", paste=COURSE, algo="unigram", pretok="words", vocab=12
        ).replace("?", "?class=new&", 1)
    )
    teacher.page.wait_for_selector(".bpe-class-teacher", timeout=60_000)
    teacher.page.wait_for_function("() => /[?&]class=[A-Z0-9]{6}/.test(location.search)")
    code = teacher.page.evaluate("new URLSearchParams(location.search).get('class')")
    wait_step(teacher, 0)
    student = new_page()
    join(student, code)
    student.page.wait_for_selector(f"{ROOT}[data-ready=true]", timeout=60_000)
    wait_connected(teacher, 1)
    assert student.page.locator(".bpe-card-title").inner_text().startswith("The seed: 31 tokens")
    for k in (1, 2):
        teacher.page.locator(f"{ROOT} button").filter(has_text="Next").click()
        wait_step(teacher, k)
        wait_step(student, k)
    title = student.page.locator(".bpe-card-title").inner_text()
    assert title.startswith("Round 2: 23 → 17 tokens")
    teacher.assert_clean()
    student.assert_clean()


def test_the_class_quiz_asks_which_token_a_unigram_round_removes(
    app: AppPage, new_page: Any, screenshots: Path
) -> None:
    """The teacher turns the quiz on: the following student gets the class's question, answers
    once, and after the teacher's reveal sees which of the four the round removes (the one the
    round's table marks removed) and how the class voted."""
    from test_live_class import join, wait_connected

    teacher = app
    teacher.goto(
        teacher.url_for(
            "step", src="paste", paste=COURSE, algo="unigram", pretok="words", vocab=12
        ).replace("?", "?class=new&", 1)
    )
    teacher.page.wait_for_selector(".bpe-class-teacher", timeout=60_000)
    teacher.page.wait_for_function("() => /[?&]class=[A-Z0-9]{6}/.test(location.search)")
    code = teacher.page.evaluate("new URLSearchParams(location.search).get('class')")
    wait_step(teacher, 0)
    student = new_page()
    join(student, code)
    student.page.wait_for_selector(f"{ROOT}[data-ready=true]", timeout=60_000)
    wait_connected(teacher, 1)

    teacher.page.get_by_label("Quiz: which token goes next?").check()
    title = "Class quiz: which of these four tokens will round 1 remove?"
    quiz = student.page.locator(".bpe-unigram-quiz")
    quiz.locator(".bpe-card-title").filter(has_text=title).wait_for(timeout=30_000)
    choices = quiz.locator(".bpe-choice:not([disabled])")
    choices.first.wait_for()
    assert choices.count() == 4
    guess = choices.first.inner_text()
    choices.first.click()
    quiz.locator(".bpe-verdict").filter(has_text="Your answer is in").wait_for()
    teacher_quiz = teacher.page.locator(".bpe-unigram-quiz")
    teacher_quiz.locator(".bpe-class-tally").filter(has_text="1 of 1 student answered").wait_for()
    teacher_quiz.locator("button").filter(has_text="Reveal the answer").click()

    quiz.locator(".bpe-choice.bpe-right").wait_for()
    answered = quiz.locator(".bpe-choice").all_inner_texts()
    right = [text for text in answered if text.startswith("✓ right: ")]
    assert len(right) == 1 and " · removed, " in right[0]
    assert sum(" · removed, " in text for text in answered) == 1
    assert sum(" · 1 answer · " in text for text in answered) == 1  # the class's one vote
    verdict = quiz.locator(".bpe-verdict").inner_text()
    if right[0].removeprefix("✓ right: ").startswith(f"{guess} · "):
        assert verdict == "✓ Right!"
    else:
        assert verdict.startswith("✗ Not this one: round 1 removes “")
        assert any(text.startswith(f"✗ your guess: {guess} · ") for text in answered)
    keep_screenshot(student.page, screenshots / "unigram_class_quiz.png", full_page=True)
    # The class's results say what was asked: which token round 1 removes, not a merge's pairs.
    csv_button = teacher.page.get_by_role("button", name="Class results, 1 question (CSV)")
    csv_button.wait_for(timeout=30_000)
    with teacher.page.expect_download() as download:
        csv_button.click()
    rows = list(csv.DictReader(download.value.path().read_text(encoding="utf-8").splitlines()))
    assert [(row["asked"], row["number"]) for row in rows] == [("round", "1")] * 4
    assert not {"merge", "pair"} & set(rows[0]), f"a Unigram question's columns: {list(rows[0])}"
    assert [row["students"] != "" for row in rows].count(True) == 1
    assert len({row["offered"] for row in rows} - {""}) == 4  # the four tokens, named
    teacher.assert_clean()
    student.assert_clean()


def test_axe_finds_nothing_in_the_unigram_view(app: AppPage, unavailable: Any) -> None:
    """axe-core (tests/browser/test_accessibility.py's rules) over the seed, a round with its
    table, and a word's lattice with samples drawn."""
    from test_accessibility import AXE, assert_no_violations

    if not AXE.exists():
        unavailable("axe-core not found: run `npm ci` (make test does)")
    open_course(app)
    page = app.page
    assert_no_violations(page, AXE, "the Unigram seed")
    page.locator(f"{ROOT} button").filter(has_text="Next").click()
    wait_step(app, 1)
    page.locator(".bpe-lattice-box button").filter(has_text="Draw 1,000 samples").click()
    page.locator(".bpe-sampled").wait_for()
    assert_no_violations(page, AXE, "round 1, a lattice sampled")


def test_the_quiz_asks_which_token_the_next_round_removes(app: AppPage) -> None:
    open_course(app)
    page = app.page
    page.get_by_label("Quiz: which token goes next?").check()
    quiz = page.locator(".bpe-unigram-quiz")
    assert quiz.locator(".bpe-card-title").inner_text() == (
        "Quiz: which of these four tokens will round 1 remove?"
    )
    choices = quiz.locator(".bpe-choice")
    assert choices.count() == 4
    guess = choices.first.inner_text()
    choices.first.click()
    answered = page.locator(".bpe-unigram-quiz .bpe-choice").all_inner_texts()
    assert answered[0].startswith(f"your guess: {guess} · ")
    assert sum(" · removed, " in text for text in answered) == 1  # one of the four goes
    gone = next(text.split(" · ")[0].removeprefix("your guess: ") for text in answered
                if " · removed, " in text)  # fmt: skip
    verdict = page.locator(".bpe-unigram-quiz .bpe-verdict").inner_text()
    assert verdict.startswith("✓ Right" if gone == guess else "✗ Not this one")
    # the round then lists it among the tokens it removed
    page.locator(f"{ROOT} button").filter(has_text="Next").click()
    wait_step(app, 1)
    removed = page.locator(".bpe-unigram-rows tr.bpe-removed td:nth-child(2)").all_inner_texts()
    assert gone in removed
    app.assert_clean()
