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
   ``o200k_base``), labelled, the labels of two tokenizers apart;
5. a vertical rule with a label at the vocabulary size chosen in the sidebar.

"""

from __future__ import annotations

import altair as alt
import pandas as pd

from bpeviz.app.compression.curves import CURVE_COLUMNS, OTHER, OWN, REFERENCE_COLUMNS
from bpeviz.engine.corpus import BYTE_COUNT

PICK = "pick"  # the click selection's name: what st.altair_chart(selection_mode=...) listens to
PICK_FIELDS: tuple[str, ...] = ("trained_on", "merges")  # what a click reports
X_TITLE = f"vocabulary size ({BYTE_COUNT} bytes + merges)"
Y_TITLE: tuple[str, ...] = ("bytes per token", "(higher = more compression)")  # two lines
PROJECTOR_LABEL_SIZE = 18  # presentation mode's axis, legend and label text (projector_type)
PROJECTOR_TITLE_SIZE = 20
LABEL_GAP_PX = PROJECTOR_LABEL_SIZE + 4  # between two reference labels in one column
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
    x = alt.X(
        "vocab_size:Q", title=X_TITLE, scale=alt.Scale(domain=[BYTE_COUNT, x_max], nice=False)
    )
    y = alt.Y("bytes_per_token:Q", title=list(Y_TITLE), scale=alt.Scale(zero=False))
    color = alt.Color("measured_on:N", title="measured on", scale=color_scale)
    dash = alt.StrokeDash(
        "kind:N",
        title="tokenizer trained on",
        scale=alt.Scale(domain=[OWN, OTHER], range=[[1, 0], [6, 4]]),
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
    if references is not None and not references.empty:
        values = [*curves["bytes_per_token"].tolist(), *references["bytes_per_token"].tolist()]
        # The plot is drawn about 0.7 times ``height`` tall (axis titles and padding take
        # the rest; measured in Chromium at 1280 px), over a slightly wider, rounded range.
        units_per_px = (max(values) - min(values)) / (0.7 * height)
        layers.extend(_reference_layers(references, x_max, color_scale, units_per_px))
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
    """``"cl100k_base on English: 4.23"``: what the dotted reference line stands for."""
    return f"{row['tokenizer']} on {row['measured_on']}: {row['bytes_per_token']:.2f}"


def reference_label_x(tokenizers: list[str], x_max: int) -> list[float]:
    """Where each reference label ends: the first tokenizer's at the right edge, the next
    one's 45% of the width further left, so two tokenizers' labels on one text never overlap.

    >>> reference_label_x(["a", "b", "a"], 1256)
    [1256.0, 806.0, 1256.0]
    """
    order = list(dict.fromkeys(tokenizers))
    step = 0.45 * (x_max - BYTE_COUNT)
    return [float(x_max - order.index(name) % 2 * step) for name in tokenizers]


def reference_label_y(values: list[float], min_gap: float) -> list[float]:
    """Where each reference label sits: on its line, or moved down just enough to keep
    ``min_gap`` below the label above it (taken from the highest value down). Five real
    tokenizers measure English within 0.2 bytes per token of each other: on their lines, their
    labels were drawn over one another.

    >>> reference_label_y([4.24, 4.35, 2.88, 4.23], 0.2)
    [4.15, 4.35, 2.88, 3.95]
    """
    placed = [0.0] * len(values)
    floor = float("inf")
    for index in sorted(range(len(values)), key=lambda i: -values[i]):
        placed[index] = round(min(values[index], floor - min_gap), 6)
        floor = placed[index]
    return placed


def _label_rows(data: pd.DataFrame, min_gap: float) -> list[float]:
    """:func:`reference_label_y` within each column of labels (same ``x_end``)."""
    label_y = data["bytes_per_token"].astype(float).tolist()
    for _, rows in data.groupby("x_end").groups.items():
        positions = list(rows)
        moved = reference_label_y([label_y[i] for i in positions], min_gap)
        for i, value in zip(positions, moved, strict=True):
            label_y[i] = value
    return label_y


def _reference_layers(
    references: pd.DataFrame, x_max: int, color_scale: alt.Scale, units_per_px: float
) -> list[alt.Chart]:
    data = pd.DataFrame(references, columns=list(REFERENCE_COLUMNS)).reset_index(drop=True)
    data["x_end"] = reference_label_x(data["tokenizer"].tolist(), x_max)
    data["label_y"] = _label_rows(data, LABEL_GAP_PX * units_per_px)
    data["label"] = [reference_label(row) for _, row in data.iterrows()]
    color = alt.Color("measured_on:N", title="measured on", scale=color_scale)
    tooltip = [
        alt.Tooltip("tokenizer:N", title="tokenizer"),
        alt.Tooltip("measured_on:N", title="measured on"),
        alt.Tooltip("tokens:Q", title="tokens", format=",d"),
        alt.Tooltip("bytes_per_token:Q", title="bytes per token", format=".3f"),
    ]
    rules = (
        alt.Chart(data)
        .mark_rule(strokeDash=[2, 3], strokeWidth=1.5)
        .encode(y="bytes_per_token:Q", color=color, tooltip=tooltip)
    )
    labels = (
        alt.Chart(data)
        .mark_text(align="right", baseline="bottom", dy=-3)
        .encode(
            x=alt.X("x_end:Q"),
            y=alt.Y("label_y:Q", title=list(Y_TITLE)),
            text="label:N",
            color=color,
        )
    )
    return [rules, labels]


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

