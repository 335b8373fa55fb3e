"""The Step page's CSV downloads for a WordPiece run, as BPE's: the whole score table before
the merge the student stopped at, and the merges up to it (made on click). A download keeps
the run's name, not the run (``bpeviz.app.step.bpe_downloads`` says why)."""

from __future__ import annotations

from functools import partial

import streamlit as st

from bpeviz.app.frame.run_settings import Settings
from bpeviz.app.frame.text_input import TrainingText
from bpeviz.app.frame.training import wordpiece_for
from bpeviz.app.shared import wordpiece_tables
from bpeviz.engine.wordpiece_history import WordPieceHistory


def wordpiece_downloads(
    history: WordPieceHistory, k: int, text: TrainingText, settings: Settings
) -> None:
    """The two download buttons at step ``k`` of ``history`` (the run of ``text`` under
    ``settings``; the table before merge ``max(k, 1)``)."""
    before = max(k, 1)
    table = "score table" if history.run.score_rule == "score" else "pair table"
    with st.container(horizontal=True, gap="small"):
        if history.merge_count:
            st.download_button(
                f"Download the whole {table} before merge {before:,} (CSV)",
                data=partial(_scores_csv, text, settings, before),
                file_name=f"wordpiece_pairs_before_merge_{before}.csv",
                mime="text/csv",
                key="pairs_csv",
            )
        if k:
            st.download_button(
                f"Download {'merge 1' if k == 1 else f'merges 1–{k:,}'} (CSV)",
                data=partial(_merges_csv, text, settings, k),
                file_name=f"wordpiece_merges_1_to_{k}.csv",
                mime="text/csv",
                key="merges_csv",
            )


def _scores_csv(text: TrainingText, settings: Settings, before: int) -> bytes:
    return wordpiece_tables.score_csv(wordpiece_for(text, settings), before)


def _merges_csv(text: TrainingText, settings: Settings, k: int) -> bytes:
    return wordpiece_tables.merge_csv(wordpiece_for(text, settings), k)
