"""A crowd on a link: students who type the moment a box appears keep the link's settings.

A class opening ``/?src=paste&...`` at once, each typing straight away, lost their settings:
9 of 12 ended with "Vocab size 1" in the sidebar (the widget's smallest value) while the
server had trained the link's 512, and the next click sent the 1 back. The values a
session's first run seeds from the link never reached those browsers: the student's rerun
started before the first run's messages were sent, and the server drops what a run queued
and had not yet sent when the next run starts. A widget whose value was seeded then came
back drawn with its own default.

These students act at the protocol level (:mod:`protocol_client`), as an eager browser does,
so the interleaving is the one a loaded server produces, every time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from protocol_client import Student, run_coroutine

from bpeviz import train
from bpeviz.engine.samples import get_sample

if TYPE_CHECKING:
    from conftest import AppServer

# Not serial: the protocol-level student makes the loaded server's interleaving itself, so the
# test needs no quiet machine (a loaded one gives the same messages).
pytestmark = pytest.mark.browser

TYPED = get_sample("english").text[:3000]
LINK = {"src": "paste", "vocab": "300", "pretok": "gpt2", "tie": "lexmin"}


def widget_value(student: Student, key: str) -> object:
    """The value the student's browser holds for a widget (what it sends on the next run)."""
    state = student.values[student.widget(key).id]
    return getattr(state, state.WhichOneof("value"))


async def eager_student(url: str, *, first_run_lost: bool) -> Student:
    query = "&".join(f"{key}={value}" for key, value in LINK.items())
    async with Student(url, query=query) as student:
        await student.open_and_type("paste", TYPED, first_run_lost=first_run_lost)
        # The student's next action sends every widget's value back, as a browser does.
        await student.set_value("paste", TYPED + " And one more line.")
        return student


@pytest.mark.parametrize("first_run_lost", [True, False], ids=["first-run-lost", "first-run-seen"])
def test_a_student_typing_at_once_keeps_the_links_settings(
    app_server: AppServer, first_run_lost: bool
) -> None:
    student = run_coroutine(eager_student(app_server.url, first_run_lost=first_run_lost))
    assert student.problems() == []
    held = {key: widget_value(student, key) for key in ("src", "vocab", "tie")}
    assert held == {"src": "Paste", "vocab": 300, "tie": "lexmin"}
    assert str(widget_value(student, "pretok")).startswith("gpt2:")  # shown with its help
    assert widget_value(student, "paste") == TYPED + " And one more line."
    expected = train(TYPED + " And one more line.", 300, pretokenizer="gpt2", tie_break="lexmin")
    assert student.browser_step() == (0, len(expected.steps))
