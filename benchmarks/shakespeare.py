"""Where the benchmarks find Tiny Shakespeare: a test corpus the product never needs.

``$BPEVIZ_SHAKESPEARE`` names the file; otherwise it is ``shared/corpora/tinyshakespeare.txt``
in the nearest folder above the repository that has one, so a git worktree (``wt/NAME``)
finds the same corpus as the main checkout beside ``shared``. ``None`` when there is none
(the benchmarks then say so, or use the bundled samples).
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORPUS = Path("shared") / "corpora" / "tinyshakespeare.txt"


def shakespeare_path(start: Path = ROOT) -> Path | None:
    """The corpus file: the environment's choice, else the first ``shared/corpora`` above
    ``start`` that holds it."""
    chosen = os.environ.get("BPEVIZ_SHAKESPEARE")
    if chosen:
        return Path(chosen)
    for folder in start.resolve().parents:
        if (folder / CORPUS).is_file():
            return folder / CORPUS
    return None
