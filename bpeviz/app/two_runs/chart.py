"""The Two runs page's compression curves as a Vega-Lite spec, made once for every session.

Building the Altair chart and checking it against Vega-Lite's schema took about 40% of each
visit's run (the page's own work; a class of students following the Two runs slide each
paid it). The spec depends only on the two runs, the step shown and the chart's size, so it
is kept (as the Compression page keeps its chart: ``training.compression_chart_spec``), named
by each run's cache key, not by hashing the runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from bpeviz.app.frame.training import arrow_datasets, history_key
from bpeviz.app.shared import charts
from bpeviz.app.two_runs import parting as runs
from bpeviz.engine.history import History

# The chart's height, in presentation mode or not: it holds the axes and the legend too (at
# projector type they left the plot ~30 px, and at 300 px the plot, 90 px, was shorter than
# the y-axis title, cut at the chart's top).
RUNS_CHART_HEIGHT = {True: 480, False: 400}


def curves_spec(
    labelled: Mapping[str, History], *, step: int, height: int, projector: bool
) -> dict[str, Any]:
    """:func:`parting.curves_chart` of ``labelled`` (legend label -> run) at ``step``, as the
    spec Streamlit draws; ``projector``: presentation mode's larger type."""
    names = tuple((label, history_key(history)) for label, history in labelled.items())
    return _spec(names, step, height, projector, labelled)


@st.cache_data(max_entries=32, show_spinner=False)
def _spec(
    names: tuple[tuple[str, tuple[Any, ...]], ...],  # the key: each run's label and name
    step: int,
    height: int,
    projector: bool,
    _labelled: Mapping[str, History],
) -> dict[str, Any]:
    chart = runs.curves_chart(runs.curves_frame(_labelled), step=step, height=height)
    return arrow_datasets(charts.vega_spec(charts.projector_type(chart) if projector else chart))
