"""A live class under load: a teacher in Chromium drives 100 students (issue 16, "Measured").

Each simulated student is what a student's browser holds open during a class: its Streamlit
session, opened on ``/?class=CODE`` at the protocol level (``tests/protocol_client.py``), so
the server gives it the class's run as it gives a person, and the class socket
(``/api/class/socket``, a ``websockets`` client) saying hello as a student. The teacher is a
real Chromium page that starts the class (``/?class=new``) and steps every 2 s (→, the Next
key, with focus in the step view); a real Chromium student (another browser context) joins
with the code, as a check on what a person sees. The students' asyncio loop and the Chromium
thread share this process's clock (``time.time``, and the page's ``Date.now``), so each
latency is one clock's difference.

Measured, in one ``streamlit run server.py`` and then through ``scripts/serve.py``'s set-up
(2 workers behind nginx, classes shared through Redis, each student's session and socket on
the worker their sticky cookie picks):

- teacher's step (Python's key press) -> the ``view`` of that step on each student's
  socket: p95 at most 300 ms (one process), 500 ms (two workers);
- the real student shows it within 100 ms more: its p95 at most the students' p95 + 100 ms.
  Shown: the step view's first attribute change after its socket heard the view, seen by a
  MutationObserver (``show()`` has drawn the new card, counts and tables; the merge then
  slides for 260 ms, and ``data-step`` changes when the slide ends: reported too);
- script reruns on students' sessions while the teacher steps: 0 (the messages each
  protocol student's Streamlit socket receives unasked, and the rerun requests the real
  student's page sends);
- server CPU seconds per teacher step (the server's process tree; under serve, nginx and
  Redis too): reported;
- the class quiz: the teacher ticks "Guess the next merge", every student answers once
  (rows 0-3 at random, spread over 2 s), and a second teacher socket (the teacher's key, as
  the teacher's page holds it) hears ``counts`` with every answer at most 1 s after the last
  answer was sent (one process; reported under serve);
- server memory (RSS of the process tree, sampled every 0.5 s, Redis included) at most 1 GB.

Prints a table of figures and a verdict per target; exits 1 on a miss or when anything went
wrong (a student refused, a view missing, an error box), 2 when it cannot run (no Chromium,
nginx or redis-server). ``--quick``: 10 students and 5 steps, its last line ``SUMMARY ok ...``
when every figure holds. The machine is shared: other processes on the two cores skew every
figure, so say what else ran when quoting them. Each step's latency is broken down (the key
press, the teacher's page, the server and network), and the table says how long the
server's threads waited for a core per step: when that wait is most of a latency, the time
went to other work on the machine, not to the class.

    .venv/bin/python benchmarks/live_class.py [--quick] [--students 100] [--steps 15]
        [--setup one|serve|both]
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from types import ModuleType
from typing import Any

from browser_latency import load_harness
from campus import CampusFigures, campus, campus_rows
from classroom_load import (
    Choice,
    RssSampler,
    expected_history,
    load_serve,
    p95,
    process_tree,
    tree_cpu_seconds,
)
from lesson_slides import SlideFigures, lesson_slides, slides_rows
from protocol_client import Student
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bpeviz.classroom.routes import SOCKET_PATH

TARGET_STEP_P95_S = {"one": 0.300, "serve": 0.500}
TARGET_BROWSER_MORE_S = 0.100
TARGET_RERUNS_PER_STEP = 0
TARGET_QUIZ_COMPLETE_S = 1.0
TARGET_RSS_MB = 1024
STEP_EVERY_S = 2.0
ANSWER_OVER_S = 2.0
JOINING_AT_ONCE = 8  # students opening their page together (a class arrives over a minute)
WAIT_S = 20.0  # for any one thing the class waits for (a view, the counts): then a failure
JOIN_TIMEOUT_S = 120.0
PAGE_TIMEOUT_MS = 120_000
COOKIE = "bpeviz_worker"  # scripts/nginx.conf.template's sticky cookie
WORKER_HEADER = "x-bpeviz-worker"

# The real student's page, by its own clock (Date.now, the epoch in ms, as time.time): when its
# class socket heard each step's view; when the step view started showing it (its first
# attribute change after: show() has replaced the card, counts and tables, and the merge
# starts to slide); and when the slide ended (data-step and data-ready, --bpe-slide later).
_WATCH_STEPS_JS = """
() => {
  const root = document.querySelector(".bpe-root.bpe-step");
  const link = window.bpevizClass;
  for (const name of ["HeardAt", "ShownAt", "StepAt", "ReadyAt"]) window["__bpeviz" + name] = {};
  const first = (table, step) => { if (!(step in table)) table[step] = Date.now(); };
  new MutationObserver(() => {
    if (link.view) first(window.__bpevizShownAt, link.view.step);
    first(window.__bpevizStepAt, root.dataset.step);
    if (root.dataset.ready === "true") first(window.__bpevizReadyAt, root.dataset.step);
  }).observe(root, {attributes: true, attributeFilter: ["data-step", "data-ready"]});
  link.socket.addEventListener("message", (event) => {
    const message = JSON.parse(event.data);
    if (message.type === "view") first(window.__bpevizHeardAt, message.view.step);
  });
}
"""
# The teacher's presses and the views its page sends up the class socket, by the page's clock:
# which part of a latency is Playwright's, the page's, or the server and the network.
_WATCH_PRESSES_JS = """
() => {
  window.__bpevizPresses = [];
  window.__bpevizViewsSent = [];
  document.addEventListener("keydown", (event) => {
    if (event.key === "ArrowRight") window.__bpevizPresses.push(Date.now());
  }, true);
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (typeof data === "string" && data.startsWith('{"type":"view"'))
      window.__bpevizViewsSent.push([JSON.parse(data).view.step, Date.now()]);
    return send.call(this, data);
  };
}
"""


def waited_for_cpu(roots: list[int]) -> float:
    """Seconds the threads of these processes (and their descendants) have spent ready to run
    but waiting for a core (``/proc/<pid>/task/<tid>/schedstat``, its second field): on a
    machine shared with other work, the part of a latency that is not this app's."""
    total = 0
    for pid in process_tree(roots):
        try:
            tasks = list(Path(f"/proc/{pid}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                total += int((task / "schedstat").read_text().split()[1])
            except (OSError, IndexError, ValueError):
                continue
    return total / 1e9


# ---- the simulated students -----------------------------------------------------------------


@dataclass
class Pupil:
    """One student's two connections and what arrived on them, with the time it did."""

    index: int
    session: Student
    socket: ClientConnection
    worker: str = ""
    views: dict[int, float] = field(default_factory=dict)  # step -> first receipt (time.time)
    quiz_open: int | None = None  # the question's step, once the counts say it is open
    heard: list[str] = field(default_factory=list)  # the Streamlit socket's unasked messages
    errors: list[str] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"bench-student-{self.index:04d}"

    async def read_class(self) -> None:
        try:
            async for text in self.socket:
                now, message = time.time(), json.loads(text)
                kind = message.get("type")
                if kind == "view":
                    self.views.setdefault(message["view"]["step"], now)
                elif kind == "counts" and message.get("question") is not None:
                    self.quiz_open = message["question"]
                elif kind in ("error", "ended"):
                    self.errors.append(f"student {self.index}: {kind} {message}")
        except ConnectionClosed as closed:
            self.errors.append(f"student {self.index}: class socket closed ({closed})")

    async def close(self) -> None:
        await self.socket.close()
        await self.session.close()
        for task in self.tasks:
            task.cancel()


def socket_url(base_url: str) -> str:
    return base_url.replace("http://", "ws://", 1) + SOCKET_PATH


def sticky_cookie(serve: ModuleType, url: str) -> dict[str, str]:
    """The headers of a browser that nginx has given its sticky cookie (a first page load)."""
    with serve.open_direct(url, timeout=30) as answer:
        given = SimpleCookie()
        for header in answer.headers.get_all("Set-Cookie") or []:
            given.load(header)
    if COOKIE not in given:
        raise RuntimeError("nginx set no sticky cookie: is this scripts/serve.py's set-up?")
    return {"Cookie": f"{COOKIE}={given[COOKIE].value}"}


async def join(url: str, code: str, index: int, headers: dict[str, str], merges: int) -> Pupil:
    """Open the page on ``?class=CODE`` (the server gives the session the class's run), then
    the class socket; check the run is the class's."""
    session = Student(url, query=f"class={code}", headers=headers)
    await session.open(timeout=JOIN_TIMEOUT_S)
    socket = await connect(
        socket_url(url), additional_headers=headers, proxy=None, open_timeout=WAIT_S
    )
    pupil = Pupil(index, session, socket, session.upgrade_headers.get(WORKER_HEADER, ""))
    pupil.errors += [f"student {index}: {problem}" for problem in session.problems()]
    given = session.browser_step()
    if given is None or given[1] != merges:
        pupil.errors.append(
            f"student {index}: the page on ?class={code} shows {given}, not the class's run "
            f"(step 0 of {merges} merges)"
        )
    await socket.send(
        json.dumps({"type": "hello", "code": code, "role": "student", "id": pupil.id})
    )
    welcome = json.loads(await asyncio.wait_for(socket.recv(), WAIT_S))
    if welcome.get("type") != "welcome":
        raise RuntimeError(f"student {index}: the class answered hello with {welcome}")
    pupil.views[welcome["view"]["step"]] = time.time()
    pupil.tasks = [
        asyncio.create_task(pupil.read_class()),
        asyncio.create_task(session.listen(pupil.heard)),
    ]
    return pupil


async def wait_until(
    done: Callable[[], bool], what: Callable[[], str], timeout: float = WAIT_S
) -> None:
    """Poll ``done`` every 10 ms; after ``timeout`` seconds, fail saying ``what()`` (how far
    it got, at that moment)."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what()}: not within {timeout:g} s")
        await asyncio.sleep(0.01)


# ---- the real browsers (one thread: Playwright's sync API) -----------------------------------


class Browsers:
    """The teacher's page and the real student's, driven from one thread of their own."""

    def __init__(self, harness: ModuleType, url: str) -> None:
        self.harness, self.url = harness, url
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
        self.playwright: Any = None
        self.browser: Any = None
        self.teacher: Any = None
        self.student: Any = None

    async def do(self, action: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(self.pool, action, *args)

    def launch(self) -> None:
        from playwright.sync_api import sync_playwright

        self.playwright = sync_playwright().start()
        self.browser = self.playwright.chromium.launch(
            executable_path=str(self.harness.CHROMIUM),
            headless=True,
            args=self.harness.CHROMIUM_ARGS,
        )

    def start_class(self) -> tuple[str, str]:
        """The teacher opens ``/?class=new``: the class's code (from the URL) and key."""
        teacher = self.teacher = self.harness.new_app_page(self.browser, self.url)
        teacher.poll_ms = 100
        teacher.page.set_default_timeout(PAGE_TIMEOUT_MS)
        teacher.goto(f"{self.url}/?class=new")
        teacher.page.wait_for_selector(".bpe-class-teacher", timeout=PAGE_TIMEOUT_MS)
        teacher.page.wait_for_function(
            "() => /[?&]class=[A-Z0-9]{6}/.test(location.search)"
            " && window.bpevizClass && window.bpevizClass.status === 'live'",
            timeout=PAGE_TIMEOUT_MS,
        )
        code = teacher.page.evaluate("new URLSearchParams(location.search).get('class')")
        key = teacher.page.evaluate("window.bpevizClass.key")
        teacher.wait_view(0, timeout=PAGE_TIMEOUT_MS)
        teacher.page.evaluate(_WATCH_PRESSES_JS)
        return str(code), str(key)

    def join_student(self, code: str) -> None:
        student = self.student = self.harness.new_app_page(self.browser, self.url)
        student.poll_ms = 100
        student.page.set_default_timeout(PAGE_TIMEOUT_MS)
        student.goto(f"{self.url}/?class={code}")
        student.page.wait_for_selector(".bpe-class-student", timeout=PAGE_TIMEOUT_MS)
        student.page.wait_for_function(
            "() => window.bpevizClass && window.bpevizClass.status === 'live'",
            timeout=PAGE_TIMEOUT_MS,
        )
        student.wait_view(0, timeout=PAGE_TIMEOUT_MS)
        student.page.evaluate(_WATCH_STEPS_JS)

    def wait_connected(self, count: int) -> None:
        self.teacher.page.wait_for_function(
            "n => window.bpevizClass && window.bpevizClass.connected === n",
            arg=count,
            timeout=PAGE_TIMEOUT_MS,
            polling=200,
        )

    def focus_view(self) -> None:
        self.teacher.page.locator(self.teacher.STEP_ROOT).focus()

    def press_next(self) -> float:
        """The teacher presses → (the step view's Next key; focus in the view); the time just
        before (``time.time``). A key press goes straight to the page, where a click waits
        for Playwright's checks that the button is visible and still (on a loaded machine,
        hundreds of ms that are Playwright's, not the class's)."""
        started = time.time()
        self.teacher.page.keyboard.press("ArrowRight")
        return started

    def student_sent(self) -> int:
        return int(self.student.sent())

    def student_drawn(self) -> tuple[dict[int, float], ...]:
        """When the real student's page heard each step's view, showed it, and ended its
        slide (see ``_WATCH_STEPS_JS``), per step (epoch s)."""
        return tuple(
            {int(k): v / 1000 for k, v in self.student.page.evaluate(f"window.{name}").items()}
            for name in ("__bpevizHeardAt", "__bpevizShownAt", "__bpevizStepAt")
        )

    def teacher_presses(self) -> list[float]:
        return [t / 1000 for t in self.teacher.page.evaluate("window.__bpevizPresses")]

    def teacher_sent(self) -> dict[int, float]:
        """When the teacher's page sent each step's view up its class socket (epoch s)."""
        sent: dict[int, float] = {}
        for step, at in self.teacher.page.evaluate("window.__bpevizViewsSent"):
            sent.setdefault(int(step), at / 1000)
        return sent

    def quiz_on(self) -> float:
        box = self.teacher.page.get_by_label("Guess the next merge")
        started = time.time()
        box.check()
        return started

    def wait_tally(self, count: int) -> None:
        """The teacher's page counts ``count`` answers (the real student, connected, does not
        answer)."""
        self.teacher.page.locator(".bpe-class-tally").filter(
            has_text=f"{count} of {count + 1} students answered"
        ).wait_for(timeout=PAGE_TIMEOUT_MS)

    def problems(self) -> list[str]:
        found = []
        for name, page in (("teacher", self.teacher), ("real student", self.student)):
            if page is None:
                continue
            found += [f"{name}: {text}" for text in page.exceptions() + page.errors]
        return found

    def close(self) -> None:
        if self.browser is not None:
            self.browser.close()
        if self.playwright is not None:
            self.playwright.stop()


# ---- one lesson -----------------------------------------------------------------------------


@dataclass
class Figures:
    """What one lesson measured (seconds unless named otherwise)."""

    setup: str
    students: int = 0
    steps: int = 0
    join: list[float] = field(default_factory=list)
    latency: list[float] = field(default_factory=list)  # press -> view on a student's socket
    browser: list[float] = field(default_factory=list)  # press -> real student shows it
    browser_slid: list[float] = field(default_factory=list)  # press -> its slide ended
    browser_heard: list[float] = field(default_factory=list)  # press -> its socket's view
    playwright_lag: list[float] = field(default_factory=list)  # Python's press -> the page's
    page_send: list[float] = field(default_factory=list)  # page's keydown -> view sent
    page_pressed: list[float] = field(default_factory=list)  # page's keydown -> students
    server_part: list[float] = field(default_factory=list)  # view sent -> student's socket
    unasked_messages: int = 0
    unasked_runs: int = 0
    browser_reruns: int = 0
    cpu_per_step: float = 0.0
    own_cpu_per_step: float = 0.0  # this process (students, Playwright's driver calls)
    waits_per_step: tuple[float, float] = (0.0, 0.0)  # for a core: server's, this tree's
    quiz_cpu: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)  # server, this process,
    # wall, the server's wait for a core
    quiz_after_last: float | None = None
    answers_over: float = 0.0
    rss_start: float = 0.0
    rss_peak: float = 0.0
    workers: dict[str, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


async def lesson(
    harness: ModuleType, url: str, pids: list[int], figures: Figures, args: argparse.Namespace
) -> None:
    serve = load_serve() if figures.setup == "serve" else None
    merges = expected_history(*Choice().resolved()).merge_count
    rss = RssSampler(pids)
    browsers = Browsers(harness, url)
    pupils: list[Pupil] = []
    rng = random.Random(args.seed)
    try:
        await browsers.do(browsers.launch)
        code, key = await browsers.do(browsers.start_class)
        print(f"  class {code} started by the teacher's page", flush=True)

        gate = asyncio.Semaphore(JOINING_AT_ONCE)

        async def arrive(index: int) -> None:
            async with gate:
                headers = await asyncio.to_thread(sticky_cookie, serve, url) if serve else {}
                began = time.perf_counter()
                pupil = await join(url, code, index, headers, merges)
                figures.join.append(time.perf_counter() - began)
                pupils.append(pupil)

        await asyncio.gather(
            *(arrive(i) for i in range(args.students)), browsers.do(browsers.join_student, code)
        )
        figures.students = len(pupils)
        for pupil in pupils:
            figures.workers[pupil.worker or "one"] = (
                figures.workers.get(pupil.worker or "one", 0) + 1
            )
        await browsers.do(browsers.wait_connected, len(pupils) + 1)
        print(
            f"  {len(pupils)} students and the real student joined; join (page + socket): "
            f"median {statistics.median(figures.join):.2f} s, max {max(figures.join):.2f} s",
            flush=True,
        )

        # The teacher steps every STEP_EVERY_S; every student's socket must hear each step.
        sent_before = await browsers.do(browsers.student_sent)
        heard_before = [len(p.heard) for p in pupils]
        await browsers.do(browsers.focus_view)
        cpu_before, own_before = tree_cpu_seconds(pids), time.process_time()
        waits_before = (waited_for_cpu(pids), waited_for_cpu([os.getpid()]))
        presses: dict[int, float] = {}
        for step in range(1, args.steps + 1):
            due = time.time() + STEP_EVERY_S
            presses[step] = await browsers.do(browsers.press_next)
            await wait_until(
                lambda step=step: all(step in p.views for p in pupils),
                lambda step=step: (
                    f"step {step}: {sum(step in p.views for p in pupils)} of "
                    f"{len(pupils)} students' sockets heard the teacher's view"
                ),
            )
            await asyncio.sleep(max(0.0, due - time.time()))
        figures.cpu_per_step = (tree_cpu_seconds(pids) - cpu_before) / args.steps
        figures.own_cpu_per_step = (time.process_time() - own_before) / args.steps
        figures.waits_per_step = (
            (waited_for_cpu(pids) - waits_before[0]) / args.steps,
            (waited_for_cpu([os.getpid()]) - waits_before[1]) / args.steps,
        )
        figures.steps = args.steps
        heard = [kind for p, n in zip(pupils, heard_before, strict=True) for kind in p.heard[n:]]
        figures.unasked_messages = len(heard)
        figures.unasked_runs = sum(kind == "script_finished" for kind in heard)
        figures.browser_reruns = await browsers.do(browsers.student_sent) - sent_before
        for step, pressed in presses.items():
            figures.latency += [p.views[step] - pressed for p in pupils]
        heard_at, shown, stepped = await browsers.do(browsers.student_drawn)
        for step, pressed in presses.items():
            if step not in shown:
                figures.errors.append(
                    f"the real student never showed step {step} (heard {sorted(heard_at)}, "
                    f"showed {sorted(shown)}, ended the slide of {sorted(stepped)})"
                )
                continue
            figures.browser.append(shown[step] - pressed)
            if step in stepped:
                figures.browser_slid.append(stepped[step] - pressed)
            if step in heard_at:
                figures.browser_heard.append(heard_at[step] - pressed)
        page_presses = await browsers.do(browsers.teacher_presses)
        views_sent = await browsers.do(browsers.teacher_sent)
        if len(page_presses) >= len(presses):
            for (step, pressed), in_page in zip(
                presses.items(), page_presses[-len(presses) :], strict=True
            ):
                figures.playwright_lag.append(in_page - pressed)
                figures.page_pressed += [p.views[step] - in_page for p in pupils]
                if step in views_sent:
                    figures.page_send.append(views_sent[step] - in_page)
                    figures.server_part += [p.views[step] - views_sent[step] for p in pupils]

        # The class quiz: on at the current step, answered by everyone within ANSWER_OVER_S.
        async with connect(socket_url(url), proxy=None, open_timeout=WAIT_S) as desk:
            await desk.send(
                json.dumps({"type": "hello", "code": code, "role": "teacher", "key": key})
            )
            complete: list[float] = []
            desk_errors: list[str] = []

            async def watch_desk() -> None:
                async for text in desk:
                    message = json.loads(text)
                    if message.get("type") == "error":
                        desk_errors.append(f"teacher's second socket: {message}")
                    elif (
                        message.get("type") == "counts"
                        and message.get("question") is not None
                        and message.get("answered") == len(pupils)
                        and not complete
                    ):
                        complete.append(time.time())

            watcher = asyncio.create_task(watch_desk())
            await browsers.do(browsers.quiz_on)
            await wait_until(
                lambda: all(p.quiz_open is not None for p in pupils),
                lambda: (
                    f"the quiz: {sum(p.quiz_open is not None for p in pupils)} of "
                    f"{len(pupils)} students heard it open"
                ),
            )
            question = pupils[0].quiz_open
            if {p.quiz_open for p in pupils} != {question}:
                figures.errors.append(
                    f"students heard different questions open: "
                    f"{sorted({p.quiz_open for p in pupils})}"
                )
            sent_at: list[float] = []
            began = time.time()
            cpu_before, own_before = tree_cpu_seconds(pids), time.process_time()
            wait_before = waited_for_cpu(pids)

            async def answer(pupil: Pupil, after: float, row: int) -> None:
                await asyncio.sleep(after)
                sent_at.append(time.time())
                answer = {"type": "answer", "step": question, "row": row}
                await pupil.socket.send(json.dumps(answer))

            await asyncio.gather(
                *(answer(p, rng.uniform(0, ANSWER_OVER_S), rng.randrange(4)) for p in pupils)
            )
            try:
                await wait_until(
                    lambda: bool(complete),
                    lambda: f"the teacher's counts never reached {len(pupils)} answers",
                )
            except TimeoutError as error:
                figures.errors.append(str(error))
            watcher.cancel()
            figures.quiz_cpu = (
                tree_cpu_seconds(pids) - cpu_before,
                time.process_time() - own_before,
                time.time() - began,
                waited_for_cpu(pids) - wait_before,
            )
            figures.errors += desk_errors
            figures.answers_over = max(sent_at) - began
            if complete:
                figures.quiz_after_last = complete[0] - max(sent_at)
        await browsers.do(browsers.wait_tally, len(pupils))
        figures.errors += await browsers.do(browsers.problems)
    finally:
        for pupil in pupils:
            figures.errors += pupil.errors
        await asyncio.gather(*(p.close() for p in pupils), return_exceptions=True)
        await browsers.do(browsers.close)
        browsers.pool.shutdown()
        figures.rss_start, figures.rss_peak = rss.first, rss.stop()


def run_lesson(
    harness: ModuleType, setup: str, args: argparse.Namespace
) -> tuple[Figures, CampusFigures | None, SlideFigures | None]:
    """Start the server(s), hold the lesson, then the campus scenario (``campus.py``), then
    the bundled lesson's slides (``lesson_slides.py``, on fresh servers: its slides must be
    prepared from the lesson's loading, not left warm by the others), stop them; the figures
    (errors kept, not raised)."""
    figures = Figures(setup)
    on_campus: CampusFigures | None = None
    slides: SlideFigures | None = None
    if args.scenario in ("slides", "all"):
        slides = run_slides(harness, setup, args)
    if args.scenario == "slides":
        return figures, None, slides
    url, pids, stop, where = start_setup(harness, setup)
    where = f"{where}, {url}"
    print(f"\n{setup}: {where}", flush=True)
    try:
        if args.scenario in ("lesson", "both", "all"):
            print(f"  lesson: {args.students} students, a teacher and a real student", flush=True)
            asyncio.run(asyncio.wait_for(lesson(harness, url, pids, figures, args), args.timeout))
        if args.scenario in ("campus", "both", "all"):
            print(f"  campus: {args.campus_students} students from one address", flush=True)
            on_campus = asyncio.run(
                asyncio.wait_for(
                    campus(url, pids, setup, args.campus_students, args.seed), args.timeout
                )
            )
    except Exception as error:  # a failed lesson is a finding: report it with the rest
        figures.errors.append(f"the lesson stopped: {type(error).__name__}: {error}")
    finally:
        stop()
    return figures, on_campus, slides


def start_setup(harness: ModuleType, setup: str) -> tuple[str, list[int], Callable[[], None], str]:
    """The server(s) of a setup: their address, processes, how to stop them, and a name."""
    if setup == "one":
        log = tempfile.mkdtemp(prefix="bpeviz-live-class-")
        server = harness.start_server(Path(log) / "server.log")
        return server.url, [server.pid], lambda: harness.stop_server(server), "one process"
    serve = load_serve()
    cluster = serve.start(2, port=serve.free_port(), address="127.0.0.1")
    return cluster.url, cluster.pids, lambda: serve.stop(cluster), "2 workers behind nginx, Redis"


def run_slides(harness: ModuleType, setup: str, args: argparse.Namespace) -> SlideFigures:
    """The bundled lesson's slides on fresh server(s) (see ``lesson_slides.py``)."""
    url, pids, stop, where = start_setup(harness, setup)
    print(f"\n{setup}, slides: {where}, {url}; {args.students} students", flush=True)
    try:
        return asyncio.run(
            asyncio.wait_for(lesson_slides(harness, url, pids, setup, args.students), args.timeout)
        )
    except Exception as error:
        failed = SlideFigures(setup)
        failed.errors.append(f"the slides stopped: {type(error).__name__}: {error}")
        return failed
    finally:
        stop()


# ---- the report -----------------------------------------------------------------------------


def ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.0f} ms"


def table(rows: list[tuple[str, str, str, bool | None]]) -> None:
    """Figure, measured, target, verdict (None: reported only)."""
    width = max(len(row[0]) for row in rows)
    for name, measured, target, ok in rows:
        verdict = "    " if ok is None else ("ok  " if ok else "MISS")
        print(f"  {verdict} {name:<{width}}  {measured:>12}   {target}")


def verdicts(figures: Figures) -> list[tuple[str, str, str, bool | None]]:
    rows: list[tuple[str, str, str, bool | None]] = []
    target = TARGET_STEP_P95_S[figures.setup]
    step_p95 = p95(figures.latency) if figures.latency else None
    rows.append(
        (
            "teacher's step -> students' sockets, p95",
            ms(step_p95),
            f"<= {target * 1000:.0f} ms",
            step_p95 is not None and step_p95 <= target,
        )
    )
    if figures.latency:
        rows.append(
            (
                "  median / max",
                f"{ms(statistics.median(figures.latency))} / {ms(max(figures.latency))}",
                f"n={len(figures.latency)}",
                None,
            )
        )
    browser_p95 = p95(figures.browser) if figures.browser else None
    more = None if browser_p95 is None or step_p95 is None else browser_p95 - step_p95
    rows.append(
        (
            "real student shows it, p95",
            ms(browser_p95),
            f"<= students' p95 + {TARGET_BROWSER_MORE_S * 1000:.0f} ms ({ms(more)} more)",
            more is not None and more <= TARGET_BROWSER_MORE_S,
        )
    )
    if figures.browser_heard:
        rows.append(("  its socket heard the view, p95", ms(p95(figures.browser_heard)), "", None))
    if figures.browser_slid:
        slid = ms(p95(figures.browser_slid))
        rows.append(("  its slide ended (data-step), p95", slid, "the merge slides 260 ms", None))
    if figures.page_pressed:
        rows.append(("  from the page's own keydown, p95", ms(p95(figures.page_pressed)), "", None))
    parts = (
        ("Playwright's key press, p95", figures.playwright_lag, "Python's press -> page's keydown"),
        ("the teacher's page, p95", figures.page_send, "page's keydown -> view sent"),
        ("server and network, p95", figures.server_part, "view sent -> students' sockets"),
    )
    for name, values, what in parts:
        if values:
            shown = p95(values) if "p95" in name else statistics.median(values)
            rows.append((f"  of which {name}", ms(shown), what, None))
    steps = max(figures.steps, 1)
    rows.append(
        (
            "script reruns on students' sessions / step",
            f"{(figures.unasked_runs + figures.browser_reruns) / steps:g}",
            f"= {TARGET_RERUNS_PER_STEP} ({figures.unasked_messages} messages unasked on "
            f"{figures.students} sessions; {figures.browser_reruns} asked by the real student)",
            figures.steps > 0
            and figures.unasked_runs + figures.browser_reruns == 0
            and figures.unasked_messages == 0,
        )
    )
    rows.append(
        (
            "server CPU per teacher step",
            f"{figures.cpu_per_step:.3f} s",
            f"reported (the students' process: {figures.own_cpu_per_step:.3f} s)",
            None,
        )
    )
    server_wait, own_wait = figures.waits_per_step
    rows.append(
        (
            "  waiting for a core, per step",
            f"{server_wait:.3f} s",
            f"the server's threads, summed (this benchmark with its Chromium: {own_wait:.1f} s)",
            None,
        )
    )
    quiz_target = figures.setup == "one"
    rows.append(
        (
            "quiz: teacher's count complete after last answer",
            ms(figures.quiz_after_last),
            f"<= {TARGET_QUIZ_COMPLETE_S * 1000:.0f} ms (answers over "
            f"{figures.answers_over:.1f} s)" + ("" if quiz_target else ", reported"),
            (
                figures.quiz_after_last is not None
                and figures.quiz_after_last <= TARGET_QUIZ_COMPLETE_S
            )
            if quiz_target
            else None,
        )
    )
    server, own, wall, waited = figures.quiz_cpu
    rows.append(
        (
            "  CPU while the class answered",
            f"{server:.2f} s",
            f"server, in {wall:.1f} s; it waited {waited:.2f} s for a core "
            f"(the students' process: {own:.2f} s CPU)",
            None,
        )
    )
    rows.append(
        (
            "server memory peak (RSS" + (", Redis included)" if figures.setup == "serve" else ")"),
            f"{figures.rss_peak:.0f} MB",
            f"<= {TARGET_RSS_MB} MB (at the start {figures.rss_start:.0f} MB)",
            0 < figures.rss_peak <= TARGET_RSS_MB,
        )
    )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--steps", type=int, default=15, help="teacher's steps, 2 s apart")
    parser.add_argument("--setup", choices=("one", "serve", "both"), default="both")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per lesson")
    parser.add_argument("--quick", action="store_true", help="a smoke run: 10 students, 5 steps")
    parser.add_argument(
        "--scenario",
        choices=("lesson", "campus", "slides", "both", "all"),
        default="all",
        help="both: the lesson and the campus; all: and the bundled lesson's slides",
    )
    parser.add_argument("--campus-students", type=int, default=200)
    args = parser.parse_args()
    if args.quick:
        args.students, args.steps, args.campus_students = 10, 5, 20

    harness = load_harness()
    setups = ("one", "serve") if args.setup == "both" else (args.setup,)
    serve = load_serve()
    reason = harness.chromium_missing_reason() or (
        (serve.nginx_missing_reason() or serve.redis_missing_reason())
        if "serve" in setups
        else None
    )
    if reason:
        print(f"cannot run: {reason}")
        return 2
    print(
        f"{os.cpu_count()} cores; load average {os.getloadavg()[0]:.1f} before the run "
        "(other processes on the cores skew every figure)"
    )
    ran = [run_lesson(harness, setup, args) for setup in setups]
    results = (
        [figures for figures, _, _ in ran] if args.scenario in ("lesson", "both", "all") else []
    )
    campuses = [one for _, one, _ in ran if one is not None]
    lessons = [slides for _, _, slides in ran if slides is not None]

    missed: list[str] = []
    errors: list[str] = [
        f"{f.setup}: {error}" for f, _, _ in ran if not results for error in f.errors
    ]
    for figures in results:
        split = ", ".join(
            f"{count} on {worker}" for worker, count in sorted(figures.workers.items())
        )
        print(
            f"\n{figures.setup}: {figures.students} students ({split}), {figures.steps} steps "
            f"{STEP_EVERY_S:g} s apart"
        )
        rows = verdicts(figures)
        table(rows)
        missed += [f"{figures.setup}: {name.strip()}" for name, _, _, ok in rows if ok is False]
        errors += [f"{figures.setup}: {error}" for error in figures.errors]
        if figures.setup == "serve" and len(figures.workers) < 2:
            errors.append("serve: the students did not reach both workers")
    for on_campus in campuses:
        print(f"\n{on_campus.setup}, campus: {on_campus.students} students, one address")
        rows = campus_rows(on_campus)
        table(rows)
        missed += [f"{on_campus.setup}: {name.strip()}" for name, _, _, ok in rows if ok is False]
        errors += [f"{on_campus.setup}: campus: {error}" for error in on_campus.errors]
    for slides in lessons:
        print(
            f"\n{slides.setup}, slides: {slides.students} students through the bundled "
            f"lesson's {len(slides.slides)} slides"
        )
        rows = slides_rows(slides)
        table(rows)
        missed += [f"{slides.setup}: {name.strip()}" for name, _, _, ok in rows if ok is False]
        errors += [f"{slides.setup}: slides: {error}" for error in slides.errors]
    print(f"\nerrors: {len(errors)}")
    for error in errors[:30]:
        print(f"  {error}")
    if len(errors) > 30:
        print(f"  ... and {len(errors) - 30} more")
    print(f"targets missed: {'; '.join(missed) if missed else 'none'}")
    ok = not missed and not errors
    summary = " ".join(
        f"{f.setup}:step_p95={ms(p95(f.latency) if f.latency else None).replace(' ', '')}"
        for f in results
    )
    summary += "".join(
        f" {c.setup}:campus_step_p95={ms(p95(c.latency) if c.latency else None).replace(' ', '')}"
        for c in campuses
    )
    summary += "".join(
        f" {s.setup}:slide_p95={ms(p95(every) if every else None).replace(' ', '')}"
        for s in lessons
        for every in [[value for values in s.has.values() for value in values]]
    )
    print(f"SUMMARY {'ok' if ok else 'MISS'} students={args.students} {summary}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
