"""A live class's students run their pages in turns (issue 28: "no slide keeps a class waiting").

A slide on another run sends every following student's browser to ask for it at once: a
hundred script runs start together in one server process. Python runs one thread at a time,
so each run then waits for every other one's share of the interpreter, and all of them end
together, at the end; the teacher's own run of the slide and the class socket's messages
(the event loop's thread) wait behind them too. Taking turns, :data:`AT_ONCE` at a time,
the first students have the slide after one run's time and the last no later than before,
while the teacher's page and the socket keep their share.

Bounded: a run waits for its turn at most :data:`LONGEST_WAIT_S`, then runs anyway.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st

from bpeviz.app.frame.state import held_class

AT_ONCE = 2  # the machine's two cores: more at once only share them
LONGEST_WAIT_S = 30.0


@st.cache_resource(show_spinner=False)
def _students_turns() -> threading.BoundedSemaphore:
    return threading.BoundedSemaphore(AT_ONCE)


@contextmanager
def taking_turns(turns: threading.BoundedSemaphore, longest_wait: float) -> Iterator[None]:
    """Hold one of ``turns`` while the block runs, waiting at most ``longest_wait`` seconds
    for one (then the block runs without)."""
    held = turns.acquire(timeout=longest_wait)
    try:
        yield
    finally:
        if held:
            turns.release()


@contextmanager
def students_turn() -> Iterator[None]:
    """Around a page's run: a live class's student waits for one of the process's student
    turns; a teacher, and a session in no class, go at once."""
    held = held_class()
    if held is None or held.get("role") != "student":
        yield
        return
    with taking_turns(_students_turns(), LONGEST_WAIT_S):
        yield
