"""Shared AppTest helpers for the page tests: open the app on one page, with clean caches.

The page scripts live in ``app_pages/``, not ``pages/``: a folder named ``pages`` next to
``app.py`` makes Streamlit (and AppTest) treat the app as a legacy pages-directory app until
``st.navigation`` has run, so a deep link on a fresh server, or ``switch_page`` in AppTest,
would run a page without the frame. ``open_page`` checks that the frame ran.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

from bpeviz.app.lesson import prepare

APP = str(Path(__file__).parents[1] / "app.py")
# A lesson's background preparation would outlive the test that loaded it and fill the next
# one's caches (they are cleared between tests): off here; tests/test_lesson_prepare.py
# turns it on for itself.
prepare.PREPARING = False


def open_page(page: str, **params: str) -> AppTest:
    """Run the app once (with these query parameters), switch to ``page`` (e.g.
    ``"app_pages/compare.py"``) and run it."""
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception
    at.switch_page(page)
    at.run()
    assert not at.exception
    assert at.sidebar.children, "the frame (app.py) did not run around the page"
    return at


def new_app(**params: str) -> AppTest:
    """The app as opened from a link with these query parameters (not run yet)."""
    at = AppTest.from_file(APP, default_timeout=30)
    for key, value in params.items():
        at.query_params[key] = value
    return at


def run(target: Any) -> AppTest:
    """Run the app (or the app a changed widget belongs to); no exception allowed."""
    at = target.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def plain(markdown: str) -> str:
    """Message text without the backslashes that keep it literal in Markdown."""
    return re.sub(r"\\(.)", r"\1", markdown)


def token_views(at: AppTest) -> dict[str, dict[str, Any]]:
    """What the page gave each token view (``bpeviz.app.shared.token_view``), by its key, in page
    order: the record of ``bpeviz.records.tokens.tokens_data`` (a trace's rows by its key and
    their number, ``tok_trace_0``...)."""
    views: dict[str, dict[str, Any]] = {}
    for node in at.main:
        if getattr(node, "type", None) != "bidi_component":
            continue
        proto = node.proto
        kind = proto.WhichOneof("data")
        data = json.loads(proto.mixed.json if kind == "mixed" else proto.json)
        if proto.component_name == "bpeviz_step" and data.get("kind") == "trace":
            for index, row in enumerate(json.loads(data["rows"])):  # one view per row
                views[f"{proto.id.rsplit('-', 1)[-1]}_{index}"] = row["record"]
        if proto.component_name == "bpeviz_step" and data.get("kind") == "tokens":
            if isinstance(data.get("record"), str):  # a kept record, as its JSON text
                data = {**json.loads(data.pop("record")), **data}
            views[proto.id.rsplit("-", 1)[-1]] = data
    return views



Served = dict[str, tuple[Any, str | None]]


def keep_downloads(monkeypatch: Any) -> Served:
    """Record every file the app hands to Streamlit's media store (a download button's data,
    or the function that makes it on click, and its file name), by id: AppTest shows a
    button's URL only, and drops the store after each run."""
    from streamlit.runtime.media_file_manager import MediaFileManager
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    served: Served = {}
    load = MemoryMediaFileStorage.load_and_get_id
    defer = MediaFileManager.add_deferred

    def keep(self: Any, data: Any, mimetype: str, kind: Any, filename: str | None = None) -> str:
        file_id = load(self, data, mimetype, kind, filename)
        served[file_id] = (data, filename)
        return file_id

    def keep_deferred(self: Any, make: Any, mimetype: Any, coordinates: str, file_name: Any = None,
                      **kwargs: Any) -> str:  # fmt: skip
        file_id = defer(self, make, mimetype, coordinates, file_name, **kwargs)
        served[file_id] = (make, file_name)
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", keep)
    monkeypatch.setattr(MediaFileManager, "add_deferred", keep_deferred)
    return served


def downloaded(at: AppTest, key: str, served: Served) -> tuple[bytes, str | None]:
    """The data and file name of the download button ``key`` (see :func:`keep_downloads`);
    data made on click is made now."""
    button = next(b for b in at.get("download_button") if b.proto.id.endswith(f"-{key}"))
    proto = button.proto
    file_id = proto.deferred_file_id or proto.url.rsplit("/", 1)[-1].split(".")[0]
    data, file_name = served[file_id]
    data = data() if callable(data) else data
    return (data.encode("utf-8") if isinstance(data, str) else data), file_name
