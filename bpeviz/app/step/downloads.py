"""The Step page's CSV downloads of where the student stopped, for BPE and WordPiece alike: the
whole table the merge after step ``k`` was picked from (before merge ``max(k, 1)``) and the
merges up to ``k``, each made on click."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from bpeviz.app.shared import tables, wordpiece_tables
from bpeviz.engine.history import History
from bpeviz.engine.readable import counted
from bpeviz.engine.wordpiece_history import WordPieceHistory


def bpe_downloads(history: History, k: int) -> None:
    """BPE's two buttons at step ``k``: every pair before merge ``max(k, 1)``, the merge
    marked, and the merges so far."""
    tokenizer = history.tokenizer
    table = history.pair_table(k - 1 if k else 0)
    chosen = history.steps[max(k, 1) - 1].pair if history.merge_count else None
    _downloads(
        k,
        f"all {counted(len(table), 'pair')}" if len(table) else None,
        lambda: tables.pair_csv(table, tokenizer, chosen=chosen),
        lambda: tables.merge_csv(history, k),
    )


def wordpiece_downloads(history: WordPieceHistory, k: int) -> None:
    """WordPiece's two buttons at step ``k``: its whole score (or pair) table before merge
    ``max(k, 1)``, and the merges so far."""
    table = "score table" if history.run.score_rule == "score" else "pair table"
    _downloads(
        k,
        f"the whole {table}" if history.merge_count else None,
        lambda: wordpiece_tables.score_csv(history, max(k, 1)),
        lambda: wordpiece_tables.merge_csv(history, k),
        prefix="wordpiece_",
    )


def _downloads(
    k: int,
    table: str | None,
    table_csv: Callable[[], str],
    merges_csv: Callable[[], str],
    prefix: str = "",
) -> None:
    """The table's button (none when ``table`` is ``None``) and, past step 0, the merges'."""
    before = max(k, 1)
    with st.container(horizontal=True, gap="small"):
        if table is not None:
            st.download_button(
                f"Download {table} before merge {before:,} (CSV)",
                data=table_csv,
                file_name=f"{prefix}pairs_before_merge_{before}.csv",
                mime="text/csv",
                key="pairs_csv",
            )
        if k:
            st.download_button(
                "Download merge 1 (CSV)" if k == 1 else f"Download merges 1–{k:,} (CSV)",
                data=merges_csv,
                file_name=f"{prefix}merges_1_to_{k}.csv",
                mime="text/csv",
                key="merges_csv",
            )
