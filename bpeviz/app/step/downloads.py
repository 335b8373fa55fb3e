"""The Step page's CSV downloads of where the student stopped, for BPE and WordPiece alike: the
whole table the merge after step ``k`` was picked from (before merge ``max(k, 1)``) and the
merges up to ``k``, each made on click.

Streamlit keeps what a download will be made from for as long as the session is open, so a
download keeps the run's name (its text and settings), never the run: twenty open sessions
at the budget otherwise held all twenty runs (240 MB) after the server's cache of runs had
let them go (``training.RUN_BYTES``). A click finds the run in that cache, or trains it again.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import streamlit as st

from bpeviz.app.frame.run_settings import Settings
from bpeviz.app.frame.text_input import TrainingText
from bpeviz.app.frame.training import history_for, wordpiece_for
from bpeviz.app.shared import tables, wordpiece_tables
from bpeviz.engine.history import History
from bpeviz.engine.readable import counted
from bpeviz.engine.wordpiece_history import WordPieceHistory


def bpe_downloads(history: History, k: int, text: TrainingText, settings: Settings) -> None:
    """BPE's two buttons at step ``k`` of ``history`` (the run of ``text`` under ``settings``):
    every pair before merge ``max(k, 1)``, the merge marked, and the merges so far."""
    pairs = len(history.pair_table(max(k, 1) - 1))
    _downloads(
        k,
        f"all {counted(pairs, 'pair')}" if pairs else None,
        partial(_pairs_csv, text, settings, max(k, 1)),
        partial(_merges_csv, text, settings, k),
    )


def wordpiece_downloads(
    history: WordPieceHistory, k: int, text: TrainingText, settings: Settings
) -> None:
    """WordPiece's two buttons at step ``k`` of ``history`` (the run of ``text`` under
    ``settings``): its whole score (or pair) table before merge ``max(k, 1)``, and the merges
    so far."""
    table = "score table" if history.run.score_rule == "score" else "pair table"
    _downloads(
        k,
        f"the whole {table}" if history.merge_count else None,
        partial(_scores_csv, text, settings, max(k, 1)),
        partial(_wordpiece_merges_csv, text, settings, k),
        prefix="wordpiece_",
    )


def _pairs_csv(text: TrainingText, settings: Settings, before: int) -> bytes:
    history = history_for(text, settings)
    chosen = history.steps[before - 1].pair if history.merge_count else None
    return tables.pair_csv(history.pair_table(before - 1), history.tokenizer, chosen=chosen)


def _merges_csv(text: TrainingText, settings: Settings, k: int) -> bytes:
    return tables.merge_csv(history_for(text, settings), k)


def _scores_csv(text: TrainingText, settings: Settings, before: int) -> bytes:
    return wordpiece_tables.score_csv(wordpiece_for(text, settings), before)


def _wordpiece_merges_csv(text: TrainingText, settings: Settings, k: int) -> bytes:
    return wordpiece_tables.merge_csv(wordpiece_for(text, settings), k)


def _downloads(
    k: int,
    table: str | None,
    table_csv: Callable[[], bytes],
    merges_csv: Callable[[], bytes],
    prefix: str = "",
) -> None:
    """The table's button (none when ``table`` is ``None``) and, past step 0, the merges'.
    A click runs nothing: a run it started would drop the file being fetched (Streamlit
    makes a deferred file once, for the run that drew its button)."""
    before = max(k, 1)
    with st.container(horizontal=True, gap="small"):
        if table is not None:
            st.download_button(
                f"Download {table} before merge {before:,} (CSV)",
                data=table_csv,
                file_name=f"{prefix}pairs_before_merge_{before}.csv",
                mime="text/csv",
                key="pairs_csv",
                on_click="ignore",
            )
        if k:
            st.download_button(
                "Download merge 1 (CSV)" if k == 1 else f"Download merges 1–{k:,} (CSV)",
                data=merges_csv,
                file_name=f"{prefix}merges_1_to_{k}.csv",
                mime="text/csv",
                key="merges_csv",
                on_click="ignore",
            )
