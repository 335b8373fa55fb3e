"""The layers hold: the engine (``bpeviz/``) is light and never reaches up into the app.

``import bpeviz`` and every engine module load no Streamlit, pandas or Altair (only the app
needs them), none imports ``bpeviz.app``, and inside the app only the Streamlit-facing modules
listed here import ``streamlit``; the rest of the app is plain Python, unit-tested directly.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "bpeviz"
HEAVY = ("streamlit", "pandas", "altair")
STREAMLIT_FACING = (  # inside bpeviz/app/
    "compression/clicks", "export/buttons", "export/unigram", "frame/reaper", "frame/sidebar",
    "frame/state", "frame/training", "frame/unigram_runs", "frame/widgets", "lesson/prepare",
    "lesson/view", "live/live_class", "live/presenter", "live/projector_first",
    "shared/token_view", "step/unigram", "step/view",
    "step/downloads", "tokenize/chat_view", "two_runs/across_view", "two_runs/chart",
    "two_runs/compared",
)  # fmt: skip


def engine_files() -> list[Path]:
    """Every engine module: ``bpeviz/`` and its sub-packages (``formats/``, ``web/``...), all
    but the app."""
    app = PACKAGE / "app"
    return [
        path
        for path in sorted(PACKAGE.glob("**/*.py"))
        if app not in path.parents and path.name != "__main__.py"
    ]


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


ENGINE = tuple(module_name(path) for path in engine_files())


def imported_modules(path: Path) -> set[str]:
    """The modules a file imports anywhere in it (top level or inside a function)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def modules_after_import(names: tuple[str, ...]) -> list[str]:
    """Import ``names`` in a fresh interpreter; return which heavy or app modules got loaded."""
    code = (
        "import importlib, json, sys\n"
        f"for name in {list(names)!r}: importlib.import_module(name)\n"
        f"watched = {[*HEAVY, 'bpeviz.app']!r}\n"
        "print(json.dumps(sorted(m for m in watched if m in sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


def test_the_engine_list_is_the_whole_engine() -> None:
    assert {"bpeviz", "bpeviz.engine.trainer", "bpeviz.cli", "bpeviz.formats.gpt2"} <= set(ENGINE)
    assert not any(name.startswith("bpeviz.app") for name in ENGINE)


def test_import_bpeviz_does_not_import_streamlit_pandas_or_altair() -> None:
    assert modules_after_import(("bpeviz",)) == []


def test_no_engine_module_loads_them_or_the_app() -> None:
    assert modules_after_import(ENGINE) == []


def test_no_engine_module_names_the_app_even_lazily() -> None:
    reaching_up = {
        path.name: sorted(name for name in imported_modules(path) if name.startswith("bpeviz.app"))
        for path in engine_files()
    }
    assert {name: found for name, found in reaching_up.items() if found} == {}


def test_only_the_streamlit_facing_app_modules_import_streamlit() -> None:
    importing = {
        path.relative_to(PACKAGE / "app").with_suffix("").as_posix()
        for path in (PACKAGE / "app").glob("**/*.py")
        if any(name.split(".")[0] == "streamlit" for name in imported_modules(path))
    }
    assert importing == set(STREAMLIT_FACING)


def test_the_engine_still_trains_in_that_interpreter() -> None:
    code = "import bpeviz; print(bpeviz.train('aaabdaaabac', 259).token_count(3))"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "5"
