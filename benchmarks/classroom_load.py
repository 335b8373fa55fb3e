"""A class on one server, measured at the protocol level: each student is a WebSocket client.

Each simulated student speaks Streamlit's own protocol, as a browser does (protobuf
``BackMsg``/``ForwardMsg`` over ``/_stcore/stream``, see ``tests/protocol_client.py``), so a
hundred students fit on the two cores that also run the server. Every student's view is
read from the messages they received and checked against the engine: after each action the
merge card must show *their* merge (step, parent ids, new id, merge total) for *their*
settings. One real browser (Chromium, the harness of ``tests/browser``) joins the class as a
check on what a person sees, and counts the server's messages per click of "Next".

Scenarios (each on a fresh ``streamlit run server.py`` on a free loopback port):

1. **arrive**: ``--students`` (100) open the Step page on the default sample, arriving at
   random over ``--arrival`` (20) seconds, then each clicks "Next" ``--steps`` times with
   2-4 s of thinking in between (seeded). Targets: first view p95 at most 5 s; the server's
   memory (RSS of its process tree, sampled every 0.5 s) at most 1 GB.
2. **step**: what one step costs the server: messages, kilobytes and CPU per click of "Next"
   (from scenario 1), and, in the real browser, the messages that arrive while it steps.
   Target: no server message per step (stepping in the browser, issue 9). While the step
   view is drawn on the server, every step is a rerun, and this target is missed: the
   figures printed are the "before".
3. **settings**: ``--setting-students`` (30) on as many different settings (samples, vocab
   sizes, pre-tokenizers, tie rules) step as in 1 and change one setting in the sidebar
   every ``--change-every`` (60) seconds for ``--minutes`` (2). Target: p95 at most 3 s from
   the change to the new view (the run's last message).

Prints the figures and a verdict per target; exits 1 on a miss or when any student saw a
wrong view, an exception or an error box, 2 when it cannot run. ``--quick`` scales everything
down for a smoke run (figures not comparable with the targets); ``--workers N`` runs the class
against ``make serve``'s set-up instead (N processes behind nginx; memory and CPU are those of
all of them). The machine is shared: other processes on the two cores skew every figure, so
say what else ran when quoting them.

    .venv/bin/python benchmarks/classroom_load.py [--quick] [--scenario arrive|settings|all]
        [--students 100] [--steps 10] [--setting-students 30] [--minutes 2] [--workers 1]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import parse_qsl

from browser_latency import load_harness

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # bpeviz and the protocol client

from protocol_client import Run, Student  # noqa: E402

from bpeviz import History, train  # noqa: E402
from bpeviz.engine.samples import DEFAULT_SAMPLE_KEY, get_sample  # noqa: E402

TARGET_FIRST_VIEW_P95_S = 5.0
TARGET_RSS_MB = 1024
TARGET_MESSAGES_PER_STEP = 0
TARGET_CHANGE_P95_S = 3.0
THINK_SECONDS = (2.0, 4.0)
RSS_EVERY_SECONDS = 0.5
BROWSER_CLICKS = 5
BROWSER_GAP_MS = 150

# What a student may change in the sidebar, and the values it takes in scenario 3.
SAMPLES = ("english", "japanese")
PRETOKENIZERS = ("bytes", "gpt2", "gpt4", "words")
TIE_RULES = ("first", "lexmin", "lexmax")
VOCAB_SIZES = tuple(range(300, 1601, 25))


# ---- measuring the server -----------------------------------------------------------------


def process_tree(roots: list[int]) -> list[int]:
    """These processes and all their descendants (those still alive)."""
    found, pending = [], list(roots)
    while pending:
        current = pending.pop()
        try:
            for task in Path(f"/proc/{current}/task").iterdir():
                pending += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
        found.append(current)
    return found


def tree_rss_mb(roots: list[int]) -> float:
    """Resident memory of the processes and their descendants, in MB."""
    total = 0
    for pid in process_tree(roots):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        total += sum(int(line.split()[1]) for line in status.splitlines() if line[:6] == "VmRSS:")
    return total / 1024


def tree_cpu_seconds(roots: list[int]) -> float:
    """CPU time (user + system) the processes and their descendants have used so far."""
    total = 0
    for pid in process_tree(roots):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


class RssSampler:
    """Samples :func:`tree_rss_mb` in a thread until stopped; keeps the peak."""

    def __init__(self, roots: list[int]) -> None:
        self.roots, self.peak, self.first = roots, 0.0, tree_rss_mb(roots)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(RSS_EVERY_SECONDS):
            self.peak = max(self.peak, tree_rss_mb(self.roots))

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, tree_rss_mb(self.roots))
        return self.peak


def p95(values: list[float]) -> float:
    """The 95th percentile (nearest rank): the value 95% of the sample is at or below."""
    ordered = sorted(values)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)]


def describe(values: list[float], unit: str = "s") -> str:
    if not values:
        return "none"
    scale, digits = (1000, 0) if unit == "ms" else (1, 2)
    return (
        f"median {statistics.median(values) * scale:.{digits}f} {unit}, "
        f"p95 {p95(values) * scale:.{digits}f} {unit}, max {max(values) * scale:.{digits}f} "
        f"{unit} (n={len(values)})"
    )


# ---- what each student must see -------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """A student's settings, as the sidebar holds them (None: what the sample suggests)."""

    sample: str = DEFAULT_SAMPLE_KEY
    vocab: int | None = None
    pretok: str | None = None
    tie: str | None = None

    def query(self) -> str:
        """The link that opens these settings (the app's own parameter names)."""
        given = {"sample": self.sample, "vocab": self.vocab, "pretok": self.pretok}
        given["tie"] = self.tie
        return "&".join(f"{key}={value}" for key, value in given.items() if value is not None)

    def resolved(self) -> tuple[str, int, str, str]:
        suggested = get_sample(self.sample).settings
        return (
            self.sample,
            self.vocab if self.vocab is not None else suggested.vocab_size,
            self.pretok or suggested.pretokenizer,
            self.tie or suggested.tie_break,
        )


@cache
def expected_history(sample: str, vocab: int, pretok: str, tie: str) -> History:
    """What the app trains for these settings, trained here by the engine."""
    return train(get_sample(sample).text, vocab, pretokenizer=pretok, tie_break=tie)


def settings_in_link(query: str) -> tuple[str, int, str, str]:
    """The settings a student's URL holds (the parameters the app writes), resolved."""
    params = dict(parse_qsl(query))
    vocab = params.get("vocab")
    return Choice(
        params.get("sample", DEFAULT_SAMPLE_KEY),
        int(vocab) if vocab else None,
        params.get("pretok"),
        params.get("tie"),
    ).resolved()


@dataclass
class Seen:
    """One view to check after the run: who, after what, and what the card showed."""

    student: int
    action: str
    settings: tuple[str, int, str, str]
    link: str
    shown: Any
    browser_view: tuple[int, int] | None = None  # (step, merges) given to the step view
    want_step: int | None = None


def check_view(seen: Seen) -> str | None:
    """Why the view is not the student's own (``None`` when it is)."""
    if settings_in_link(seen.link) != seen.settings:
        return f"student {seen.student} after {seen.action}: link {seen.link!r} is not theirs"
    history = expected_history(*seen.settings)
    if seen.shown is None and seen.browser_view is not None:
        # The card is drawn in the browser from the data the server gave (the real browser
        # checks the drawing): that data must be the student's step of their history.
        step, merges = seen.browser_view
        if merges != history.merge_count or seen.want_step not in (None, step):
            return (
                f"student {seen.student} after {seen.action}: step view given step {step} of "
                f"{merges} merges, expected {seen.want_step} of {history.merge_count}"
            )
        return None
    if seen.shown is None:
        return f"student {seen.student} after {seen.action}: no merge card on the page"
    if seen.shown.merge is None:
        return (
            None
            if seen.want_step in (None, 0)
            else f"student {seen.student} after {seen.action}: step 0, not {seen.want_step}"
        )
    k, total, ids = seen.shown.merge
    if total != history.merge_count or not 1 <= k <= total:
        return (
            f"student {seen.student} after {seen.action}: merge {k} of {total} for {seen.settings}"
        )
    if seen.want_step not in (None, k):
        return f"student {seen.student} after {seen.action}: merge {k}, not {seen.want_step}"
    step = history.steps[k - 1]
    if ids != (*step.pair, step.new_id):
        return (
            f"student {seen.student} after {seen.action}: merge {k} shows {ids}, the engine "
            f"says {(*step.pair, step.new_id)}"
        )
    return None


# ---- the class ----------------------------------------------------------------------------


@dataclass
class Classroom:
    """Everything measured in one scenario."""

    first_views: list[float] = field(default_factory=list)
    clicks: list[Run] = field(default_factory=list)
    changes: list[Run] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    reports: list[Run] = field(default_factory=list)

    def look(self, index: int, student: Student, action: str, choice: Choice, **kw: Any) -> None:
        self.errors += [f"student {index} after {action}: {p}" for p in student.problems()]
        shown, view = student.shown(), student.browser_step()
        self.seen.append(Seen(index, action, choice.resolved(), student.query, shown, view, **kw))


async def step_once(room: Classroom, index: int, student: Student, choice: Choice) -> None:
    """One step of a student, as the page's protocol has it.

    While the step view is drawn on the server, "Next" is a click and a rerun. Once it is
    drawn in the browser (issue 9), Next costs nothing, and the view reports the step when
    the student stops (``step_view.js`` waits 600 ms): with 2-4 s between steps, every step is
    such a stop, so the student sends that report.
    """
    if not student.has_widget("step_next"):
        view = student.browser_step()
        if view is None or view[0] >= view[1]:
            return
        run = await student.report_step(view[0] + 1)
        room.reports.append(run)
        room.look(index, student, f"Next from step {view[0]}", choice, want_step=view[0] + 1)
        return
    shown = student.shown()
    before = shown.merge[0] if shown and shown.merge else 0
    total = shown.merge[1] if shown and shown.merge else None
    if total is not None and before >= total:
        return
    run = await student.click("step_next")
    room.clicks.append(run)
    room.look(index, student, f"Next from step {before}", choice, want_step=before + 1)


async def guarded(room: Classroom, index: int, body: Awaitable[None]) -> None:
    try:
        await body
    except Exception as error:  # one student's failure is a finding, not the end of the run
        room.errors.append(f"student {index}: {type(error).__name__}: {error}")


async def arriving_student(
    room: Classroom, url: str, index: int, arrive_at: float, steps: int, rng: random.Random
) -> None:
    await asyncio.sleep(arrive_at)
    choice = Choice()
    async with Student(url) as student:
        run = await student.open()
        room.first_views.append(run.seconds)
        room.look(index, student, "opening the page", choice, want_step=0)
        for _ in range(steps):
            await asyncio.sleep(rng.uniform(*THINK_SECONDS))
            await step_once(room, index, student, choice)


def settings_for_class(count: int, rng: random.Random) -> list[Choice]:
    """``count`` different settings: samples, vocab sizes, pre-tokenizers and tie rules."""
    chosen: dict[Choice, None] = {}
    while len(chosen) < count:
        choice = Choice(rng.choice(SAMPLES), rng.choice(VOCAB_SIZES), rng.choice(PRETOKENIZERS))
        chosen.setdefault(Choice(choice.sample, choice.vocab, choice.pretok, rng.choice(TIE_RULES)))
    return list(chosen)


async def change_setting(
    student: Student, choice: Choice, rng: random.Random
) -> tuple[Run, Choice, str]:
    """Change one sidebar setting, as a student does with the mouse; the new choice."""
    what = rng.choice(("vocab", "pretok", "tie", "sample"))
    if what == "vocab":
        vocab = rng.choice([v for v in VOCAB_SIZES if v != choice.resolved()[1]])
        return (
            await student.set_value("vocab", vocab),
            Choice(**{**vars(choice), "vocab": vocab}),
            f"vocab {vocab}",
        )
    if what == "pretok":
        options = [
            o
            for o in student.widget("pretok").options
            if not o.startswith(choice.resolved()[2] + ":")
        ]
        label = rng.choice(options)
        pretok = label.split(":")[0]
        return (
            await student.set_value("pretok", label),
            Choice(**{**vars(choice), "pretok": pretok}),
            f"pre-tokenizer {pretok}",
        )
    if what == "tie":
        tie = rng.choice([t for t in student.widget("tie").options if t != choice.resolved()[3]])
        return (
            await student.set_value("tie", tie),
            Choice(**{**vars(choice), "tie": tie}),
            f"tie rule {tie}",
        )
    sample = next(s for s in SAMPLES if s != choice.sample)
    # The picker shows titles; a new sample brings its own suggested settings and step 0.
    run = await student.set_value("sample", get_sample(sample).title)
    return run, Choice(sample), f"sample {sample}"


async def changing_student(
    room: Classroom,
    url: str,
    index: int,
    choice: Choice,
    plan: tuple[float, float, int],
    rng: random.Random,
) -> None:
    start_at, every, changes = plan
    await asyncio.sleep(start_at)
    async with Student(url, query=choice.query()) as student:
        run = await student.open()
        room.first_views.append(run.seconds)
        room.look(index, student, "opening the page", choice, want_step=0)
        began = time.perf_counter()
        for change in range(changes):
            change_at = began + (change + rng.uniform(0.3, 1.0)) * every
            while time.perf_counter() + THINK_SECONDS[1] < change_at:
                await asyncio.sleep(rng.uniform(*THINK_SECONDS))
                await step_once(room, index, student, choice)
            await asyncio.sleep(max(0.0, change_at - time.perf_counter()))
            run, choice, label = await change_setting(student, choice, rng)
            room.changes.append(run)
            room.look(index, student, f"changing the {label}", choice)


# ---- the one real browser -------------------------------------------------------------------


@dataclass
class BrowserCheck:
    first_view: float | None = None
    steps: int = 0
    messages_while_stepping: int = 0
    messages_after_stopping: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def messages_per_step(self) -> float | None:
        return self.messages_while_stepping / self.steps if self.steps else None


def browser_check(harness: ModuleType, url: str, result: BrowserCheck) -> None:
    """A person's view during the load: open the Step page, click "Next" a few times.

    The clicks follow each other 150 ms after the new merge is shown, as a student stepping
    through does. The server's messages are counted while stepping (from the first click to
    the last merge shown) and after stopping (until the app is idle: the rest of the last
    run, or a debounced rerun that writes the step into the link). Runs in its own thread
    (Playwright's sync API next to the students' event loop).
    """
    from playwright.sync_api import sync_playwright

    history = expected_history(*Choice().resolved())
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(harness.CHROMIUM), headless=True, args=harness.CHROMIUM_ARGS
            )
            try:
                app = harness.new_app_page(browser, url)
                app.poll_ms = 200
                app.page.goto(app.url_for("step"), wait_until="commit")
                app.wait_idle(timeout=180_000)
                result.first_view = float(app.page.evaluate("window.__bpevizLastMessage")) / 1000
                before = app.messages()
                if not _step_in_page(app, BROWSER_CLICKS):
                    result.errors.append(f"browser: {BROWSER_CLICKS} steps not shown in 120 s")
                stepping = app.messages()
                shown = app.shown_merge()
                step = history.steps[BROWSER_CLICKS - 1]
                if shown != (BROWSER_CLICKS, history.merge_count, [*step.pair, step.new_id]):
                    result.errors.append(f"browser: after {BROWSER_CLICKS} clicks shows {shown}")
                if app.page.locator(".bpe-step").count():  # the view reports where it stopped
                    app.wait_reported(BROWSER_CLICKS, timeout=180_000)
                app.wait_idle(timeout=180_000)
                result.steps = BROWSER_CLICKS
                result.messages_while_stepping = stepping - before
                result.messages_after_stopping = app.messages() - stepping
                result.errors += [f"browser: {text}" for text in app.exceptions() + app.errors]
            finally:
                browser.close()
    except Exception as error:
        result.errors.append(f"browser: {type(error).__name__}: {error}")


# Click Next ``n`` times from inside the page, each click BROWSER_GAP_MS after the last merge
# was shown: quicker than the step view's report (600 ms), as a student stepping through, and
# without a Playwright round trip per click (seconds on a loaded machine). The Next button
# and the card are looked up next to each other: in the step view's own DOM (issue 9: a
# component, possibly in a shadow root) or in Streamlit's page.
_STEP_IN_PAGE_JS = """
async (first, [n, gapMs]) => {
  const root = first.getRootNode();
  const inView = !!first.closest(".bpe-step");
  const next = () => inView ? first : [...document.querySelectorAll(".st-key-step_next button")]
    .find((button) => button.offsetParent !== null);
  const title = () => (root.querySelector(".bpe-card-title") || {}).textContent || "";
  const started = performance.now();
  for (let k = 1; k <= n; k++) {
    next().click();
    const wanted = `Merge ${k.toLocaleString("en-US")} of`;
    while (!title().trim().startsWith(wanted)) {
      if (performance.now() - started > 120000) return false;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  return true;
}
"""


def _step_in_page(app: Any, n: int) -> bool:
    """Step ``n`` times in the page (see ``_STEP_IN_PAGE_JS``); whether every merge showed."""
    in_view = app.page.locator(".bpe-step button").filter(has_text="Next")
    if in_view.count():
        app.wait_view()
    first = (
        in_view.first
        if in_view.count()
        else app.page.locator(".st-key-step_next button:visible").first
    )
    return bool(first.evaluate(_STEP_IN_PAGE_JS, [n, BROWSER_GAP_MS]))


# ---- running a scenario -------------------------------------------------------------------


async def with_browser(
    harness: ModuleType | None, url: str, delay: float, body: Callable[[], Awaitable[Any]]
) -> BrowserCheck | None:
    """Run the students, and the real browser ``delay`` seconds in (unless ``harness`` is None)."""
    if harness is None:
        await body()
        return None
    check = BrowserCheck()

    async def browser_later() -> None:
        await asyncio.sleep(delay)
        await asyncio.to_thread(browser_check, harness, url, check)

    await asyncio.gather(body(), browser_later())
    return check


def report(room: Classroom, wall: float, cpu: float, rss: tuple[float, float]) -> None:
    every = room.clicks + room.changes + room.reports
    print(f"  first view (connect to the run's last message): {describe(room.first_views)}")
    if room.clicks:
        print(f"  Next -> whole view on the wire:  {describe([r.seconds for r in room.clicks])}")
        cards = [r.card_seconds for r in room.clicks if r.card_seconds is not None]
        print(f"  Next -> merge card on the wire:  {describe(cards)}")
    if room.reports:
        print(
            f"  steps in the browser, each reported when the student paused: "
            f"{describe([r.seconds for r in room.reports])}; "
            f"{statistics.median(r.messages for r in room.reports):.0f} messages, "
            f"{statistics.median(r.kilobytes for r in room.reports):.0f} KB each (medians)"
        )
    runs = len(room.first_views) + len(every)
    print(
        f"  {runs} runs in {wall:.0f} s; server CPU {cpu:.1f} s "
        f"({1000 * cpu / max(runs, 1):.0f} ms a run); server memory {rss[0]:.0f} MB at the "
        f"start, peak {rss[1]:.0f} MB"
    )


def verdict(name: str, measured: float, target: float, unit: str, misses: list[str]) -> None:
    ok = measured <= target
    if not ok:
        misses.append(name)
    print(
        f"  [{'ok' if ok else 'MISS'}] {name}: {measured:.2f} {unit} (target <= {target:g} {unit})"
    )


@dataclass
class Served:
    """The app under test: one ``streamlit run``, or ``--workers`` of them behind nginx."""

    url: str
    pids: list[int]
    stop: Callable[[], None]

    def healthy(self) -> bool:
        try:
            with load_serve().open_direct(f"{self.url}/_stcore/health") as answer:
                return bool(answer.read().strip() == b"ok")
        except OSError:
            return False


def serve_app(harness: ModuleType, workers: int) -> Served:
    if workers == 1:
        log = Path(tempfile.mkdtemp(prefix="bpeviz-classroom-")) / "server.log"
        server = harness.start_server(log)
        return Served(server.url, [server.pid], lambda: harness.stop_server(server))
    serve = load_serve()
    cluster = serve.start(workers, port=serve.free_port(), address="127.0.0.1")
    return Served(cluster.url, cluster.pids, lambda: serve.stop(cluster))


def load_serve() -> ModuleType:
    """``scripts/serve.py`` (``make serve``): workers behind nginx."""
    spec = importlib.util.spec_from_file_location("bpeviz_serve", ROOT / "scripts" / "serve.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def run_scenario(
    harness: ModuleType,
    workers: int,
    title: str,
    students: Callable[[str, Classroom], Awaitable[None]],
    browser_after: float | None,
) -> tuple[Classroom, BrowserCheck | None, tuple[float, float]]:
    served = serve_app(harness, workers)
    room = Classroom()
    behind = "" if workers == 1 else f", {workers} workers behind nginx"
    print(f"\n{title} (server {served.url}{behind})")
    try:
        rss = RssSampler(served.pids)
        began, own = time.perf_counter(), time.process_time()
        cpu = tree_cpu_seconds(served.pids)
        use_browser = harness if browser_after is not None else None
        check = asyncio.run(
            with_browser(
                use_browser, served.url, browser_after or 0, lambda: students(served.url, room)
            )
        )
        wall, cpu = time.perf_counter() - began, tree_cpu_seconds(served.pids) - cpu
        own = time.process_time() - own
        peak = rss.stop()
        if not served.healthy():
            room.errors.append("the server did not answer its health check afterwards")
    finally:
        served.stop()
    room.errors += [e for e in map(check_view, room.seen) if e]
    report(room, wall, cpu, (rss.first, peak))
    print(f"  the simulated students used {own:.1f} s of CPU themselves (same two cores)")
    if check is not None:
        room.errors += check.errors
        if check.first_view is not None:
            print(f"  real browser: first view {check.first_view:.2f} s (navigation to drawn)")
        if check.messages_per_step is not None:
            print(
                f"  real browser: {check.steps} clicks on Next, each {BROWSER_GAP_MS} ms after "
                f"the last merge was shown: {check.messages_while_stepping} server messages "
                "while stepping, "
                f"{check.messages_after_stopping} more after stopping"
            )
    return room, check, (rss.first, peak)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=("arrive", "settings", "all"), default="all")
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument(
        "--arrival", type=float, default=20.0, help="seconds over which they arrive"
    )
    parser.add_argument("--steps", type=int, default=10, help="clicks on Next per student")
    parser.add_argument("--setting-students", type=int, default=30)
    parser.add_argument("--change-every", type=float, default=60.0, help="seconds")
    parser.add_argument("--minutes", type=float, default=2.0, help="length of scenario 3")
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--workers", type=int, default=1, help="> 1: behind nginx (make serve)")
    parser.add_argument("--no-browser", action="store_true", help="students only")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 20 and 6 students")
    args = parser.parse_args()
    if args.quick:
        args.students, args.arrival, args.steps = 20, 5.0, 3
        args.setting_students, args.change_every, args.minutes = 6, 15.0, 0.5

    harness = load_harness()
    reason = harness.chromium_missing_reason()
    if reason and not args.no_browser:
        print(f"cannot run the browser check: {reason} (or pass --no-browser)")
        return 2
    print(
        f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} before the run "
        "(other processes on the cores skew every figure)"
    )
    misses: list[str] = []
    errors: list[str] = []

    if args.scenario in ("arrive", "all"):
        rng = random.Random(args.seed)
        arrivals = sorted(rng.uniform(0, args.arrival) for _ in range(args.students))
        rngs = [random.Random(args.seed * 1000 + i) for i in range(args.students)]

        async def arrive(url: str, room: Classroom) -> None:
            await asyncio.gather(
                *(
                    guarded(room, i, arriving_student(room, url, i, at, args.steps, rngs[i]))
                    for i, at in enumerate(arrivals)
                )
            )

        room, check, (_, peak) = run_scenario(
            harness,
            args.workers,
            f"1. {args.students} students arrive over {args.arrival:g} s on the default sample, "
            f"then click Next {args.steps} times, {THINK_SECONDS[0]:g}-{THINK_SECONDS[1]:g} s "
            "apart",
            arrive,
            None if args.no_browser else args.arrival / 2,
        )
        errors += room.errors
        verdict("first view p95", p95(room.first_views), TARGET_FIRST_VIEW_P95_S, "s", misses)
        verdict("server memory peak", peak, TARGET_RSS_MB, "MB", misses)

        print("\n2. what one step costs the server")
        if room.clicks:
            print(
                f"  per click of Next (protocol students): messages "
                f"{statistics.median(r.messages for r in room.clicks):.0f}, "
                f"{statistics.median(r.kilobytes for r in room.clicks):.0f} KB (medians)"
            )
        if room.reports:
            print(
                "  per pause after a step (protocol students, the view's debounced report): "
                f"messages {statistics.median(r.messages for r in room.reports):.0f}, "
                f"{statistics.median(r.kilobytes for r in room.reports):.0f} KB (medians)"
            )
        per_step = statistics.median(r.messages for r in room.clicks) if room.clicks else None
        if check is not None and check.messages_per_step is not None:
            per_step = check.messages_per_step
            print("  (the verdict counts the real browser's messages while it steps)")
        if per_step is None:
            print("  [MISS] server messages per step: not measured (the real browser failed)")
            misses.append("server messages per step (not measured)")
        else:
            verdict("server messages per step", per_step, TARGET_MESSAGES_PER_STEP, "", misses)
        if room.clicks:
            print("  (the step view is still drawn on the server: every step is a rerun)")

    if args.scenario in ("settings", "all"):
        rng = random.Random(args.seed + 1)
        choices = settings_for_class(args.setting_students, rng)
        changes = max(1, round(args.minutes * 60 / args.change_every))
        plans = [(rng.uniform(0, 5.0), args.change_every, changes) for _ in choices]
        rngs = [random.Random(args.seed * 2000 + i) for i in range(len(choices))]

        async def settings(url: str, room: Classroom) -> None:
            await asyncio.gather(
                *(
                    guarded(room, i, changing_student(room, url, i, choice, plans[i], rngs[i]))
                    for i, choice in enumerate(choices)
                )
            )

        room, _, _ = run_scenario(
            harness,
            args.workers,
            f"3. {len(choices)} students on {len(choices)} different settings, each changing "
            f"one every {args.change_every:g} s ({changes} changes each), stepping in between",
            settings,
            None,
        )
        errors += room.errors
        change_seconds = [r.seconds for r in room.changes]
        print(f"  setting changed -> new view on the wire: {describe(change_seconds)}")
        if room.changes:
            verdict(
                "setting change p95",
                p95([r.seconds for r in room.changes]),
                TARGET_CHANGE_P95_S,
                "s",
                misses,
            )
        else:
            misses.append("no setting was changed")

    print(f"\nerrors: {len(errors)}")
    for error in errors[:40]:
        print(f"  {error}")
    if len(errors) > 40:
        print(f"  ... and {len(errors) - 40} more")
    print(f"targets missed: {', '.join(misses) if misses else 'none'}")
    return 1 if misses or errors else 0


if __name__ == "__main__":
    sys.exit(main())
