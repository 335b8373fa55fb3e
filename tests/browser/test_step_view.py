"""The Step page's view drawn in the browser (``bpeviz/web``), checked against the engine.

- At every step of a bundled sample, after and before its merge, what the DOM shows (the
  spans' ids, texts and marks, the card's title and ids, the pair table's pairs and counts)
  is what :class:`bpeviz.engine.history.History` says: ``segmentation``, ``tests/step_outline.py``,
  ``pair_table`` and ``steps``.
- The same at 200 random steps of Tiny Shakespeare at vocab 4096, in an exported HTML file
  (``bpeviz.web.step_page``) opened from disk: there the text drawn is the window's first
  symbols, so only tokens starting inside the window are compared.
- That exported file works with no server: buttons, keys, autoplay, the ``#step=`` hash, no
  console error; screenshots at 1366x900 and on a phone (390x844).
- Stepping in the app costs the server nothing: no message while a student steps, one rerun
  once they stop (the step goes into the link).

The DOM is read inside the page: ``window.bpevizStepView.show(k, when)`` draws a step (the
animation switched off with the "Animate merges" box, so the final view is drawn at once),
and each read checks that the root says ``data-ready`` for that step.
"""

from __future__ import annotations

import json
import random
import re
import weakref
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from conftest import keep_screenshot
from sample_runs import sample_history
from step_outline import step_outline

from bpeviz.engine.history import History, train
from bpeviz.records.schema import label_runs
from bpeviz.records.step import payload, payload_json
from bpeviz.web import step_page

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
TOP_ROWS = 12
RANDOM_STEPS = 200
PHONE = {"width": 390, "height": 844}

# Draw each [k, when] and read what the view shows. Compact per step: ids joined by ",",
# marks one letter per token (p, e, n, -), texts joined by U+0000.
_READ_STEPS_JS = """
(steps) => {
  const view = window.bpevizStepView;
  const root = document.querySelector(".bpe-root");
  const letter = (span) => span.classList.contains("bpe-ps") ? "p"
    : span.classList.contains("bpe-pe") ? "e" : span.classList.contains("bpe-new") ? "n" : "-";
  return steps.map(([k, when]) => {
    view.show(k, when);
    const spans = [...root.querySelectorAll(".bpe-scroll .bpe-text .bpe-t")];
    return {
      k, when,
      ready: root.dataset.ready, step: root.dataset.step, shownWhen: root.dataset.when,
      ids: spans.map((span) => span.dataset.id).join(","),
      texts: spans.map((span) => span.textContent).join("\\u0000"),
      marks: spans.map(letter).join(""),
      title: root.querySelector(".bpe-card-title").textContent,
      chips: [...root.querySelectorAll(".bpe-card .bpe-chipid")].map((chip) => chip.textContent),
      pairs: [...root.querySelectorAll("table.bpe-pair-table tr[data-pair]")].map((row) =>
        [row.dataset.pair, row.querySelector(".bpe-count-n").textContent]),
    };
  });
}
"""
MARK_LETTERS = {"ps": "p", "pe": "e", "new": "n", "": "-"}
# Each history's span texts by token id, worked out once: a step of Tiny Shakespeare shows
# hundreds of tokens, mostly the same few hundred from step to step.
_TEXTS: weakref.WeakKeyDictionary[History, dict[int, str]] = weakref.WeakKeyDictionary()


def expected_text(history: History, token_id: int) -> str:
    """A span's text as the view draws it: the token's readable label (runs joined)."""
    texts = _TEXTS.setdefault(history, {})
    if token_id not in texts:
        label = label_runs(history.tokenizer.token_bytes(token_id))
        text = label if isinstance(label, str) else "".join(label)
        texts[token_id] = text or "\u200b"
    return texts[token_id]


def check_step(history: History, shown: dict[str, Any], window_bytes: int) -> None:
    """What the DOM showed at ``shown["k"]`` (after or before) is what the engine says."""
    k, when = shown["k"], shown["when"]
    before = when == "before"
    where = f"step {k} {when}"
    assert shown["ready"] == "true" and shown["step"] == str(k), where
    assert shown["shownWhen"] == ("now" if k == 0 else when), where

    outline = step_outline(history, k, before=before)
    segmentation = history.segmentation(k - 1 if before and k else k)
    assert np.array_equal(outline.shown.ids, segmentation.ids), where
    inside = int((segmentation.starts < window_bytes).sum())
    want_ids = segmentation.ids[:inside].tolist()
    got_ids = [int(value) for value in shown["ids"].split(",")] if shown["ids"] else []
    assert got_ids == want_ids, f"{where}: ids differ from History.segmentation"
    want_marks = "".join(MARK_LETTERS[mark] for mark in outline.marks[:inside])
    assert shown["marks"] == want_marks, f"{where}: marks differ from step_outline"
    texts = shown["texts"].split("\u0000") if shown["texts"] else []
    labels = {token_id: expected_text(history, token_id) for token_id in set(want_ids)}
    assert texts == [labels[token_id] for token_id in want_ids], where

    if k:
        step = history.steps[k - 1]
        assert shown["title"] == f"Merge {k:,} of {history.merge_count:,}", where
        want_chips = [*step.pair, step.new_id]
        assert shown["chips"] == [f"id {value}" for value in want_chips], where
    else:
        assert shown["title"] == "Step 0: no merges yet", where
        assert shown["chips"] == [], where

    table = history.pair_table(k - 1 if k else 0)
    want_rows = [
        [f"{left},{right}", f"{count:,}"]
        for left, right, count in zip(
            table.lefts[:TOP_ROWS].tolist(),
            table.rights[:TOP_ROWS].tolist(),
            table.counts[:TOP_ROWS].tolist(),
            strict=True,
        )
    ]
    assert shown["pairs"] == want_rows, f"{where}: pair table differs from History.pair_table"


def keeping_cuts(history: History) -> History:
    """``history`` remembering its last few cuts of the text (``segmentation``) and its last
    pair table: checking one step reads the cuts after k and k - 1 merges up to six times
    (:func:`check_step` and :func:`step_outline`), and its "after" and "before" views the
    same pair table (after k - 1 merges); one cut or table of Tiny Shakespeare costs tens of
    milliseconds. They are still the engine's, only not computed again."""
    history.segmentation = lru_cache(maxsize=4)(history.segmentation)  # type: ignore[method-assign]
    history.pair_table = lru_cache(maxsize=1)(history.pair_table)  # type: ignore[method-assign]
    return history


def read_steps(page: Any, steps: list[tuple[int, str]]) -> list[dict]:
    """What the view shows at each of ``steps``, all read in one call: the page draws no
    frame between two steps, each frame a layout and paint of thousands of spans (200
    random steps of Tiny Shakespeare cost 38 CPU-s read 8 steps a call, 34 in one)."""
    return list(page.evaluate(_READ_STEPS_JS, [list(step) for step in steps]))


def animate_off(page: Any) -> None:
    box = page.locator(".bpe-root label").filter(has_text="Animate merges").locator("input")
    box.uncheck()
    assert page.evaluate("window.bpevizStepView.animate") is False


def exported_page(browser: Any, path: Path, viewport: dict[str, int] | None = None) -> Any:
    """A page on an exported HTML file, from disk; console errors in ``page.bpeviz_errors``."""
    context = browser.new_context(viewport=viewport or {"width": 1366, "height": 900})
    context.set_default_timeout(30_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(f"console.{m.type}: {m.text}")
            if m.type == "error" else None)  # fmt: skip
    page.on("pageerror", lambda error: errors.append(f"pageerror: {error}"))
    page.goto(path.as_uri())
    page.wait_for_function(
        "() => document.querySelector('.bpe-root')?.dataset.ready === 'true'", timeout=30_000
    )
    page.bpeviz_errors = errors
    return page


def wait_step(page: Any, k: int, timeout: float = 10_000) -> None:
    page.wait_for_function(
        """k => { const root = document.querySelector('.bpe-root');
                  return root.dataset.ready === 'true' && root.dataset.step === String(k); }""",
        arg=k,
        timeout=timeout,
    )


def wait_hash(page: Any, k: int, when: str = "after", timeout: float = 10_000) -> None:
    page.wait_for_function(
        "([k, when]) => location.hash === `#step=${k}&when=${when}`",
        arg=[k, when],
        timeout=timeout,
    )


# ---- the tests ---------------------------------------------------------------------------------


def test_every_step_of_the_english_sample_equals_the_engine(app: AppPage) -> None:
    history = keeping_cuts(History(sample_history("english").run))
    record = payload(history)
    assert record["window"]["whole"], "a bundled sample is drawn whole"
    app.open("step")
    app.wait_view(0)
    assert app.page.evaluate("window.bpevizStepView.record.merge_count") == history.merge_count
    animate_off(app.page)
    steps = [(k, when) for k in range(history.merge_count + 1) for when in ("after", "before")]
    checked = 0
    for shown in read_steps(app.page, steps):
        check_step(history, shown, record["window"]["bytes"])
        checked += 1
    assert checked == 2 * (history.merge_count + 1)
    app.assert_clean()


def test_two_hundred_random_steps_of_tiny_shakespeare_equal_the_engine(
    browser: Any, shakespeare_text: str, tmp_path: Path
) -> None:
    history = keeping_cuts(train(shakespeare_text, 4096, pretokenizer="gpt4", top_pairs=12))
    text = payload_json(history)
    window = json.loads(text)["window"]  # the record the page reads (not built again)
    assert not window["whole"] and window["bytes"] > 0
    path = tmp_path / "shakespeare.html"
    path.write_text(step_page(text, title="Tiny Shakespeare", subtitle="vocab 4096"), "utf-8")
    page = exported_page(browser, path)
    try:
        assert page.evaluate("window.bpevizStepView.record.merge_count") == history.merge_count
        animate_off(page)
        rng = random.Random(4096)
        ks = [0, history.merge_count, *rng.sample(range(1, history.merge_count), RANDOM_STEPS - 2)]
        steps = [(k, when) for k in ks for when in ("after", "before")]
        for shown in read_steps(page, steps):
            check_step(history, shown, window["bytes"])
        assert page.bpeviz_errors == []
    finally:
        page.context.close()


def test_the_exported_page_works_from_disk(browser: Any, tmp_path: Path, screenshots: Path) -> None:
    history = sample_history("english")
    path = tmp_path / "english.html"
    path.write_text(
        step_page(payload_json(history), title="The Printer <b>Who</b>", subtitle="vocab 512"),
        "utf-8",
    )
    page = exported_page(browser, path)
    try:
        assert page.title() == "The Printer <b>Who</b>"  # escaped: the text, not markup
        root = page.locator(".bpe-root")
        assert root.get_attribute("data-step") == "0"
        next_button = page.locator(".bpe-root button").filter(has_text="Next")
        next_button.click()
        wait_step(page, 1)
        assert page.locator(".bpe-card-title").inner_text() == f"Merge 1 of {history.merge_count}"
        wait_hash(page, 1)

        page.locator(".bpe-card").click()  # focus on the page, in no input
        page.keyboard.press("ArrowRight")
        wait_step(page, 2)
        wait_hash(page, 2)
        page.keyboard.press("End")
        wait_step(page, history.merge_count)
        wait_hash(page, history.merge_count)
        page.keyboard.press("Home")
        wait_step(page, 0)
        wait_hash(page, 0)

        # Autoplay at 20 steps a second: it advances by itself; the hash follows on pause.
        page.locator("select.bpe-pace").select_option(label="20 steps / s")
        play = page.locator(".bpe-root button").filter(has_text="Play")
        play.click()
        page.wait_for_function(
            "() => Number(document.querySelector('.bpe-root').dataset.step) >= 5", timeout=10_000
        )
        page.locator(".bpe-root button").filter(has_text="Pause").click()
        k = int(root.get_attribute("data-step"))
        assert k >= 5, f"autoplay at 20 / s stopped at step {k}"
        wait_step(page, k)
        wait_hash(page, k)

        # The hash opens the page at that step (a link to an exported page).
        page.goto(path.as_uri() + "#step=40&when=before")
        page.reload()
        wait_step(page, 40)
        assert root.get_attribute("data-when") == "before"
        assert page.locator(".bpe-root .bpe-ps").count() > 0
        keep_screenshot(page, screenshots / "exported-step.png", full_page=True)
        assert page.bpeviz_errors == []
    finally:
        page.context.close()

    phone = exported_page(browser, path, PHONE)
    try:
        wait_step(phone, 0)
        phone.locator(".bpe-root button").filter(has_text="Next").click()
        wait_step(phone, 1)
        width = phone.evaluate("document.documentElement.clientWidth")
        wide = phone.evaluate(
            """(width) => [...document.querySelectorAll(
                 '.bpe-controls, .bpe-card, .bpe-metrics, .bpe-scroll, .bpe-pairs, .bpe-chart')]
               .filter((e) => e.getBoundingClientRect().right > width + 1)
               .map((e) => e.className.baseVal ?? e.className)""",
            width,
        )
        keep_screenshot(phone, screenshots / "exported-step-phone.png", full_page=True)
        assert wide == [], f"cut off at the right on a phone ({width} px): {wide}"
        assert phone.bpeviz_errors == []
    finally:
        phone.context.close()


def test_stepping_costs_the_server_nothing(app: AppPage) -> None:
    app.open("step")
    app.wait_view(0)
    app.page.locator(".bpe-card").click()  # focus on the page, in no input
    app.wait_idle()
    sent, received = app.traffic()
    # Five steps in a row (no pause the view would report), each drawn by the browser alone.
    for _ in range(5):
        app.page.keyboard.press("ArrowRight")
    app.wait_view(5)
    now_sent, now_received = app.traffic()
    if now_sent == sent:  # the view reports once stepping has paused (a loaded machine
        # can take that long to draw): until then, nothing went either way
        assert now_received == received, "the server sent something while the student stepped"
    app.wait_reported(5)
    app.page.wait_for_timeout(1_500)  # nothing more comes: no second rerun
    app.wait_idle()
    assert app.sent() - sent == 1, f"{app.sent() - sent} messages to the server, not one rerun"
    assert re.search(r"[?&]step=5(&|$)", app.page.url), app.page.url
    assert app.shown_merge()[0] == 5
    app.assert_clean()


def test_a_page_with_a_record_of_another_version_says_so(browser: Any, tmp_path: Path) -> None:
    """A record the script cannot read is refused with one sentence, not drawn wrong."""
    record = payload(train("abab", 258))
    record["schema"] += 1
    path = tmp_path / "other.html"
    path.write_text(step_page(json.dumps(record), title="other", subtitle=""), "utf-8")
    page = exported_page(browser, path)
    try:
        refused = page.locator(".bpe-root .bpe-refused")
        refused.wait_for()
        assert f"has version {record['schema']}" in refused.inner_text()
        assert "export the page again" in refused.inner_text()
        assert page.locator(".bpe-root .bpe-t").count() == 0
        assert page.bpeviz_errors == []
    finally:
        page.context.close()


_NEXT_SLIDES_JS = """async () => {
  const root = document.querySelector('.bpe-root');
  const next = [...root.querySelectorAll('button')].find((b) => b.textContent.startsWith('Next'));
  const start = performance.now();
  next.click();
  const during = [root.dataset.ready, root.querySelectorAll('.bpe-sliding .bpe-ps').length];
  while (root.dataset.ready !== 'true') await new Promise(requestAnimationFrame);
  return [...during, performance.now() - start, root.querySelectorAll('.bpe-sliding').length];
}"""


def test_next_slides_the_pair_together_for_the_stylesheets_time(
    browser: Any, tmp_path: Path
) -> None:
    """With "Animate merges" on, Next first shows the pair's halves sliding (the "before"
    view), for as long as the stylesheet's ``--bpe-slide`` says, then the merge."""
    path = tmp_path / "slide.html"
    path.write_text(step_page(payload_json(train("abab abab", 259)), title="s", subtitle=""))
    page = exported_page(browser, path)
    try:
        slide = page.evaluate(
            "getComputedStyle(document.querySelector('.bpe-root')).getPropertyValue('--bpe-slide')"
        )
        assert slide.strip().endswith("ms")
        ready, halves, waited, still_sliding = page.evaluate(_NEXT_SLIDES_JS)
        assert ready == "false" and halves == 4  # "ab" twice in each "abab": two pairs
        assert waited >= float(slide.strip()[:-2]) - 1  # a timer never fires early
        assert still_sliding == 0
        wait_step(page, 1)
        assert page.bpeviz_errors == []
    finally:
        page.context.close()
