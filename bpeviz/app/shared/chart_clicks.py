"""From a click on a chart to the Step page at that merge.

The Compression chart reports a click as an Altair point selection named
:data:`bpeviz.app.shared.charts.PICK`: Streamlit hands the page ``{"pick": [{"trained_on":
"English", "merges": 120}]}`` (the fields of :data:`bpeviz.app.shared.charts.PICK_FIELDS`), or
``{"pick": []}`` / ``{}`` when nothing is picked. This module turns that into where to go
(:func:`step_target`) and the sidebar settings that reproduce the clicked run there
(:func:`step_settings`), so the Step page trains (or finds in its cache) exactly the run the curve
was drawn from.

What is left out: the navigation itself (``st.switch_page``, in the page).
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from bpeviz.app.frame import run_settings
from bpeviz.app.shared.charts import PICK
from bpeviz.engine.pretokenize import END_OF_WORD


@dataclass(frozen=True)
class StepTarget:
    """The run a clicked point belongs to (a bundled sample, by ``bpe`` or ``wordpiece``) and
    the merges done there."""

    sample_key: str
    step: int
    algorithm: str = "bpe"


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
    selection: Mapping[str, Any],
    *,
    samples: Mapping[str, str],
    merge_counts: Mapping[str, int],
    wordpiece: Mapping[str, str] | None = None,
) -> StepTarget | None:
    """Where a click on the Compression chart leads, or ``None`` when it leads nowhere.

    ``samples`` maps a BPE curve's ``trained_on`` name to its sample key, ``wordpiece`` a
    WordPiece curve's (``English · WordPiece``); ``merge_counts`` each name to how many
    merges its run made (the step is kept inside ``0..merges``). A point on a dashed line
    (a tokenizer measured on the other language) leads to the merge of the run that made
    that tokenizer.

    >>> step_target({"pick": [{"trained_on": "English", "merges": 120}]},
    ...             samples={"English": "english"}, merge_counts={"English": 768})
    StepTarget(sample_key='english', step=120, algorithm='bpe')
    """
    point = picked_point(selection)
    if point is None:
        return None
    name, merges = point.get("trained_on"), point.get("merges")
    runs = {key: (sample, "bpe") for key, sample in samples.items()}
    runs |= {key: (sample, "wordpiece") for key, sample in (wordpiece or {}).items()}
    if name not in runs or name not in merge_counts or not isinstance(merges, int | float):
        return None
    sample, algorithm = runs[name]
    return StepTarget(sample, min(max(int(merges), 0), merge_counts[name]), algorithm)


def step_settings(
    target: StepTarget, *, vocab_size: int, pretokenizer: str, tie_break: str
) -> dict[str, Any]:
    """Sidebar state that trains the clicked run: its sample and the chart's settings.

    The algorithm is the curve's (WordPiece's by score, as the chart trains it), and special
    tokens and ``</w>`` are off, as in the chart's runs. The caller adds the step (its key
    belongs to the Step page's control) and passes the pre-tokenizer of the curve's run.

    >>> state = step_settings(StepTarget("japanese", 5), vocab_size=1024,
    ...                       pretokenizer="gpt4", tie_break="first")
    >>> state["src"], state["sample"], state["vocab"], state["special"]
    ('sample', 'japanese', 1024, '')
    """
    wordpiece = {run_settings.KEY_SCORE_RULE: "score"} if target.algorithm == "wordpiece" else {}
    return {
        run_settings.KEY_ALGORITHM: target.algorithm,
        **wordpiece,
        run_settings.KEY_SOURCE: "sample",
        run_settings.KEY_SAMPLE: target.sample_key,
        run_settings.KEY_VOCAB: vocab_size,
        run_settings.KEY_PRETOKENIZER: pretokenizer,
        run_settings.KEY_TIE_BREAK: tie_break,
        run_settings.KEY_END_OF_WORD: False,
        run_settings.KEY_SPECIALS: "",
    }


KEY_UNDO = "_chart_click_undo"  # the ClickUndo of the last chart click, until it is undone
KEY_BACK = "_chart_click_back"  # set by the undo: go back to the page of the chart

# How the sidebar names each setting a click may change, in the order it shows them.
SETTING_NAMES = {
    run_settings.KEY_ALGORITHM: "algorithm",
    run_settings.KEY_SCORE_RULE: "WordPiece rule",
    run_settings.KEY_SOURCE: "source",
    run_settings.KEY_SAMPLE: "sample",
    run_settings.KEY_VOCAB: "vocab size",
    run_settings.KEY_PRETOKENIZER: "pre-tokenizer",
    run_settings.KEY_TIE_BREAK: "tie rule",
    run_settings.KEY_END_OF_WORD: END_OF_WORD,
    run_settings.KEY_SPECIALS: "special tokens",
}


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value) if value not in (None, "") else "none"


def change_sentence(before: Mapping[str, Any], after: Mapping[str, Any]) -> str | None:
    """What a chart click changed in the sidebar, in one sentence; ``None`` when nothing.

    A click quietly switching the sample and settings under a class was a lecturer's
    complaint: the Step page says what changed, and offers to go back (:func:`click_undo`).

    >>> change_sentence({"sample": "english", "vocab": 512}, {"sample": "japanese", "vocab": 512})
    'The chart click changed the sidebar: sample english → japanese.'
    """
    changes = [
        f"{name} {_shown(before.get(key))} → {_shown(after[key])}"
        for key, name in SETTING_NAMES.items()
        if key in after and before.get(key) != after[key]
    ]
    return f"The chart click changed the sidebar: {', '.join(changes)}." if changes else None


@dataclass(frozen=True)
class ClickUndo:
    """How to go back from a chart click: the session values to put back (the settings it
    changed, and the step), and the sentence saying what it changed."""

    restore: dict[str, Any]
    sentence: str | None
    after: dict[str, Any]

    def holds(self, state: Mapping[str, Any]) -> bool:
        """Whether the session still holds what the click put there (else there is nothing
        to undo: the sidebar changed since)."""
        return all(state.get(key) == value for key, value in self.after.items())


def click_undo(
    before: Mapping[str, Any], changed: Mapping[str, Any], *, step_key: str = "step"
) -> ClickUndo:
    """The undo of a click that puts ``changed`` (:func:`step_settings`) into a session
    holding ``before``: the changed settings' old values and the old step."""
    restore = {key: before.get(key) for key in changed if before.get(key) != changed[key]}
    restore[step_key] = before.get(step_key, 0)
    after = {**{key: before.get(key) for key in SETTING_NAMES}, **changed}
    return ClickUndo(restore, change_sentence(before, after), dict(changed))


def undo_chart_click(state: MutableMapping[str, Any]) -> None:
    """The Step page's undo button's callback (before widgets are drawn): the settings and
    step before the click. (A module's function: Streamlit keeps a button's callback for the
    session, and a page's would hold the page's globals, its run among them.)

    >>> state = {KEY_UNDO: ClickUndo(restore={"vocab": 300}, sentence=None, after={})}
    >>> undo_chart_click(state); state == {"vocab": 300, KEY_BACK: True}
    True
    """
    undo = state.pop(KEY_UNDO, None)
    if undo is not None:
        state.update(undo.restore)
        state[KEY_BACK] = True
