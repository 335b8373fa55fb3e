"""A classroom against one server: 20 sessions open the Step page at once and step together.

Starts its own ``streamlit run app.py`` on a free localhost port and drives Debian's Chromium
(the harness of ``tests/browser``). The students are the ones of
``tests/browser/test_classroom.py``: 7 samples with several settings each. Prints, per
session, the time to first render (navigation start to the first run's last message,
measured in the page) and the time each "Next" took to show its merge, the errors seen
(exception boxes, console errors, a wrong merge), and the server's memory: VmRSS before and
after, and its peak (VmHWM). Exits 1 on any error or when the peak passes 1.5 GB.

    .venv/bin/python benchmarks/classroom_load.py [--sessions 20] [--contexts 2] [--steps 3]

All sessions run in one Chromium, as tabs spread over ``--contexts`` browser contexts: each
tab is its own Streamlit session. The browser shares the 2 cores with the server, so the
render times are those of 20 pages drawn on one small machine, an upper bound for a class
where each student has their own computer.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

from browser_latency import load_harness

ROOT = Path(__file__).resolve().parents[1]
STUDENTS = ROOT / "tests" / "browser" / "test_classroom.py"
MAX_PEAK_MB = 1536

# Click "Next" from inside the page and time until the card shows merge ``k``. Watched with a
# MutationObserver, not requestAnimationFrame: most tabs are in the background, where
# Chromium does not draw frames (and throttles timers), which would time the throttling.
_TIMED_NEXT_JS = """
(k) => new Promise((resolve) => {
  const visible = [...document.querySelectorAll(".st-key-step_next button")]
    .find((button) => button.offsetParent !== null);
  const wanted = `Merge ${k.toLocaleString("en-US")} of`;
  const start = performance.now();
  const shown = () => {
    const title = document.querySelector(".bpe-card-title");
    return title !== null && title.textContent.startsWith(wanted);
  };
  const observer = new MutationObserver(() => {
    if (shown()) {
      observer.disconnect();
      resolve(performance.now() - start);
    }
  });
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  visible.click();
})
"""


def load_students() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bpeviz_classroom_students", STUDENTS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    match = re.search(r"^VmHWM:\s+(\d+)\s+kB", status, re.MULTILINE)
    return int(match.group(1)) / 1024 if match else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--contexts", type=int, default=2, help="browser contexts (1..sessions)")
    parser.add_argument("--steps", type=int, default=3, help="clicks on Next per session")
    args = parser.parse_args()

    harness = load_harness()
    reason = harness.chromium_missing_reason()
    if reason:
        print(f"cannot run: {reason}")
        return 2
    students = load_students()
    classroom = [students.CLASS[index % len(students.CLASS)] for index in range(args.sessions)]
    histories = [
        students.expected_history(sample, tuple(sorted(params.items())))
        for sample, params in classroom
    ]
    from playwright.sync_api import sync_playwright

    log = Path(tempfile.mkdtemp(prefix="bpeviz-classroom-")) / "server.log"
    server = harness.start_server(log)
    errors: list[str] = []
    try:
        rss_before = server.rss_mb()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(harness.CHROMIUM), headless=True, args=harness.CHROMIUM_ARGS
            )
            contexts = max(1, min(args.contexts, args.sessions))
            pages = [harness.new_app_page(browser, server.url) for _ in range(contexts)]
            pages += [
                harness.new_app_page(browser, server.url, pages[index % contexts].page.context)
                for index in range(contexts, args.sessions)
            ]
            began, cpu_began = time.perf_counter(), server.cpu_seconds()
            for page, (sample, params) in zip(pages, classroom, strict=True):
                page.poll_ms = 250
                page.page.goto(page.url_for("step", sample=sample, **params), wait_until="commit")
            for page in pages:
                page.wait_idle(timeout=300_000)
            all_drawn = time.perf_counter() - began
            load_cpu = server.cpu_seconds() - cpu_began
            first = [float(p.page.evaluate("window.__bpevizLastMessage")) / 1000 for p in pages]

            clicks = [min(args.steps, history.merge_count) for history in histories]
            latencies: list[list[float]] = [[] for _ in pages]
            stepping, cpu_stepping = time.perf_counter(), server.cpu_seconds()
            for round_ in range(max(clicks)):
                # Everyone clicks together: start every click, then collect the timings.
                moving = [i for i, n in enumerate(clicks) if n > round_]
                for i in moving:
                    pages[i].page.evaluate(
                        f"() => {{ window.__bpevizNext = ({_TIMED_NEXT_JS})({round_ + 1}); }}"
                    )
                for i in moving:
                    value = pages[i].page.evaluate(
                        "() => Promise.race([window.__bpevizNext,"
                        " new Promise((resolve) => setTimeout(() => resolve(null), 120000))])"
                    )
                    if value is None:
                        errors.append(f"session {i}: merge {round_ + 1} not shown in 120 s")
                    else:
                        latencies[i].append(float(value))
            for page in pages:
                page.wait_idle(timeout=300_000)
            stepping = time.perf_counter() - stepping
            cpu_stepping = server.cpu_seconds() - cpu_stepping

            print(f"{'#':>2}  {'sample and settings':<46} {'first render':>12}  Next -> merge (ms)")
            for index, (page, history, n) in enumerate(zip(pages, histories, clicks, strict=True)):
                sample, params = classroom[index]
                step = history.steps[n - 1]
                shown = page.shown_merge()
                if shown != (n, history.merge_count, [*step.pair, step.new_id]):
                    errors.append(f"session {index} ({sample} {params}): shows {shown}")
                errors += [f"session {index}: exception {text}" for text in page.exceptions()]
                errors += [f"session {index}: {text}" for text in page.errors]
                label = f"{sample} {params or ''}".strip()
                steps = " ".join(f"{value:.0f}" for value in latencies[index])
                print(f"{index:>2}  {label:<46} {first[index]:>10.1f} s  {steps}")
            browser.close()
        rss_after, peak = server.rss_mb(), peak_rss_mb(server.pid)
        healthy = server.healthy()
    finally:
        harness.stop_server(server)

    every_step = [value for values in latencies for value in values]
    print(
        f"\n{args.sessions} sessions in {contexts} contexts: first render median "
        f"{statistics.median(first):.1f} s, max {max(first):.1f} s; all drawn after "
        f"{all_drawn:.1f} s; the server used {load_cpu:.1f} s of CPU for it "
        f"({1000 * load_cpu / args.sessions:.0f} ms a session)"
    )
    if every_step:
        print(
            f"Next -> merge shown, all clicking at once: median "
            f"{statistics.median(every_step):.0f} ms, max {max(every_step):.0f} ms "
            f"({len(every_step)} clicks); {stepping:.1f} s in all, of which the server used "
            f"{cpu_stepping:.1f} s of CPU ({1000 * cpu_stepping / len(every_step):.0f} ms a click)"
        )
    print(
        f"server RSS {rss_before:.0f} MB before, {rss_after:.0f} MB after, peak {peak:.0f} MB; "
        f"health check afterwards: {'ok' if healthy else 'FAILED'}"
    )
    if not healthy:
        errors.append("the server did not answer its health check")
    if peak > MAX_PEAK_MB:
        errors.append(f"peak RSS {peak:.0f} MB > {MAX_PEAK_MB} MB")
    print(f"errors: {len(errors)}")
    for error in errors:
        print(f"  {error}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
