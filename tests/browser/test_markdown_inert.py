"""User text never becomes a link or an image: nothing a link, paste, file or lesson holds makes
a visitor's browser fetch anything (issue 29).

A listener on 127.0.0.1 counts every request made to it; the hostile text points images and
links at it, and at a relative ``bpevizpixel.png`` (a file name cannot hold a ``/``: the
browser's File turns it into ``:``), whose requests the page itself reports. Each place that
shows user text in Markdown is visited: Two runs' tables in presentation mode (tokens), an
imported ``tokenizer.json``'s suffix and file name (Export, Tokenize, Compare, Compression),
a teacher's lesson (titles, speaker notes), an uploaded text's name and the sidebar's
special tokens. Count: 0, and
no user text is a link (``www.example.com`` among it) or an image.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import pytest
from hf_files import llama3_style

from bpeviz.app.lesson.slides import Lesson, Slide, lesson_to_link

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

PIXEL = "bpevizpixel"
BIDI = "\u202eevil\u202c"


class Listener:
    """An HTTP server on a free loopback port that records each path asked of it."""

    def __init__(self) -> None:
        hits = self.hits = []

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hits.append(self.path)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture(scope="module")
def module_listener() -> Iterator[Listener]:
    """One listener for the tests that share a page (``kept_app``): the hostile text points
    at its port, so the text, and the page showing it, stay the same from test to test."""
    server = Listener()
    try:
        yield server
    finally:
        server.close()


def hostile(port: int) -> str:
    """Markdown that fetches from the listener, links, and reorders, if it is not inert."""
    return (
        f"![x](http://127.0.0.1:{port}/image.png) <img src=http://127.0.0.1:{port}/tag.png> "
        f"[a](javascript:window.__x=1) www.example.com http://127.0.0.1:{port}/bare "
        f"![y]({PIXEL}.png) {BIDI}"
    )


def hostile_name(port: int) -> str:
    """The same as a file name can hold it (no ``/``)."""
    return f"![y]({PIXEL}.png) [a](javascript:window.__x=1) www.example.com {BIDI}"


class Fetches:
    """Requests a page makes for the pixel, beside the listener's own count."""

    def __init__(self, app: AppPage, listener: Listener) -> None:
        self.listener = listener
        self.before = len(listener.hits)  # an earlier test's, on a listener they share
        self.pixels: list[str] = []
        app.page.on("request", self._seen)

    def _seen(self, request: Any) -> None:
        if PIXEL in urlsplit(request.url).path:  # not the page's own link, which holds it
            self.pixels.append(request.url)

    def count(self) -> int:
        return len(self.listener.hits) - self.before + len(self.pixels)


# Links and images that only user text could have made (the app's own have none of these).
INJECTED = (
    'a[href^="javascript"], a[href*="example.com"], a[href*="127.0.0.1:{port}"], '
    'img[src*="127.0.0.1:{port}"], img[src*="' + PIXEL + '"]'
)


def shown(app: AppPage) -> str:
    """The main area's text as a person reads it (without the invisible word joiners)."""
    return app.main_text().replace("\u2060", "")


# The text the app draws in the main area: not what Streamlit's own widgets show as typed
# (a text box's text, the file uploader's list of names, drawn as plain text by Streamlit).
_DRAWN_JS = """() => {
  const main = document.querySelector('[data-testid="stMain"]').cloneNode(true);
  main.querySelectorAll('[data-testid="stFileUploader"], textarea, input')
    .forEach(widget => widget.remove());
  return main.textContent;
}"""


def drawn_text(app: AppPage) -> str:
    return str(app.page.evaluate(_DRAWN_JS))


def assert_inert(app: AppPage, fetches: Fetches, where: str) -> None:
    app.page.wait_for_load_state("networkidle")
    injected = app.page.locator(INJECTED.format(port=fetches.listener.port))
    shown = injected.evaluate_all("found => found.slice(0, 3).map(one => one.outerHTML)")
    assert injected.count() == 0, f"{where}: {shown}"
    assert fetches.count() == 0, f"{where}: {fetches.listener.hits} {fetches.pixels}"
    assert app.canary() is None
    assert BIDI not in drawn_text(app), f"{where}: a bidirectional override left to act"
    app.assert_clean()


def test_two_runs_tables_in_presentation_mode_fetch_nothing(
    app: AppPage, listener: Listener
) -> None:
    """The issue's repro: st.table drew a token ``![x](http://…)`` as an image."""
    fetches = Fetches(app, listener)
    paste = " ".join([f'"![x](http://127.0.0.1:{listener.port}/runs.png)"'] * 25)
    app.open("runs", src="paste", paste=paste, present="true", runs_a_pretok="bytes",
             runs_b_pretok="gpt4", vocab=400)  # fmt: skip
    assert app.page.locator('[data-testid="stTable"]').count() >= 2
    assert_inert(app, fetches, "two runs")
    app.open("runs", src="paste", paste=hostile(listener.port) * 3, present="true", vocab=400)
    assert_inert(app, fetches, "two runs, the whole hostile text")


def tokenizer_json(port: int) -> bytes:
    """A tokenizer.json the library reads and ours refuses for its end-of-word suffix."""
    document = json.loads(llama3_style().to_str())
    document["model"]["end_of_word_suffix"] = hostile(port)
    return json.dumps(document).encode()


def test_an_imported_files_suffix_and_name_fetch_nothing(app: AppPage, listener: Listener) -> None:
    """The suffix was drawn unescaped in the import's info box, the file name in the Tokenize
    and Compare captions."""
    fetches = Fetches(app, listener)
    app.open("export")
    files = [{"name": hostile_name(listener.port) + ".json", "mimeType": "application/json",
              "buffer": tokenizer_json(listener.port)}]  # fmt: skip
    app.upload_files(".st-key-export_model_files input[type=file]", files)
    app.page.locator('[data-testid="stAlertContentInfo"]').first.wait_for()  # the run reading it
    assert app.alerts("Info"), "no info box about the library's file"
    assert_inert(app, fetches, "export")
    # The import lives in the session: move by the sidebar's links, not by loading a URL.
    for page, title in (
        ("tokenize", "Tokenize text"),
        ("compare", "Compare tokenizers"),
        ("compression", "Compression"),
    ):
        link = app.page.locator('[data-testid="stSidebarNav"] a').filter(has_text=title)
        app.rerun(link.click)
        # The menus name the file by its name (offered last): shown as text, fetching nothing.
        if page == "tokenize":
            app.rerun(app.page.locator(".st-key-tok_model label").last.click)
        if page == "compare":
            app.page.locator(".st-key-cmp_left").click()
            app.rerun(app.page.get_by_role("option").last.click)
        assert "www.example.com" in shown(app), f"{page}: the file's name is not shown"
        assert_inert(app, fetches, page)


def test_a_lesson_fetches_nothing_and_keeps_its_emphasis(app: AppPage, listener: Listener) -> None:
    """Lesson titles and notes: bare addresses were live links; a teacher's emphasis stays."""
    fetches = Fetches(app, listener)
    text = hostile(listener.port)
    slide = Slide(title=text, page="step", notes=f"*Say this*, then:\n\n- {text}\n- `code`")
    lesson = Lesson(title=text, slides=(slide,))
    app.open("step", lesson_file=lesson_to_link(lesson))
    assert "www.example.com" in shown(app)
    assert_inert(app, fetches, "lesson bar")
    app.page.get_by_role("button", name="Speaker notes").click()
    notes = app.page.locator('[data-testid="stPopoverBody"]')
    notes.get_by_text("Say this").wait_for()
    assert notes.locator("em").inner_text() == "Say this"
    assert notes.locator("li").count() == 2 and notes.locator("code").inner_text() == "code"
    assert f"![x](http://127.0.0.1:{listener.port}/image.png)" in notes.inner_text().replace(
        "\u2060", ""
    )  # the address shown, as written
    assert_inert(app, fetches, "speaker notes")


def test_an_uploaded_texts_name_fetches_nothing(app: AppPage, listener: Listener) -> None:
    """The training text's file name: the sidebar, the Step page's summary, Export's."""
    fetches = Fetches(app, listener)
    app.open("step")
    app.rerun(app.page.locator(".st-key-src").get_by_text("Upload", exact=True).click)
    files = [{"name": hostile_name(listener.port) + ".txt", "mimeType": "text/plain",
              "buffer": b"low lower lowest " * 20}]  # fmt: skip
    app.upload_files(".st-key-upload input[type=file]", files)
    assert "www.example.com" in shown(app)
    assert_inert(app, fetches, "step")
    link = app.page.locator('[data-testid="stSidebarNav"] a').filter(has_text="Export / import")
    app.rerun(link.click)
    assert_inert(app, fetches, "export")


@pytest.mark.parametrize("page", ["step", "tokenize", "compare", "runs", "export"])
def test_special_tokens_fetch_nothing(
    kept_app: AppPage, module_listener: Listener, page: str
) -> None:
    """The first page takes the special tokens from a link; the others are reached by the
    sidebar's links, the same session's tokens drawn there (an open costs Chromium seconds
    of CPU)."""
    app, text = kept_app, hostile(module_listener.port)
    fetches = Fetches(app, module_listener)
    if parse_qs(urlsplit(app.page.url).query).get("special") == [text]:
        app.navigate(page)
    else:
        app.open(page, special=text)
    assert_inert(app, fetches, page)
