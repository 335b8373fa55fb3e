"""Altair charts, built by pure functions so tests can read them back with ``chart.to_dict()``.

Only the chart *spec* is made here; drawing it (``st.altair_chart``) is the page's job. The data
comes from :mod:`bpeviz.app.compression.curves` in long form (one row per point).

The compression chart has five layers, all on one vocabulary-size axis:

1. one line per (tokenizer, text): colour = the text measured, dash = whether the tokenizer
   was trained on that text (solid) or on the other language (dashed);
2. markers where the other-language curves were actually measured (they are sampled);
3. an invisible layer of every point that lights up the point nearest the pointer, carries
   the tooltip, and holds the click selection :data:`PICK` (the page opens the Step page at
   the merge clicked: :mod:`bpeviz.app.shared.chart_clicks`);
4. a dotted horizontal rule per text for each reference tokenizer (``cl100k_base``,
   ``o200k_base``), named in its tooltip: five tokenizers within 0.2 bytes per token of each
   other left no room for labels on the chart, and the legend says what a dotted line is;
5. a vertical rule with a label at the vocabulary size chosen in the sidebar.

The legends sit below the plot: beside it, they took half of a phone's width.

"""

from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd

from bpeviz.app.compression.curves import (
    CURVE_COLUMNS,
    OTHER,
    OWN,
    REAL,
    REFERENCE_COLUMNS,
    WORDPIECE,
)
from bpeviz.engine.corpus import BYTE_COUNT

PICK = "pick"  # the click selection's name: what st.altair_chart(selection_mode=...) listens to
PICK_FIELDS: tuple[str, ...] = ("trained_on", "merges")  # what a click reports
X_TITLE = f"vocabulary size ({BYTE_COUNT} bytes + merges)"
X_TITLE_WORDPIECE = (
    f"vocabulary size (BPE: {BYTE_COUNT} bytes + merges; WordPiece: characters + merges)"
)
Y_TITLE: tuple[str, ...] = ("bytes per token", "higher is better: fewer tokens")  # two lines
PROJECTOR_LABEL_SIZE = 18  # presentation mode's axis, legend and label text (projector_type)
PROJECTOR_TITLE_SIZE = 20
LEGEND = alt.Legend(orient="bottom", direction="vertical")  # two columns side by side: 390 px
PALETTE: tuple[str, ...] = ("#1f77b4", "#e4572e", "#2ca02c", "#9467bd", "#8c564b", "#17becf")
TOOLTIP_FIELDS: tuple[tuple[str, str, str, str | None], ...] = (
    ("trained_on", "N", "tokenizer trained on", None),
    ("measured_on", "N", "measured on", None),
    ("vocab_size", "Q", "vocab size", ",d"),
    ("merges", "Q", "merges", ",d"),
    ("tokens", "Q", "tokens", ",d"),
    ("bytes_per_token", "Q", "bytes per token", ".3f"),
)


def _tooltip() -> list[alt.Tooltip]:
    return [
        alt.Tooltip(f"{field}:{kind}", title=title, **({"format": fmt} if fmt else {}))
        for field, kind, title, fmt in TOOLTIP_FIELDS
    ]


def compression_chart(
    curves: pd.DataFrame,
    *,
    references: pd.DataFrame | None = None,
    current_vocab_size: int | None = None,
    height: int = 380,
) -> alt.LayerChart:
    """Vocabulary size against bytes per token, every curve and reference on one chart.

    ``curves`` has the columns of :data:`bpeviz.compression.CURVE_COLUMNS`; ``references`` those
    of :data:`bpeviz.compression.REFERENCE_COLUMNS`. ``current_vocab_size`` draws the marker.
    """
    curves = pd.DataFrame(curves, columns=list(CURVE_COLUMNS))
    languages = list(dict.fromkeys([*curves["measured_on"].tolist(), *_measured(references)]))
    color_scale = alt.Scale(domain=languages, range=list(PALETTE[: max(len(languages), 1)]))
    x_max = _x_max(curves, current_vocab_size)
    wordpiece = bool((curves["kind"] == WORDPIECE).any())
    x_min = int(min([BYTE_COUNT, *curves["vocab_size"].tolist()]))  # WordPiece's may start lower
    x = alt.X(
        "vocab_size:Q",
        title=X_TITLE_WORDPIECE if wordpiece else X_TITLE,
        scale=alt.Scale(domain=[x_min, x_max], nice=False),
    )
    y = alt.Y("bytes_per_token:Q", title=list(Y_TITLE), scale=alt.Scale(zero=False))
    has_references = references is not None and not references.empty
    color = alt.Color("measured_on:N", title="measured on", scale=color_scale, legend=LEGEND)
    patterns = {OWN: [1, 0], OTHER: [6, 4], WORDPIECE: [10, 3, 2, 3], REAL: [2, 3]}
    kinds = [OWN, OTHER, *([WORDPIECE] if wordpiece else []), *([REAL] if has_references else [])]
    dash = alt.StrokeDash(
        "kind:N",
        title="tokenizer",
        scale=alt.Scale(domain=kinds, range=[patterns[kind] for kind in kinds]),
        legend=LEGEND,
    )
    nearest = alt.selection_point(
        name="nearest", nearest=True, on="pointerover", empty=False, clear="pointerout"
    )
    pick = alt.selection_point(
        name=PICK, fields=list(PICK_FIELDS), on="click", nearest=True, empty=False
    )
    base = alt.Chart(curves)
    lines = base.mark_line(strokeWidth=2).encode(
        x=x, y=y, color=color, strokeDash=dash, detail="trained_on:N"
    )
    measured = (
        base.transform_filter(alt.datum.kind == OTHER)
        .mark_point(size=30, filled=True)
        .encode(x=x, y=y, color=color, tooltip=_tooltip())
    )
    hover = (
        base.mark_circle(size=90)
        .encode(
            x=x,
            y=y,
            color=color,
            opacity=alt.when(nearest).then(alt.value(1)).otherwise(alt.value(0)),
            tooltip=_tooltip(),
        )
        .add_params(nearest, pick)
    )
    layers: list[alt.Chart] = [lines, measured, hover]
    if references is not None and has_references:
        layers.append(_reference_layer(references, color, dash))
    if current_vocab_size is not None:
        layers.extend(_marker_layers(current_vocab_size, x_max))
    return alt.layer(*layers).properties(height=height)


def _measured(references: pd.DataFrame | None) -> list[str]:
    return [] if references is None else references["measured_on"].tolist()


def _x_max(curves: pd.DataFrame, current_vocab_size: int | None) -> int:
    candidates = [BYTE_COUNT + 1, *curves["vocab_size"].tolist()]
    if current_vocab_size is not None:
        candidates.append(current_vocab_size)
    return int(max(candidates))


def reference_label(row: pd.Series) -> str:
    """``"cl100k_base on English: 4.23"``: what a dotted reference line stands for."""
    return f"{row['tokenizer']} on {row['measured_on']}: {row['bytes_per_token']:.2f}"


def _reference_layer(
    references: pd.DataFrame, color: alt.Color, dash: alt.StrokeDash
) -> alt.Chart:
    data = pd.DataFrame(references, columns=list(REFERENCE_COLUMNS)).reset_index(drop=True)
    data["line"] = [reference_label(row) for _, row in data.iterrows()]
    data["kind"] = REAL
    tooltip = [
        alt.Tooltip("line:N", title="line"),
        alt.Tooltip("tokens:Q", title="tokens", format=",d"),
    ]
    return (
        alt.Chart(data)
        .mark_rule(strokeWidth=1.5)
        .encode(y="bytes_per_token:Q", color=color, strokeDash=dash, tooltip=tooltip)
    )


def marker_label(vocab_size: int) -> str:
    """``"sidebar vocab size: 512"``: the label of the vertical marker."""
    return f"sidebar vocab size: {vocab_size:,}"


def _marker_layers(vocab_size: int, x_max: int) -> list[alt.Chart]:
    # put the label on the left of the rule
    near_right = vocab_size - BYTE_COUNT > 0.7 * (x_max - BYTE_COUNT)
    data = pd.DataFrame({"vocab_size": [vocab_size], "label": [marker_label(vocab_size)]})
    rule = (
        alt.Chart(data)
        .mark_rule(color="#666666", strokeWidth=1.5)
        .encode(
            x="vocab_size:Q",
            tooltip=[alt.Tooltip("label:N", title="marker")],
        )
    )
    text = (
        alt.Chart(data)
        .mark_text(
            align="right" if near_right else "left",
            baseline="top",
            dx=-5 if near_right else 5,
            color="#444444",
        )
        .encode(x="vocab_size:Q", y=alt.value(6), text="label:N")
    )
    return [rule, text]




def vega_spec(chart: alt.TopLevelMixin) -> dict[str, Any]:
    """``chart`` as the Vega-Lite spec Streamlit draws, made once so a cache can keep it.

    Not validated against Vega-Lite's schema: that took 0.3 s of each Compression visit (the
    tests validate these charts, through ``chart.to_dict()``). Altair's default theme's 300 px
    view is left out, as ``st.altair_chart`` leaves it out: the chart takes its column's width.

    >>> vega_spec(alt.Chart(pd.DataFrame({"a": [1]})).mark_point().encode(x="a:Q"))["config"]
    {}
    """
    spec = chart.to_dict(validate=False)
    view = spec.get("config", {}).get("view", {})
    for name in ("continuousWidth", "continuousHeight"):
        view.pop(name, None)
    if "view" in spec.get("config", {}) and not view:
        del spec["config"]["view"]
    return spec


def projector_type(chart: alt.TopLevelMixin) -> alt.TopLevelMixin:
    """The same chart with axis and legend text big enough to read from the back of a room.

    Vega-Lite's default 10–11 px labels vanish on a projector; presentation mode passes every
    chart through here rather than giving each chart function a size argument.
    """
    return (
        chart.configure_axis(labelFontSize=PROJECTOR_LABEL_SIZE, titleFontSize=PROJECTOR_TITLE_SIZE)
        .configure_legend(labelFontSize=PROJECTOR_LABEL_SIZE, titleFontSize=PROJECTOR_TITLE_SIZE)
        .configure_text(fontSize=PROJECTOR_LABEL_SIZE)
    )

