"""The Compression chart's click: open the clicked run's merge on the Step page.

A module's function, not the page's: Streamlit keeps a chart's ``on_select`` callback as long
as the session is open, and a function the page script defines holds the script's globals,
the sidebar's run among them, after the bounded cache of runs let it go.
"""

from __future__ import annotations

import streamlit as st

from bpeviz.app.compression import curves as compression
from bpeviz.app.frame.state import KEY_STEP
from bpeviz.app.frame.training import train_sample, train_wordpiece_sample
from bpeviz.app.shared.chart_clicks import KEY_UNDO, click_undo, step_settings, step_target

KEY_CHART, KEY_GO = "compression_chart", "_compression_go"
WORDPIECE_PRETOKENIZER = "bert"  # the dash-dot curves' (BERT's)
SAMPLES, PRETOKENIZER = compression.SAMPLES, compression.PRETOKENIZER
TIE_BREAK = compression.TIE_BREAK


def open_clicked_step() -> None:
    """Chart callback (before the page runs again): put the clicked run in the sidebar and
    its merge in the step control, then let the page switch to the Step page."""
    state = st.session_state
    vocab = int(state["compression_vocab"])
    merge_counts = {  # the runs the chart was drawn from (cached: no training here)
        name: train_sample(key, vocab, PRETOKENIZER, TIE_BREAK).merge_count
        for name, key in SAMPLES.items()
    }
    wordpiece = {}  # the dash-dot curves' runs, when drawn
    if state.get("compression_wordpiece"):
        wordpiece = {compression.wordpiece_name(name): key for name, key in SAMPLES.items()}
        for curve, key in wordpiece.items():
            run = train_wordpiece_sample(key, vocab, WORDPIECE_PRETOKENIZER)
            merge_counts[curve] = run.merge_count
    target = step_target(
        state[KEY_CHART].selection,
        samples=SAMPLES,
        merge_counts=merge_counts,
        wordpiece=wordpiece,
    )
    if target is None:
        return
    pretokenizer = WORDPIECE_PRETOKENIZER if target.algorithm == "wordpiece" else PRETOKENIZER
    changed = step_settings(
        target, vocab_size=vocab, pretokenizer=pretokenizer, tie_break=TIE_BREAK
    )
    state[KEY_UNDO] = click_undo(dict(state), changed, step_key=KEY_STEP)
    state.update(changed)
    state[KEY_STEP] = target.step
    state[KEY_GO] = True
