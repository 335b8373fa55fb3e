"""From a click on a chart to the Step page at that merge.

The Compression chart reports a click as an Altair point selection named
:data:`bpeviz.app.charts.PICK`: Streamlit hands the page ``{"pick": [{"trained_on": "English",
"merges": 120}]}`` (the fields of :data:`bpeviz.app.charts.PICK_FIELDS`), or ``{"pick": []}`` /
``{}`` when nothing is picked. This module turns that into where to go (:func:`step_target`)
and the sidebar settings that reproduce the clicked run there (:func:`step_settings`), so the
Step page trains (or finds in its cache) exactly the run the curve was drawn from.

What is left out: the navigation itself (``st.switch_page``, in the page).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bpeviz.app import settings as cfg
from bpeviz.app.charts import PICK


@dataclass(frozen=True)
class StepTarget:
    """The run a clicked point belongs to (a bundled sample) and the merges done there."""

    sample_key: str
    step: int


def picked_point(selection: Mapping[str, Any], param: str = PICK) -> Mapping[str, Any] | None:
    """The point a click selected (the last one, if shift-click added more), or ``None``.

    >>> picked_point({"pick": [{"merges": 3}, {"merges": 7}]})
    {'merges': 7}
    >>> picked_point({"pick": []}) is None, picked_point({}) is None
    (True, True)
    """
    points = selection.get(param) or []
    if isinstance(points, Mapping):  # one point, not a list of them
        points = [points]
    points = [point for point in points if isinstance(point, Mapping)]
    return points[-1] if points else None


def step_target(
    selection: Mapping[str, Any], *, samples: Mapping[str, str], merge_counts: Mapping[str, int]
) -> StepTarget | None:
    """Where a click on the Compression chart leads, or ``None`` when it leads nowhere.

    ``samples`` maps a curve's ``trained_on`` name to its sample key; ``merge_counts`` the
    same name to how many merges its run made (the step is kept inside ``0..merges``). A
    point on a dashed line (a tokenizer measured on the other language) leads to the merge
    of the run that made that tokenizer.

    >>> step_target({"pick": [{"trained_on": "English", "merges": 120}]},
    ...             samples={"English": "english"}, merge_counts={"English": 768})
    StepTarget(sample_key='english', step=120)
    """
    point = picked_point(selection)
    if point is None:
        return None
    name, merges = point.get("trained_on"), point.get("merges")
    if name not in samples or name not in merge_counts or not isinstance(merges, int | float):
        return None
    return StepTarget(samples[name], min(max(int(merges), 0), merge_counts[name]))


def step_settings(
    target: StepTarget, *, vocab_size: int, pretokenizer: str, tie_break: str
) -> dict[str, Any]:
    """Sidebar state that trains the clicked run: its sample and the chart's settings.

    Special tokens and ``</w>`` are off, as in the chart's runs. The caller adds the step
    (its key belongs to the Step page's control).

    >>> state = step_settings(StepTarget("japanese", 5), vocab_size=1024,
    ...                       pretokenizer="gpt4", tie_break="first")
    >>> state["src"], state["sample"], state["vocab"], state["special"]
    ('sample', 'japanese', 1024, '')
    """
    return {
        cfg.KEY_SOURCE: "sample",
        cfg.KEY_SAMPLE: target.sample_key,
        cfg.KEY_VOCAB: vocab_size,
        cfg.KEY_PRETOKENIZER: pretokenizer,
        cfg.KEY_TIE_BREAK: tie_break,
        cfg.KEY_END_OF_WORD: False,
        cfg.KEY_SPECIALS: "",
    }
