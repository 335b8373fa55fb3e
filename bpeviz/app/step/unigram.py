"""The Step page for a Unigram run: one step is one round, drawn in the browser.

The same component as BPE's view (``bpeviz.app.step.view.component``) gets a Unigram record
(:func:`bpeviz.records.unigram_step.unigram_payload`), and its script draws the rounds, the
tables, the loss and a word's lattice from it with no server round trip. The step travels in
the link as BPE's does (``step=``): the view reports where a student stopped, and the server
writes it into the address. An exported page carries the same record.
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

import streamlit as st

from bpeviz.app.frame.state import KEY_STEP
from bpeviz.app.frame.training import session_id, step_records
from bpeviz.app.step.view import KEY_VIEW, component, current_step
from bpeviz.engine.readable import counted
from bpeviz.engine.unigram import UnigramRun
from bpeviz.records.unigram_step import unigram_payload
from bpeviz.web import step_page

KEY_UNIGRAM_START = "_unigram_view_start"  # (record key, step) the view started at


def unigram_record(run: UnigramRun, text: str, run_key: str) -> tuple[str, str]:
    """The record of a run as JSON and a key that names it (built once per run)."""

    def build() -> tuple[str, str]:
        record = json.dumps(unigram_payload(run, text), ensure_ascii=False)
        return hashlib.sha256(record.encode("utf-8")).hexdigest()[:16], record

    return step_records().get(
        ("unigram", run_key), build, lambda held: sys.getsizeof(held[1]), user=session_id()
    )


def unigram_page_for(run: UnigramRun, text: str, run_key: str, *, name: str, summary: str) -> str:
    """The exported one-file page of a Unigram run (``bpeviz.web.step_page``)."""
    _, record = unigram_record(run, text, run_key)
    subtitle = f"{name} · {counted(len(text), 'character')} · {summary}"
    return step_page(record, title=f"bpeviz: {name}", subtitle=subtitle)


def unigram_step_view(run: UnigramRun, text: str, run_key: str) -> int:
    """Draw the view; return the step it stands at (as last reported)."""
    state = st.session_state
    last = len(run.rounds) - 1
    step, _ = current_step(last)
    key, record = unigram_record(run, text, run_key)
    start = state.get(KEY_UNIGRAM_START)
    if start is None or start[0] != key:  # a new run: the view starts at the step linked
        start = state[KEY_UNIGRAM_START] = (key, step)
    data: dict[str, Any] = {
        "kind": "step",
        "key": key,
        "payload": record,
        "start": {"step": start[1], "when": "after", "quiz": False, "pieces": False},
        "link": None,
        "resume": False,
    }
    result = component(data=data, key=KEY_VIEW, on_view_change=lambda: None)
    reported = result.get("view") if result else None
    if isinstance(reported, dict):
        step = min(max(int(reported.get("step") or 0), 0), last)
        state[KEY_STEP] = step
    wanted = str(step) if step else None
    if st.query_params.get(KEY_STEP) != wanted:
        if wanted is None:
            del st.query_params[KEY_STEP]
        else:
            st.query_params[KEY_STEP] = wanted
    return step
