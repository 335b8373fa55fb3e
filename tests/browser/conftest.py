"""Browser tests: the real app, served by ``streamlit run``, driven in Debian's Chromium.

What AppTest cannot see is checked here: the page a person gets (no exception box, no
console error), what is escaped, which fonts draw, what clicks and links do, and how the
server holds up under big inputs and a classroom of sessions.

Fixtures
- ``app_server`` (session): ``streamlit run server.py`` on a free localhost port, its output in
  a log file; stopped (terminate, then kill) at the end. A failing test shows the log's tail.
- ``browser`` (session): ``/usr/bin/chromium`` through Playwright (never a downloaded build;
  ``$BPEVIZ_CHROMIUM`` names another path, e.g. a missing one to check the next line).
  Without it, every browser test is skipped and the reason is printed by ``-ra``; under
  ``BPEVIZ_REQUIRE_BROWSER=1`` (CI) every browser test fails with that reason instead.
- ``app`` (function): an :class:`AppPage`, a new tab (a new Streamlit session) with console
  errors collected, in a context each worker keeps (``app_context``: its cache warm, its
  cookies, storage and permissions cleared after each test); its helpers open a page and
  wait for Streamlit to finish.
- ``new_page`` (function): a factory of more pages, each in a context of its own (lent warm,
  cleared like ``app``'s between tests) or as tabs beside one.
- ``kept_app`` (function): one page kept through a test module (``module_app``), for tests
  that only read pages, reached with :meth:`AppPage.navigate` rather than a new open.
- ``screenshots``, ``report_figure``: the screenshot folder; a line for the figures section
  printed after the run (the classroom test's memory and timings; printed by a run without
  xdist workers, such as ``make test``'s serial pass, as a worker's lines stay in the worker).

Screenshots go to ``$BPEVIZ_SCREENSHOTS`` (default ``artifacts/screenshots``, git-ignored).
The full-page ones (:meth:`AppPage.screenshot`, a few seconds each) and the ones of one screen
(:func:`keep_screenshot`) are taken only when that variable is set (``make test
SCREENSHOTS=artifacts/screenshots``): they are for a person to look at, and no test reads
them. A failing test leaves a screenshot of its page under
``failures/`` there, and a passing one removes its own from an earlier run.

In parallel (``pytest -n 2``, as ``make test`` runs), each pytest-xdist worker has its own
``app_server`` and ``browser``: tests never share a Streamlit session, so they may run side by
side. A test that loads the machine or measures time (a classroom of browsers, nginx) is marked
``serial`` (``pytestmark = [pytest.mark.browser, pytest.mark.serial]``): ``make test`` runs those
in a second pass, alone. A test that starts its own server takes its port from
:func:`free_port`, never a fixed one.

``benchmarks/browser_latency.py`` and ``benchmarks/classroom_load.py`` load this file as
their harness (``start_server``, ``new_app_page``, ``AppPage``...): keep those names.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the fixtures skip, saying why
    PlaywrightTimeout = TimeoutError

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("BPEVIZ_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1366, "height": 900}
SERVER_START_SECONDS = 60
RUN_TIMEOUT_MS = 90_000  # one Streamlit run, training included; generous on 2 cores

# Page paths, as app.py names them (url_path); "" is the default page (Step).
PAGES: dict[str, str] = {
    "step": "",
    "tokenize": "tokenize",
    "compression": "compression",
    "compare": "compare",
    "runs": "runs",
    "export": "export",
    "about": "about",
}

# Counts the messages the server sends over Streamlit's websocket, and when the last one
# came. A run always sends some (new session, deltas, script finished), so a test can wait
# for the run its own click started: a short run can come and go without the page's
# data-test-script-state ever showing "running" (React renders the last state only).
# Also counts what the page sends (``__bpevizSent``): each rerun it asks for is one message.
# And the files the server took (``__bpevizUploads``: the uploader's PUTs), with how many
# messages had come when the page next sent one (``__bpevizHeardAtSend``: the rerun that
# reads the files), so a test can wait for that run's answer. And the bytes heard
# (``__bpevizBytes``).
_MESSAGE_COUNTER_JS = """
(() => {
  if (window.top !== window || window.__bpevizMessages !== undefined) return;
  window.__bpevizMessages = 0;
  window.__bpevizBytes = 0;
  window.__bpevizLastMessage = 0;
  window.__bpevizSent = 0;
  window.__bpevizUploads = 0;
  window.__bpevizHeardAtSend = null;
  let uploaded = false;
  const open = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, url, ...rest) {
    if (String(url).includes("/_stcore/upload_file/")) {
      this.addEventListener("load", () => {
        window.__bpevizUploads += 1;
        window.__bpevizHeardAtSend = null;
        uploaded = true;
      });
    }
    return open.call(this, method, url, ...rest);
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => {
        window.__bpevizMessages += 1;
        window.__bpevizBytes += event.data.byteLength ?? event.data.size ?? event.data.length ?? 0;
        window.__bpevizLastMessage = performance.now();
      });
    }
    send(data) {
      window.__bpevizSent += 1;
      if (uploaded) {
        uploaded = false;
        window.__bpevizHeardAtSend = window.__bpevizMessages;
      }
      return super.send(data);
    }
  };
})();
"""
QUIET_MS = 250  # no message from the server for this long (with the script not running)

# Why the app is not idle yet (an empty list: idle and drawn). Idle: connected, no script
# running, no message for QUIET_MS, no skeleton or spinner, nothing stale, and the main
# block holds the page's title.
_BUSY_JS = """
(quietMs) => {
  const why = [];
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return ["no stApp"];
  const connection = app.getAttribute("data-test-connection-state");
  if (connection !== "CONNECTED") why.push("connection " + connection);
  const script = app.getAttribute("data-test-script-state");
  if (script !== "notRunning") why.push("script " + script);
  const quiet = performance.now() - (window.__bpevizLastMessage || 0);
  if (quiet < quietMs) why.push("message " + Math.round(quiet) + " ms ago");
  if (document.querySelector('[data-testid="stSkeleton"], [data-testid="stSpinner"]'))
    why.push("skeleton or spinner");
  if (document.querySelector('[data-testid="stMain"] [data-stale="true"]'))
    why.push("stale elements");
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  if (!(main && main.querySelector("h1"))) why.push("no h1 in the main block");
  return why;
}
"""


def screenshot_dir() -> Path:
    """``$BPEVIZ_SCREENSHOTS`` (relative paths are taken from the repository root)."""
    folder = Path(os.environ.get("BPEVIZ_SCREENSHOTS") or "artifacts/screenshots")
    return folder if folder.is_absolute() else REPO / folder


def chromium_missing_reason() -> str | None:
    """Why the browser tests cannot run here, or ``None`` when they can."""
    if not CHROMIUM.exists():
        return (
            f"{CHROMIUM} not found: install Debian's chromium (scripts/install_system_deps.sh, "
            "run by `make test` as root); Playwright's own browser download is not used"
        )
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed (requirements-dev.txt)"
    return None


def free_port() -> int:
    """A free loopback port: ``scripts/serve.py``'s helper, the one every test server uses."""
    if str(REPO / "tests") not in sys.path:  # the benchmarks load this file on its own
        sys.path.append(str(REPO / "tests"))
    from serve_script import load_serve

    return int(load_serve().free_port())


def screenshots_kept() -> bool:
    """Whether full-page screenshots are wanted (``$BPEVIZ_SCREENSHOTS`` is set)."""
    return bool(os.environ.get("BPEVIZ_SCREENSHOTS"))


def keep_screenshot(target: Any, path: Path, **options: Any) -> None:
    """A screenshot of ``target`` (a Playwright page or locator) for a person to look at, taken
    only when :func:`screenshots_kept`: no test reads it, and each costs about 0.1 s of
    Chromium's CPU (measured on an exported step page; the lesson's every-slide test alone
    took 51). A test that compares pixels calls ``screenshot`` itself."""
    if screenshots_kept():
        path.parent.mkdir(parents=True, exist_ok=True)
        target.screenshot(path=str(path), **options)


def http_get(url: str, timeout: float = 5.0) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode("utf-8", "replace")


# ---- the server ---------------------------------------------------------------------------


@dataclass
class AppServer:
    """A ``streamlit run server.py`` process on localhost, with its log file."""

    url: str
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def healthy(self) -> bool:
        """The process is alive and ``/_stcore/health`` answers ``ok``."""
        if self.process.poll() is not None:
            return False
        try:
            return http_get(f"{self.url}/_stcore/health", timeout=10).strip() == "ok"
        except (OSError, urllib.error.URLError):
            return False

    def rss_mb(self) -> float:
        """The server's resident memory (VmRSS), in MB."""
        status = Path(f"/proc/{self.pid}/status").read_text()
        match = re.search(r"^VmRSS:\s+(\d+)\s+kB", status, re.MULTILINE)
        assert match, "no VmRSS line in /proc/<pid>/status"
        return int(match.group(1)) / 1024

    def cpu_seconds(self) -> float:
        """CPU time the server has used so far (user + system), in seconds."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def log_tail(self, lines: int = 60) -> str:
        return server_log_tail(self.log_path, lines)


def server_log_tail(log_path: Path, lines: int = 60) -> str:
    try:
        text = log_path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no server log)"
    return "\n".join(text.splitlines()[-lines:]) or "(server log is empty)"


def start_server(
    log_path: Path,
    *,
    port: int | None = None,
    app_dir: Path = REPO,
    script: str = "server.py",
    options: tuple[str, ...] = (),
) -> AppServer:
    """Start the app on a free localhost port and wait until it answers its health check.
    When the port was taken after :func:`free_port` found it free (another worker's server),
    it starts again on another (``port`` given: it fails instead).

    ``app_dir`` and ``script``: another script, run with the ``.streamlit`` settings of
    its own folder (a test's stand-in for a page with a bug); ``options``: more of
    ``streamlit run``'s own (``--server.disconnectedSessionTTL``, ``2``). Also used by the
    benchmarks.
    Raises ``RuntimeError`` with the log when it does not start.
    """
    for _ in range(3 if port is None else 1):
        server = _start_on(port or free_port(), log_path, app_dir, script, options)
        if server is not None:
            return server
    raise RuntimeError(f"streamlit found its port taken three times:\n{server_log_tail(log_path)}")


def _start_on(
    port: int, log_path: Path, app_dir: Path, script: str, options: tuple[str, ...]
) -> AppServer | None:
    """:func:`start_server` on ``port``; ``None`` when Streamlit says the port is in use."""
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        script,
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--browser.gatherUsageStats",
        "false",
        # The sources are not edited while a test runs; no watcher, no surprise reruns.
        "--server.fileWatcherType",
        "none",
        *options,
    ]
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, cwd=app_dir, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    server = AppServer(f"http://127.0.0.1:{port}", process, log_path)
    deadline = time.monotonic() + SERVER_START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            if f"Port {port} is not available" in server.log_tail():
                return None
            raise RuntimeError(f"streamlit exited with {process.returncode}:\n{server.log_tail()}")
        if server.healthy():
            return server
        time.sleep(0.25)
    stop_server(server)
    raise RuntimeError(
        f"streamlit did not answer within {SERVER_START_SECONDS} s:\n{server.log_tail()}"
    )


def stop_server(server: AppServer) -> None:
    """Terminate the server, then kill it if it does not stop within 10 s."""
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGTERM)
        try:
            server.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait(timeout=10)


@pytest.fixture(scope="session")
def app_server(
    tmp_path_factory: pytest.TempPathFactory, unavailable: Callable[[str], None]
) -> Iterator[AppServer]:
    reason = chromium_missing_reason()
    if reason:
        unavailable(reason)
    server = start_server(tmp_path_factory.mktemp("streamlit") / "server.log")
    try:
        yield server
    finally:
        stop_server(server)


# ---- the browser --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def browser(app_server: AppServer, unavailable: Callable[[str], None]) -> Iterator[Any]:
    reason = chromium_missing_reason()
    if reason:
        unavailable(reason)
    from playwright.sync_api import sync_playwright

    _mark_pages_given_handlers()
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield launched
        finally:
            launched.close()


@dataclass
class AppPage:
    """One browser page on the app (its own context: its own Streamlit session)."""

    page: Any
    base_url: str
    errors: list[str] = field(default_factory=list)
    poll_ms: int = 50  # how often waits look (raise it when many pages share two cores)

    # -- opening and waiting --

    def url_for(self, page: str = "step", **params: Any) -> str:
        query = urlencode({key: str(value) for key, value in params.items()})
        return f"{self.base_url}/{PAGES[page]}" + (f"?{query}" if query else "")

    def open(self, page: str = "step", **params: Any) -> AppPage:
        """Go to one of :data:`PAGES` with query parameters, and wait until it is drawn."""
        return self.goto(self.url_for(page, **params))

    def goto(self, url: str) -> AppPage:
        self.page.goto(url, wait_until="domcontentloaded")
        self.wait_idle()
        return self

    def navigate(self, page: str) -> AppPage:
        """Go to one of :data:`PAGES` by its link in the sidebar, as a person clicks it, and
        wait until it is drawn: the app stays loaded, no new document. A page change cost
        Chromium and the server 1.2 CPU-s this way, 2.9 by :meth:`open` (fourteen of each,
        measured on this 2-core machine). The link is clicked from inside the page, so a
        phone's collapsed sidebar is not opened for it. Not on the app yet (a new tab):
        :meth:`open`; on ``page`` already: nothing to do."""
        path = urlsplit(self.url_for(page)).path
        here = urlsplit(self.page.url)
        on_app = self.page.url.startswith(self.base_url)
        if on_app and here.path == path:
            return self
        link = self.page.locator(f'[data-testid="stSidebarNav"] a[href="{self.base_url}{path}"]')
        if not on_app or link.count() != 1:
            return self.open(page)
        self.rerun(lambda: link.evaluate("a => a.click()"))
        self.page.wait_for_function("path => location.pathname === path", arg=path)
        self.wait_idle()
        return self

    def wait_idle(self, timeout: float = RUN_TIMEOUT_MS) -> None:
        """Wait until Streamlit has finished running and the main block is drawn."""
        try:
            self.page.wait_for_function(
                f"() => ({_BUSY_JS})({QUIET_MS}).length === 0",
                timeout=timeout,
                polling=self.poll_ms,
            )
        except PlaywrightTimeout:
            why = self.page.evaluate(_BUSY_JS, QUIET_MS)
            raise AssertionError(f"app not idle after {timeout / 1000:.0f} s: {why}") from None

    def wait_on_step_page(self, timeout: float = 60_000) -> None:
        """Wait until the Step page is drawn and idle (a chart click's page switch)."""
        self.page.wait_for_function(
            "() => document.querySelector('[data-testid=stMain] h1')"
            "?.textContent.startsWith('Step through training')",
            timeout=timeout,
        )
        self.wait_idle()

    def messages(self) -> int:
        """Messages the server has sent this page so far."""
        return int(self.page.evaluate("window.__bpevizMessages || 0"))

    def sent(self) -> int:
        """Messages this page has sent the server so far (a rerun asked for is one)."""
        return int(self.page.evaluate("window.__bpevizSent || 0"))

    def traffic(self) -> tuple[int, int]:
        """(sent, received): both counts read at one instant. Read one after the other, a
        report the view sent in between, and the server's answer to it, could fall between
        the two reads (a clean clone's run saw 2 messages "from nowhere" so)."""
        sent, received = self.page.evaluate(
            "[window.__bpevizSent || 0, window.__bpevizMessages || 0]"
        )
        return int(sent), int(received)

    def upload_files(
        self, selector: str, files: list[dict[str, Any]], timeout: float = RUN_TIMEOUT_MS
    ) -> None:
        """Choose ``files`` in the uploader at ``selector`` and wait for the run that reads
        them: every file taken by the server (its PUT), then the message the page sent after
        the last one (the rerun with the files) answered, then idle. Counting the page's
        messages instead (the uploader's request for addresses, then the rerun) ended early
        when the page sent another message meanwhile: twice in clean clones' runs the test
        then read the page from before the upload."""
        uploads = int(self.page.evaluate("window.__bpevizUploads"))
        self.page.locator(selector).set_input_files(files=files)
        self.page.wait_for_function(
            """n => window.__bpevizUploads >= n && window.__bpevizHeardAtSend !== null
                && window.__bpevizMessages > window.__bpevizHeardAtSend""",
            arg=uploads + len(files), timeout=timeout, polling=self.poll_ms,
        )  # fmt: skip
        self.wait_idle(timeout)  # idle: no run going and nothing heard for QUIET_MS

    def rerun(self, action: Callable[[], Any], timeout: float = RUN_TIMEOUT_MS) -> None:
        """Do ``action`` (a click, a key), wait for the server's answer, then for idle."""
        before = self.messages()
        action()
        try:
            self.page.wait_for_function(
                "n => (window.__bpevizMessages || 0) > n",
                arg=before,
                timeout=timeout,
                polling=self.poll_ms,
            )
        except PlaywrightTimeout:
            raise AssertionError(
                f"no answer from the server {timeout / 1000:.0f} s after the action"
            ) from None
        self.wait_idle(timeout)

    # -- reading what a person sees --

    def main_text(self) -> str:
        return str(self.page.locator('[data-testid="stMain"]').inner_text())

    def exceptions(self) -> list[str]:
        boxes = self.page.locator('[data-testid="stException"]')
        return [str(text) for text in boxes.all_inner_texts()]

    def alerts(self, kind: str = "Error") -> list[str]:
        """Texts of ``st.error`` (``kind="Error"``), ``Warning``, ``Info`` boxes."""
        boxes = self.page.locator(f'[data-testid="stAlertContent{kind}"]')
        return [str(text) for text in boxes.all_inner_texts()]

    def assert_clean(self) -> None:
        """No exception box on the page and no console error or page error so far."""
        exceptions = self.exceptions()
        assert not exceptions, f"exception box on {self.page.url}:\n" + "\n---\n".join(exceptions)
        assert not self.errors, f"console errors on {self.page.url}:\n" + "\n".join(self.errors)

    def canary(self) -> Any:
        """``window.__x``: set only if injected markup ran (``None`` when undefined)."""
        return self.page.evaluate("window.__x")

    # -- the Step page (drawn in the browser by bpeviz/web, no server round trip) --

    STEP_ROOT = ".bpe-root.bpe-step"

    def wait_view(
        self, k: int | None = None, when: str | None = None, timeout: float = 30_000
    ) -> None:
        """Wait until the step view has drawn the final view of a step (``data-ready``):
        of step ``k`` and ``when`` ("after", "before", "now" at step 0) when given."""
        try:
            self.page.wait_for_function(
                """([selector, k, when]) => {
                  const root = document.querySelector(selector);
                  return !!root && root.dataset.ready === "true"
                    && (k === null || root.dataset.step === String(k))
                    && (when === null || root.dataset.when === when);
                }""",
                arg=[self.STEP_ROOT, k, when],
                timeout=timeout,
                polling=self.poll_ms,
            )
        except PlaywrightTimeout:
            state = self.view_state()
            raise AssertionError(
                f"the step view did not draw step {k} ({when}) within {timeout / 1000:.0f} s: "
                f"it stands at {state}"
            ) from None

    def view_state(self) -> dict[str, str] | None:
        """The step view's root's ``data-step``, ``data-when`` and ``data-ready`` (or None)."""
        return self.page.evaluate(
            """selector => {
              const root = document.querySelector(selector);
              return root ? {...root.dataset} : null;
            }""",
            self.STEP_ROOT,
        )

    def shown_step(self) -> int:
        """The step the view stands at (once drawn)."""
        self.wait_view()
        return int(self.page.locator(self.STEP_ROOT).get_attribute("data-step"))

    def step_button(self, label: str) -> Any:
        """One of the step view's buttons by its label ("Next", "Previous", "First", "Last",
        "Play", "Pause", "Before merge", "After merge")."""
        return self.page.locator(f"{self.STEP_ROOT} button").filter(has_text=label).first

    def step(self, action: Callable[[], Any], k: int, when: str | None = None) -> None:
        """Do ``action`` (a click, a key) and wait until the view has drawn step ``k``.

        Stepping sends nothing to the server: no rerun is waited for.
        """
        action()
        self.wait_view(k, when)

    def wait_reported(
        self, k: int, when: str | None = None, timeout: float = RUN_TIMEOUT_MS
    ) -> None:
        """Wait until the view has reported step ``k`` (600 ms after stepping stops) and the
        server has answered: its one rerun is over (the app is idle again), and the URL holds
        ``step=k`` (and ``text_when``, "Before merge" for ``when`` "before", else "After
        merge"), defaults left out.

        The browser writes the URL as it draws, before it reports: the view's
        ``data-report-due`` says a report is still to go, ``data-reported`` (what it told the
        server) and ``data-reported-at`` (when) that it went, and a message from the server
        after it that it was heard. A view opened at ``k`` by a link has nothing to report."""
        label = {"before": "Before merge", "after": "After merge"}.get(when or "", "")
        try:
            self.page.wait_for_function(
                """([selector, k, when, label]) => {
                  const root = document.querySelector(selector);
                  if (!root || root.dataset.ready !== "true") return false;
                  if (root.dataset.reportDue) return false;
                  if (root.dataset.reported) {
                    const [step, told] = root.dataset.reported.split("|");
                    if (step !== String(k) || (when && told !== when)) return false;
                    if ((window.__bpevizLastMessage || 0) <= Number(root.dataset.reportedAt))
                      return false;
                  }
                  // A default (step 0, "After merge") is left out of the link.
                  const query = new URLSearchParams(location.search);
                  return (query.get("step") ?? "0") === String(k)
                    && (!label || (query.get("text_when") ?? "After merge") === label);
                }""",
                arg=[self.STEP_ROOT, k, when, label],
                timeout=timeout,
                polling=self.poll_ms,
            )
        except PlaywrightTimeout:
            raise AssertionError(
                f"step={k} {label} not reported and answered {timeout / 1000:.0f} s later: "
                f"{self.view_state()}, {self.page.url}"
            ) from None
        self.wait_idle(timeout)

    def card_title(self) -> str:
        if self.page.locator(self.STEP_ROOT).count():
            self.wait_view()
        return str(self.page.locator(".bpe-card-title").first.inner_text())

    def shown_merge(self) -> tuple[int, int, list[int]]:
        """The merge on the Step page's card: ``(k, total, [left id, right id, new id])``."""
        title = re.fullmatch(r"Merge ([\d,]+) of ([\d,]+)", self.card_title().strip())
        assert title, f"the card does not show a merge: {self.card_title()!r}"
        ids = self.page.locator(".bpe-card .bpe-chipid").all_inner_texts()
        k, total = (int(group.replace(",", "")) for group in title.groups())
        return k, total, [int(text.removeprefix("id ")) for text in ids]

    def click_next(self, *, at_once: bool = False) -> None:
        """Click the step view's "Next" (without waiting for the view to draw).

        ``at_once`` clicks from inside the page, skipping Playwright's wait for the button to
        be visible and still: many pages can then be clicked within a moment of each other.
        """
        button = self.step_button("Next")
        if at_once:
            button.evaluate("button => button.click()")
        else:
            button.click()

    def spans(self, scope: str = ".bpe-scroll") -> list[dict[str, str]]:
        """The coloured token spans in ``scope``: their class, visible text and hover title."""
        if scope == ".bpe-scroll" and self.page.locator(self.STEP_ROOT).count():
            self.wait_view()
        return list(
            self.page.locator(f"{scope} .bpe-t").evaluate_all(
                "els => els.map(e => ({cls: e.className, text: e.textContent, title: e.title}))"
            )
        )

    def pair_rows(self, rows: int = 12) -> list[str]:
        """The first ``rows`` rows of the step view's pair table: rank|pair|count|note."""
        self.wait_view()
        return list(
            self.page.locator("table.bpe-pair-table tr[data-pair]").evaluate_all(
                """(els, rows) => els.slice(0, rows).map(
                  row => [...row.cells].map(cell => cell.textContent).join("|"))""",
                rows,
            )
        )

    def table_rows(self, index: int = 0, rows: int = 3, *, first_has: str = "") -> list[str]:
        """The first ``rows`` rows of the ``index``-th dataframe (``st.dataframe``), cells
        joined by ``|`` (the Step page's pair table is :meth:`pair_rows`).

        The grid draws on a canvas and fills its accessible cells a moment after the run
        ends; ``first_has`` waits until the first row contains that text.
        """
        grid = self.page.locator('[data-testid="stDataFrame"]').nth(index)
        grid.scroll_into_view_if_needed()
        self.page.wait_for_function(
            """([el, text]) => {
              const cell = (c) => el.querySelector(`[data-testid="glide-cell-${c}-0"]`);
              if (!cell(0)) return false;
              let row = "";
              for (let c = 0; cell(c); c++) row += cell(c).textContent + "|";
              return row.includes(text);
            }""",
            arg=[grid.element_handle(), first_has],
            timeout=15_000,
        )
        return list(
            grid.evaluate(
                """(el, rows) => {
                  const out = [];
                  for (let r = 0; r < rows; r++) {
                    const cells = [];
                    for (let c = 0; ; c++) {
                      const cell = el.querySelector(`[data-testid="glide-cell-${c}-${r}"]`);
                      if (!cell) break;
                      cells.push(cell.textContent);
                    }
                    if (cells.length) out.push(cells.join("|"));
                  }
                  return out;
                }""",
                rows,
            )
        )

    def screenshot(self, path: Path) -> None:
        """A full-page screenshot of the app (its main area scrolls, not the document), for a
        person to look at: taken only when :func:`screenshots_kept`."""
        if screenshots_kept():
            full_page_screenshot(self.page, path)


def full_page_screenshot(page: Any, path: Path) -> None:
    """Screenshot the whole page, viewport width unchanged.

    Streamlit scrolls its main area inside a fixed-height box, so Playwright's
    ``full_page`` only sees one screen. The viewport is made as tall as the main area's
    content for the shot, and restored afterwards.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    size = dict(page.viewport_size)
    measure = """() => {
      const main = document.querySelector('[data-testid="stMain"]');
      const side = document.querySelector(
        '[data-testid="stSidebar"][data-collapsed="false"] [data-testid="stSidebarContent"]');
      return Math.max(main ? main.scrollHeight : 0, side ? side.scrollHeight : 0);
    }"""
    try:
        height = size["height"]
        for _ in range(4):  # content sized in vh grows with the viewport; settle it
            wanted = max(size["height"], int(page.evaluate(measure)))
            if wanted <= height:
                break
            height = min(wanted, 16_000)
            page.set_viewport_size({"width": size["width"], "height": height})
            page.wait_for_timeout(150)  # let layout and charts settle after the resize
        page.screenshot(path=str(path), full_page=True, animations="disabled")
    finally:
        page.set_viewport_size(size)


# Streamlit's own probe when a page is opened by its own URL (/tokenize): the frontend
# first asks /tokenize/_stcore/health and /tokenize/_stcore/host-config (404), then the
# right base path (streamlit/streamlit#7074). Only these exact 404s are not counted.
_KNOWN_NOISE = re.compile(r"^https?://[^/]+/[^/?#]+/_stcore/(health|host-config)$")


def _watch_console(page: Any, errors: list[str]) -> None:
    def on_console(message: Any) -> None:
        if message.type != "error":
            return
        url = (message.location or {}).get("url", "")
        if "404" in message.text and _KNOWN_NOISE.match(url):
            return
        errors.append(f"console.error: {message.text} ({url})")

    def on_page_error(error: Any) -> None:
        errors.append(f"pageerror: {error}")

    page.on("console", on_console)
    page.on("pageerror", on_page_error)
    _CONSOLE_WATCHERS[id(page)] = [("console", on_console), ("pageerror", on_page_error)]
    _GIVEN_HANDLERS.discard(id(page))  # the watchers go when the tab is kept (_park)


def new_context(browser: Any) -> Any:
    """A browser context as the app's pages want it: the window size, the locale, the
    message counter, Playwright's waits bounded at 30 s."""
    context = browser.new_context(viewport=VIEWPORT, locale="en-US")
    context.add_init_script(_MESSAGE_COUNTER_JS)
    context.set_default_timeout(30_000)
    return context


def new_app_page(browser: Any, base_url: str, context: Any = None) -> AppPage:
    """A page on the app, console errors collected: in a new context, or in ``context``.

    Every page is its own Streamlit session (its own websocket), even next to others in
    one context; a new context also starts with no cookies or storage.
    """
    context = context or new_context(browser)
    parked = [page for page in _PARKED.get(context, []) if not page.is_closed()]
    page = parked.pop() if parked else context.new_page()
    _PARKED[context] = parked
    app_page = AppPage(page, base_url)
    _watch_console(page, app_page.errors)
    return app_page


# ---- tabs kept for the next test --------------------------------------------------------
# A test's tab is kept, back on about:blank, for the next page opened in its context: a page
# in a new tab cost Chromium 2.3-2.4 CPU-s, in a kept tab 1.2 (six opens of Step and Tokenize
# each way, measured on this 2-core machine; a new tab starts a renderer). A kept tab has no
# history, storage or console watcher left from its test; a tab the test gave handlers of its
# own (routes, init scripts, listeners, emulation, a CDP session) is closed instead.
_PARKED: dict[Any, list[Any]] = {}
_GIVEN_HANDLERS: set[int] = set()  # id() of pages a test changed beyond what parking resets
_CONSOLE_WATCHERS: dict[int, list[tuple[str, Callable[..., Any]]]] = {}
PARKED_PER_CONTEXT = 3


def _mark_pages_given_handlers() -> None:
    """Wrap the Page (and CDP session) calls whose effect outlives a navigation, so that a
    page given one is never kept."""
    from playwright.sync_api import BrowserContext, Page

    if getattr(Page, "_bpeviz_marked", False):
        return
    names = ("on", "once", "add_init_script", "route", "route_from_har", "route_web_socket",
             "expose_function", "expose_binding", "add_locator_handler", "emulate_media",
             "set_extra_http_headers")  # fmt: skip
    for name in names:
        original = getattr(Page, name)

        def marked(self: Any, *args: Any, _original: Any = original, **kwargs: Any) -> Any:
            _GIVEN_HANDLERS.add(id(self))
            return _original(self, *args, **kwargs)

        setattr(Page, name, marked)
    new_cdp_session = BrowserContext.new_cdp_session

    def marked_cdp(self: Any, page: Any) -> Any:
        _GIVEN_HANDLERS.add(id(page))
        return new_cdp_session(self, page)

    BrowserContext.new_cdp_session = marked_cdp
    Page._bpeviz_marked = True


def _park(page: Any, base_url: str) -> bool:
    """Make ``page`` a blank tab for the next test, or say it cannot be (then close it)."""
    if page.is_closed() or id(page) in _GIVEN_HANDLERS:
        return False
    if page.url != "about:blank" and not page.url.startswith(base_url):
        return False  # an exported page or another origin: its storage is not the app's
    try:
        for event, handler in _CONSOLE_WATCHERS.pop(id(page), []):
            page.remove_listener(event, handler)
        if page.url != "about:blank":
            page.evaluate("() => { sessionStorage.clear(); localStorage.clear(); }")
            page.goto("about:blank", timeout=10_000)
        for key in ("Shift", "Control", "Alt", "Meta"):
            page.keyboard.up(key)
        page.set_viewport_size(VIEWPORT)
        page.set_default_timeout(30_000)
        page.set_default_navigation_timeout(30_000)
        cdp = page.context.new_cdp_session(page)
        try:
            cdp.send("Page.resetNavigationHistory")
        finally:
            cdp.detach()
        _GIVEN_HANDLERS.discard(id(page))  # the CDP session just opened is parking's own
    except Exception:
        return False
    return True


@pytest.fixture(scope="session")
def app_context(browser: Any) -> Iterator[Any]:
    """The one context a worker's ``app`` pages open in, each test's as a new tab: a new
    context cost Chromium about 5 s more CPU per page than a page in a warm one (its cache
    starts empty: Streamlit's scripts fetched and compiled again; four opens of each,
    measured on this 2-core machine). A blank tab stays open in it (its first page), and
    each test leaves it as it found it (:func:`_leave_no_trace`)."""
    context = new_context(browser)
    context.new_page()
    try:
        yield context
    finally:
        context.close()


def _leave_no_trace(context: Any, base_url: str) -> None:
    """Keep or close every tab a test opened in ``context`` (all but its first, blank one;
    a few are kept blank for the next test's pages: :func:`_park`) and clear what a page may
    keep there: the cookies, the storage of the app's origin and of every other origin its
    tabs went to (:func:`warm_context`), granted permissions. Its cache stays."""
    first, *opened = context.pages
    parked = _PARKED.setdefault(context, [])
    for page in opened:
        if page in parked:
            continue
        if len(parked) < PARKED_PER_CONTEXT and _park(page, base_url):
            parked.append(page)
            continue
        _CONSOLE_WATCHERS.pop(id(page), None)
        with contextlib.suppress(Exception):
            page.close()
    context.clear_cookies()
    context.clear_permissions()
    cdp = context.new_cdp_session(first)
    try:
        for origin in {base_url, *_ORIGINS_SEEN.get(context, ())}:
            cdp.send(
                "Storage.clearDataForOrigin",
                {"origin": origin, "storageTypes": "local_storage,session_storage,indexeddb"},
            )
    finally:
        cdp.detach()


# The web origins each warm context's tabs went to, so that lending it again clears them all.
_ORIGINS_SEEN: dict[Any, set[str]] = {}


def warm_context(browser: Any) -> Any:
    """A context to keep warm and lend test after test (:func:`_leave_no_trace` between two):
    a blank first tab, and the origins its tabs go to noted."""
    context = new_context(browser)
    seen = _ORIGINS_SEEN.setdefault(context, set())

    def note(frame: Any) -> None:
        parts = urlsplit(frame.url)
        if parts.scheme in ("http", "https"):
            seen.add(f"{parts.scheme}://{parts.netloc}")

    def watch(page: Any) -> None:
        page.on("framenavigated", note)
        _GIVEN_HANDLERS.discard(id(page))  # the fixture's own: it may stay on a kept tab

    context.on("page", watch)
    context.new_page()
    return context


@pytest.fixture(scope="session")
def lent_contexts() -> Iterator[list[Any]]:
    """The warm contexts :func:`new_page` lends, free between tests: a student's or a second
    user's page in a new context cost Chromium about 5 s more CPU than one in a warm context
    (:func:`app_context`), and a live-class test opens three."""
    free: list[Any] = []
    try:
        yield free
    finally:
        for context in free:
            with contextlib.suppress(Exception):
                context.close()


@pytest.fixture
def app(
    app_context: Any, app_server: AppServer, request: pytest.FixtureRequest
) -> Iterator[AppPage]:
    """A page on the app, in a new tab of :func:`app_context` (a new Streamlit session, no
    cookies or storage from an earlier test)."""
    app_page = new_app_page(None, app_server.url, app_context)
    try:
        yield app_page
    finally:
        _failure_screenshot(request, app_page.page)
        _leave_no_trace(app_context, app_server.url)


@pytest.fixture
def new_page(
    browser: Any,
    app_server: AppServer,
    lent_contexts: list[Any],
    request: pytest.FixtureRequest,
) -> Iterator[Callable[..., AppPage]]:
    """A factory of further pages: ``new_page()`` in a context of its own (another browser:
    no cookies, storage or permissions from any other page, its cache warm from an earlier
    test, :func:`lent_contexts`), ``new_page(beside=other)`` as another tab in ``other``'s
    context."""
    opened: list[AppPage] = []
    contexts: list[Any] = []

    def make(beside: AppPage | None = None) -> AppPage:
        if beside is None:
            contexts.append(lent_contexts.pop() if lent_contexts else warm_context(browser))
        context = beside.page.context if beside is not None else contexts[-1]
        opened.append(new_app_page(browser, app_server.url, context))
        return opened[-1]

    try:
        yield make
    finally:
        for index, app_page in enumerate(opened):
            _failure_screenshot(request, app_page.page, suffix=f"-extra{index}")
        for app_page in opened:  # a tab beside another test page's goes with this test
            if app_page.page.context not in contexts:
                with contextlib.suppress(Exception):
                    app_page.page.close()
        for context in contexts:  # their tabs kept blank for a later test, or closed
            _lend_again(context, app_server.url, lent_contexts)


def _lend_again(context: Any, base_url: str, lent_contexts: list[Any]) -> None:
    """Clear ``context`` (:func:`_leave_no_trace`) and lend it to a later test; one the test
    closed (or broke) is not lent again."""
    try:
        _leave_no_trace(context, base_url)
        lent_contexts.append(context)
    except Exception:
        _ORIGINS_SEEN.pop(context, None)
        _PARKED.pop(context, None)
        with contextlib.suppress(Exception):
            context.close()


@pytest.fixture(scope="module")
def module_app(browser: Any, app_server: AppServer, lent_contexts: list[Any]) -> Iterator[AppPage]:
    """One page on the app kept through a test module (:func:`kept_app`), in a warm context
    of its own (:func:`lent_contexts`), given back cleared at the module's end."""
    context = lent_contexts.pop() if lent_contexts else warm_context(browser)
    app_page = new_app_page(browser, app_server.url, context)
    try:
        yield app_page
    finally:
        _lend_again(context, app_server.url, lent_contexts)  # its tab kept blank, or closed


@pytest.fixture
def kept_app(module_app: AppPage, request: pytest.FixtureRequest) -> Iterator[AppPage]:
    """The module's one page (:func:`module_app`) for tests that read a page as drawn and
    change nothing a later test reads: they reach their page with :meth:`AppPage.navigate`
    (under half an open's CPU), one Streamlit session for them all. Each test starts at the
    window's usual size with no errors noted yet; after a failure the page is left blank, so
    the next test opens its page afresh."""
    module_app.errors.clear()
    module_app.page.set_viewport_size(VIEWPORT)
    yield module_app
    _failure_screenshot(request, module_app.page)
    report = getattr(request.node, "rep_call", None)
    if report is None or report.failed:
        with contextlib.suppress(Exception):
            module_app.page.goto("about:blank")


def _failure_screenshot(request: pytest.FixtureRequest, page: Any, suffix: str = "") -> None:
    """Screenshot ``page`` under ``failures/`` when the test failed, else remove this test's
    shot from an earlier run: each test touches only its own file, so parallel workers (and
    ``make test``'s second pass) never delete another test's evidence."""
    report = getattr(request.node, "rep_call", None)
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    path = screenshot_dir() / "failures" / f"{name}{suffix}.png"
    if report is None or not report.failed:
        path.unlink(missing_ok=True)
        return
    with contextlib.suppress(Exception):
        page.screenshot(path=str(path))


# ---- reporting ----------------------------------------------------------------------------

_FIGURES = pytest.StashKey[list[str]]()


@pytest.fixture
def report_figure(request: pytest.FixtureRequest) -> Callable[[str], None]:
    """Add a line to the "bpeviz browser figures" section printed after the run."""
    return request.config.stash.setdefault(_FIGURES, []).append


@pytest.fixture(scope="session")
def screenshots() -> Path:
    """The folder for screenshots (``$BPEVIZ_SCREENSHOTS``), created."""
    folder = screenshot_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    lines = config.stash.get(_FIGURES, [])
    if lines:
        terminalreporter.section("bpeviz browser figures")
        for line in lines:
            terminalreporter.write_line(line)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep each phase's report on the item; add the server log to a browser test's failure."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    if report.failed and "app_server" in getattr(item, "fixturenames", ()):
        server = getattr(item, "funcargs", {}).get("app_server")
        if isinstance(server, AppServer):
            report.sections.append(("streamlit server log (last lines)", server.log_tail()))
    return report
