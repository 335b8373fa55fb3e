"""A download button starts no script run (``on_click="ignore"``).

Streamlit makes a deferred download's file when the click's request arrives, from what the
run that drew the button registered; a run the click itself starts registers the buttons
again and drops the old file, so on a busy server the click's own request found nothing
and no download came (``tests/browser/test_step.py`` saw it). A download needs no run.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def download_buttons() -> list[tuple[str, ast.Call]]:
    """Every ``st.download_button(...)`` call in the app, with where it is."""
    calls = []
    for path in sorted((REPO / "bpeviz" / "app").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "download_button"
            ):
                calls.append((f"{path.relative_to(REPO)}:{node.lineno}", node))
    return calls


def test_every_download_button_starts_no_run() -> None:
    calls = download_buttons()
    assert len(calls) >= 9  # Step's two, the lesson's, Export's four, the class's two
    starting = [
        where
        for where, call in calls
        if not any(
            keyword.arg == "on_click"
            and isinstance(keyword.value, ast.Constant)
            and keyword.value.value == "ignore"
            for keyword in call.keywords
        )
    ]
    assert starting == []
