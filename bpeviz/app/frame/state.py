"""The session's shared state: its keys, the first run's seeding from the link, and the
sidebar's current settings and text as the pages read them.

State: every key is set with ``st.session_state.setdefault`` (or by a widget) and never at
module level. The settings travel in the URL (see :mod:`bpeviz.app.frame.links` for the format),
written after the sidebar is drawn; the step, presentation mode and page-level choices are
widgets bound to query parameters (``bind="query-params"``).
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from typing import Any

import streamlit as st

from bpeviz.app.frame.links import bound_flags, link_flag, state_from_query
from bpeviz.app.frame.reaper import start_sweeping
from bpeviz.app.frame.run_settings import (
    KEY_PASTE,
    STATE_KEYS,
    Message,
    Settings,
    settings_from_state,
)
from bpeviz.app.frame.text_input import (
    MAX_UPLOAD_MB,
    TrainingText,
    text_from_paste,
    text_from_upload,
)
from bpeviz.app.frame.text_store import REF_SUFFIX, TextStore
from bpeviz.app.lesson.slides import PARAMS
from bpeviz.engine.samples import get_sample
from bpeviz.engine.tokenizer import Tokenizer

KEY_PRESENT = "present"
KEY_FOCUS = "focus"  # presentation mode's Focus view of the Step page (the card and the text)
KEY_STEP = "step"
KEY_UPLOAD_WIDGET = "upload"
KEY_UPLOADED = "_uploaded"  # (name, bytes) kept after the uploader is hidden
KEY_INITIALISED = "_bpeviz_initialised"
KEY_LINK_MESSAGES = "_link_messages"
KEY_IMPORTED = "_imported_tokenizer"
# A live class's teacher: the pages' settings as last seen (a page not drawn drops its widgets'
# state); a lesson's slide resets those it leaves to their defaults.
KEY_HELD = "_live_class"  # this session's class: {"code", "role", "key"?, "checked"?}
KEY_PAGE_SETTINGS = "_live_class_pages"


@st.cache_resource(show_spinner=False)
def sweep_closed_sessions(_let_go: Callable[[set[str]], object]) -> threading.Event:
    """Once per process: free what closed tabs held (see :mod:`bpeviz.app.frame.reaper`), and
    what the shared caches kept only for them (``_let_go``, told the sessions left)."""
    return start_sweeping(_let_go)


@st.cache_resource(show_spinner=False)
def text_store() -> TextStore:
    """The process's one store of texts too long for a link (bounded: see its module)."""
    return TextStore()


def linked_long_text(key: str) -> tuple[str | None, list[Message]]:
    """The text a link refers to with ``KEY_ref`` (a text too long to travel itself), if any.

    ``None`` and a message when the link refers to a text this server no longer keeps.
    """
    ref = st.query_params.get(key + REF_SUFFIX)
    if not ref or st.query_params.get(key):
        return None, []
    text = text_store().get(ref)
    if text is not None:
        return text, []
    return None, [
        Message(
            "warning",
            "This link refers to a long text that this server no longer keeps (it keeps "
            "the most recent ones until it restarts): paste the text again.",
        )
    ]


def keep_long_text(key: str, text: str, *, in_link: bool) -> None:
    """Put a text too long for the link into the store and its reference into the link
    (``in_link``); otherwise drop any reference the link holds for ``key``."""
    ref_key = key + REF_SUFFIX
    if in_link:
        ref = text_store().put(text)
        if st.query_params.get(ref_key) != ref:
            st.query_params[ref_key] = ref
    elif ref_key in st.query_params:
        del st.query_params[ref_key]


def init_state() -> None:
    """Once per session, before any widget: seed the settings from the link (query params)."""
    if st.session_state.get(KEY_INITIALISED):
        return
    # A widget bound to the link reads only Streamlit's own true/false: ?present=1 and
    # ?present=yes are given to it as its value, before it is drawn.
    flags = [name for name, param in PARAMS.items() if param.kind == "flag" and param.bound]
    for name, value in bound_flags(st.query_params.to_dict(), flags).items():
        st.session_state.setdefault(name, value == "true")
    params = {key: st.query_params[key] for key in STATE_KEYS if key in st.query_params}
    state, messages = state_from_query(params)
    long_paste, missing = linked_long_text(KEY_PASTE)
    if long_paste is not None:
        state[KEY_PASTE] = long_paste
    messages.extend(missing)
    for key, value in state.items():
        st.session_state.setdefault(key, value)
    st.session_state[KEY_LINK_MESSAGES] = messages
    st.session_state[KEY_INITIALISED] = True


def presentation_mode() -> bool:
    """Whether the app is in presentation (projector) mode: the toggle's value, or before the
    toggle is first drawn, the link's (``?present=1``, ``true`` or ``yes``). A lesson's slide
    opens its page with the slide's own link, which need not say ``present``: the toggle's
    value stands."""
    if KEY_PRESENT in st.session_state:
        return bool(st.session_state[KEY_PRESENT])
    return link_flag(st.query_params.get(KEY_PRESENT) or "") is True


def current_settings() -> Settings:
    """The training settings chosen in the sidebar."""
    return settings_from_state(st.session_state)


def text_and_messages(settings: Settings) -> tuple[TrainingText | None, list[Message]]:
    if settings.source == "paste":
        return text_from_paste(st.session_state.get(KEY_PASTE))
    if settings.source == "upload":
        stored = st.session_state.get(KEY_UPLOADED)
        if stored is None:
            return None, [
                Message(
                    "info",
                    f"Upload a text file in the sidebar (up to {MAX_UPLOAD_MB} MB), or "
                    "pick a sample.",
                )
            ]
        return text_from_upload(*stored)
    try:
        sample = get_sample(settings.sample_key)
    except ValueError as error:
        return None, [Message("error", str(error))]
    return TrainingText(sample.title, sample.text, "sample"), []


def current_text() -> TrainingText | None:
    """The text chosen in the sidebar, or ``None`` when there is none usable (no message)."""
    return text_and_messages(current_settings())[0]


def remember_imported_tokenizer(name: str, tokenizer: Tokenizer) -> None:
    """Keep a tokenizer loaded from a file (Export / import page) for this session."""
    st.session_state[KEY_IMPORTED] = (name, tokenizer)


def imported_tokenizer() -> tuple[str, Tokenizer] | None:
    """The tokenizer imported this session, as ``(name, tokenizer)``, if any."""
    return st.session_state.get(KEY_IMPORTED)


def held_class() -> dict[str, Any] | None:
    """This session's live class (:mod:`bpeviz.app.live.live_class`), else ``None``: here, in
    the frame, so that the lesson bar can ask it without importing the live class."""
    return st.session_state.get(KEY_HELD)


def follows_class() -> bool:
    """Whether this session is a student following a live class on the class's run: its
    settings are the class's then, shown read-only (the sidebar draws no widgets for them)."""
    held = held_class()
    return held is not None and held.get("role") == "student" and not held.get("detached")


def detach_from_class() -> None:
    """The student's settings are their own from now on (the sidebar's "Change settings"):
    the class bar says "Exploring" and names no run of the class's, so that Follow asks for
    the class's run again."""
    held = held_class()
    if held is not None and held.get("role") == "student":
        held.update(detached=secrets.token_hex(4), replaced={})
