"""The projector draws a new run before the students' pages do.

When the teacher's page names a new run (a slide, a setting), the class bar above the page
publishes it, and every following student's browser asks for it at once: a hundred reruns
start while the teacher's page is still being drawn below the bar, and they share the
server's core with it. The projector then showed slide 10 last, after 95% of the students
(5.6 s, where the page alone takes 0.3 s of CPU). So in this server process a student who
takes the class's new run first waits, at most :data:`WAIT_S`, until the teacher's run that
published it has ended. The students' slide comes no later for it: their reruns were queued
behind the teacher's work anyway, only the order changes.

What is left out: another worker's teacher (behind ``scripts/serve.py``); that process's
core is not this one's, and the wait is skipped.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import streamlit as st

WAIT_S = 5.0  # the longest a student waits for the teacher's page (0.3 s of CPU, on a busy machine)
MOST_CLASSES = 1024  # classes whose teacher's run is followed (the oldest forgotten first)


class Drawing:
    """Per class code, whether the teacher's run that published its run is still going.

    The run is the script thread that began it: its end is told without Streamlit (a page
    that called ``st.stop()`` refuses Streamlit's calls from then on, the session's state
    included, so the Unigram Step slide's run never said it had ended)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.done: OrderedDict[str, threading.Event] = OrderedDict()
        self.running: dict[int, str] = {}  # script thread -> the class its run began

    def begin(self, code: str) -> None:
        """This thread's run (the teacher's) published a new run of class ``code``: the page
        is still to draw."""
        with self.lock:
            event = self.done.setdefault(code, threading.Event())
            event.clear()
            self.done.move_to_end(code)
            while len(self.done) > MOST_CLASSES:
                self.done.popitem(last=False)[1].set()  # no student waits on a forgotten one
            self.running[threading.get_ident()] = code

    def run_ended(self) -> None:
        """This thread's run ended (drawn, stopped or failed): the class it began, if any,
        lets its students go."""
        with self.lock:
            code = self.running.pop(threading.get_ident(), None)
            event = self.done.get(code) if code is not None else None
        if event is not None:
            event.set()

    def wait(self, code: str, timeout: float = WAIT_S) -> bool:
        """Wait until the teacher's run of ``code`` ended, at most ``timeout`` seconds;
        whether it has (a class with no run under way: at once)."""
        with self.lock:
            event = self.done.get(code)
        return event is None or event.wait(timeout)


@st.cache_resource(show_spinner=False)
def drawing() -> Drawing:
    """The server process's one :class:`Drawing` (every session of the process shares it)."""
    return Drawing()
