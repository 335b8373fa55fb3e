"""Hostile text is shown, never run: markup, Markdown, LaTeX and emoji shortcodes stay literal.

Each payload would set ``window.__x`` if the browser ran it, or would change how it looks
if it went through Markdown (``**b**`` bold, ``$x$`` as LaTeX, ``:smile:`` as 😄). The page
must show every character of it and ``window.__x`` must stay undefined: in the Tokenize box,
as the sidebar's training text on the Step page (and in the link that carries it), and as an
uploaded file's name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import pytest

from bpeviz import train
from bpeviz.formats.minbpe import to_minbpe_model

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

PAYLOADS = [
    "<script>window.__x=1</script>",
    '<img src=x onerror="window.__x=1">',
    '"><svg onload=window.__x=1>',
    "$x$",
    ":smile:",
    "**b**",
]
HOSTILE = " ".join(PAYLOADS)
# Elements that exist only if the payload was parsed as markup or Markdown/LaTeX.
INJECTED = (
    '[data-testid="stMain"] img[src="x"], svg[onload], '
    '[data-testid="stMain"] .katex, [data-testid="stSidebar"] .katex'
)
# Markup inside the token views (bpeviz/web, a component on every page that draws tokens): it
# writes every text with textContent, so none.
INJECTED_IN_VIEW = ".bpe-root script, .bpe-root img, .bpe-root [onload], .bpe-root [onerror]"


def spans_text(app: AppPage, scope: str = ".bpe-scroll") -> str:
    """The text of the token spans, read in order, with ``␣`` back to a space."""
    return "".join(span["text"] for span in app.spans(scope)).replace("␣", " ")


def assert_inert(app: AppPage) -> None:
    assert app.canary() is None, "window.__x was set: injected markup ran"
    assert app.page.locator(INJECTED).count() == 0
    assert app.page.locator(INJECTED_IN_VIEW).count() == 0
    scripts = app.page.locator('[data-testid="stMain"] script').all_text_contents()
    assert scripts == [], scripts  # the app puts no script of its own on a page
    app.assert_clean()


def test_tokenize_shows_hostile_text_literally(app: AppPage) -> None:
    app.open("tokenize")
    box = app.page.locator(".st-key-tok_text textarea")
    box.fill(HOSTILE)
    app.rerun(lambda: box.press("Control+Enter"))

    assert HOSTILE in spans_text(app)
    for payload in PAYLOADS:
        assert payload in spans_text(app), payload
    # The "why was this word split" replay shows its piece literally too.
    assert app.page.locator(".st-key-tok_trace_rows .bpe-t").count() > 0
    assert_inert(app)

    # The same in the ids view and back (a rerun redraws every span).
    option = app.page.locator(".st-key-tok_view").get_by_text("Token ids").first
    app.rerun(option.click)
    option = app.page.locator(".st-key-tok_view").get_by_text("Text").first
    app.rerun(option.click)
    assert HOSTILE in spans_text(app)
    assert_inert(app)


def test_compare_and_two_runs_show_hostile_text_literally(app: AppPage) -> None:
    """Both panes of each page draw the text's tokens as text (one renderer: bpeviz/web)."""
    app.open("compare", compare_text=HOSTILE, cmp_left="cl100k_base", cmp_right="o200k_base")
    app.page.wait_for_selector('.st-key-cmp_spans_right .bpe-root[data-ready="true"]')
    for side in ("left", "right"):
        assert spans_text(app, f".st-key-cmp_spans_{side} .bpe-scroll") == HOSTILE
    assert_inert(app)
    app.open("runs", src="paste", paste=HOSTILE)
    app.page.wait_for_selector('.st-key-runs_spans_B .bpe-root[data-ready="true"]')
    for name in ("A", "B"):
        assert spans_text(app, f".st-key-runs_spans_{name} .bpe-scroll") == HOSTILE
    assert_inert(app)


def choose_source(app: AppPage, label: str) -> None:
    radio = app.page.locator(".st-key-src").get_by_text(label, exact=True)
    app.rerun(radio.click)


def train_on_paste(app: AppPage, text: str) -> None:
    choose_source(app, "Paste")
    box = app.page.locator(".st-key-paste textarea")
    box.fill(text)
    app.rerun(lambda: box.press("Control+Enter"))


def token_texts_in_view(app: AppPage) -> dict[str, list[str]]:
    """Token texts the step view shows outside the spans: the card's chips, each side of the
    pair table's pairs, and the vocabulary table's token, left and right cells."""
    root = app.page.locator(".bpe-root")
    pairs = root.locator("table.bpe-pair-table td.bpe-pair").all_text_contents()
    vocab = root.locator("table.bpe-vocab-table tr").evaluate_all(
        "rows => rows.slice(1).flatMap(row => [...row.cells].slice(2, 5).map(c => c.textContent))"
    )
    return {
        "chips": root.locator(".bpe-card .bpe-chip").all_text_contents(),
        "pairs": [side for pair in pairs for side in pair.split(" + ")],
        "vocab": vocab,
    }


def assert_view_literal(app: AppPage, text: str, k: int) -> list[str]:
    """Every token text the step view draws at step ``k`` is a piece of ``text``, as text."""
    app.wait_view(k)
    assert text.replace("\n", "↵") in spans_text(app)
    shown = token_texts_in_view(app)
    assert shown["pairs"], "no pair table"
    if k:
        assert len(shown["chips"]) == 3 and len(shown["vocab"]) == 3 * min(k, 100), shown
    for where, texts in shown.items():
        for piece in texts:
            literal = piece.replace("␣", " ").replace("↵", "\n")
            assert literal and literal in text, f"{where}: {piece!r} is not the text's"
    return [piece for texts in shown.values() for piece in texts]


def test_step_page_shows_a_hostile_training_text_literally(app: AppPage, new_page: Any) -> None:
    text = "\n".join([HOSTILE] * 3)
    app.open("step")
    train_on_paste(app, text)
    assert app.card_title() == "Step 0: no merges yet"
    assert HOSTILE in spans_text(app)
    assert_view_literal(app, text, 0)
    assert_inert(app)

    app.step(app.step_button("Next").click, 1)
    assert app.card_title().startswith("Merge 1 of ")
    assert HOSTILE in spans_text(app)
    assert_view_literal(app, text, 1)
    assert_inert(app)
    for k in range(2, 6):  # a few more merges: more of the payloads' pieces in every table
        app.step(app.step_button("Next").click, k)
    assert_view_literal(app, text, 5)
    app.step(app.step_button("Before merge").click, 5, "before")
    assert_view_literal(app, text, 5)
    app.step(app.step_button("Last").click, app.shown_merge()[1])
    pieces = assert_view_literal(app, text, app.shown_merge()[0])
    # By the last merge, tokens hold the payloads' markup ("<s", "=\"", "**"...), as text.
    assert any(set(piece) & set('<>"*$:=') for piece in pieces), pieces
    assert_inert(app)
    app.step(app.step_button("First").click, 0)
    app.step(app.step_button("Next").click, 1)
    app.wait_reported(1)

    # The pasted text travels in the link; opening the link is just as safe.
    assert "paste=" in app.page.url
    other = new_page()
    other.goto(app.page.url)
    assert other.card_title().startswith("Merge 1 of ")
    assert HOSTILE in spans_text(other)
    assert_view_literal(other, text, 1)
    assert_inert(other)


def test_a_hostile_link_is_shown_literally(app: AppPage) -> None:
    """A crafted link (``?src=paste&paste=<script>…``) opened straight away."""
    app.open("step", src="paste", paste=HOSTILE, step=1)
    assert app.card_title().startswith("Merge 1 of ")
    assert HOSTILE in spans_text(app)
    assert_view_literal(app, HOSTILE, 1)
    assert_inert(app)
    app.open("tokenize", src="paste", paste=HOSTILE, tok_text=HOSTILE)
    assert HOSTILE in spans_text(app)
    assert_inert(app)


def test_a_hostile_file_name_is_shown_literally(app: AppPage) -> None:
    # No double quote: Chromium sends it as %22 in the multipart file name.
    name = "<img src=x onerror=window.__x=1>**b**.txt"
    app.open("step")
    choose_source(app, "Upload")
    app.upload_files(
        ".st-key-upload input[type=file]",
        [{"name": name, "mimeType": "text/plain", "buffer": b"low lower lowest " * 20}],
    )
    assert app.card_title() == "Step 0: no merges yet"
    assert name in app.page.locator('[data-testid="stSidebar"]').inner_text()
    assert name in app.main_text()
    assert_inert(app)


def test_compare_shows_hostile_text_literally(app: AppPage) -> None:
    app.open("compare", compare_text=HOSTILE)
    panes = app.page.locator(".bpe-scroll")
    assert panes.count() == 2
    for index in range(2):
        texts = (
            panes.nth(index).locator(".bpe-t").evaluate_all("els => els.map(e => e.textContent)")
        )
        assert HOSTILE in "".join(texts).replace("␣", " "), f"pane {index}"
    assert_inert(app)


@pytest.mark.parametrize("page", ["step", "compare", "export"])
def test_hostile_special_tokens_are_shown_literally(kept_app: AppPage, page: str) -> None:
    """The special tokens typed in the sidebar are named in the settings summary. The first
    page takes them from a link; the others are reached by the sidebar's links, the same
    session's tokens drawn there (an open costs Chromium seconds of CPU)."""
    app = kept_app
    if parse_qs(urlsplit(app.page.url).query).get("special") == [HOSTILE]:
        app.navigate(page)
    else:
        app.open(page, special=HOSTILE)
    summary = app.page.get_by_text("· specials: ").first.inner_text()
    for payload in PAYLOADS:
        assert payload in summary, f"{payload} not shown literally on {page}: {summary!r}"
    assert_inert(app)


def test_a_hostile_model_file_name_is_shown_literally(app: AppPage) -> None:
    """The Export page names an uploaded model file in its messages."""
    name = "$x$ **b** :smile: <img src=x onerror=window.__x=1>.model"
    model = to_minbpe_model(train("aaabdaaabac", 259).tokenizer).encode()
    app.open("export")
    files = [{"name": name, "mimeType": "application/octet-stream", "buffer": model}]
    app.upload_files(".st-key-export_model_files input[type=file]", files)
    loaded = app.page.locator('[data-testid="stAlertContentSuccess"]').inner_text()
    assert name in loaded, loaded
    assert_inert(app)


def test_two_runs_show_a_hostile_text_literally(app: AppPage) -> None:
    """The Two runs page: both panes, the card's token chips and the merge tables."""
    text = "\n".join([HOSTILE] * 3)
    app.open("runs", src="paste", paste=text, runs_a_vocab=300, runs_b_vocab=300)
    panes = app.page.locator(".bpe-scroll")
    assert panes.count() == 2
    for index in range(2):
        tokens = (
            panes.nth(index).locator(".bpe-t").evaluate_all("els => els.map(e => e.textContent)")
        )
        assert text.replace("\n", "↵") in "".join(tokens).replace("␣", " "), f"pane {index}"
    # The card's chips are token text: shown as text, joined back they are in the payloads.
    chips = app.page.locator(".bpe-card .bpe-chip").all_inner_texts()
    assert chips and all(chip.replace("␣", " ") in HOSTILE for chip in chips), chips
    assert app.page.locator('[data-testid="stDataFrame"]').count() == 2
    assert_inert(app)

    # Moving to the last step redraws every span; still inert.
    slider = app.page.locator(".st-key-runs_step input[type=range]")
    slider.focus()
    app.rerun(lambda: slider.press("End"))
    assert "after 44 merges" in app.main_text()
    assert_inert(app)
