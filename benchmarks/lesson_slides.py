"""The slides scenario of ``benchmarks/live_class.py`` (issue 28, "Measured"): a teacher and
100 students through every slide of the bundled lesson.

The teacher is a real Chromium page that opens the bundled lesson from its link
(``/?lesson=bpe&present=true``: the lesson is loaded, so its slides are prepared in the
background, ``bpeviz/app/lesson/prepare.py``) and starts a class on it. Each student is a
Streamlit session at the protocol level (``tests/protocol_client.py``) on ``/?class=CODE``
plus the class socket, and follows as a student's class bar does (``web/live/class_bar.js``):
when the teacher's view names a run the page does not show, it asks for it (the bar's ``run``
event: one rerun, with the page switch); when only the page differs, it asks for the page
(``go``); when neither does (a step of the same run), the socket's view is all it needs.

Then the teacher clicks Next slide through the lesson, one slide after every student has the
last, and on each Step slide without a quiz steps twice (→, the step view's key). Measured:

- slide change -> every student has it (its page rerun with the slide's run and page, or its
  socket's view when no rerun is needed), per slide and over all: p95 at most 1 s;
- the teacher's first load of each slide after the class started (the click to the last
  message of the run that draws it, by the page's clock): at most 1 s, every slide;
- the teacher's step -> the view on each student's socket: p95 at most 300 ms (one process;
  500 ms through two workers, as the step scenario).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from classroom_load import p95, process_tree, tree_cpu_seconds
from protocol_client import Student
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bpeviz.app.lesson.slides import bundled_lessons, slide_state
from bpeviz.classroom.routes import SOCKET_PATH

LESSON = "bpe"
TARGET_SLIDE_P95_S = 1.0
TARGET_FIRST_LOAD_S = 1.0
TARGET_STEP_P95_S = {"one": 0.300, "serve": 0.500}
STEPS_PER_SLIDE = 2  # on a Step slide without a quiz
JOINING_AT_ONCE = 8
# The lesson's preparation is done when the server stops working: under this share of one
# core over SETTLED_OVER_S (the students idle), waited for at most SETTLE_WITHIN_S.
SETTLED_CPU_SHARE = 0.05
SETTLED_OVER_S = 2.0
SETTLE_WITHIN_S = 600.0
WAIT_S = 90.0  # for every student to have one slide: then a failure, and the next slide
PAGE_TIMEOUT_MS = 120_000
BAR = "class_bar"  # the class bar component's key (bpeviz.app.live.live_class.KEY_BAR)


@dataclass
class SlideFigures:
    """What one setup measured."""

    setup: str
    students: int = 0
    slides: list[tuple[int, str, str]] = field(default_factory=list)  # number, page, title
    first_load: dict[int, float] = field(default_factory=dict)  # slide -> teacher's load
    has: dict[int, list[float]] = field(default_factory=dict)  # slide -> each student's
    heard: list[float] = field(default_factory=list)  # click -> each socket's view of it
    reruns: dict[int, int] = field(default_factory=dict)  # slide -> students' reruns asked
    kilobytes: list[float] = field(default_factory=list)  # what each student's rerun heard
    steps: list[float] = field(default_factory=list)  # press -> each student's socket
    prepared_after: float | None = None  # the lesson loaded -> the server settled
    reruns_cpu: float = 0.0  # the server's CPU seconds over the slides
    loop_cpu: float = 0.0  # of which its processes' main threads' (the event loops')
    load: tuple[float, float] = (0.0, 0.0)  # load average before and after
    errors: list[str] = field(default_factory=list)


@dataclass
class Follower:
    """One student: its page (a protocol session) and its class socket, following."""

    index: int
    session: Student
    socket: ClientConnection
    run: str = ""
    page: str = ""
    latest: dict[str, Any] | None = None
    heard_steps: dict[tuple[int, int], float] = field(default_factory=dict)
    heard_slides: dict[int, float] = field(default_factory=dict)  # slide -> its first view
    has: dict[int, float] = field(default_factory=dict)  # slide -> when it had it
    reruns: dict[int, int] = field(default_factory=dict)
    kilobytes: list[float] = field(default_factory=list)  # what each of its reruns heard
    errors: list[str] = field(default_factory=list)
    following: asyncio.Task[None] | None = None
    reading: asyncio.Task[None] | None = None

    def bar(self) -> None:
        data = self.session.component_data(BAR) or {}
        self.run, self.page = str(data.get("run", "")), str(data.get("page", ""))

    def shows(self, view: dict[str, Any]) -> bool:
        return (not view.get("run") or view["run"] == self.run) and view.get("page") == self.page

    async def read_class(self) -> None:
        try:
            async for text in self.socket:
                now, message = time.time(), json.loads(text)
                kind = message.get("type")
                if kind in ("view", "welcome"):
                    self.heard(message["view"], now)
                elif kind in ("error", "ended"):
                    self.errors.append(f"student {self.index}: {kind} {message}")
        except ConnectionClosed as closed:
            self.errors.append(f"student {self.index}: class socket closed ({closed})")

    def heard(self, view: dict[str, Any], now: float) -> None:
        self.latest = view
        self.heard_steps.setdefault((int(view.get("slide", 0)), int(view.get("step", 0))), now)
        self.heard_slides.setdefault(int(view.get("slide", 0)), now)
        if self.shows(view):
            self.has.setdefault(int(view.get("slide", 0)), now)
        elif self.following is None or self.following.done():
            self.following = asyncio.create_task(self.follow())

    async def follow(self) -> None:
        try:
            await self._follow()
        except Exception as error:  # a lost student is a finding, not a silent task
            self.errors.append(f"student {self.index}: following: {error!r}")

    async def _follow(self) -> None:
        """Ask for the teacher's run, then page, until the page shows the latest view."""
        while self.latest is not None and not self.shows(self.latest):
            view = self.latest
            slide = int(view.get("slide", 0))
            if view.get("run") and view["run"] != self.run:
                run = await self.session.trigger(
                    BAR, "run", {"run": view["run"], "page": view["page"]}
                )
            else:
                run = await self.session.trigger(BAR, "go", view["page"])
            self.reruns[slide] = self.reruns.get(slide, 0) + 1
            self.kilobytes.append(run.kilobytes)
            self.errors += [f"student {self.index}: {p}" for p in self.session.problems()]
            before = (self.run, self.page)
            self.bar()
            if self.shows(view):
                self.has.setdefault(slide, time.time())
            elif (self.run, self.page) == before:
                self.errors.append(
                    f"student {self.index}: asked for slide {slide} (run {view.get('run')}, "
                    f"page {view.get('page')}), still on run {self.run}, page {self.page}"
                )
                return
        # A view heard during the rerun that this one may already show (a step slide on the
        # run just taken): its page has it now, as the class bar redrawn after the rerun says.
        if self.latest is not None and self.shows(self.latest):
            self.has.setdefault(int(self.latest.get("slide", 0)), time.time())

    async def close(self) -> None:
        for task in (self.following, self.reading):
            if task is not None:
                task.cancel()
        with contextlib.suppress(Exception):
            await self.socket.close()
        with contextlib.suppress(Exception):
            await self.session.close()


async def join(url: str, code: str, index: int) -> Follower:
    session = Student(url, query=f"class={code}")
    await session.open()
    socket = await connect(url.replace("http://", "ws://", 1) + SOCKET_PATH, proxy=None)
    follower = Follower(index, session, socket)
    follower.errors += [f"student {index}: {p}" for p in session.problems()]
    follower.bar()
    hello = {"type": "hello", "code": code, "role": "student", "id": f"slides-{index:04d}"}
    await socket.send(json.dumps(hello))
    follower.reading = asyncio.create_task(follower.read_class())
    return follower


# ---- the teacher (Chromium, one thread: Playwright's sync API) ------------------------------

_CLICK_NEXT_JS = """
() => {
  window.__bpevizClickedAt = performance.now();
  document.querySelector('.st-key-lesson_next button').click();
}
"""


class Teacher:
    def __init__(self, harness: ModuleType, url: str) -> None:
        self.harness, self.url = harness, url
        self.playwright: Any = None
        self.browser: Any = None
        self.app: Any = None

    def start(self) -> tuple[str, float]:
        """Open the lesson from its link, start a class on it: its code, and when the class
        started (``time.time``)."""
        from playwright.sync_api import sync_playwright

        self.playwright = sync_playwright().start()
        self.browser = self.playwright.chromium.launch(
            executable_path=str(self.harness.CHROMIUM),
            headless=True,
            args=self.harness.CHROMIUM_ARGS,
        )
        app = self.app = self.harness.new_app_page(self.browser, self.url)
        app.poll_ms = 100
        app.page.set_viewport_size({"width": 1280, "height": 720})
        app.page.set_default_timeout(PAGE_TIMEOUT_MS)
        app.goto(f"{self.url}/?lesson={LESSON}&present=true")
        app.wait_idle(PAGE_TIMEOUT_MS)
        app.goto(f"{app.page.url}&class=new")
        app.page.wait_for_function(
            "() => window.bpevizClass && window.bpevizClass.status === 'live'",
            timeout=PAGE_TIMEOUT_MS,
        )
        started = time.time()
        app.wait_idle(PAGE_TIMEOUT_MS)
        return str(app.page.evaluate("new URLSearchParams(location.search).get('class')")), started

    def wait_connected(self, count: int) -> None:
        self.app.page.wait_for_function(
            "n => window.bpevizClass && window.bpevizClass.connected >= n",
            arg=count,
            timeout=PAGE_TIMEOUT_MS,
            polling=200,
        )

    def next_slide(self, number: int, slides: int) -> tuple[float, float]:
        """Click Next slide; when (``time.time`` just before), and the page's load: the click
        to the last message of the run that drew slide ``number`` (the page's clock)."""
        clicked = time.time()
        self.app.page.evaluate(_CLICK_NEXT_JS)
        self.app.page.wait_for_function(
            "t => document.body.innerText.includes(t)",
            arg=f"slide {number} of {slides}",
            timeout=PAGE_TIMEOUT_MS,
            polling=50,
        )
        self.app.wait_idle(PAGE_TIMEOUT_MS)
        load = self.app.page.evaluate("window.__bpevizLastMessage - window.__bpevizClickedAt")
        return clicked, float(load) / 1000

    def press_step(self) -> float:
        self.app.page.locator(self.app.STEP_ROOT).focus()
        pressed = time.time()
        self.app.page.keyboard.press("ArrowRight")
        return pressed

    def problems(self) -> list[str]:
        return [f"teacher: {text}" for text in self.app.exceptions() + self.app.errors]

    def close(self) -> None:
        if self.browser is not None:
            self.browser.close()
        if self.playwright is not None:
            self.playwright.stop()


def main_threads_cpu_seconds(roots: list[int]) -> float:
    """CPU time the main threads of the processes and their descendants have used so far: a
    Streamlit server's event loop (it serializes and sends what the scripts' threads made,
    and reads what the browsers send), where the scripts run in threads of their own."""
    total = 0
    for pid in process_tree(roots):
        try:
            fields = Path(f"/proc/{pid}/task/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


async def until(done: Callable[[], bool], timeout: float) -> bool:
    """Poll ``done`` every 10 ms; whether it held within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.01)
    return True


async def settled(pids: list[int]) -> float | None:
    """Wait until the server's processes use under :data:`SETTLED_CPU_SHARE` of a core over
    :data:`SETTLED_OVER_S`; when (``time.time``), ``None`` if not within the bound."""
    deadline = time.monotonic() + SETTLE_WITHIN_S
    while time.monotonic() < deadline:
        before = tree_cpu_seconds(pids)
        await asyncio.sleep(SETTLED_OVER_S)
        if tree_cpu_seconds(pids) - before < SETTLED_CPU_SHARE * SETTLED_OVER_S:
            return time.time() - SETTLED_OVER_S
    return None


def steps_on(slide: Any) -> range:
    """The steps the teacher takes on a Step slide without a quiz (within its merges)."""
    if slide.page != "step" or slide.view.get("quiz"):
        return range(0)
    start = int(slide.view.get("step", 0))
    merges = int(slide_state(slide)[0]["vocab"]) - 256
    return range(start + 1, min(start + STEPS_PER_SLIDE, merges) + 1)


async def lesson_slides(
    harness: ModuleType, url: str, pids: list[int], setup: str, students: int
) -> SlideFigures:
    """Hold the lesson: the figures (errors kept, not raised)."""
    figures = SlideFigures(setup, load=(os.getloadavg()[0], 0.0))
    lesson = bundled_lessons()[LESSON]
    count = len(lesson.slides)
    figures.slides = [(n, s.page, s.title) for n, s in enumerate(lesson.slides, 1)]
    teacher = Teacher(harness, url)
    thread = concurrent.futures.ThreadPoolExecutor(max_workers=1)  # Playwright's one thread
    followers: list[Follower] = []

    async def do(action: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(thread, action, *args)

    try:
        loaded = time.time()
        code, _ = await do(teacher.start)
        print(f"  class {code} on the lesson {lesson.title!r} ({count} slides)", flush=True)
        gate = asyncio.Semaphore(JOINING_AT_ONCE)

        async def arrive(index: int) -> None:
            async with gate:
                followers.append(await join(url, code, index))

        await asyncio.gather(*(arrive(i) for i in range(students)))
        figures.students = len(followers)
        await do(teacher.wait_connected, len(followers))
        print(f"  {len(followers)} students joined", flush=True)
        calm = await settled(pids)
        if calm is None:
            figures.errors.append(f"the server never settled within {SETTLE_WITHIN_S:g} s")
        else:
            figures.prepared_after = calm - loaded
            print(f"  the server settled {figures.prepared_after:.0f} s after the lesson's link")
        cpu_before, loop_before = tree_cpu_seconds(pids), main_threads_cpu_seconds(pids)
        for number in range(2, count + 1):
            slide = lesson.slides[number - 1]
            clicked, load = await do(teacher.next_slide, number, count)
            figures.first_load[number] = load
            complete = await until(lambda n=number: all(n in f.has for f in followers), WAIT_S)
            if not complete:
                missing = sum(number not in f.has for f in followers)
                figures.errors.append(f"slide {number}: {missing} students never had it")
            figures.has[number] = [f.has[number] - clicked for f in followers if number in f.has]
            figures.heard += [
                f.heard_slides[number] - clicked for f in followers if number in f.heard_slides
            ]
            figures.reruns[number] = sum(f.reruns.get(number, 0) for f in followers)
            shown = figures.has[number]
            print(
                f"  slide {number:>2} {slide.page:<11} teacher {load * 1000:5.0f} ms; students "
                f"p95 {p95(shown) * 1000 if shown else float('nan'):6.0f} ms "
                f"({figures.reruns[number]} reruns)",
                flush=True,
            )
            for step in steps_on(slide):
                pressed = await do(teacher.press_step)
                key = (number, step)
                if await until(
                    lambda key=key: all(key in f.heard_steps for f in followers), WAIT_S
                ):
                    figures.steps += [f.heard_steps[key] - pressed for f in followers]
                else:
                    figures.errors.append(f"slide {number}: step {step} never reached all")
        figures.reruns_cpu = tree_cpu_seconds(pids) - cpu_before
        figures.loop_cpu = main_threads_cpu_seconds(pids) - loop_before
        figures.errors += await do(teacher.problems)
    except Exception as error:  # a failed lesson is a finding: report it with the rest
        figures.errors.append(f"the slides stopped: {type(error).__name__}: {error}")
    finally:
        for follower in followers:
            figures.errors += follower.errors
            figures.kilobytes += follower.kilobytes
        await asyncio.gather(*(f.close() for f in followers), return_exceptions=True)
        await do(teacher.close)
        thread.shutdown()
        figures.load = (figures.load[0], os.getloadavg()[0])
    return figures


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def slides_rows(figures: SlideFigures) -> list[tuple[str, str, str, bool | None]]:
    """Figure, measured, target, verdict (None: reported only), as ``live_class.table``."""
    every = [value for values in figures.has.values() for value in values]
    rows: list[tuple[str, str, str, bool | None]] = []
    slide_p95 = p95(every) if every else None
    rows.append(
        (
            "slide change -> every student has it, p95",
            "-" if slide_p95 is None else ms(slide_p95),
            f"<= {ms(TARGET_SLIDE_P95_S)} (n={len(every)})",
            slide_p95 is not None and slide_p95 <= TARGET_SLIDE_P95_S,
        )
    )
    if figures.heard:
        rows.append(
            (
                "  of which its class bar names the slide, p95",
                ms(p95(figures.heard)),
                "the view on its socket (the page follows with a rerun)",
                None,
            )
        )
    worst = max(figures.has.items(), key=lambda item: p95(item[1]) if item[1] else 0, default=None)
    if worst and worst[1]:
        page = figures.slides[worst[0] - 1][1]
        rows.append((f"  slowest slide: {worst[0]} ({page}), p95", ms(p95(worst[1])), "", None))
    for number, page, _ in figures.slides:
        if page == "compression" and figures.has.get(number):
            rows.append(
                (
                    f"  the Compression slide ({number}), p95",
                    ms(p95(figures.has[number])),
                    f"<= {ms(TARGET_SLIDE_P95_S)}",
                    p95(figures.has[number]) <= TARGET_SLIDE_P95_S,
                )
            )
    loads = figures.first_load
    slowest = max(loads.items(), key=lambda item: item[1], default=None)
    rows.append(
        (
            "teacher's first load of a slide, slowest",
            "-" if slowest is None else f"{ms(slowest[1])} (slide {slowest[0]})",
            f"<= {ms(TARGET_FIRST_LOAD_S)}, every slide (median "
            f"{ms(statistics.median(loads.values())) if loads else '-'})",
            bool(loads) and max(loads.values()) <= TARGET_FIRST_LOAD_S,
        )
    )
    target = TARGET_STEP_P95_S[figures.setup]
    step_p95 = p95(figures.steps) if figures.steps else None
    rows.append(
        (
            "teacher's step -> students' sockets, p95",
            "-" if step_p95 is None else ms(step_p95),
            f"<= {ms(target)} (n={len(figures.steps)})",
            step_p95 is not None and step_p95 <= target,
        )
    )
    reruns = sum(figures.reruns.values())
    if figures.kilobytes:
        rows.append(
            (
                "a student's rerun for a slide: KB heard, median",
                f"{statistics.median(figures.kilobytes):.0f} KB",
                f"largest {max(figures.kilobytes):.0f} KB (the socket's bytes, every message)",
                None,
            )
        )
    rows.append(
        (
            "server CPU over the slides",
            f"{figures.reruns_cpu:.1f} s",
            f"{reruns} students' reruns: "
            f"{figures.reruns_cpu / max(reruns, 1) * 1000:.0f} ms each, were they all of it",
            None,
        )
    )
    rows.append(
        (
            "  of which the server's event loop",
            f"{figures.loop_cpu:.1f} s",
            f"{figures.loop_cpu / max(reruns, 1) * 1000:.0f} ms a rerun (the rest: the scripts)",
            None,
        )
    )
    after = figures.prepared_after
    rows.append(
        (
            "lesson loaded -> its slides prepared",
            "-" if after is None else f"{after:.0f} s",
            "the server settled (the students joined meanwhile)",
            None,
        )
    )
    rows.append(
        (
            "load average before / after",
            f"{figures.load[0]:.1f} / {figures.load[1]:.1f}",
            f"{os.cpu_count()} cores, shared with other work",
            None,
        )
    )
    return rows
