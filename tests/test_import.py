"""``import bpeviz`` stays light: no Streamlit, pandas or Altair (only the app needs them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("streamlit", "pandas", "altair")
ENGINE = ("bpeviz", "bpeviz.pretokenize", "bpeviz.corpus", "bpeviz.trainer", "bpeviz.history",
          "bpeviz.tokenizer")  # fmt: skip


def modules_after_import(names: tuple[str, ...]) -> list[str]:
    """Import ``names`` in a fresh interpreter; return which heavy modules got loaded."""
    code = (
        "import importlib, json, sys\n"
        f"for name in {list(names)!r}: importlib.import_module(name)\n"
        f"print(json.dumps(sorted(m for m in {list(HEAVY)!r} if m in sys.modules)))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


def test_import_bpeviz_does_not_import_streamlit_pandas_or_altair() -> None:
    assert modules_after_import(("bpeviz",)) == []


def test_the_engine_modules_do_not_import_them_either() -> None:
    assert modules_after_import(ENGINE) == []


def test_the_engine_still_trains_in_that_interpreter() -> None:
    code = "import bpeviz; print(bpeviz.train('aaabdaaabac', 259).token_count(3))"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "5"
