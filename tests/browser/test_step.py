"""Stepping through training on the Step page: buttons, slider, autoplay, and the link.

Every check is against the engine: the merge the page shows for step k must be the k-th
merge of ``bpeviz.trainer`` on the same sample with the same settings (its two parent ids and
the new id on the card, its count at the top of the pair table, and the new token's text in
the outlined spans).
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING, Any

import pytest

from bpeviz import History, train
from bpeviz.readable import readable
from bpeviz.samples import get_sample

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser


@cache
def history(sample_key: str) -> History:
    sample = get_sample(sample_key)
    settings = sample.settings
    return train(
        sample.text,
        settings.vocab_size,
        pretokenizer=settings.pretokenizer,
        tie_break=settings.tie_break,
    )


def button(app: AppPage, key: str) -> Any:
    """The visible button of widget ``key`` (a button with help text is drawn twice)."""
    return app.page.locator(f".st-key-{key} button:visible").first


def view(app: AppPage) -> dict[str, Any]:
    """What a person sees of the current step: card, top of the pair table, the spans."""
    title = re.match(r"Merge (\d+) of", app.card_title())
    k = int(title.group(1)) if title else 1  # step 0 marks the pair merge 1 will join
    return {
        "card": app.page.locator(".bpe-card").inner_text(),
        "table": app.table_rows(0, rows=3, first_has=f"◀ merge {k}"),
        "spans": app.spans(),
        "slider": app.page.locator(".st-key-step input[type=range]").input_value(),
    }


def assert_shows_merge(app: AppPage, sample_key: str, k: int) -> None:
    """The page shows merge ``k`` of the engine's history, everywhere it shows it."""
    run = history(sample_key)
    step = run.steps[k - 1]
    assert app.card_title() == f"Merge {k} of {run.merge_count}"
    chip_ids = app.page.locator(".bpe-card .bpe-chipid").all_inner_texts()
    assert chip_ids == [f"id {step.pair[0]}", f"id {step.pair[1]}", f"id {step.new_id}"]
    top = app.table_rows(0, rows=1, first_has=f"◀ merge {k}")[0]
    assert f"◀ merge {k}" in top and str(step.count) in top.split("|"), top
    new_tokens = [span for span in app.spans() if "bpe-new" in span["cls"].split()]
    assert new_tokens, "no token outlined as new after the merge"
    expected = readable(run.tokenizer.token_bytes(step.new_id))
    assert {span["text"] for span in new_tokens} == {expected}
    assert all(span["title"].startswith(f"id {step.new_id} ·") for span in new_tokens)
    assert re.search(rf"[?&]step={k}(&|$)", app.page.url), app.page.url


def test_next_previous_and_slider_change_the_merge_shown(app: AppPage) -> None:
    app.open("step")
    assert app.card_title() == "Step 0: no merges yet"
    start = view(app)
    assert any("bpe-ps" in span["cls"] for span in start["spans"]), "merge 1's pair not outlined"

    app.rerun(button(app, "step_next").click)
    assert_shows_merge(app, "english", 1)
    one = view(app)
    assert one["card"] != start["card"] and one["spans"] != start["spans"]

    app.rerun(button(app, "step_next").click)
    assert_shows_merge(app, "english", 2)
    two = view(app)
    assert two["table"] != one["table"] and two["spans"] != one["spans"]

    app.rerun(button(app, "step_prev").click)
    assert view(app) == one

    slider = app.page.locator(".st-key-step input[type=range]")
    for k in (2, 3):
        slider.focus()
        app.rerun(lambda: app.page.keyboard.press("ArrowRight"))
        assert_shows_merge(app, "english", k)

    app.rerun(button(app, "step_last").click)
    assert_shows_merge(app, "english", history("english").merge_count)
    app.rerun(button(app, "step_first").click)
    assert app.card_title() == "Step 0: no merges yet"
    app.assert_clean()


def test_the_link_reproduces_the_step_in_a_fresh_browser(app: AppPage, new_page: Any) -> None:
    app.open("step", sample="japanese")
    for _ in range(3):
        app.rerun(button(app, "step_next").click)
    assert_shows_merge(app, "japanese", 3)
    shown, link = view(app), app.page.url
    assert "sample=japanese" in link

    other = new_page()
    other.goto(link)
    assert_shows_merge(other, "japanese", 3)
    assert view(other) == shown
    other.assert_clean()
    app.assert_clean()


def test_a_link_to_a_step_opens_there(app: AppPage) -> None:
    app.open("step", step=40)
    assert_shows_merge(app, "english", 40)
    app.assert_clean()


MARK_IN_BOX = """box => {
    const mark = box.querySelector(".bpe-new");
    const top = mark.getBoundingClientRect().top - box.getBoundingClientRect().top;
    return top >= 0 && top + mark.offsetHeight <= box.clientHeight;
}"""


def test_the_text_scrolls_to_where_a_late_merge_first_applies(app: AppPage) -> None:
    """Merge 150's first place is far down the text: the box scrolls there, and back at 2."""
    app.open("step", step=150)
    assert_shows_merge(app, "english", 150)
    box = app.page.locator(".bpe-scroll").first
    app.page.wait_for_function(f"() => ({MARK_IN_BOX})(document.querySelector('.bpe-scroll'))")
    assert box.evaluate("box => box.scrollTop") > 0  # scrolled, the text above still there
    app.rerun(button(app, "step_next").click)
    assert_shows_merge(app, "english", 151)
    app.page.wait_for_function(f"() => ({MARK_IN_BOX})(document.querySelector('.bpe-scroll'))")
    app.open("step", step=2)
    assert_shows_merge(app, "english", 2)
    assert box.evaluate("box => box.scrollTop") == 0  # in sight already: no scrolling
    app.assert_clean()


def test_autoplay_advances_and_pause_stops(app: AppPage) -> None:
    from playwright.sync_api import expect  # here: without Playwright, the fixture says why

    app.open("step", step=5)
    assert_shows_merge(app, "english", 5)
    play = button(app, "step_play")
    play.click()
    expect(button(app, "step_play")).to_contain_text("Pause", timeout=30_000)
    # Autoplay moves on by itself, one merge per second at the default speed.
    app.page.wait_for_function(
        "() => /^Merge (7|8|9|1\\d) of/.test("
        "document.querySelector('.bpe-card-title').textContent)",
        timeout=20_000,
    )
    button(app, "step_play").click()
    expect(button(app, "step_play")).to_contain_text("Play", timeout=30_000)
    app.wait_idle()
    k = int(app.card_title().split()[1])
    assert k >= 7
    assert_shows_merge(app, "english", k)
    # Paused means paused: three autoplay intervals later the step has not moved.
    app.page.wait_for_timeout(3_000)
    assert app.card_title() == f"Merge {k} of {history('english').merge_count}"
    app.assert_clean()


def test_holding_the_arrow_key_on_the_slider_lands_where_it_points(app: AppPage) -> None:
    """Key repeats faster than the page reruns: no step may be lost or undone."""
    app.open("step", step=8)
    slider = app.page.locator(".st-key-step input[type=range]")
    slider.focus()
    for _ in range(10):  # a held key repeats about every 33 ms
        app.page.keyboard.press("ArrowRight")
        app.page.wait_for_timeout(33)
    app.page.wait_for_function(
        "() => document.querySelector('.bpe-card-title').textContent.startsWith('Merge 18 ')",
        timeout=15_000,
    )
    app.wait_idle()
    assert slider.input_value() == "18"
    assert_shows_merge(app, "english", 18)
