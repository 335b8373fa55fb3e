"""The Step page's view, drawn in the browser: a Streamlit component around ``bpeviz.web.script``.

The server trains and hands over one record (:func:`bpeviz.records.step.payload`); every Next,
Previous, slider move, key and autoplay tick is drawn by the browser from it, with no server
round trip. The browser writes the view (step, before/after, the quiz and Show pieces) into the
address as it draws, so a link copied right after stepping is never stale. Once a student stops
stepping, the view reports where it stands (``view``), which reruns the page once: the server
then holds the same in the session (the CSV downloads follow it) and writes the same link.

Streamlit keeps its own record of the address and sends it with every rerun; a write from the
server sends its whole query back. The server therefore writes the link's four values in one
write that gives, to the character, the query the browser wrote (``LINK``: the names, order and
defaults both use), so Streamlit finds the address already right and adds no history entry.
A view mounted afresh whose address holds other values than the server last wrote was reached
by the browser's Back or Forward: it shows what the address says.

The data given to the component stays the same while a student steps (the record and the
step it started at), so Streamlit sends the record again only when it changes.
"""

from __future__ import annotations

import hashlib
import sys
from typing import Any

import streamlit as st

from bpeviz.app.frame.links import link_flag, unread_number, whole_number
from bpeviz.app.frame.state import KEY_STEP
from bpeviz.app.frame.training import Run, history_key, session_id, step_records
from bpeviz.app.frame.widgets import show_messages
from bpeviz.engine.readable import counted
from bpeviz.engine.wordpiece_history import WordPieceHistory
from bpeviz.records import wordpiece_step
from bpeviz.records.step import payload_json, window_for, window_shows
from bpeviz.web import script_loader, step_page

KEY_VIEW = "step_view"  # the component (its state: the step the student stopped at)
KEY_WHEN = "text_when"  # "Before merge" / "After merge", as links have always said it
KEY_START = "_step_view_start"  # (record key, step, when, quiz, pieces) the view started at
KEY_RESUME = "_step_view_resume"  # the view started afresh, named by no link (main.js: resume)
KEY_SEEN = "_step_view_seen"  # (step, when) the view last reported
KEY_LINKED = "_step_view_linked"  # (step, when, quiz, pieces) the server last left in the link
KEY_WINDOW = "_step_view_window"  # (history id, first symbol drawn) of a long text
KEY_QUIZ = "quiz"  # the quiz ("Guess the next merge") on: "1" in the link
KEY_PIECES = "pieces"  # Show pieces on: "1" in the link
WHEN_OPTIONS = {"before": "Before merge", "after": "After merge"}
SWITCHES = (KEY_QUIZ, KEY_PIECES)
# The link's values, in the order both the server and the browser write them: (the view's
# field, the link's name, the value a link leaves out).
LINK_KEYS = (
    ("step", KEY_STEP, "0"),
    ("when", KEY_WHEN, WHEN_OPTIONS["after"]),
    ("quiz", KEY_QUIZ, "0"),
    ("pieces", KEY_PIECES, "0"),
)
LINK = {"keys": [list(key) for key in LINK_KEYS], "when": WHEN_OPTIONS}  # for the browser

# The one component of the app: bpeviz.web.script(), for the step view and any list of tokens,
# imported from the app's own address (bpeviz.web.script_loader says why).
component = st.components.v2.component("bpeviz_step", js=script_loader(), isolate_styles=False)


def _record(history: Run, window_from: int = 0) -> tuple[str, str]:
    """The record of a history as JSON, with a key that names it (built once per run and
    window). A run is named by its text and settings (training is deterministic), so the
    cache keeps no history: how many runs live is the training cache's to say (twenty
    sessions at the budget left 376 MB behind when their histories were kept here too)."""

    def build() -> tuple[str, str]:
        if isinstance(history, WordPieceHistory):
            text = wordpiece_step.payload_json(history, window_from=window_from)
        else:
            text = payload_json(history, window_from=window_from)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16], text

    key = (history_key(history), window_from)
    return step_records().get(
        key, build, lambda record: sys.getsizeof(record[1]), user=session_id()
    )


def _moved(history: Run, window_from: int, step: int) -> int:
    """Where the drawn part of a long text starts at ``step``: at ``window_from`` while that
    shows the merge of ``step`` (or merge 1's at step 0), else around that merge's first
    place. A BPE window starts at a symbol, a WordPiece one at a word."""
    merge = max(step, 1)
    if isinstance(history, WordPieceHistory):
        shows, around = wordpiece_step.window_shows, wordpiece_step.window_for
    else:
        shows, around = window_shows, window_for
    if history.merge_count and not shows(history, window_from, merge):
        return around(history, merge)
    return window_from


def _window(history: Run, step: int) -> int:
    """Where the drawn part of a long text starts: where it started, while it shows the
    merge of ``step``; else around that merge's first place (a new record)."""
    state = st.session_state
    held = state.get(KEY_WINDOW)
    window_from = _moved(history, held[1] if held and held[0] == id(history) else 0, step)
    state[KEY_WINDOW] = (id(history), window_from)
    return window_from


def prepare_record(history: Run, step: int) -> None:
    """Build the record a session opening this run at ``step`` is given (the window around
    that merge, as :func:`_window` picks it for a new session), so its first load finds it
    made: a lesson's slides are prepared so before the class reaches them."""
    _record(history, _moved(history, 0, step))


def step_page_for(history: Run, *, name: str, summary: str) -> str:
    """The exported page of a run (``bpeviz.web.step_page``) with the record the app holds."""
    _, text = _record(history)
    size = len(history.text.encode("utf-8")) if isinstance(history.text, str) else len(history.text)
    subtitle = f"{name} · {counted(size, 'byte')} · {summary}"
    return step_page(text, title=f"bpeviz: {name}", subtitle=subtitle)


def _from_link(name: str) -> str | None:
    value = st.query_params.get(name)
    return value if isinstance(value, str) else None


View = tuple[int, str, bool, bool]  # step, "before"/"after", quiz, pieces


def _linked() -> View | None:
    """The view the link names, or ``None`` when it names none (a page switch drops it)."""
    if not any(name in st.query_params for _, name, _ in LINK_KEYS):
        return None
    when = (_from_link(KEY_WHEN) or "").lower()
    return (
        whole_number(_from_link(KEY_STEP) or "") or 0,
        "before" if when.startswith("before") else "after",
        link_flag(_from_link(KEY_QUIZ) or "") is True,
        link_flag(_from_link(KEY_PIECES) or "") is True,
    )


def current_step(merge_count: int) -> tuple[int, str]:
    """The step and before/after to show: the session's, else the link's; kept in range."""
    state = st.session_state
    linked = _linked() or (0, "after", False, False)
    for name, value in zip((KEY_STEP, KEY_WHEN, *SWITCHES), linked, strict=True):
        if name not in state:
            state[name] = value
    step = min(max(int(state[KEY_STEP] or 0), 0), merge_count)
    state[KEY_STEP] = step
    return step, state[KEY_WHEN]


def _follow_the_address() -> None:
    """Back or Forward to the page: the address holds what the browser wrote into it, which
    the server may never have heard (the student left before the view reported)."""
    state = st.session_state
    linked = _linked()
    if linked is not None and linked != state.get(KEY_LINKED):
        for name, value in zip((KEY_STEP, KEY_WHEN, *SWITCHES), linked, strict=True):
            state[name] = value


def step_view(history: Run) -> tuple[int, str]:
    """Draw the view; return the step and before/after it stands at (as last reported)."""
    state = st.session_state
    written = _from_link(KEY_STEP)
    if written and whole_number(written) is None:  # read as step 0
        show_messages([unread_number(KEY_STEP, written)])
    # A view the browser mounts afresh (back from another page: Streamlit dropped the
    # component's state with it) starts where the student stopped, not where it began.
    mounted_afresh = not isinstance((state.get(KEY_VIEW) or {}).get("view"), dict)
    if mounted_afresh:
        _follow_the_address()
        # Back from another page through the sidebar (no view in the link): a view the
        # student left before it reported may start the view instead (the browser kept it).
        state[KEY_RESUME] = _linked() is None
    step, when = current_step(history.merge_count)
    window_from = _window(history, step)
    key, text = _record(history, window_from)
    start = state.get(KEY_START)
    moved_elsewhere = (step, when) != state.get(KEY_SEEN) and (step, when) != tuple(
        (start or ())[1:3]
    )
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
        "link": LINK,
        "resume": bool(state.get(KEY_RESUME)),
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
    state[KEY_LINKED] = _write_link((step, when, state[KEY_QUIZ], state[KEY_PIECES]))
    return step, when


def link_query(view: View) -> dict[str, str]:
    """The link's parameters of a view, defaults left out.

    >>> link_query((3, "before", False, True))
    {'step': '3', 'text_when': 'Before merge', 'pieces': '1'}
    """
    step, when, quiz, pieces = view
    values = (str(step), WHEN_OPTIONS[when], "1" if quiz else "0", "1" if pieces else "0")
    return {
        name: value
        for (_, name, default), value in zip(LINK_KEYS, values, strict=True)
        if value != default
    }


def session_view() -> View:
    """The view the session holds (defaults for what it does not hold yet)."""
    state = st.session_state
    return (
        int(state.get(KEY_STEP) or 0),
        "before" if state.get(KEY_WHEN) == "before" else "after",
        state.get(KEY_QUIZ) is True,
        state.get(KEY_PIECES) is True,
    )


def _write_link(view: View) -> View:
    """Put the view into the URL in one write; return it.

    A name already in the query keeps its place and a new one goes at the end, in
    ``LINK_KEYS`` order, as ``linkSearch`` (bpeviz/web/step/address.js) writes them: the query
    Streamlit then sends is the one the browser already shows. A default is written as no
    value at all (an empty list), so the same write also removes it.
    """
    wanted = link_query(view)
    held = {name: st.query_params.get(name) for _, name, _ in LINK_KEYS}
    if held != {name: wanted.get(name) for name in held}:
        st.query_params.update({name: wanted.get(name, []) for name in held})
    return view
