"""A closed tab's uploads leave the server: measured with Streamlit's own metrics.

Streamlit keeps a closed session for ``server.disconnectedSessionTTL`` seconds, then
forgets it without shutting it down, so its uploaded files stayed in memory for good (a
class importing a model file left one copy per student). ``/_stcore/metrics`` reports the
bytes the uploaded-file manager holds; after the tab closes and its time passes, they must
drop to none. The server here keeps closed sessions for 2 s, not the app's 45.
"""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import new_app_page, start_server, stop_server

from bpeviz import train
from bpeviz.formats.minbpe import to_minbpe_model

pytestmark = pytest.mark.browser

UPLOADS = re.compile(r'^cache_memory_bytes\{[^}]*uploaded[^}]*\}\s+(\d+)', re.MULTILINE | re.I)
KEEP_CLOSED_SECONDS = 2
WAIT_SECONDS = 60  # the sweep runs every 5 s; two loaded cores can be slow


def uploaded_bytes(url: str) -> int:
    with urllib.request.urlopen(f"{url}/_stcore/metrics", timeout=10) as response:
        text = response.read().decode()
    return sum(int(size) for size in UPLOADS.findall(text))


def wait_for(condition: Any, seconds: float, what: str) -> None:
    import time

    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds:.0f} s: {what}")
        time.sleep(0.5)


def test_a_closed_tabs_upload_is_freed(browser: Any, tmp_path: Path) -> None:
    server = start_server(
        tmp_path / "server.log",
        options=("--server.disconnectedSessionTTL", str(KEEP_CLOSED_SECONDS)),
    )
    try:
        app = new_app_page(browser, server.url)
        app.open("export")
        model = to_minbpe_model(train("aaabdaaabac" * 200, 280).tokenizer).encode()
        files = [{"name": "wiki.model", "mimeType": "text/plain", "buffer": model}]
        app.upload_files(".st-key-export_model_files input[type=file]", files)
        assert "Loaded wiki.model" in app.main_text()
        assert uploaded_bytes(server.url) >= len(model)
        app.page.context.close()
        wait_for(
            lambda: uploaded_bytes(server.url) == 0,
            WAIT_SECONDS,
            "the closed tab's upload left the server's memory",
        )
    finally:
        stop_server(server)
