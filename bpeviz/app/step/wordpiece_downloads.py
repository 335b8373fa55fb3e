"""The Step page's CSV downloads for a WordPiece run, as BPE's: the whole score table before
the merge the student stopped at, and the merges up to it (made on click)."""

from __future__ import annotations

import streamlit as st

from bpeviz.app.shared import wordpiece_tables
from bpeviz.engine.wordpiece_history import WordPieceHistory


def wordpiece_downloads(history: WordPieceHistory, k: int) -> None:
    """The two download buttons at step ``k`` (the table before merge ``max(k, 1)``)."""
    before = max(k, 1)
    table = "score table" if history.run.score_rule == "score" else "pair table"
    with st.container(horizontal=True, gap="small"):
        if history.merge_count:
            st.download_button(
                f"Download the whole {table} before merge {before:,} (CSV)",
                data=lambda: wordpiece_tables.score_csv(history, before),
                file_name=f"wordpiece_pairs_before_merge_{before}.csv",
                mime="text/csv",
                key="pairs_csv",
            )
        if k:
            st.download_button(
                f"Download {'merge 1' if k == 1 else f'merges 1–{k:,}'} (CSV)",
                data=lambda: wordpiece_tables.merge_csv(history, k),
                file_name=f"wordpiece_merges_1_to_{k}.csv",
                mime="text/csv",
                key="merges_csv",
            )
