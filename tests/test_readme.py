"""The README's Python examples run as written (in a temporary folder: they write files)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).parents[1] / "README.md"


def example(name: str) -> str:
    """The ```python block right after ``<!-- readme-example: name -->``."""
    pattern = rf"<!-- readme-example: {name} -->\n```python\n(.*?)```"
    match = re.search(pattern, README.read_text(encoding="utf-8"), re.DOTALL)
    assert match, f"no example {name!r} in the README"
    return match.group(1)


def test_the_export_example_saves_and_loads_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(example("export"), "README.md", "exec"), {})
    written = sorted(path.name for path in tmp_path.iterdir())
    assert written == ["mine.json", "mine.model", "mine.tiktoken", "mine.vocab"]
