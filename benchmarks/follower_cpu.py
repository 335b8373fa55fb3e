"""One following student's server CPU per slide of the bundled lesson (issue 28, "Measured").

A live class's slide change costs the server one script rerun per following student: with
2 workers on 2 cores, a hundred students reach every slide within 1 s only if each rerun
takes about 15 ms of CPU or less. This measures that rerun alone, without a server or a
network: Streamlit's AppTest runs a teacher who opens the bundled lesson from its link,
starts a class and clicks Next slide, and ``--students`` students who follow. Back to back:
the teacher's run of a slide first (it fills the caches every session shares, as the
teacher's laptop does in class, the lesson's background preparation aside), then each
student in turn does what its class bar does when the teacher's view names a run it does not
show (the ``run`` event's callback: the class's run given, the teacher's page switched to),
or only a page (``go``: the switch); one rerun each, nothing when it already shows the slide.

The CPU is the script thread's own (``time.thread_time``), the rerun and its page switch,
so other processes on a shared machine barely move it. The first student may fill a cache
the others then share; the table gives each slide's median over the students after the
first, and their sum over the lesson. ``--profile N``: the top N functions of the students'
reruns (cumulative time), per slide, from ``cProfile``.

    .venv/bin/python benchmarks/follower_cpu.py [--students 3] [--profile 0] [--budget-ms 0]

Exits 1 when ``--budget-ms`` is given and a slide's median exceeds it, or anything fails.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # bpeviz and the AppTest helpers

import streamlit as st  # noqa: E402
from apptest_support import new_app, run  # noqa: E402
from streamlit.runtime.scriptrunner.script_cache import ScriptCache  # noqa: E402
from streamlit.testing.v1 import (  # noqa: E402
    AppTest,
    app_test,
    local_script_runner,
)
from streamlit.testing.v1.local_script_runner import LocalScriptRunner  # noqa: E402

from bpeviz.app.frame.state import KEY_HELD, held_class  # noqa: E402
from bpeviz.app.lesson.slides import bundled_lessons  # noqa: E402
from bpeviz.app.live import live_class  # noqa: E402
from bpeviz.classroom.hubs.choose import current_hub  # noqa: E402
from bpeviz.classroom.hubs.common import run_id  # noqa: E402

LESSON = "bpe"
ASKED = "_bench_asked"  # (event, page): the class bar's event this student's next rerun gets


class ScriptClock:
    """The CPU of every script run AppTest makes (its script thread's own), and a profile of
    them while ``profile`` is set."""

    def __init__(self) -> None:
        self.cpu = 0.0
        self.profile: cProfile.Profile | None = None
        real = LocalScriptRunner._run_script_thread
        clock = self

        def timed(runner: Any) -> None:
            started = time.thread_time()
            if clock.profile is not None:
                clock.profile.enable()
            try:
                real(runner)
            finally:
                if clock.profile is not None:
                    clock.profile.disable()
                clock.cpu += time.thread_time() - started

        LocalScriptRunner._run_script_thread = timed  # type: ignore[method-assign]


def one_script_cache() -> None:
    """One cache of the scripts' compiled code for every session, as a server has (AppTest
    makes one per run: each student's first visit to a page compiled it, a quarter of the
    CPU of a slide's rerun, which no server spends)."""
    shared = ScriptCache()
    app_test.ScriptCache = local_script_runner.ScriptCache = lambda: shared  # type: ignore


def follow_as_the_bar_asks() -> None:
    """Give the app the class bar's callbacks' effect, as ``live_class._follow_run`` has it,
    when a student's next rerun carries the bar's event (AppTest cannot send a component's
    event): the ``run`` event gives the class's run and names the page; ``go`` the page."""
    real = live_class.start_or_join

    def start_or_join() -> list[Any]:
        asked = st.session_state.pop(ASKED, None)
        held = held_class()
        if asked is not None and held is not None:
            event, page = asked
            if event == "run":
                given = current_hub().run_of(held["code"])
                held.update(live_class._give_run(given, held.get("replaced")), fresh=True)
                live_class._prepare_its_lesson(given)
            st.session_state[live_class.KEY_FOLLOW_PAGE] = page
        return real()

    live_class.start_or_join = start_or_join  # type: ignore[assignment]


def student_shows(student: AppTest) -> tuple[str, str]:
    """The run and page the student's class bar names (what it shows)."""
    for node in student.main:
        if getattr(node, "type", None) == "bidi_component" and node.proto.id.endswith(
            live_class.KEY_BAR
        ):
            kind = node.proto.WhichOneof("data")
            data = json.loads(node.proto.mixed.json if kind == "mixed" else node.proto.json)
            return str(data.get("run", "")), str(data.get("page", ""))
    raise AssertionError("no class bar on the student's page")


def top_functions(profile: cProfile.Profile, count: int) -> str:
    out = io.StringIO()
    stats = pstats.Stats(profile, stream=out)
    stats.sort_stats("cumulative").print_stats(count)
    lines = out.getvalue().splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    return "\n".join(lines[start : start + count + 1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=3)
    parser.add_argument("--profile", type=int, default=0, help="top functions per slide")
    parser.add_argument("--budget-ms", type=float, default=0.0)
    parser.add_argument("--slides", type=str, default="", help="e.g. 11,12: only these")
    args = parser.parse_args()
    only = {int(s) for s in args.slides.split(",") if s}
    clock = ScriptClock()
    one_script_cache()
    follow_as_the_bar_asks()
    lesson = bundled_lessons()[LESSON]
    teacher = run(new_app(lesson=LESSON, present="true", **{"class": "new"}))
    code = teacher.session_state[KEY_HELD]["code"]
    students = [run(new_app(**{"class": code})) for _ in range(args.students)]
    rows: list[tuple[int, str, list[float], int]] = []
    failed = False
    for number in range(2, len(lesson.slides) + 1):
        slide = lesson.slides[number - 1]
        teacher = run(teacher.button(key="lesson_next").click())
        run(teacher)  # the page's second run (the step view's report), as in a browser
        wanted = run_id(current_hub().run_of(code))
        cpus: list[float] = []
        reruns = 0
        profiled = args.profile and (not only or number in only)
        profile = cProfile.Profile(time.thread_time) if profiled else None
        for index, student in enumerate(students):
            shown_run, shown_page = student_shows(student)
            if (shown_run, shown_page) == (wanted, slide.page):
                cpus.append(0.0)
                continue
            event = "run" if shown_run != wanted else "go"
            student.session_state[ASKED] = (event, slide.page)
            clock.profile = profile if index > 0 else None
            before = clock.cpu
            run(student)
            clock.profile = None
            cpus.append(clock.cpu - before)
            reruns += 1
            if student_shows(student) != (wanted, slide.page):
                print(f"slide {number}: student {index} shows {student_shows(student)}")
                failed = True
        rows.append((number, slide.page, cpus, reruns))
        later = cpus[1:] or cpus
        print(
            f"slide {number:>2} {slide.page:<11} follower CPU median "
            f"{statistics.median(later) * 1000:6.1f} ms (first {cpus[0] * 1000:6.1f} ms) "
            f"{slide.title[:40]}",
            flush=True,
        )
        if profile is not None and reruns:
            print(top_functions(profile, args.profile), flush=True)
    total = sum(statistics.median(cpus[1:] or cpus) for _, _, cpus, _ in rows)
    print(f"one follower over the {len(rows)} slide changes: {total * 1000:.0f} ms of CPU")
    if args.budget_ms:
        over = [n for n, _, c, _ in rows if statistics.median(c[1:] or c) * 1000 > args.budget_ms]
        if over:
            print(f"over {args.budget_ms:g} ms: slides {over}")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
