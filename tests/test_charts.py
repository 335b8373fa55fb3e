"""Tests for bpeviz.app.shared.charts, read back through ``chart.to_dict()`` (AppTest cannot see
them)."""

from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd
import pytest

from bpeviz.app.compression.curves import CURVE_COLUMNS, REAL, compression_curves, reference_ratios
from bpeviz.app.shared.charts import (
    PICK,
    X_TITLE,
    Y_TITLE,
    compression_chart,
    marker_label,
    projector_type,
    reference_label,
    vega_spec,
)
from bpeviz.engine.history import train
from bpeviz.engine.tokenizer import Tokenizer


@pytest.fixture(scope="module")
def curves() -> pd.DataFrame:
    """English: ``aaabdaaabac``, 3 merges (11, 9, 7, 5 tokens). Japanese: ``日本日本``, 2 merges."""
    return compression_curves(
        {"English": train("aaabdaaabac", 259), "Japanese": train("日本日本", 258)}
    )


@pytest.fixture(scope="module")
def references() -> pd.DataFrame:
    """A bytes-only tokenizer (one token per byte: 1.00 bytes per token), named as such."""
    return reference_ratios(
        Tokenizer(), {"English": "aaabdaaabac", "Japanese": "日本日本"}, name="bytes only"
    )


@pytest.fixture(scope="module")
def spec(curves, references) -> dict[str, Any]:
    return compression_chart(curves, references=references, current_vocab_size=258).to_dict()


def layer_rows(spec: dict[str, Any], layer: dict[str, Any]) -> list[dict[str, Any]]:
    """The data rows a layer draws (Altair moves inline data to the top-level ``datasets``)."""
    data = layer.get("data", spec.get("data"))
    if "values" in data:
        return data["values"]
    return spec["datasets"][data["name"]]


def layers_with_mark(spec: dict[str, Any], mark: str) -> list[dict[str, Any]]:
    def kind(layer: dict[str, Any]) -> str:
        return layer["mark"] if isinstance(layer["mark"], str) else layer["mark"]["type"]

    return [layer for layer in spec["layer"] if kind(layer) == mark]


def test_the_chart_is_a_layer_chart(curves) -> None:
    assert isinstance(compression_chart(curves), alt.LayerChart)


def test_lines_show_both_languages_with_the_hand_computed_ratios(spec) -> None:
    (lines,) = layers_with_mark(spec, "line")
    assert lines["encoding"]["x"]["field"] == "vocab_size"
    assert lines["encoding"]["x"]["title"] == X_TITLE
    assert lines["encoding"]["y"]["field"] == "bytes_per_token"
    assert lines["encoding"]["y"]["title"] == list(Y_TITLE)
    assert lines["encoding"]["color"]["field"] == "measured_on"
    assert lines["encoding"]["color"]["scale"]["domain"] == ["English", "Japanese"]
    rows = layer_rows(spec, lines)
    english = [
        (row["vocab_size"], row["bytes_per_token"])
        for row in rows
        if row["trained_on"] == row["measured_on"] == "English"
    ]
    # Wikipedia's walk-through: 11, 9, 7, 5 tokens for 11 bytes.
    assert english == [(256, 11 / 11), (257, 11 / 9), (258, 11 / 7), (259, 11 / 5)]
    japanese = [row for row in rows if row["trained_on"] == row["measured_on"] == "Japanese"]
    assert [row["tokens"] for row in japanese] == [12, 10, 8]  # 日 and 本 each lose 2 bytes


def test_lines_are_dashed_when_the_tokenizer_learned_the_other_language(spec) -> None:
    (lines,) = layers_with_mark(spec, "line")
    dash = lines["encoding"]["strokeDash"]
    assert dash["field"] == "kind"
    assert dash["scale"]["domain"] == ["own text", "other language", REAL]  # with references
    assert dash["scale"]["range"][0] == [1, 0]  # solid
    assert lines["encoding"]["detail"]["field"] == "trained_on"


def test_points_carry_tooltips(spec) -> None:
    expected = ["trained_on", "measured_on", "vocab_size", "merges", "tokens", "bytes_per_token"]
    tooltip_layers = [layer for layer in spec["layer"] if layer.get("encoding", {}).get("tooltip")]
    point_layers = [
        layer for layer in tooltip_layers if layer["mark"]["type"] in ("point", "circle")
    ]
    assert len(point_layers) == 2
    for layer in point_layers:
        assert [item["field"] for item in layer["encoding"]["tooltip"]] == expected


def test_the_hover_layer_highlights_the_nearest_point(spec) -> None:
    (hover,) = layers_with_mark(spec, "circle")
    # Altair lifts layer params to the top, naming their view; the other one is the click.
    (param,) = [p for p in spec["params"] if p["name"] == "nearest"]
    assert param["views"] == [hover["name"]]
    assert param["select"]["nearest"] is True
    assert param["select"]["on"] == "pointerover"
    assert hover["encoding"]["opacity"]["condition"][0]["param"] == param["name"]
    assert hover["encoding"]["opacity"]["value"] == 0


def test_a_click_picks_the_nearest_point_by_run_and_merges(spec) -> None:
    """The page listens to this selection only (``selection_mode=PICK``): a hover never reruns."""
    (hover,) = layers_with_mark(spec, "circle")
    (param,) = [p for p in spec["params"] if p["name"] == PICK]
    assert param["views"] == [hover["name"]]
    assert param["select"] == {
        "type": "point",
        "fields": ["trained_on", "merges"],
        "on": "click",
        "nearest": True,
    }


def test_cross_language_points_are_marked_where_they_were_measured(spec) -> None:
    (measured,) = layers_with_mark(spec, "point")
    assert measured["transform"] == [{"filter": "(datum.kind === 'other language')"}]


def test_marker_at_the_current_vocab_size(spec) -> None:
    marker_rules = [
        layer
        for layer in layers_with_mark(spec, "rule")
        if layer["encoding"].get("x", {}).get("field") == "vocab_size"
    ]
    assert len(marker_rules) == 1
    assert layer_rows(spec, marker_rules[0]) == [
        {"vocab_size": 258, "label": "sidebar vocab size: 258"}
    ]
    texts = [
        layer
        for layer in layers_with_mark(spec, "text")
        if layer["encoding"]["x"]["field"] == "vocab_size"
    ]
    assert [row["label"] for row in layer_rows(spec, texts[0])] == ["sidebar vocab size: 258"]


def test_no_marker_without_a_current_vocab_size(curves) -> None:
    spec = compression_chart(curves).to_dict()
    assert layers_with_mark(spec, "rule") == []
    assert layers_with_mark(spec, "text") == []


def test_marker_label_moves_left_of_the_rule_near_the_right_edge(curves) -> None:
    spec = compression_chart(curves, current_vocab_size=259).to_dict()
    (text,) = layers_with_mark(spec, "text")
    assert text["mark"]["align"] == "right"
    spec = compression_chart(curves, current_vocab_size=256).to_dict()
    (text,) = layers_with_mark(spec, "text")
    assert text["mark"]["align"] == "left"


def test_marker_beyond_the_curves_widens_the_axis(curves) -> None:
    spec = compression_chart(curves, current_vocab_size=4096).to_dict()
    (lines,) = layers_with_mark(spec, "line")
    assert lines["encoding"]["x"]["scale"]["domain"] == [256, 4096]


def test_reference_lines_are_horizontal_and_named_on_hover(spec) -> None:
    """The dotted lines carry no text on the chart (five tokenizers within 0.2 bytes per
    token of each other piled their labels up): each names itself in its tooltip, and the
    legend says what a dotted line is."""
    (reference,) = [layer for layer in layers_with_mark(spec, "rule") if "y" in layer["encoding"]]
    assert "x" not in reference["encoding"]  # spans the whole width
    assert reference["encoding"]["y"]["field"] == "bytes_per_token"
    rows = layer_rows(spec, reference)
    assert [(row["measured_on"], row["bytes_per_token"]) for row in rows] == [
        ("English", 1.0),
        ("Japanese", 1.0),
    ]
    assert [row["line"] for row in rows] == [
        "bytes only on English: 1.00",
        "bytes only on Japanese: 1.00",
    ]
    assert reference["encoding"]["tooltip"][0]["field"] == "line"
    (text,) = layers_with_mark(spec, "text")  # the marker's label only
    assert text["encoding"]["x"]["field"] == "vocab_size"
    dash = reference["encoding"]["strokeDash"]
    assert dash["scale"]["domain"][-1] == REAL
    assert {row["kind"] for row in rows} == {REAL}


def test_the_legends_sit_below_the_chart_and_the_y_axis_says_which_way_is_better(spec) -> None:
    """Below the chart, a legend leaves a phone's plot its whole width."""
    (lines,) = layers_with_mark(spec, "line")
    for channel in ("color", "strokeDash"):
        assert lines["encoding"][channel]["legend"]["orient"] == "bottom"
    assert lines["encoding"]["y"]["title"] == ["bytes per token", "higher is better: fewer tokens"]


def test_labels() -> None:
    row = pd.Series(
        {"tokenizer": "cl100k_base", "measured_on": "English", "bytes_per_token": 4.236}
    )
    assert reference_label(row) == "cl100k_base on English: 4.24"
    assert marker_label(1024) == "sidebar vocab size: 1,024"


def test_the_spec_kept_for_every_session_is_the_validated_chart(curves, references) -> None:
    """The Compression page keeps the chart as a spec made without the schema check (0.3 s a
    visit); the same chart, checked, is the same spec, less Altair's default 300 px view."""
    chart = compression_chart(curves, references=references, current_vocab_size=258)
    checked = chart.to_dict()
    assert checked["config"].pop("view") == {"continuousWidth": 300, "continuousHeight": 300}
    assert vega_spec(chart) == checked
    assert "width" not in vega_spec(chart)  # the page's column sets it


def test_an_empty_table_still_makes_a_valid_chart() -> None:
    spec = compression_chart(pd.DataFrame(columns=list(CURVE_COLUMNS))).to_dict()
    assert len(spec["layer"]) == 3


def test_projector_type_enlarges_axis_and_legend_text_and_keeps_the_layers(curves) -> None:
    chart = compression_chart(curves, current_vocab_size=258)
    plain, projected = chart.to_dict(), projector_type(chart).to_dict()
    assert "axis" not in plain.get("config", {})  # Vega-Lite's defaults are 10-11 px
    # Every label a class reads is at least 18 px at 1280x720 (issue 18); titles above them.
    assert projected["config"]["axis"] == {"labelFontSize": 18, "titleFontSize": 20}
    assert projected["config"]["legend"] == {"labelFontSize": 18, "titleFontSize": 20}
    assert projected["config"]["text"] == {"fontSize": 18}  # the marker's label
    labels = [layer for layer in projected["layer"] if layer["mark"]["type"] == "text"]
    assert labels and all("fontSize" not in layer["mark"] for layer in labels)
    assert projected["layer"] == plain["layer"]



def font_sizes(spec: Any, path: str = "") -> dict[str, float]:
    """Every font size a Vega-Lite spec sets (``labelFontSize``, ``fontSize``...), by path."""
    found: dict[str, float] = {}
    if isinstance(spec, dict):
        for key, value in spec.items():
            if key.lower().endswith("fontsize") and isinstance(value, int | float):
                found[f"{path}.{key}"] = value
            found.update(font_sizes(value, f"{path}.{key}"))
    elif isinstance(spec, list):
        for index, value in enumerate(spec):
            found.update(font_sizes(value, f"{path}[{index}]"))
    return found


@pytest.mark.parametrize("page", ["app_pages/compression.py", "app_pages/two_runs.py"])
def test_every_chart_in_presentation_mode_sets_18px_text_or_more(page: str) -> None:
    """The charts are drawn in canvas/SVG, out of reach of the page's CSS: the sizes are
    checked in the spec each page sends (axes, legends, text marks)."""
    import json

    from apptest_support import open_page

    at = open_page(page, present="true")
    specs = [json.loads(chart.proto.spec) for chart in at.get("vega_lite_chart")]
    assert specs
    for spec in specs:
        config = spec["config"]
        for part in ("axis", "legend"):
            assert config[part]["labelFontSize"] >= 18 and config[part]["titleFontSize"] >= 18
        assert config["text"]["fontSize"] >= 18
        small = {path: size for path, size in font_sizes(spec).items() if size < 18}
        assert not small, small


def test_a_wordpiece_curve_widens_the_axis_to_its_first_vocabulary(curves) -> None:
    """The course's corpus (``hug`` ×10 …): WordPiece's first vocabulary is 12 tokens ([UNK],
    7 characters, 4 ``##`` forms), far below BPE's 256 bytes; its line must start inside the
    plot (it was drawn over the y axis), and the axis title names both algorithms' counts."""
    from bpeviz.app.compression.curves import WORDPIECE, wordpiece_curve
    from bpeviz.engine.wordpiece import train_wordpiece
    from bpeviz.engine.wordpiece_history import WordPieceHistory

    course = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
    wordpiece = wordpiece_curve(
        WordPieceHistory(course, train_wordpiece(course, 15)), language="English"
    )
    spec = compression_chart(pd.concat([curves, wordpiece])).to_dict()
    (lines,) = layers_with_mark(spec, "line")
    assert lines["encoding"]["x"]["scale"]["domain"] == [12, 259]
    assert "WordPiece" in lines["encoding"]["x"]["title"]
    assert lines["encoding"]["strokeDash"]["scale"]["domain"][-1] == WORDPIECE
    (lines,) = layers_with_mark(compression_chart(curves).to_dict(), "line")
    assert lines["encoding"]["x"]["scale"]["domain"][0] == 256  # BPE alone: as before
