"""Browser test: followers see the teacher's view (issue 28, item 3): a class started on a
slide's link gives a joining student that slide's text and toggle, compared with what the
teacher's page shows (the page, the sidebar's settings, the step, the toggles, the tokens as
drawn and the metrics under them).
"""

from __future__ import annotations

import time
import tomllib
from importlib.resources import files
from typing import Any

import pytest
from conftest import AppPage
from test_live_class import join, wait_connected

pytestmark = [pytest.mark.browser, pytest.mark.serial]

SLIDES = tomllib.loads(files("bpeviz.lessons").joinpath("bpe.toml").read_text("utf-8"))["slides"]
SETTLE_S = 30.0  # a slide's first training (the compression curves) under a loaded machine

# What a page shows, for comparison: its path, the sidebar's settings as drawn, the step view's
# state, the first tokens drawn (their text: ids or bytes) and the metrics' values.
_SHOWN = """() => {
  const value = (label) => { const box = document.querySelector(`[aria-label="${label}"]`);
    return box ? box.value : null; };
  const picked = (label) => [...document.querySelectorAll('[data-testid="stSidebar"]'
    + ' [data-testid="stSelectbox"]')].filter((s) => s.innerText.startsWith(label))
    .map((s) => s.innerText).join("|");
  const view = window.bpevizStepView && window.bpevizStepView.root.isConnected
    ? window.bpevizStepView.viewState() : null;
  const tokens = [...document.querySelectorAll('[data-testid="stMain"] .bpe-t')].slice(0, 24)
    .map((t) => t.textContent).join("·");
  const metrics = [...document.querySelectorAll('[data-testid="stMetricValue"]')]
    .map((m) => m.textContent).join("|");
  const pieces = document.querySelectorAll('[data-testid="stMain"] .bpe-piece').length;
  const link = window.bpevizClass;
  return { path: location.pathname, following: link ? link.following : null,
    vocab: value("Vocab size"),
    pretokenizer: picked("Pre-tokenizer"), tie: picked("Tie rule"), sample: picked("Sample"),
    view, tokens, metrics, pieces };
}"""


def shown(page: AppPage) -> dict[str, Any]:
    page.wait_idle()
    return dict(page.page.evaluate(_SHOWN))


def settled(teacher: AppPage, students: list[AppPage]) -> tuple[dict[str, Any], list[Any]]:
    """What the teacher shows, and each student's, once they agree or SETTLE_S passed."""
    deadline = time.monotonic() + SETTLE_S
    while True:
        mine = shown(teacher)
        theirs = [shown(student) for student in students]
        if all(other == mine for other in theirs) or time.monotonic() > deadline:
            return mine, theirs


def test_a_class_started_on_a_slides_link_gives_students_the_slides_text_and_toggle(
    app: AppPage, new_page: Any
) -> None:
    """A teacher opens slide 2's link (Tokenize, its text, Token ids) and starts the class
    in the same load, as after a reload: a student joining sees the slide's text as ids, as
    the teacher does (students were given the default text: the page's settings came from the
    link after the class's run was taken)."""
    view = SLIDES[1]["view"]
    assert view["tok_view"] == "Token ids"
    app.goto(app.url_for("tokenize", lesson="bpe", slide=2, **view) + "&class=new")
    app.page.wait_for_selector(".bpe-class-teacher", timeout=30_000)
    code = app.page.evaluate("new URLSearchParams(location.search).get('class')")
    student = new_page()
    join(student, code)
    wait_connected(app, 1)
    mine, theirs = settled(app, [student])
    assert "99·97·116·32·231·140·171" in mine["tokens"], mine  # "cat 猫" as byte ids (its note)
    assert theirs == [mine]
