"""The projector draws a new slide before the students' pages take it
(``bpeviz/app/live/projector_first.py``; issue 28, "Measured": the teacher's first load of
slide 10 took 5.6 s while a hundred students' reruns of it shared the core, after 95% of
them).

Played under AppTest: the teacher's page is held in the middle of its run (the class bar
above it has published the new run, as a browser's students hear it), and a student who
follows then waits for it; the teacher's run ending, however it ends, lets them go.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import streamlit as st
from apptest_support import new_app, run

import bpeviz.app.step.view as step_view
from bpeviz.app.frame.state import KEY_HELD
from bpeviz.app.live import live_class
from bpeviz.app.live.projector_first import Drawing, drawing
from bpeviz.classroom.hubs.choose import current_hub
from bpeviz.classroom.hubs.common import run_id

HELD_S = 30.0  # the longest the teacher's page is held (a bound, never waited out)


def test_a_student_waits_for_the_teachers_run_that_began_until_it_ends() -> None:
    gate = Drawing()
    assert gate.wait("ABC", timeout=0)  # no run under way: at once
    gate.begin("ABC")
    assert not gate.wait("ABC", timeout=0.01)
    assert gate.wait("XYZ", timeout=0)  # another class's students do not wait
    other = threading.Thread(target=gate.run_ended)  # another session's run ending
    other.start()
    other.join(30)
    assert not gate.wait("ABC", timeout=0.01)
    released = threading.Event()
    waiter = threading.Thread(target=lambda: released.set() if gate.wait("ABC", 30) else None)
    waiter.start()
    gate.run_ended()  # the run (this thread) that began it
    waiter.join(30)
    assert released.is_set()


@pytest.mark.parametrize("ends", ["drawn", "failed", "stopped"])
def test_the_teachers_run_that_publishes_a_new_run_holds_the_students_until_its_page_ends(
    monkeypatch: pytest.MonkeyPatch, ends: str
) -> None:
    teacher = run(new_app(**{"class": "new"}))
    code = teacher.session_state[KEY_HELD]["code"]
    published = run_id(current_hub().run_of(code))
    mid_page, release = threading.Event(), threading.Event()
    real = step_view.step_view

    def held(*args: Any, **kwargs: Any) -> Any:
        mid_page.set()
        assert release.wait(HELD_S)
        if ends == "failed":
            raise RuntimeError("the page failed")
        if ends == "stopped":  # as the Step page does on a Unigram run (slide 18)
            st.stop()
        return real(*args, **kwargs)

    monkeypatch.setattr(step_view, "step_view", held)
    teacher.number_input(key="vocab").set_value(int(teacher.session_state["vocab"]) + 1)
    teaching = threading.Thread(target=teacher.run)
    teaching.start()
    try:
        assert mid_page.wait(HELD_S)
        assert run_id(current_hub().run_of(code)) != published  # the students hear of it now
        started = time.monotonic()
        assert not drawing().wait(code, timeout=0.2)  # and a follower's rerun waits
        assert time.monotonic() - started >= 0.2
    finally:
        release.set()
        teaching.join(HELD_S)
    assert not teaching.is_alive()
    assert drawing().wait(code, timeout=0)
    assert bool(teacher.exception) == (ends == "failed")


class Recorded(Drawing):
    def __init__(self) -> None:
        super().__init__()
        self.waited: list[str] = []

    def wait(self, code: str, timeout: float = 0.0) -> bool:
        self.waited.append(code)
        return True


def test_a_following_student_takes_the_teachers_new_run_after_waiting_for_the_projector(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The class bar's ``run`` callback is where a student takes the teacher's new run (its
    ``run`` event asks for it, with the teacher's page)."""
    gate = Recorded()
    monkeypatch.setattr(live_class, "drawing", lambda: gate)
    teacher = run(new_app(**{"class": "new"}))
    code = teacher.session_state[KEY_HELD]["code"]
    student = run(new_app(**{"class": code}))
    state: dict[str, Any] = {KEY_HELD: student.session_state[KEY_HELD], live_class.KEY_BAR: None}
    monkeypatch.setattr(live_class.st, "session_state", state)
    monkeypatch.setattr(live_class, "held_class", lambda: state[KEY_HELD])
    live_class._follow_run()
    assert gate.waited == []  # no run asked for
    state[live_class.KEY_BAR] = type("Asked", (), {"run": {"page": "step"}})()
    monkeypatch.setattr(live_class, "_give_run", lambda run, replaced: {})
    live_class._follow_run()
    assert gate.waited == [code]
    assert state[live_class.KEY_FOLLOW_PAGE] == "step"
