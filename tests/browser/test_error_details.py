"""A bug we missed shows no internals: no traceback, no server path, no code.

The app's settings (``.streamlit/config.toml``) set ``client.showErrorDetails``; this test
runs a stand-in page that raises, with exactly those settings, and reads what a browser
is sent.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import REPO, start_server, stop_server
from protocol_client import Student, run_coroutine

pytestmark = pytest.mark.browser

SECRET = "/srv/secret/bpeviz/internal.py"
BUGGY_PAGE = f"""
import streamlit as st
st.title("A page with a bug")
raise RuntimeError("could not open {SECRET}")
"""


async def problems_seen(url: str) -> tuple[list[str], str]:
    async with Student(url) as student:
        await student.open()
        sent = [d.element for d in student.drawn.values() if d.kind == "exception"]
        return student.problems(), " ".join(
            f"{e.type} {e.message} {' '.join(e.stack_trace)}" for e in sent
        )


def test_an_uncaught_error_reaches_the_browser_without_details(tmp_path: Path) -> None:
    shutil.copytree(REPO / ".streamlit", tmp_path / ".streamlit")
    (tmp_path / "buggy.py").write_text(BUGGY_PAGE)
    server = start_server(tmp_path / "server.log", app_dir=tmp_path, script="buggy.py")
    try:
        problems, details = run_coroutine(problems_seen(server.url))
    finally:
        stop_server(server)
    assert len(problems) == 1, problems  # the student is told something went wrong
    assert SECRET not in details and "buggy.py" not in details and "raise" not in details
    assert SECRET in (tmp_path / "server.log").read_text()  # the log keeps it for us
