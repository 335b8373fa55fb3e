"""Shared AppTest helpers for the page tests: open the app on one page, with clean caches.

Why :func:`v2_pages_only` exists: ``AppTest`` (Streamlit 1.67) resets
``PagesManager.uses_pages_directory`` before every run, and because a ``pages/`` folder sits
next to ``app.py`` it then treats the app as a legacy pages-directory app: after
``switch_page`` it runs ``pages/<name>.py`` *by itself*, without ``app.py`` (no sidebar, no
session defaults, no CSS). A real server never does this: ``st.navigation`` switches the
legacy mode off for good. Each page test file's autouse fixture (:func:`prepare`) pins the
flag to ``False`` around each run, as a real session has it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import streamlit as st
from streamlit.runtime import pages_manager
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1 import app_test as app_test_module

APP = str(Path(__file__).parents[1] / "app.py")


class _V2PagesManager(pages_manager.PagesManager):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pages_manager.PagesManager.uses_pages_directory = False
        super().__init__(*args, **kwargs)


def prepare(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Body of each page test file's autouse fixture: v2 pages only, caches cleared around."""
    monkeypatch.setattr(app_test_module, "PagesManager", _V2PagesManager)
    st.cache_data.clear()
    st.cache_resource.clear()
    yield
    st.cache_data.clear()
    st.cache_resource.clear()
    pages_manager.PagesManager.uses_pages_directory = None


def open_page(page: str) -> AppTest:
    """Run the app once, switch to ``page`` (e.g. ``"pages/compare.py"``) and run it."""
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    assert not at.exception
    at.switch_page(page)
    at.run()
    assert not at.exception
    assert at.sidebar.children, "the frame (app.py) did not run around the page"
    return at
