"""How fast the Step page answers in a real browser: first load, and "Next" to the new merge.

Starts its own ``streamlit run app.py`` on a free localhost port and drives Debian's Chromium
with Playwright (the same harness as ``tests/browser``). Measured in the page itself:

- first load: from navigation start to the Step page drawn and idle, in a fresh browser
  context (a new visitor); once right after the server started (cold: imports, training)
  and then the median of a few more visits (warm: what the target applies to);
- step: from the click on "Next" until the card shows the next merge (median of ~20 clicks),
  and until the whole step view is redrawn and the app idle.

On the default sample and on Tiny Shakespeare (uploaded, vocab 4096) when
``../shared/corpora/tinyshakespeare.txt`` exists. Prints the figures; exits 1 when a target
is missed, 2 when it cannot run (no Chromium).

    .venv/bin/python benchmarks/browser_latency.py [--clicks 20]
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
SHAKESPEARE = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "tinyshakespeare.txt"

TARGET_STEP_DEFAULT_MS = 300
TARGET_FIRST_LOAD_S = 3.0
TARGET_STEP_SHAKESPEARE_MS = 1000
WARM_VISITS = 3

# Click "Next" from inside the page and time, with requestAnimationFrame, until the card
# shows merge ``k`` (the frame that draws it), and until the run's last message (checked
# once the app is idle again: the whole step view redrawn).
_TIMED_NEXT_JS = """
async ([k, quietMs]) => {
  const visible = [...document.querySelectorAll(".st-key-step_next button")]
    .find((button) => button.offsetParent !== null);
  const start = performance.now();
  visible.click();
  const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
  let shown = null;
  for (;;) {
    await frame();
    const title = document.querySelector(".bpe-card-title");
    const wanted = `Merge ${k.toLocaleString("en-US")} of`;
    if (shown === null && title && title.textContent.startsWith(wanted))
      shown = performance.now() - start;
    const app = document.querySelector('[data-testid="stApp"]');
    const idle = app.getAttribute("data-test-script-state") === "notRunning"
      && performance.now() - window.__bpevizLastMessage >= quietMs
      && !document.querySelector('[data-testid="stMain"] [data-stale="true"]');
    if (shown !== null && idle) return [shown, window.__bpevizLastMessage - start];
    if (performance.now() - start > 60000) return [shown, null];
  }
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
        app.page.locator(".bpe-card").wait_for()
        # The last message of the first run, from navigation start (page clock).
        return float(app.page.evaluate("window.__bpevizLastMessage")) / 1000
    finally:
        app.page.context.close()


def step_latencies(harness: ModuleType, app: Any, clicks: int) -> tuple[list[float], list[float]]:
    """Click "Next" ``clicks`` times; milliseconds to the merge shown, and to idle."""
    shown, done = [], []
    for _ in range(clicks):
        k = app.shown_merge()[0] if app.card_title().startswith("Merge") else 0
        to_card, to_idle = app.page.evaluate(_TIMED_NEXT_JS, [k + 1, harness.QUIET_MS])
        if to_card is None or to_idle is None:
            raise RuntimeError(f"merge {k + 1} not shown within 60 s")
        shown.append(float(to_card))
        done.append(float(to_idle))
    return shown, done


def describe(values: list[float], unit: str) -> str:
    digits = 2 if unit == "s" else 0
    return (
        f"median {statistics.median(values):.{digits}f} {unit} "
        f"(min {min(values):.{digits}f}, max {max(values):.{digits}f}, n={len(values)})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clicks", type=int, default=20, help="clicks on Next per text")
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
            shown, done = step_latencies(harness, app, args.clicks)
            print(f"default sample, Next -> merge shown: {describe(shown, 'ms')}")
            print(f"default sample, Next -> view redrawn: {describe(done, 'ms')}")
            if statistics.median(shown) > TARGET_STEP_DEFAULT_MS:
                missed.append(f"step on the default sample {statistics.median(shown):.0f} ms")
            app.assert_clean()
            app.page.context.close()

            # -- Tiny Shakespeare, uploaded, vocab 4096 --
            if not SHAKESPEARE.exists():
                print(f"Tiny Shakespeare skipped: {SHAKESPEARE} not found")
            else:
                app = harness.new_app_page(browser, server.url)
                app.open("step", src="upload", vocab=4096)
                data = SHAKESPEARE.read_bytes()
                field = app.page.locator(".st-key-upload input[type=file]")
                files = [{"name": SHAKESPEARE.name, "mimeType": "text/plain", "buffer": data}]
                began = time.perf_counter()
                app.rerun(lambda: field.set_input_files(files=files), timeout=300_000)
                app.page.locator(".bpe-card").wait_for()
                trained = time.perf_counter() - began
                merges = app.page.locator(".bpe-card-title").inner_text()
                print(
                    f"Tiny Shakespeare ({len(data):,} bytes, vocab 4096): upload, training and "
                    f"first draw {trained:.1f} s ({merges})"
                )
                shown, done = step_latencies(harness, app, args.clicks)
                print(f"Tiny Shakespeare, Next -> merge shown: {describe(shown, 'ms')}")
                print(f"Tiny Shakespeare, Next -> view redrawn: {describe(done, 'ms')}")
                if statistics.median(shown) > TARGET_STEP_SHAKESPEARE_MS:
                    missed.append(f"step on Tiny Shakespeare {statistics.median(shown):.0f} ms")
                app.assert_clean()
                app.page.context.close()
            browser.close()
        print(f"server RSS at the end: {server.rss_mb():.0f} MB")
    finally:
        harness.stop_server(server)

    targets = (
        f"targets: first load <= {TARGET_FIRST_LOAD_S:.0f} s and step <= "
        f"{TARGET_STEP_DEFAULT_MS} ms on the default sample, step <= "
        f"{TARGET_STEP_SHAKESPEARE_MS} ms on Tiny Shakespeare"
    )
    if missed:
        print(f"MISSED ({targets}): " + "; ".join(missed))
        return 1
    print(f"all met ({targets})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
