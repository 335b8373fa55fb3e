"""The teaching features of the step view (issue 12), in a real browser, against the engine.

- **Guess the next merge**: at any step the four candidates are the real next merge and the
  runners-up of the pair table (``History.pair_table``), never twice the same, in an order
  fixed by the step (two students see the same); a click reveals the counts, the tie rule
  where one decided (``first``, ``lexmin``, ``lexmax`` on the ties sample) and a score.
- **Inspect any token**: a click on a token or a vocabulary row shows its id, bytes, the
  merge that made it and its build tree, each node the engine's merge, down to single
  bytes; every occurrence in the text is outlined.
- **See the pre-tokenizer**: the pieces drawn are the engine's (``History.piece_starts``):
  no token crosses one, Japanese without spaces stays one piece, digits come in threes.
- Hostile training text stays literal in the quiz and the inspector.

Most run on an exported page (``bpeviz.web.step_page``, the same script), opened from disk:
no server needed. Presentation mode and 800 px are checked in the app.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import keep_screenshot
from sample_runs import sample_history

from bpeviz.engine.history import History, train
from bpeviz.engine.readable import readable
from bpeviz.engine.samples import get_sample
from bpeviz.records.step import TOP_PAIRS, payload_json, window_for, window_shows
from bpeviz.web import step_page

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser


def open_run(browser: Any, tmp_path: Path, history: History, step: int = 0) -> Any:
    path = tmp_path / "run.html"
    path.write_text(step_page(payload_json(history), title="t", subtitle="s"), encoding="utf-8")
    page = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{path.as_uri()}#step={step}")
    page.wait_for_function("() => document.querySelector('.bpe-root')?.dataset.ready === 'true'")
    page.bpeviz_errors = errors
    page.evaluate("window.bpevizStepView.animate = false")
    return page


def toggle(page: Any, name: str) -> None:
    page.locator(".bpe-root label").filter(has_text=name).locator("input").check()


def candidates(page: Any) -> list[tuple[int, int]]:
    pairs = page.locator(".bpe-choice").evaluate_all("(all) => all.map((b) => b.dataset.pair)")
    return [tuple(int(part) for part in pair.split(",")) for pair in pairs]


def show(page: Any, k: int) -> None:
    page.evaluate("(k) => window.bpevizStepView.show(k, 'after')", k)


# ---- guess the next merge -------------------------------------------------------------------


def test_the_quiz_offers_the_next_merge_among_the_runners_up_in_a_fixed_order(
    browser: Any, tmp_path: Path
) -> None:
    history = sample_history("english")
    page = open_run(browser, tmp_path, history)
    toggle(page, "Guess the next merge")
    other = open_run(browser, tmp_path, history)  # a second student
    toggle(other, "Guess the next merge")
    orders = set()
    for k in (0, 1, 7, 50, history.merge_count - 1):
        show(page, k)
        show(other, k)
        offered = candidates(page)
        table = history.pair_table(k).pairs()[:4]
        assert history.steps[k].pair in offered, f"step {k}: the real merge is offered"
        assert sorted(offered) == sorted(table) and len(set(offered)) == len(offered)
        assert candidates(other) == offered, "the whole class sees the same order"
        assert page.locator("table.bpe-pair-table").count() == 0, "the counts are held back"
        assert page.locator(".bpe-scroll .bpe-new, .bpe-scroll .bpe-ps").count() == 0
        orders.add(tuple(offered.index(pair) for pair in table))
    assert len(orders) > 1, "the real merge does not always stand in the same place"
    assert page.bpeviz_errors == []


def test_answering_reveals_counts_and_keeps_a_score(browser: Any, tmp_path: Path) -> None:
    history = sample_history("english")
    page = open_run(browser, tmp_path, history, step=3)
    toggle(page, "Guess the next merge")
    right = "{},{}".format(*history.steps[3].pair)
    page.locator(f'.bpe-choice[data-pair="{right}"]').click()
    assert page.locator(".bpe-verdict").inner_text() == "✓ Right!"  # a mark, not colour alone
    table = history.pair_table(3)
    counts = dict(zip(table.pairs(), table.counts.tolist(), strict=True))
    for pair in candidates(page):
        choice = page.locator(f'.bpe-choice[data-pair="{pair[0]},{pair[1]}"]')
        assert f"{counts[pair]:,} times" in choice.inner_text()
    assert page.locator(".bpe-score").inner_text() == "Score: 1 of 1"
    # The text now outlines where merge 4 applies, and the table is the one it was picked from.
    assert page.locator(".bpe-scroll .bpe-ps").count() == history.steps[3].replacements
    page.get_by_role("button", name="Next question ›").click()
    wrong = next(pair for pair in candidates(page) if pair != history.steps[4].pair)
    page.locator(f'.bpe-choice[data-pair="{wrong[0]},{wrong[1]}"]').click()
    assert page.locator(".bpe-verdict").inner_text().startswith("✗ Not this one: merge 5 joins")
    assert page.locator(".bpe-score").inner_text() == "Score: 1 of 2"


def test_an_answer_moves_the_slider_to_the_merge_it_revealed(
    browser: Any, tmp_path: Path
) -> None:
    """Answering the question at step 3 reveals merge 4: the card, the bar's line and Merges
    done say 4 merges are done, and so do the slider and its label (they said "3 of …")."""
    history = sample_history("english")
    page = open_run(browser, tmp_path, history, step=3)
    toggle(page, "Guess the next merge")
    page.locator(".bpe-choice").first.click()
    page.locator(".bpe-verdict").wait_for()
    of_all = f"4 of {history.merge_count:,}"
    done = page.locator(".bpe-metric").filter(has_text="Merges done").locator(".bpe-metric-value")
    assert done.inner_text() == of_all
    assert page.locator(".bpe-step-label").inner_text() == of_all
    assert page.locator(".bpe-slider").input_value() == "4"
    assert page.locator(".bpe-slider").get_attribute("aria-valuetext") == of_all
    page.get_by_role("button", name="Next question ›").click()
    page.locator(".bpe-quiz .bpe-card-title").filter(has_text="Guess merge 5").wait_for()
    assert page.locator(".bpe-step-label").inner_text() == of_all  # 4 done, merge 5 to guess
    assert page.bpeviz_errors == []


@pytest.mark.parametrize(
    ("rule", "winner"), [("first", "“b” + “a”"), ("lexmin", "“a” + “t”"), ("lexmax", "“c” + “a”")]
)
def test_the_reveal_names_the_rule_that_broke_the_tie(
    browser: Any, tmp_path: Path, rule: str, winner: str
) -> None:
    """samples.json: the ties sample with words: (b,a), (c,a), (a,t) tie at 2 for merge 1."""
    history = sample_history("ties", tie_break=rule)
    page = open_run(browser, tmp_path, history)
    toggle(page, "Guess the next merge")
    page.locator(".bpe-choice").first.click()
    tie = page.locator(".bpe-quiz .bpe-tie").inner_text()
    assert f"The rule “{rule}” picked {winner}" in tie and "3 pairs occurred 2 times" in tie


# ---- inspect any token ----------------------------------------------------------------------


def build_tree(history: History, token_id: int) -> list[int]:
    """Pre-order ids of the token's tree, from the merges the engine recorded."""
    if token_id < history.base:
        return [token_id]
    left, right = history.steps[token_id - history.base].pair
    return [token_id, *build_tree(history, left), *build_tree(history, right)]


def test_the_inspector_shows_a_tokens_merge_tree_and_occurrences(
    browser: Any, tmp_path: Path
) -> None:
    history = sample_history("english")
    k = 120
    page = open_run(browser, tmp_path, history, step=k)
    newest = history.steps[k - 1].new_id
    page.locator(f'.bpe-scroll .bpe-t[data-id="{newest}"]').first.click()
    inspector = page.locator(".bpe-inspector")
    assert inspector.locator("b").first.inner_text() == f"Token id {newest}"
    nodes = inspector.locator(".bpe-node").evaluate_all("(all) => all.map((n) => +n.dataset.id)")
    assert nodes == build_tree(history, newest)
    left, right = history.steps[k - 1].pair
    assert f"Made by merge {k}:" in inspector.inner_text()
    assert f"occurred {history.steps[k - 1].count:,} times" in inspector.inner_text()
    shown = int((history.segmentation(k).ids == newest).sum())
    assert page.locator(".bpe-scroll .bpe-hit").count() == shown
    assert f"{shown:,} time" in inspector.locator(".bpe-inspector-count").inner_text()
    assert inspector.inner_text().count("bytes ") >= 1
    # A vocabulary row opens its token too; a node of the tree opens that node.
    older = history.steps[k - 2]
    page.locator(f'.bpe-vocab-table tr[data-id="{older.new_id}"]').click()
    assert inspector.locator("b").first.inner_text() == f"Token id {older.new_id}"
    page.locator(".bpe-inspector .bpe-node").nth(1).click()
    assert inspector.locator("b").first.inner_text() == f"Token id {older.pair[0]}"
    assert (left, right) == history.steps[k - 1].pair
    assert page.bpeviz_errors == []


# ---- see the pre-tokenizer ------------------------------------------------------------------


def piece_groups(page: Any) -> list[list[int]]:
    return page.evaluate(
        """() => [...document.querySelectorAll('.bpe-scroll .bpe-piece')].map((piece) =>
             [piece.classList.contains('bpe-piece-more') ? 1 : 0,
              ...[...piece.querySelectorAll('.bpe-t')].map((t) => +t.dataset.id)])"""
    )


@pytest.mark.parametrize("key", ["english", "japanese"])
def test_the_pieces_drawn_are_the_pre_tokenizers_and_no_token_crosses_one(
    browser: Any, tmp_path: Path, key: str
) -> None:
    history = sample_history(key)
    k = 60
    page = open_run(browser, tmp_path, history, step=k)
    toggle(page, "Show pieces")
    assert "Merges never cross a piece's edge" in page.locator(".bpe-pieces-rule").inner_text()
    # Join the continuation boxes (a piece that runs over a line break), then compare.
    drawn: list[list[int]] = []
    for more, *ids in piece_groups(page):
        if more:
            drawn[-1] += ids
        else:
            drawn.append(ids)
    segmentation = history.segmentation(k)
    _, offsets, _ = history.text_symbols()
    piece_bytes = {int(offsets[start]) for start in history.piece_starts()}
    expected: list[list[int]] = []
    for start, token_id in zip(segmentation.starts.tolist(), segmentation.ids.tolist(),
                               strict=True):  # fmt: skip
        if start in piece_bytes or not expected:
            expected.append([])
        expected[-1].append(token_id)
    assert drawn == expected


def drawn_bytes(label: str) -> bytes:
    """The bytes a drawn token stands for: ``<E3>`` is a byte, ␣ ↵ a space and a newline."""
    out = b""
    for part in re.split(r"(<[0-9A-F]{2}>)", label.replace("\u200b", "")):
        if re.fullmatch(r"<[0-9A-F]{2}>", part):
            out += bytes.fromhex(part[1:3])
        else:
            out += part.replace("␣", " ").replace("↵", "\n").encode("utf-8")
    return out


def test_japanese_stays_one_piece_and_digits_come_in_threes(browser: Any, tmp_path: Path) -> None:
    """GPT-4's pattern, worked by hand: a run of letters (kana and kanji alike, no spaces) is
    one piece, 。 another, the space before digits its own, digits in threes from the left."""
    text = "駅前の小さな本屋で本を買った。 12345 apples\n" * 4
    history = train(text, 300, pretokenizer="gpt4", top_pairs=TOP_PAIRS)
    page = open_run(browser, tmp_path, history)
    toggle(page, "Show pieces")
    pieces = page.locator(".bpe-scroll .bpe-piece").evaluate_all(
        "(all) => all.map((p) => [...p.querySelectorAll('.bpe-t')].map((t) => t.textContent))"
    )
    texts = [b"".join(drawn_bytes(label) for label in piece).decode("utf-8") for piece in pieces]
    assert texts[:7] == ["駅前の小さな本屋で本を買った", "。", " ", "123", "45", " apples", "\n"]


# ---- hostile text ---------------------------------------------------------------------------


def test_hostile_training_text_stays_literal_in_the_quiz_and_the_inspector(
    browser: Any, tmp_path: Path
) -> None:
    hostile = '<img src=x onerror="window.__x=1"> <b>bold</b> <script>window.__x=1</script> '
    history = train(hostile * 6, 300, pretokenizer="bytes", top_pairs=TOP_PAIRS)
    page = open_run(browser, tmp_path, history, step=20)
    toggle(page, "Guess the next merge")
    page.locator(".bpe-choice").first.click()
    page.locator(".bpe-scroll .bpe-t").nth(3).click()
    toggle(page, "Show pieces")
    root = page.locator(".bpe-root")
    assert root.locator("img, script, b:not(.bpe-inspector-head b):not(.bpe-tie b)").count() == 0
    assert page.evaluate("window.__x") is None
    drawn = page.locator(".bpe-scroll .bpe-t").all_text_contents()
    assert "".join(drawn) == readable(history.text), "every token drawn as its own text"
    clicked = page.locator(".bpe-scroll .bpe-t").nth(3).text_content()
    assert page.locator(".bpe-inspector-token .bpe-chip").text_content() == clicked
    chips = "".join(page.locator(".bpe-choice .bpe-chip").all_text_contents())
    assert set(chips) <= set(readable(history.text)), "quiz chips are token text, literally"


# ---- in the app: a projector and a narrow window --------------------------------------------


@pytest.mark.parametrize("width", [1366, 800])
def test_quiz_and_inspector_on_a_projector_and_at_800_px(
    app: AppPage, screenshots: Path, width: int
) -> None:
    app.page.set_viewport_size({"width": width, "height": 900})
    app.open("step", present="true", step="5")
    app.page.wait_for_function(
        "() => document.querySelector('.bpe-root')?.dataset.ready === 'true'"
    )
    toggle(app.page, "Guess the next merge")
    app.page.locator(".bpe-choice").first.click()
    score = app.page.locator(".bpe-score")
    size = score.evaluate("(e) => parseFloat(getComputedStyle(e).fontSize)")
    assert score.is_visible() and size >= 20
    app.page.locator(".bpe-scroll .bpe-t").first.click()
    box = app.page.locator(".bpe-inspector").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    for choice in app.page.locator(".bpe-choice").all():
        right = choice.bounding_box()
        assert right is not None and right["x"] + right["width"] <= width
    keep_screenshot(app.page, screenshots / f"step-quiz-present-{width}.png", full_page=True)


# ---- a long text: the drawn part follows the merge a student stops at -----------------------


def test_a_long_text_redraws_where_the_merge_a_student_stops_at_applies(app: AppPage) -> None:
    """The view draws a window of a long text. A student who stops at a merge that window
    lacks ("Go to step", then the view's report) gets the part where that merge applies."""
    text = get_sample("english").text * 3 + get_sample("japanese").text
    app.open("step")
    radio = app.page.locator(".st-key-src").get_by_text("Paste", exact=True)
    app.rerun(radio.click)
    box = app.page.locator(".st-key-paste textarea")
    box.fill(text)
    app.rerun(lambda: box.press("Control+Enter"))
    app.page.wait_for_function(
        "() => document.querySelector('.bpe-root')?.dataset.ready === 'true'"
    )
    history = train(text, 512, pretokenizer="gpt4", top_pairs=TOP_PAIRS)
    first = window_for(history, 1)  # step 0 shows merge 1's pair, Japanese bytes
    last = next(step.step for step in history.steps if not window_shows(history, first, step.step))
    drawn = app.page.locator(".bpe-scroll .bpe-t").evaluate_all("(all) => all.length")
    assert drawn and history.steps[last - 1].new_id not in app.page.locator(
        ".bpe-scroll .bpe-t").evaluate_all("(all) => all.map((t) => +t.dataset.id)")  # fmt: skip
    jump = app.page.locator(".bpe-jump")
    jump.fill(str(last))
    jump.press("Enter")
    app.page.wait_for_function(
        "(k) => new URLSearchParams(location.search).get('step') === String(k)", arg=last
    )
    app.page.wait_for_function(
        """([k, id]) => { const root = document.querySelector('.bpe-root');
             return root.dataset.ready === 'true' && root.dataset.step === String(k)
               && root.querySelectorAll(`.bpe-scroll .bpe-new[data-id="${id}"]`).length > 0; }""",
        arg=[last, history.steps[last - 1].new_id],
        timeout=60_000,
    )
    assert "Long text: showing bytes" in app.page.locator(".bpe-root").inner_text()


# Transitions off (the end of each fade at once), then the step view's opacity each time
# Streamlit marks it stale or not while its script reruns (a MutationObserver: a rerun
# shorter than a frame is seen too), kept in window.__faded.
_WATCH_FADE = """() => {
  const style = document.createElement("style");
  style.textContent = "*{transition:none !important;}";
  document.head.append(style);
  window.__faded = { lowest: 1, stale: false };
  const box = document.querySelector(".st-key-step_view");
  const look = () => {
    window.__faded.lowest = Math.min(window.__faded.lowest, +getComputedStyle(box).opacity);
    window.__faded.stale ||= box.dataset.stale === "true";
  };
  new MutationObserver(look).observe(box, { attributes: true, attributeFilter: ["data-stale"] });
}"""


class HeldRerun:
    """The app's socket, with the server's messages held back from :meth:`hold` on: given to
    the page one by one (:meth:`release_one`), it shows the rerun under way (Streamlit marks
    the elements not redrawn yet stale) however quick the server is; then all at once."""

    def __init__(self, page: Any) -> None:
        self.holding = False
        self.held: list[Any] = []
        self.sockets: list[Any] = []
        page.route_web_socket(re.compile(r".*/_stcore/stream.*"), self._route)

    def _route(self, socket: Any) -> None:
        server = socket.connect_to_server()
        self.sockets.append(socket)

        def from_server(message: Any) -> None:
            if self.holding:
                self.held.append((socket, message))
                return
            socket.send(message)

        server.on_message(from_server)

    def hold(self) -> None:
        self.holding = True

    def release_one(self) -> None:
        socket, message = self.held.pop(0)
        socket.send(message)

    def release(self) -> None:
        self.holding = False
        for socket, message in self.held:
            socket.send(message)
        self.held.clear()


def test_the_quiz_card_stays_drawn_while_the_page_reruns(app: AppPage) -> None:
    """The step view is drawn in the browser; a rerun the view asks for (the quiz switched
    on) changes nothing in it, so it never fades as Streamlit fades a stale element (its card
    showed, faded and came back). The rerun's messages are held back so that the page shows
    it under way on any machine."""
    line = HeldRerun(app.page)
    app.open("step", step="2")
    app.wait_view(2)
    app.page.evaluate(_WATCH_FADE)
    line.hold()
    toggle(app.page, "Guess the next merge")
    # One message at a time, until the page shows the rerun under way (its elements stale):
    # a frame between messages (a bounded number of frames: the rerun's are a few dozen)
    for _frame in range(2_000):
        if app.page.evaluate("window.__faded.stale"):
            break
        if line.held:
            line.release_one()
        app.page.evaluate("() => new Promise((done) => requestAnimationFrame(done))")
    assert app.page.evaluate("window.__faded.stale"), "the rerun was never shown under way"
    line.release()
    app.wait_view(2, "quiz")
    app.wait_idle()
    faded = app.page.evaluate("window.__faded")
    assert faded["lowest"] == 1, f"the step view faded to {faded['lowest']} while rerunning"
    app.assert_clean()
