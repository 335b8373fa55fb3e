"""Stepping through training on the Step page: buttons, slider, keys, autoplay, the link.

Every check is against the engine: the merge the page shows for step k must be the k-th
merge of ``bpeviz.engine.trainer`` on the same sample with the same settings (its two parent ids and
the new id on the card, its count at the top of the pair table, and the new token's text in
the outlined spans). The view is drawn in the browser (``bpeviz/web``): stepping
waits for the view's ``data-ready``/``data-step``, not for a server run; the link follows
once the view reports where it stopped (600 ms later, one rerun).
"""

from __future__ import annotations

import csv
import re
from typing import TYPE_CHECKING, Any

import pytest
from sample_runs import sample_history

from bpeviz.engine.readable import readable

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser


def view(app: AppPage) -> dict[str, Any]:
    """What a person sees of the current step: card, top of the pair table, the spans."""
    app.wait_view()
    return {
        "card": app.page.locator(".bpe-card").inner_text(),
        "table": app.pair_rows(3),
        "spans": app.spans(),
        "slider": app.page.locator(".bpe-slider").input_value(),
    }


def assert_shows_merge(app: AppPage, sample_key: str, k: int, *, link: bool = True) -> None:
    """The page shows merge ``k`` of the engine's history, everywhere it shows it; with
    ``link``, the URL says so too once the view has reported where it stopped."""
    run = sample_history(sample_key)
    step = run.steps[k - 1]
    app.wait_view(k, "after")
    assert app.card_title() == f"Merge {k} of {run.merge_count}"
    chip_ids = app.page.locator(".bpe-card .bpe-chipid").all_inner_texts()
    assert chip_ids == [f"id {step.pair[0]}", f"id {step.pair[1]}", f"id {step.new_id}"]
    top = app.pair_rows(1)[0]
    assert f"◀ merge {k}" in top and f"{step.count:,}" in top.split("|"), top
    assert app.page.locator(".bpe-slider").input_value() == str(k)
    new_tokens = [span for span in app.spans() if "bpe-new" in span["cls"].split()]
    assert new_tokens, "no token outlined as new after the merge"
    expected = readable(run.tokenizer.token_bytes(step.new_id))
    assert {span["text"] for span in new_tokens} == {expected}
    assert all(span["title"].startswith(f"id {step.new_id} ·") for span in new_tokens)
    if link:
        app.wait_reported(k)
        assert re.search(rf"[?&]step={k}(&|$)", app.page.url), app.page.url


def test_next_previous_and_slider_change_the_merge_shown(app: AppPage) -> None:
    app.open("step")
    assert app.card_title() == "Step 0: no merges yet"
    start = view(app)
    assert any("bpe-ps" in span["cls"] for span in start["spans"]), "merge 1's pair not outlined"
    assert app.step_button("Previous").is_disabled() and app.step_button("First").is_disabled()

    app.step(app.step_button("Next").click, 1)
    assert_shows_merge(app, "english", 1)
    one = view(app)
    assert one["card"] != start["card"] and one["spans"] != start["spans"]

    app.step(app.step_button("Next").click, 2)
    assert_shows_merge(app, "english", 2)
    two = view(app)
    assert two["table"] != one["table"] and two["spans"] != one["spans"]

    app.step(app.step_button("Previous").click, 1)
    assert view(app) == one
    assert_shows_merge(app, "english", 1)

    slider = app.page.locator(".bpe-slider")
    for k in (2, 3):
        slider.focus()
        app.step(lambda: app.page.keyboard.press("ArrowRight"), k)
        assert_shows_merge(app, "english", k)

    last = sample_history("english").merge_count
    app.step(app.step_button("Last").click, last)
    assert_shows_merge(app, "english", last)
    assert app.step_button("Next").is_disabled() and app.step_button("Last").is_disabled()
    app.step(app.step_button("First").click, 0, "now")
    assert app.card_title() == "Step 0: no merges yet"
    app.wait_reported(0)
    app.assert_clean()


def test_keys_before_after_and_go_to_step(app: AppPage) -> None:
    """The document's keys (not while typing), the Before/After buttons and "Go to step"."""
    app.open("step", step=3)
    assert_shows_merge(app, "english", 3, link=False)
    keyboard = app.page.keyboard
    app.page.locator(".bpe-card").click()  # focus in the page, on no input
    app.step(lambda: keyboard.press("ArrowRight"), 4)
    app.step(lambda: keyboard.press("ArrowLeft"), 3)
    app.step(lambda: keyboard.press("End"), sample_history("english").merge_count)
    app.step(lambda: keyboard.press("Home"), 0, "now")
    app.step(lambda: keyboard.press("ArrowRight"), 1)
    assert_shows_merge(app, "english", 1)

    # Before merge: the text just before merge 1, its pair outlined; the card stays.
    app.step(app.step_button("Before merge").click, 1, "before")
    marks = [span["cls"].split() for span in app.spans()]
    assert any("bpe-ps" in cls for cls in marks) and any("bpe-pe" in cls for cls in marks)
    assert not any("bpe-new" in cls for cls in marks)
    assert app.card_title() == f"Merge 1 of {sample_history('english').merge_count}"
    app.wait_reported(1, "before")
    assert "text_when=Before+merge" in app.page.url, app.page.url
    app.step(app.step_button("After merge").click, 1, "after")
    app.wait_reported(1, "after")

    # Typing a step in the box goes there; the arrow keys typed there are the box's own.
    jump = app.page.locator("input.bpe-jump")
    jump.fill("42")
    app.step(lambda: jump.press("Enter"), 42)
    jump.focus()
    keyboard.press("ArrowRight")
    app.page.wait_for_timeout(300)
    assert app.shown_step() == 42
    assert_shows_merge(app, "english", 42)
    app.assert_clean()


def test_the_link_reproduces_the_step_in_a_fresh_browser(app: AppPage, new_page: Any) -> None:
    app.open("step", sample="japanese")
    for k in range(1, 4):
        app.step(app.step_button("Next").click, k)
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
    app.step(app.step_button("Next").click, 151)
    assert_shows_merge(app, "english", 151)
    app.page.wait_for_function(f"() => ({MARK_IN_BOX})(document.querySelector('.bpe-scroll'))")
    app.open("step", step=2)
    assert_shows_merge(app, "english", 2)
    assert box.evaluate("box => box.scrollTop") == 0  # in sight already: no scrolling
    app.assert_clean()


def test_autoplay_advances_and_pause_stops(app: AppPage) -> None:
    from playwright.sync_api import expect  # here: without Playwright, the fixture says why

    app.open("step", step=5)
    assert_shows_merge(app, "english", 5, link=False)
    messages = app.messages()
    app.step_button("Play").click()
    expect(app.step_button("Pause")).to_be_visible(timeout=5_000)
    # Autoplay moves on by itself, one merge per second at the default speed.
    app.page.wait_for_function(
        "() => /^Merge (7|8|9|1\\d) of/.test("
        "document.querySelector('.bpe-card-title').textContent)",
        timeout=20_000,
    )
    assert app.messages() == messages, "autoplay asked the server for something"
    app.step_button("Pause").click()
    expect(app.step_button("Play")).to_be_visible(timeout=5_000)
    app.wait_view()
    k = app.shown_step()
    assert k >= 7
    assert_shows_merge(app, "english", k)  # reported once paused: the link says k
    # Paused means paused: three autoplay intervals later the step has not moved.
    app.page.wait_for_timeout(3_000)
    assert app.card_title() == f"Merge {k} of {sample_history('english').merge_count}"
    assert app.shown_step() == k
    app.assert_clean()


def test_holding_the_arrow_key_on_the_slider_lands_where_it_points(app: AppPage) -> None:
    """Key repeats faster than anything a server could answer: no step lost or undone."""
    app.open("step", step=8)
    app.wait_view(8)
    slider = app.page.locator(".bpe-slider")
    slider.focus()
    sent, messages = app.traffic()
    for _ in range(10):  # a held key repeats faster than any server answers
        app.page.keyboard.press("ArrowRight")
    app.wait_view(18)
    now_sent, now_received = app.traffic()
    if now_sent == sent:  # no pause long enough for the view to report (a loaded machine
        # can draw that slowly): until then, nothing came from the server either
        assert now_received == messages, "stepping asked the server for something"
    assert app.sent() - sent <= 1, "more than the one report where the student stopped"
    assert slider.input_value() == "18"
    assert_shows_merge(app, "english", 18)


def test_the_csv_downloads_are_made_when_clicked(app: AppPage) -> None:
    """The downloads keep the run's name, not the run (issue 29), and are made on a click,
    outside any script run: Wikipedia's aaabdaaabac walk-through pasted, at step 3. Before
    merge 3 the text is Z Y d Z Y a c: 5 different pairs, ZY twice; merges 1-3 make aa, ab
    and aaab. A click starts no run: a run it started dropped the file the click was
    fetching, and on a loaded server the download never came (once in a whole suite's run)."""
    app.open("step", src="paste", paste="aaabdaaabac", pretok="bytes", vocab="259",
             tie="lexmin", step="3")  # fmt: skip
    page = app.page
    sent, heard = app.traffic()
    with page.expect_download() as download:
        page.get_by_role("button", name="Download all 5 pairs before merge 3 (CSV)").click()
    pairs = list(csv.DictReader(download.value.path().read_text(encoding="utf-8").splitlines()))
    assert len(pairs) == 5 and max(int(row["count"]) for row in pairs) == 2
    with page.expect_download() as download:
        page.get_by_role("button", name="Download merges 1–3 (CSV)").click()
    merges = list(csv.DictReader(download.value.path().read_text(encoding="utf-8").splitlines()))
    assert [row["token"] for row in merges] == ["aa", "ab", "aaab"]
    # each click: one message each way (the file's address asked for, and given), no run
    now_sent, now_heard = app.traffic()
    assert (now_sent - sent, now_heard - heard) == (2, 2)
    app.assert_clean()
