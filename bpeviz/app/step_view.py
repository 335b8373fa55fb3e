"""The Step page's view, drawn in the browser: a Streamlit component around ``bpeviz.web.script``.

The server trains and hands over one record (:func:`bpeviz.stepdata.payload`); every Next,
Previous, slider move, key and autoplay tick is drawn by the browser from it, with no server
round trip. Once a student stops stepping, the view reports where it stands (``view``:
step, before/after, the quiz and Show pieces), which reruns the page once: they go into the
URL, so a link reproduces the view, and the CSV downloads follow it.

The data given to the component stays the same while a student steps (the record and the
step it started at), so Streamlit sends the record again only when it changes.
"""

from __future__ import annotations

import hashlib
from typing import Any

import streamlit as st

from bpeviz.app.links import whole_number
from bpeviz.app.state import KEY_STEP
from bpeviz.history import History
from bpeviz.readable import counted
from bpeviz.stepdata import payload_json, window_for, window_shows
from bpeviz.web import script, step_page

KEY_VIEW = "step_view"  # the component (its state: the step the student stopped at)
KEY_WHEN = "text_when"  # "Before merge" / "After merge", as links have always said it
KEY_START = "_step_view_start"  # (record key, step, when, quiz, pieces) the view started at
KEY_SEEN = "_step_view_seen"  # (step, when) the view last reported
KEY_WINDOW = "_step_view_window"  # (history id, first symbol drawn) of a long text
KEY_QUIZ = "quiz"  # the quiz ("Guess the next merge") on: "1" in the link
KEY_PIECES = "pieces"  # Show pieces on: "1" in the link
WHEN_OPTIONS = {"before": "Before merge", "after": "After merge"}
SWITCHES = (KEY_QUIZ, KEY_PIECES)

# The one component of the app: bpeviz.web.script(), for the step view and any list of tokens.
component = st.components.v2.component("bpeviz_step", js=script(), isolate_styles=False)


@st.cache_resource(max_entries=24, show_spinner=False, hash_funcs={History: id})
def _record(history: History, window_from: int = 0) -> tuple[str, str, History]:
    """The record of a history as JSON, with a key that names it (built once per history
    and window; the history is kept with it so that its ``id`` is never reused while
    cached)."""
    text = payload_json(history, window_from=window_from)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16], text, history


def _window(history: History, step: int) -> int:
    """Where the drawn part of a long text starts: where it started, while it shows the
    merge of ``step``; else around that merge's first place (a new record)."""
    state = st.session_state
    held = state.get(KEY_WINDOW)
    window_from = held[1] if held and held[0] == id(history) else 0
    merge = max(step, 1)
    if history.merge_count and not window_shows(history, window_from, merge):
        window_from = window_for(history, merge)
    state[KEY_WINDOW] = (id(history), window_from)
    return window_from


def step_page_for(history: History, *, name: str, summary: str) -> str:
    """The exported page of a run (``bpeviz.web.step_page``) with the record the app holds."""
    _, text, _ = _record(history)
    subtitle = f"{name} · {counted(len(history.text), 'byte')} · {summary}"
    return step_page(text, title=f"bpeviz: {name}", subtitle=subtitle)


def _from_link(name: str) -> str | None:
    value = st.query_params.get(name)
    return value if isinstance(value, str) else None


def current_step(merge_count: int) -> tuple[int, str]:
    """The step and before/after to show: the session's, else the link's; kept in range."""
    state = st.session_state
    if KEY_STEP not in state:
        state[KEY_STEP] = whole_number(_from_link(KEY_STEP) or "") or 0
    if KEY_WHEN not in state:
        link = _from_link(KEY_WHEN) or ""
        state[KEY_WHEN] = "before" if link.lower().startswith("before") else "after"
    step = min(max(int(state[KEY_STEP] or 0), 0), merge_count)
    state[KEY_STEP] = step
    for name in SWITCHES:
        if name not in state:
            state[name] = _from_link(name) == "1"
    return step, state[KEY_WHEN]


def step_view(history: History) -> tuple[int, str]:
    """Draw the view; return the step and before/after it stands at (as last reported)."""
    state = st.session_state
    step, when = current_step(history.merge_count)
    window_from = _window(history, step)
    key, text, _ = _record(history, window_from)
    start = state.get(KEY_START)
    moved_elsewhere = (step, when) != state.get(KEY_SEEN) and (step, when) != tuple(
        (start or ())[1:3]
    )
    # A view the browser mounts afresh (back from another page: Streamlit dropped the
    # component's state with it) starts where the student stopped, not where it began.
    mounted_afresh = not isinstance((state.get(KEY_VIEW) or {}).get("view"), dict)
    switches = tuple(state[name] for name in SWITCHES)
    restart = mounted_afresh and (step, when, *switches) != tuple((start or ())[1:])
    if start is None or start[0] != key or moved_elsewhere or restart:
        start = state[KEY_START] = (key, step, when, *switches)
        state[KEY_SEEN] = (step, when)
    data: dict[str, Any] = {
        "kind": "step",
        "key": key,
        "payload": text,
        "start": {
            "step": start[1],
            "when": start[2],
            **dict(zip(SWITCHES, start[3:], strict=True)),
        },
    }
    result = component(data=data, key=KEY_VIEW, on_view_change=lambda: None)
    reported = result.get("view") if result else None
    if isinstance(reported, dict):
        seen = (
            min(max(int(reported.get("step") or 0), 0), history.merge_count),
            "before" if reported.get("when") == "before" else "after",
        )
        for name in SWITCHES:
            state[name] = reported.get(name) is True
        if seen != state.get(KEY_SEEN):
            state[KEY_SEEN] = seen
            state[KEY_STEP], state[KEY_WHEN] = seen
            step, when = seen
            if _window(history, step) != window_from:
                st.rerun()  # the student stopped where the drawn text has no such merge
    _link(KEY_STEP, str(step), default="0")
    _link(KEY_WHEN, WHEN_OPTIONS[when], default=WHEN_OPTIONS["after"])
    for name in SWITCHES:
        _link(name, "1" if state[name] else "0", default="0")
    return step, when


def _link(name: str, value: str, *, default: str) -> None:
    """Put a value in the URL, leaving out defaults as bound widgets do (shorter links)."""
    if value == default:
        if name in st.query_params:
            del st.query_params[name]
    elif st.query_params.get(name) != value:
        st.query_params[name] = value
