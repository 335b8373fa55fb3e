"""What one hostile link, paste, file or command costs (issue 17), with a target for each.

Each check is a named function in ``CHECKS``; it measures, prints its figures and says
whether it met its target. Checks run in fresh subprocesses, so one check's memory is not
counted in the next, and a check that hangs is stopped (``--timeout``).

- ``tokenize-link-40k``: ``/tokenize?tok_text=<40,000 letters>``, the Tokenize page run as a
  server runs it (Streamlit's AppTest, the app's own scripts), default tokenizer. Target:
  at most 10 s and 300 MB of memory growth (peak resident size over the size before).
- ``tokenize-box-1mb`` and ``tokenize-box-1mb-cl100k``: a 1 MB line without spaces typed into
  the Tokenize box, with the trained tokenizer and with GPT-4's. Same target.
- ``catastrophic-pattern``: a ``.model`` and a ``tokenizer.json`` whose split pattern is
  ``(?:[\\s\\S]|[\\s\\S])*\\x00|.``, loaded as an upload is; and ``encode --model`` on the
  ``.model``. Target: refused with a message within 5 s each, and no CPU used afterwards
  (nothing left running).
- ``cli-dev-zero``: ``train``, ``encode --file`` and ``decode --file`` on ``/dev/zero``.
  Target: a message within 10 s, under 1 GB.

- ``crowd-paste-link`` and ``crowd-import``: a crowd of real Chromium sessions
  (``benchmarks/crowd.py``): 30 students typing on a paste link at once while one session
  trains, and 20 sessions importing one tokenizer.json. Targets: no setting changed and no
  text lost; memory at most 1 GB, and back within 150 MB of one import 60 s after they close.

Add a check by writing ``def check_x() -> Result`` and listing it in ``CHECKS``.

    .venv/bin/python benchmarks/robustness.py [--only NAME ...] [--timeout 120]

Prints one block per check and a verdict; exits 1 on a miss, 2 when a check cannot run.
The machine is shared: other work on its cores slows every figure, so say what else ran.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CATASTROPHIC = r"(?:[\s\S]|[\s\S])*\x00|."
PAGE_SECONDS, PAGE_MB = 10.0, 300.0
PATTERN_SECONDS = 5.0
CLI_SECONDS, CLI_MB = 10.0, 1024.0


@dataclass
class Result:
    """One check's figures (printed as they are) and whether each met its target."""

    figures: list[str] = field(default_factory=list)
    met: bool = True

    def add(self, line: str, ok: bool) -> None:
        self.figures.append(f"{line}  [{'ok' if ok else 'MISS'}]")
        self.met = self.met and ok


TIMEOUT = 120.0


def _child(code: str) -> dict:
    """Run ``code`` in a fresh Python (repository on the path); it prints one JSON line."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}"}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"the check's process failed: {done.stderr[-2000:]}")
    return json.loads(lines[-1])


# ---- the Tokenize page ---------------------------------------------------------------------

_PAGE = """
import json, resource, sys, time
from streamlit.testing.v1 import AppTest

def rss_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024

def page(**params):
    at = AppTest.from_file("app.py", default_timeout=600)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page("app_pages/tokenize.py")
    return at.run()

MODE, MODEL = {mode!r}, {model!r}
text = ("thecatsatonthemat" * 70_000)[: {size}]
warm = page(**({{"tok_model": MODEL}} if MODEL else {{}}))  # the app loaded and drawn once
before = rss_mb()
started = time.perf_counter()
if MODE == "link":
    at = page(tok_text=text, **({{"tok_model": MODEL}} if MODEL else {{}}))
else:
    at = warm.text_area(key="tok_text").input(text).run()
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
captions = [c.value for c in at.caption if "replay below traces only" in c.value]
print(json.dumps({{
    "seconds": seconds, "growth_mb": peak - before, "before_mb": before,
    "errors": [str(e.value)[:200] for e in at.exception] + [e.value for e in at.error],
    "capped": bool(captions),
}}))
"""


def _tokenize_check(mode: str, size: int, model: str = "") -> Result:
    figures = _child(_PAGE.format(mode=mode, model=model, size=size))
    result = Result()
    what = f"{size:,} letters without a space ({'link' if mode == 'link' else 'typed'})"
    result.add(
        f"{what}, {model or 'trained'} tokenizer: {figures['seconds']:.1f} s (target "
        f"{PAGE_SECONDS:g} s)",
        figures["seconds"] <= PAGE_SECONDS,
    )
    result.add(
        f"memory growth {figures['growth_mb']:.0f} MB over {figures['before_mb']:.0f} MB "
        f"(target {PAGE_MB:g} MB)",
        figures["growth_mb"] <= PAGE_MB,
    )
    result.add(f"the trace says it is cut: {figures['capped']}", figures["capped"])
    result.add(f"errors on the page: {figures['errors'] or 'none'}", not figures["errors"])
    return result


def check_tokenize_link_40k() -> Result:
    return _tokenize_check("link", 40_000)


def check_tokenize_box_1mb() -> Result:
    return _tokenize_check("box", 1_000_000)


def check_tokenize_box_1mb_cl100k() -> Result:
    return _tokenize_check("box", 1_000_000, "cl100k_base")


# ---- a pattern that would hang -------------------------------------------------------------

_PATTERN = """
import json, time
from hf_helpers import split_json
from bpeviz.formats import load_model_file

PATTERN = {pattern!r}
files = {{
    "evil.model": f"minbpe v1\\n{{PATTERN}}\\n0\\n97 97\\n".encode(),
    "tokenizer.json": split_json(PATTERN).encode(),
}}
out = {{}}
for name, data in files.items():
    started = time.perf_counter()
    try:
        load_model_file(name, data)
        message = None
    except ValueError as error:
        message = str(error)
    out[name] = {{"seconds": time.perf_counter() - started, "message": message}}
    # the same file again, as a class uploading it would (remembered, so no second probe)
cpu = time.process_time()
time.sleep(1.0)
out["cpu_after"] = time.process_time() - cpu
print(json.dumps(out))
"""


def check_catastrophic_pattern() -> Result:
    result = Result()
    figures = _child(_PATTERN.format(pattern=CATASTROPHIC))
    for name in ("evil.model", "tokenizer.json"):
        found = figures[name]
        result.add(
            f"{name}: refused in {found['seconds']:.1f} s (target {PATTERN_SECONDS:g} s): "
            f"{(found['message'] or 'NOT REFUSED')[:110]}",
            found["message"] is not None and found["seconds"] <= PATTERN_SECONDS,
        )
    result.add(
        f"CPU used in the second after: {figures['cpu_after']:.3f} s (nothing left running)",
        figures["cpu_after"] < 0.1,
    )
    with tempfile.TemporaryDirectory() as folder:
        model = Path(folder) / "evil.model"
        model.write_text(f"minbpe v1\n{CATASTROPHIC}\n0\n97 97\n")
        seconds, status, _, stderr = _cli(["encode", "--model", str(model), "--text", "a" * 99])
    result.add(
        f"encode --model evil.model: exit {status} in {seconds:.1f} s: {stderr.strip()[:90]}",
        status == 2 and seconds <= PATTERN_SECONDS and "Traceback" not in stderr,
    )
    return result


# ---- the command line on an endless file ---------------------------------------------------


def _cli(args: list[str]) -> tuple[float, int, float, str]:
    """Run ``python -m bpeviz args``: seconds, exit status, peak memory (MB), stderr."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        process = subprocess.Popen(
            [sys.executable, "-m", "bpeviz", *args],
            cwd=folder,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            stderr = process.stderr.read() if process.stderr else ""
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            if process.poll() is None:
                process.kill()
    seconds = time.perf_counter() - started
    return seconds, os.waitstatus_to_exitcode(status), usage.ru_maxrss / 1024, stderr


def check_cli_dev_zero() -> Result:
    result = Result()
    commands = {
        "train": ["train", "/dev/zero", "--vocab-size", "300", "--out", "x"],
        "encode --file": ["encode", "--encoding", "cl100k_base", "--file", "/dev/zero"],
        "decode --file": ["decode", "--encoding", "cl100k_base", "--file", "/dev/zero"],
    }
    for name, args in commands.items():
        seconds, status, peak, stderr = _cli(args)
        result.add(
            f"{name} /dev/zero: exit {status} in {seconds:.1f} s, peak {peak:.0f} MB (targets "
            f"{CLI_SECONDS:g} s, {CLI_MB:g} MB): {stderr.strip()[:80]}",
            status == 2 and seconds <= CLI_SECONDS and peak < CLI_MB and "Traceback" not in stderr,
        )
    return result


def _crowd(name: str) -> Callable[[], Result]:
    """A check of ``benchmarks/crowd.py`` (real Chromium sessions on a server of its own)."""

    def check() -> Result:
        import crowd

        result = Result()
        result.add(*crowd.CHECKS[name](crowd.load_harness()))
        return result

    return check


CHECKS: dict[str, Callable[[], Result]] = {
    "tokenize-link-40k": check_tokenize_link_40k,
    "tokenize-box-1mb": check_tokenize_box_1mb,
    "tokenize-box-1mb-cl100k": check_tokenize_box_1mb_cl100k,
    "catastrophic-pattern": check_catastrophic_pattern,
    "cli-dev-zero": check_cli_dev_zero,
    "crowd-paste-link": _crowd("paste"),
    "crowd-import": _crowd("import"),
}


def main() -> int:
    global TIMEOUT
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="+", choices=list(CHECKS), help="run only these checks")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per check")
    args = parser.parse_args()
    TIMEOUT = args.timeout
    missed, broken = [], []
    for name in args.only or CHECKS:
        print(f"== {name}", flush=True)
        try:
            result = CHECKS[name]()
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            print(f"  could not run: {error}")
            broken.append(name)
            continue
        for line in result.figures:
            print(f"  {line}", flush=True)
        if not result.met:
            missed.append(name)
    print(f"missed: {', '.join(missed) or 'none'}; could not run: {', '.join(broken) or 'none'}")
    return 1 if missed else 2 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
