"""What the Two runs page compares of its two BPE runs, made once for every session.

The merges only one run makes, those the other run's pre-tokenizer cuts, and their tables
depend only on the two runs: a class following the Two runs slide made them for each
student (with the records of the runs' tokens, about a quarter of each student's run,
profiled). They are kept, named by each run's cache key (as the runs' chart is,
:mod:`bpeviz.app.two_runs.chart`), not by hashing the runs; what is kept is not to be
changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from bpeviz.app.frame.training import history_key
from bpeviz.app.two_runs import parting as runs
from bpeviz.app.two_runs.parting import Merge
from bpeviz.engine.history import History


@dataclass(frozen=True)
class Compared:
    """Per run name (``"A"``, ``"B"``): its merges, those the other run never makes, those
    the other's pre-tokenizer cuts, and the table of the first marking the second."""

    merges: dict[str, list[Merge]]
    only: dict[str, list[Merge]]
    cut: dict[str, list[Merge]]
    tables: dict[str, pd.DataFrame]


def compared(histories: Mapping[str, History], pretokenizers: Mapping[str, str]) -> Compared:
    """The comparison of the two runs ``histories`` (``"A"``, ``"B"``), each cut by the
    other's pre-tokenizer (``pretokenizers``, by run name)."""
    names = tuple((name, history_key(history)) for name, history in histories.items())
    return _compared(names, tuple(sorted(pretokenizers.items())), histories)


@st.cache_resource(max_entries=16, show_spinner=False)
def _compared(
    names: tuple[tuple[str, tuple[Any, ...]], ...],  # the key: each run's name and cache key
    pretokenizers: tuple[tuple[str, str], ...],
    _histories: Mapping[str, History],
) -> Compared:
    merges = {name: runs.merges_of(history) for name, history in _histories.items()}
    (a, b), chosen = merges, dict(pretokenizers)
    other = {a: b, b: a}
    only = {name: runs.only_in(merges[name], merges[other[name]]) for name in merges}
    cut = {name: runs.cut_by(merges[name], chosen[other[name]]) for name in merges}
    tables = {
        name: runs.merge_frame(only[name], merges[other[name]], crossing=cut[name])
        for name in merges
        if only[name]
    }
    return Compared(merges, only, cut, tables)
