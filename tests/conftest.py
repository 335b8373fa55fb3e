"""What every test may lean on: skipping only where a machine lacks something, never in CI.

The browser tests need Debian's Chromium and Playwright, and a few training tests need the
Tiny Shakespeare corpus (``shakespeare_text``, found as the benchmarks find it: in
``shared/corpora`` above the repository, or ``$BPEVIZ_SHAKESPEARE``). On a developer's machine
without them
those tests skip and ``-ra`` prints why. CI sets ``BPEVIZ_REQUIRE_BROWSER=1`` (``.ci/run``):
there the same absence fails the run, so a green CI always ran them.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NoReturn

import pytest

REQUIRE_VARIABLE = "BPEVIZ_REQUIRE_BROWSER"
# ``--doctest-modules`` would import this file again as a module named ``conftest``, which
# ``tests/browser/conftest.py`` already is: it has no doctests, so it is not collected.
collect_ignore = ["conftest.py"]


def required() -> bool:
    """Whether this run must run every browser and corpus test (CI)."""
    return os.environ.get(REQUIRE_VARIABLE, "") not in ("", "0")


def skip_or_fail(reason: str) -> NoReturn:
    """Skip with ``reason``; under ``BPEVIZ_REQUIRE_BROWSER=1``, fail with it."""
    if required():
        pytest.fail(
            f"{reason}. {REQUIRE_VARIABLE}=1 (set by .ci/run) requires these tests to run: "
            "install what is missing (as root, scripts/install_system_deps.sh) instead",
            pytrace=False,
        )
    pytest.skip(reason)


@pytest.fixture(scope="session")
def unavailable() -> Callable[[str], NoReturn]:
    """:func:`skip_or_fail`, for fixtures in sub-folders (their conftest cannot import this
    one by name: ``benchmarks/`` load ``tests/browser/conftest.py`` on its own)."""
    return skip_or_fail


@pytest.fixture(scope="session")
def shakespeare_text() -> str:
    """Tiny Shakespeare, from where ``benchmarks/shakespeare.py`` finds it (a worktree's
    ``shared`` is the main checkout's, folders above); absent: skip, or fail under
    ``BPEVIZ_REQUIRE_BROWSER=1``. The finder is a script's, loaded from its path."""
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "shakespeare.py"
    spec = importlib.util.spec_from_file_location("bpeviz_benchmarks_shakespeare", script)
    assert spec is not None and spec.loader is not None
    finder = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(finder)
    path = finder.shakespeare_path()
    if path is None or not path.is_file():
        skip_or_fail(
            f"Tiny Shakespeare is absent ({path or 'no shared/corpora above the repository'}; "
            "a test corpus, not shipped with bpeviz: set $BPEVIZ_SHAKESPEARE)"
        )
    return path.read_text(encoding="utf-8")


@pytest.fixture(autouse=True)
def _fresh_streamlit_caches() -> Iterator[None]:
    """Streamlit's caches cleared around every test once Streamlit is imported: an AppTest
    run (``apptest_support``) must not find what the previous test trained."""
    streamlit = sys.modules.get("streamlit")
    if streamlit is None:
        yield
        return
    streamlit.cache_data.clear()
    streamlit.cache_resource.clear()
    yield
    streamlit.cache_data.clear()
    streamlit.cache_resource.clear()
