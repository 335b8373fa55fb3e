"""How fast the Step page answers in a real browser: first load, "Next" to the new view, autoplay.

Starts its own ``streamlit run server.py`` on a free localhost port and drives Debian's Chromium
with Playwright (the same harness as ``tests/browser``). The step view is drawn in the browser
(``bpeviz/web``): stepping sends nothing to the server. Measured in the page itself:

- first load: from navigation start to the Step page drawn and idle, in a fresh browser
  context (a new visitor); once right after the server started (cold: imports, training)
  and then the median of a few more visits (warm: what the target applies to);
- step: from the click on "Next" to the frame that shows the new view (``.bpe-root``'s
  ``data-step`` is the new step and ``data-ready`` true), with "Animate merges" switched
  off (the animation holds the "before" view for 260 ms by design); p50/p95 of ~40 presses;
- autoplay: "Play" at pace "20 steps / s" for 2 s, counting the steps actually drawn (one frame
  each at least), and the server messages meanwhile (none).

On the default sample and on Tiny Shakespeare (uploaded, vocab 4096) when
``benchmarks/shakespeare.py`` finds it. Prints the figures; exits 1 when a target is missed, 2
when it cannot run (no Chromium).

    .venv/bin/python benchmarks/browser_latency.py [--clicks 40]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HARNESS = ROOT / "tests" / "browser" / "conftest.py"
sys.path.insert(0, str(ROOT / "benchmarks"))

from shakespeare import shakespeare_path  # noqa: E402

TARGET_FIRST_LOAD_S = 3.0
TARGET_STEP_P95_MS = 50  # Next -> new view, animation off, default sample and Shakespeare
TARGET_AUTOPLAY_STEPS = 30  # steps drawn in 2 s at 20 steps/s
AUTOPLAY_SECONDS = 2.0
WARM_VISITS = 3

# Click "Next" from inside the page and time, with requestAnimationFrame, until a frame
# shows step ``k`` drawn (the root's data-step and data-ready), the next frame after the
# click included. Also counts the server's messages meanwhile (there should be none).
_TIMED_NEXT_JS = """
async (k) => {
  const root = document.querySelector(".bpe-root.bpe-step");
  const next = [...root.querySelectorAll("button")].find((b) => b.textContent.startsWith("Next"));
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  await frame();
  const messages = window.__bpevizMessages;
  const start = performance.now();
  next.click();
  for (;;) {
    await frame();
    if (root.dataset.step === String(k) && root.dataset.ready === "true")
      return [performance.now() - start, window.__bpevizMessages - messages];
    if (performance.now() - start > 10000) return [null, 0];
  }
}
"""

# Play at the pace chosen, for ``seconds``; count the distinct steps drawn (sampled every
# frame) and the server's messages meanwhile; pause.
_AUTOPLAY_JS = """
async (seconds) => {
  const root = document.querySelector(".bpe-root.bpe-step");
  const play = [...root.querySelectorAll("button")].find((b) => b.textContent.includes("Play"));
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  const seen = new Set();
  const messages = window.__bpevizMessages;
  const first = Number(root.dataset.step);
  play.click();
  const start = performance.now();
  let frames = 0;
  while (performance.now() - start < seconds * 1000) {
    await frame();
    frames += 1;
    if (root.dataset.ready === "true") seen.add(root.dataset.step);
  }
  play.click();  // pause
  seen.delete(String(first));
  return {shown: seen.size, last: Number(root.dataset.step) - first, frames,
          messages: window.__bpevizMessages - messages};
}
"""


def load_harness() -> ModuleType:
    """The browser-test harness (server start/stop, Chromium launch, page helpers)."""
    if str(ROOT) not in sys.path:  # the harness and the tests import bpeviz from the repo
        sys.path.insert(0, str(ROOT))
    spec = importlib.util.spec_from_file_location("bpeviz_browser_harness", HARNESS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def first_load_seconds(harness: ModuleType, browser: Any, url: str) -> float:
    """Navigation start to the Step page drawn and idle, in a fresh context."""
    app = harness.new_app_page(browser, url.split("/?")[0].rstrip("/"))
    try:
        app.page.goto(url, wait_until="commit")
        app.wait_idle()
        app.wait_view()
        # The last message of the first run, from navigation start (page clock).
        return float(app.page.evaluate("window.__bpevizLastMessage")) / 1000
    finally:
        app.page.context.close()


def animate_off(app: Any) -> None:
    box = app.page.locator(".bpe-step label").filter(has_text="Animate merges").locator("input")
    box.uncheck()


def step_latencies(app: Any, clicks: int) -> tuple[list[float], int]:
    """Press "Next" ``clicks`` times; milliseconds to the new view, and server messages."""
    app.wait_view()
    shown, messages = [], 0
    for _ in range(clicks):
        k = app.shown_step()
        to_view, during = app.page.evaluate(_TIMED_NEXT_JS, k + 1)
        if to_view is None:
            raise RuntimeError(f"step {k + 1} not drawn within 10 s")
        shown.append(float(to_view))
        messages += int(during)
    return shown, messages


def autoplay(app: Any) -> dict[str, int]:
    """Play at 20 steps/s for AUTOPLAY_SECONDS from step 0; what was drawn."""
    app.step(app.step_button("First").click, 0)
    app.page.locator("select.bpe-pace").select_option(label="20 steps / s")
    return dict(app.page.evaluate(_AUTOPLAY_JS, AUTOPLAY_SECONDS))


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def measure_view(app: Any, name: str, clicks: int, missed: list[str]) -> None:
    """Next latency (animation off) and autoplay on the page ``app`` shows."""
    animate_off(app)
    shown, messages = step_latencies(app, clicks)
    print(
        f"{name}, Next -> new view: p50 {statistics.median(shown):.1f} ms, "
        f"p95 {p95(shown):.1f} ms (max {max(shown):.1f}, n={len(shown)}); "
        f"server messages while stepping: {messages}"
    )
    if p95(shown) > TARGET_STEP_P95_MS:
        missed.append(f"{name}: Next p95 {p95(shown):.1f} ms > {TARGET_STEP_P95_MS} ms")
    if messages:
        missed.append(f"{name}: {messages} server messages while stepping")
    played = autoplay(app)
    print(
        f"{name}, autoplay at 20 / s for {AUTOPLAY_SECONDS:.0f} s: {played['shown']} steps drawn "
        f"(moved {played['last']}, {played['frames']} frames); server messages: "
        f"{played['messages']}"
    )
    if played["shown"] < TARGET_AUTOPLAY_STEPS:
        missed.append(f"{name}: autoplay drew {played['shown']} steps in 2 s")
    if played["messages"]:
        missed.append(f"{name}: {played['messages']} server messages during autoplay")
    app.assert_clean()


def describe(values: list[float], unit: str) -> str:
    digits = 2 if unit == "s" else 0
    return (
        f"median {statistics.median(values):.{digits}f} {unit} "
        f"(min {min(values):.{digits}f}, max {max(values):.{digits}f}, n={len(values)})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clicks", type=int, default=40, help="presses of Next per text")
    args = parser.parse_args()

    harness = load_harness()
    reason = harness.chromium_missing_reason()
    if reason:
        print(f"cannot run: {reason}")
        return 2
    from playwright.sync_api import sync_playwright

    missed: list[str] = []
    log = Path(tempfile.mkdtemp(prefix="bpeviz-bench-")) / "server.log"
    started = time.perf_counter()
    server = harness.start_server(log)
    print(f"server up in {time.perf_counter() - started:.1f} s (log: {log})")
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(harness.CHROMIUM), headless=True, args=harness.CHROMIUM_ARGS
            )
            # -- the default sample --
            cold = first_load_seconds(harness, browser, server.url + "/")
            warm = [
                first_load_seconds(harness, browser, server.url + "/") for _ in range(WARM_VISITS)
            ]
            print(f"default sample, first load: cold {cold:.2f} s; {describe(warm, 's')}")
            if statistics.median(warm) > TARGET_FIRST_LOAD_S:
                missed.append(f"first load {statistics.median(warm):.2f} s > 3 s")
            app = harness.new_app_page(browser, server.url)
            app.open("step")
            measure_view(app, "default sample", args.clicks, missed)
            app.page.context.close()

            # -- Tiny Shakespeare, uploaded, vocab 4096 --
            shakespeare = shakespeare_path()
            if shakespeare is None or not shakespeare.is_file():
                print("Tiny Shakespeare skipped: not found (set $BPEVIZ_SHAKESPEARE)")
            else:
                app = harness.new_app_page(browser, server.url)
                app.open("step", src="upload", vocab=4096)
                data = shakespeare.read_bytes()
                field = app.page.locator(".st-key-upload input[type=file]")
                files = [{"name": shakespeare.name, "mimeType": "text/plain", "buffer": data}]
                began = time.perf_counter()
                app.rerun(lambda: field.set_input_files(files=files), timeout=300_000)
                app.wait_view()
                trained = time.perf_counter() - began
                merges = app.page.locator(".bpe-step-label").inner_text()
                print(
                    f"Tiny Shakespeare ({len(data):,} bytes, vocab 4096): upload, training and "
                    f"first draw {trained:.1f} s (step {merges})"
                )
                measure_view(app, "Tiny Shakespeare", args.clicks, missed)
                app.page.context.close()
            browser.close()
        print(f"server RSS at the end: {server.rss_mb():.0f} MB")
    finally:
        harness.stop_server(server)

    targets = (
        f"targets: first load <= {TARGET_FIRST_LOAD_S:.0f} s; Next -> new view p95 <= "
        f"{TARGET_STEP_P95_MS} ms (animation off) on the default sample and Tiny Shakespeare; "
        f"autoplay at 20 / s draws >= {TARGET_AUTOPLAY_STEPS} steps in 2 s; no server message "
        "while stepping"
    )
    if missed:
        print(f"MISSED ({targets}): " + "; ".join(missed))
        return 1
    print(f"all met ({targets})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
