"""The Step page's CSV downloads for a BPE run: the whole pair table before the merge the
student stopped at, and the merges up to it (made on click).

Streamlit keeps what a download will be made from for as long as the session is open, so a
download keeps the run's name (its text and settings), never the run: twenty open sessions
at the budget otherwise held all twenty runs (240 MB) after the server's cache of runs had
let them go (``training.RUN_BYTES``). A click finds the run in that cache, or trains it again.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from bpeviz.app.frame.run_settings import Settings
from bpeviz.app.frame.text_input import TrainingText
from bpeviz.app.frame.training import history_for
from bpeviz.app.shared import tables
from bpeviz.engine.history import History
from bpeviz.engine.readable import counted


def bpe_downloads(history: History, k: int, text: TrainingText, settings: Settings) -> None:
    """The two download buttons at step ``k`` of ``history`` (the run of ``text`` under
    ``settings``): the table before merge ``max(k, 1)``, and merges 1 to ``k``."""
    before = max(k, 1)
    pairs = len(history.pair_table(before - 1))
    with st.container(horizontal=True, gap="small"):
        if pairs:
            st.download_button(
                f"Download all {counted(pairs, 'pair')} before merge {before:,} (CSV)",
                data=partial(_pairs_csv, text, settings, before),
                file_name=f"pairs_before_merge_{before}.csv",
                mime="text/csv",
                key="pairs_csv",
            )
        if k:
            st.download_button(
                "Download merge 1 (CSV)" if k == 1 else f"Download merges 1–{k:,} (CSV)",
                data=partial(_merges_csv, text, settings, k),
                file_name=f"merges_1_to_{k}.csv",
                mime="text/csv",
                key="merges_csv",
            )


def _pairs_csv(text: TrainingText, settings: Settings, before: int) -> bytes:
    history = history_for(text, settings)
    chosen = history.steps[before - 1].pair if history.merge_count else None
    return tables.pair_csv(history.pair_table(before - 1), history.tokenizer, chosen=chosen)


def _merges_csv(text: TrainingText, settings: Settings, k: int) -> bytes:
    return tables.merge_csv(history_for(text, settings), k)
