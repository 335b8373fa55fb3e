"""What one hostile link, paste, file or command costs (issue 17), with a target for each.

Each check is a named function in ``CHECKS``; it measures, prints its figures and says
whether it met its target. Checks run in fresh subprocesses, so one check's memory is not
counted in the next, and a check that hangs is stopped (``--timeout``).

- ``tokenize-link-40k``: ``/tokenize?tok_text=<40,000 letters>``, the Tokenize page run as a
  server runs it (Streamlit's AppTest, the app's own scripts), default tokenizer. Target:
  at most 10 s and 300 MB of memory growth (peak resident size over the size before).
- ``tokenize-box-1mb`` (``-cl100k``, ``-o200k``, ``-library``): a 1 MB line without spaces
  typed into the Tokenize box, with the trained tokenizer, GPT-4's, GPT-4o's, and a
  ``tokenizer.json`` that the ``tokenizers`` library encodes (imported as an upload is).
  ``compare-box-1mb`` (``-library``): the same in the Compare box, cl100k_base against
  o200k_base, and the library's file against o200k_base. Same target, the box keeping the
  whole text and the page saying which part it tokenizes.
- ``catastrophic-pattern``: a ``.model``, a byte-level ``tokenizer.json`` and one that the
  library reads (a normalizer added), whose split pattern is
  ``(?:[\\s\\S]|[\\s\\S])*\\x00|.``, and the library's file with ``{0,21}`` for ``*``,
  each read as an upload is, its pattern probed afresh (not remembered from the one before);
  and ``encode --model`` on the ``.model`` and the library's file. Target: refused with a
  message within 5 s each, and no CPU used afterwards (nothing left running).
- ``cli-dev-zero``: ``train -``, ``encode --file -`` and ``decode --file -`` with
  ``/dev/zero`` as standard input, and ``train /dev/zero`` (a device, refused). Target: a
  message within 10 s, under 1 GB. Every command is killed after 60 s (a miss).

- ``markdown-fetches``: hostile Markdown (an image and a link to a listener on 127.0.0.1, a
  bare ``www.`` address, a relative image, a bidi override) in every place that shows user
  text in Markdown (``tests/browser/test_markdown_inert.py``), in real Chromium. Target: the
  Markdown fetch count 0, and no user text drawn as a link or an image.

- ``budget-paste-100kb``, ``budget-paste-1mb`` (issue 29): 100 KB or 1 MB of text that does
  not repeat itself pasted on ``?src=paste&pretok=bytes&vocab=1000000`` (100 KB took 91 s and
  1.6 GB before the training budget), the app run as a server runs it (AppTest). Target: the
  budget's sentence within 2 s, memory growth at most 100 MB.
- ``budget-largest``: the largest runs the budget allows (``bpeviz.engine.budget``): 2 MB in
  ``bytes`` mode (2,000,000 symbols, 250 merges), and 100 KB at its most (vocab 5,256, where
  the new tokens' budget stops it), trained, with the history, its tokenizer and the step
  record, in a fresh process each: time and peak memory printed (no target); each trained
  in that process and, as the server trains it, in a child process (``bpeviz.engine.apart``),
  the child's peak printed beside the parent's.
- ``budget-largest-words``: the same for WordPiece and Unigram (``SERVER_WORDPIECE_BUDGET``,
  ``SERVER_UNIGRAM_BUDGET``): distinct words filling the budget, and one word as long as it
  allows; time (wall and CPU) and peak memory printed (no target).
- ``crowd-budget``: twenty sessions at the budget at once (``benchmarks/crowd.py``). Targets:
  the server at most 2 GB, back within 150 MB of where it was 60 s after they close.

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
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CATASTROPHIC = r"(?:[\s\S]|[\s\S])*\x00|."
SLOW_LIBRARY = r"(?:[\s\S]|[\s\S]){0,21}\x00|."  # took the library 31 s on 300 characters
PAGE_SECONDS, PAGE_MB = 10.0, 300.0
PATTERN_SECONDS = 5.0
CLI_SECONDS, CLI_MB = 10.0, 1024.0
CLI_KILL_SECONDS = 60.0  # a command still running then is stopped, and counts as a miss


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
from bpeviz.app.frame.text_input import MAX_BOX_CHARS

def rss_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024

PAGE, MODE, MODELS, LIBRARY = {page!r}, {mode!r}, {models!r}, {library!r}
BOX = {{"tokenize": "tok_text", "compare": "compare_text"}}[PAGE]
SCRIPT = f"app_pages/{{PAGE}}.py"

def page(**params):
    at = AppTest.from_file("app.py", default_timeout=600)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    if LIBRARY:  # a tokenizer.json only the tokenizers library reads, imported as an upload is
        from hf_files import llama3_style
        at.switch_page("app_pages/export.py").run()
        data = llama3_style().to_str().encode()
        at.file_uploader(key="export_model_files").upload("tokenizer.json", data).run()
    at.switch_page(SCRIPT)
    return at.run()

text = ("thecatsatonthemat" * 70_000)[: {size}]
chosen = dict(zip(["tok_model"] if PAGE == "tokenize" else ["cmp_left", "cmp_right"], MODELS))
warm = page(**chosen)  # the app loaded and drawn once
before = rss_mb()
started = time.perf_counter()
if MODE == "link":
    at = page(**{{BOX: text}}, **chosen)
else:
    at = warm.text_area(key=BOX).input(text).run()
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
captions = [c.value for c in at.caption]
print(json.dumps({{
    "seconds": seconds, "growth_mb": peak - before, "before_mb": before,
    "errors": [str(e.value)[:200] for e in at.exception] + [e.value for e in at.error],
    "trace_cut": any("replay below traces only" in c for c in captions),
    "box_cut": any("this page tokenizes the first" in c for c in captions),
    "kept": at.text_area(key=BOX).value == text,
    "cap": MAX_BOX_CHARS,
}}))
"""


def _page_check(
    page: str, mode: str, size: int, models: tuple[str, ...] = (), *, library: bool = False
) -> Result:
    """One text on the Tokenize or Compare page (``models``: the radio's or the two menus'
    choices; ``library``: a tokenizer.json that the tokenizers library encodes, imported)."""
    code = _PAGE.format(page=page, mode=mode, models=models, library=library, size=size)
    figures = _child(code)
    result = Result()
    how = "link" if mode == "link" else "typed"
    what = f"{page}: {size:,} letters without a space ({how}), {' vs '.join(models) or 'trained'}"
    result.add(
        f"{what}: {figures['seconds']:.1f} s (target {PAGE_SECONDS:g} s)",
        figures["seconds"] <= PAGE_SECONDS,
    )
    result.add(
        f"memory growth {figures['growth_mb']:.0f} MB over {figures['before_mb']:.0f} MB "
        f"(target {PAGE_MB:g} MB)",
        figures["growth_mb"] <= PAGE_MB,
    )
    if page == "tokenize" and not library:
        result.add(f"the trace says it is cut: {figures['trace_cut']}", figures["trace_cut"])
    if size > figures["cap"]:
        result.add(
            f"the page says it tokenizes the first {figures['cap']:,} characters: "
            f"{figures['box_cut']}",
            figures["box_cut"],
        )
    result.add(f"the box keeps the whole text: {figures['kept']}", figures["kept"])
    result.add(f"errors on the page: {figures['errors'] or 'none'}", not figures["errors"])
    return result


def check_tokenize_link_40k() -> Result:
    return _page_check("tokenize", "link", 40_000)


def check_tokenize_box_1mb() -> Result:
    return _page_check("tokenize", "box", 1_000_000)


def check_tokenize_box_1mb_cl100k() -> Result:
    return _page_check("tokenize", "box", 1_000_000, ("cl100k_base",))


def check_tokenize_box_1mb_o200k() -> Result:
    return _page_check("tokenize", "box", 1_000_000, ("o200k_base",))


def check_tokenize_box_1mb_library() -> Result:
    return _page_check("tokenize", "box", 1_000_000, ("Imported",), library=True)


def check_compare_box_1mb() -> Result:
    return _page_check("compare", "box", 1_000_000, ("cl100k_base", "o200k_base"))


def check_compare_box_1mb_library() -> Result:
    return _page_check("compare", "box", 1_000_000, ("Imported", "o200k_base"), library=True)


# ---- the training budget -------------------------------------------------------------------

BUDGET_SECONDS, BUDGET_MB = 2.0, 100.0

_BUDGET_LINK = """
import json, resource, time
from streamlit.testing.v1 import AppTest
from test_budget import shuffled_words

def rss_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024

def app(**params):
    at = AppTest.from_file("app.py", default_timeout=600)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()

app()  # the app loaded and drawn once
at = app(src="paste", pretok="bytes", vocab="1000000")
text = shuffled_words({size})  # pasted into the box: a link holds at most 524,288 characters
before = rss_mb()
started = time.perf_counter()
at = at.text_area(key="paste").input(text).run()
seconds = time.perf_counter() - started
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{
    "seconds": seconds, "growth_mb": peak - before, "before_mb": before,
    "errors": [e.value for e in at.error], "exceptions": [str(e.value) for e in at.exception],
}}))
"""


def _budget_link(size: int) -> Result:
    figures = _child(_BUDGET_LINK.format(size=size))
    result = Result()
    said = [error for error in figures["errors"] if "past the training budget" in error]
    result.add(
        f"{size:,}-byte paste at vocab 1,000,000 (bytes): {figures['seconds']:.1f} s (target "
        f"{BUDGET_SECONDS:g} s): {(said or figures['errors'] or ['NO MESSAGE'])[0][:150]}",
        bool(said) and figures["seconds"] <= BUDGET_SECONDS,
    )
    result.add(
        f"memory growth {figures['growth_mb']:.0f} MB over {figures['before_mb']:.0f} MB "
        f"(target {BUDGET_MB:g} MB)",
        figures["growth_mb"] <= BUDGET_MB,
    )
    result.add(f"exceptions: {figures['exceptions'] or 'none'}", not figures["exceptions"])
    return result


def check_budget_paste_100kb() -> Result:
    return _budget_link(100_000)


def check_budget_paste_1mb() -> Result:
    return _budget_link(1_000_000)


_BUDGET_RUN = """
import json, resource, time
from test_budget import shuffled_words
from bpeviz.engine.apart import call_apart
from bpeviz.engine.budget import SERVER_BUDGET
from bpeviz.engine.config import TrainingConfig
from bpeviz.engine.history import History
from bpeviz.engine.trainer import corpus_for, run_training
from bpeviz.records.step import TOP_PAIRS, payload_json

def rss_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024

size = SERVER_BUDGET.symbols if {largest} else 100_000  # the most symbols, or 100 KB
vocab = 256 + SERVER_BUDGET.merge_symbols // size  # the most merges for them
text = shuffled_words(size)
config = TrainingConfig(vocab, "bytes")
corpus = corpus_for(text, config)  # built by the server before its check, apart or not
before = rss_mb()
started = time.perf_counter()
train = call_apart if {apart} else lambda function, *arguments, **options: function(
    *arguments, **options
)
run = train(run_training, corpus, config, top_pairs=TOP_PAIRS, budget=SERVER_BUDGET)
trained = time.perf_counter() - started
record = payload_json(History(run))
seconds = time.perf_counter() - started
print(json.dumps({{
    "size": size, "vocab": vocab, "merges": len(run.steps), "reason": run.stop_reason,
    "trained": trained,
    "seconds": seconds, "record_mb": len(record.encode()) / 1e6,
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before,
    "child_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
}}))
"""


def check_budget_largest() -> Result:
    """The largest runs the budget allows, each in a fresh process: printed, no target.
    Trained in that process, and as the server trains them (``bpeviz.engine.apart``: in a
    child process, the record built in the parent): the parent's peak, and the child's."""
    result = Result()
    for largest in (True, False):
        for apart in (False, True):
            figures = _child(_BUDGET_RUN.format(largest=largest, apart=apart))
            where = (
                f"trained apart (the child's peak {figures['child_mb']:.0f} MB)"
                if apart
                else "trained in process"
            )
            result.add(
                f"{figures['size']:,} bytes at vocab {figures['vocab']:,} (bytes), {where}: "
                f"{figures['merges']:,} merges "
                f"({figures['reason'][:60]}), trained in {figures['trained']:.1f} s, with the "
                f"history and its {figures['record_mb']:.1f} MB step record "
                f"{figures['seconds']:.1f} s; peak memory {figures['peak_mb']:.0f} MB above "
                "the start",
                True,
            )
    return result


_WORDS_RUN = """
import json, random, resource, string, time
from bpeviz.engine.budget import (
    SERVER_UNIGRAM_BUDGET, SERVER_WORDPIECE_BUDGET, seed_substrings,
)
from bpeviz.engine.unigram import train_unigram
from bpeviz.engine.wordpiece import UNK, initial_vocab, split_words, train_wordpiece

ALGORITHM, LONG = {algorithm!r}, {long}
rng = random.Random(29)

def word(size):
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(size))

if ALGORITHM == "wordpiece":
    budget = SERVER_WORDPIECE_BUDGET
    if LONG:  # one word as long as the new tokens' budget lets train for 20 merges
        text = word(budget.token_symbols // 20)
    else:  # distinct words of 3 to 12 letters, as many characters as the budget takes
        words, held = [], 0
        while held < budget.symbols - 12:
            words.append(word(rng.randint(3, 12)))
            held += len(words[-1])
        text = " ".join(dict.fromkeys(words))
    words = tuple(dict.fromkeys(split_words(text)))
    chars, longest = sum(map(len, words)), max(map(len, words))
    first = len(initial_vocab(words, (UNK,)))
    merges = min(budget.merge_symbols // chars, budget.token_symbols // longest)
    vocab = first + merges
    train = lambda: train_wordpiece(text, vocab, top_pairs=12, budget=budget)
    made = lambda run: f"{{len(run.steps):,}} merges"
else:
    budget = SERVER_UNIGRAM_BUDGET
    if LONG:  # one word as long as the budget allows, trained to a small vocabulary
        text, vocab = word(budget.word_chars - 1), 100
    else:  # distinct words of 3 to 12 letters, as many substrings as the budget takes
        words, held = [], 0
        while True:
            new = word(rng.randint(3, 12))
            cost = seed_substrings(len(new) + 1, 16)  # with its leading mark
            if held + cost > budget.substrings:
                break
            words.append(new)
            held += cost
        text, vocab = " ".join(dict.fromkeys(words)), 4096
    train = lambda: train_unigram(text, vocab, budget=budget)
    made = lambda run: f"{{len(run.rounds):,}} rounds, seed {{run.seed_pieces:,}} pieces"

def rss_mb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024

before = rss_mb()
cpu, started = time.process_time(), time.perf_counter()
run = train()
print(json.dumps({{
    "text": len(text), "vocab": vocab, "made": made(run),
    "seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu,
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - before,
}}))
"""


def check_budget_largest_words() -> Result:
    """The largest WordPiece and Unigram runs their budgets allow (many distinct words, and
    one long word), each in a fresh process: printed, no target."""
    result = Result()
    for algorithm in ("wordpiece", "unigram"):
        for long in (False, True):
            figures = _child(_WORDS_RUN.format(algorithm=algorithm, long=long))
            kind = "one word" if long else "distinct words"
            result.add(
                f"{algorithm}, {kind}: {figures['text']:,} characters at vocab "
                f"{figures['vocab']:,}: {figures['made']}, {figures['seconds']:.1f} s "
                f"({figures['cpu']:.1f} s of CPU); peak memory {figures['peak_mb']:.0f} MB "
                "above the start",
                True,
            )
    return result


# ---- a pattern that would hang -------------------------------------------------------------

_PATTERN = """
import json, pathlib, time
from hf_helpers import split_json
from bpeviz.formats import load_model_file
from bpeviz.formats.hf_models import read_tokenizer_json
from bpeviz.engine.pretokenize import _verdict

def library_file(pattern):
    document = json.loads(split_json(pattern))
    document["normalizer"] = {{"type": "NFC"}}  # our reader refuses it: the library's path
    return json.dumps(document).encode()

PATTERN = {catastrophic!r}
model = f"minbpe v1\\n{{PATTERN}}\\n0\\n97 97\\n".encode()
files = {{  # name: (how an upload of it is read, its bytes)
    "evil.model": (lambda data: load_model_file("evil.model", data), model),
    "tokenizer.json": (lambda data: load_model_file("tokenizer.json", data),
                       split_json({catastrophic!r}).encode()),
    "library tokenizer.json": (read_tokenizer_json, library_file({catastrophic!r})),
    "library tokenizer.json, {{0,21}}": (read_tokenizer_json, library_file({slow!r})),
}}
out = {{}}
for name, (read, data) in files.items():
    _verdict.cache_clear()  # each file probed afresh, as a new pattern is
    started = time.perf_counter()
    try:
        read(data)
        message = None
    except ValueError as error:
        message = str(error)
    out[name] = {{"seconds": time.perf_counter() - started, "message": message}}
cpu = time.process_time()
time.sleep(1.0)
out["cpu_after"] = time.process_time() - cpu
folder = pathlib.Path({folder!r})  # for the command line
(folder / "evil.model").write_bytes(model)
(folder / "tokenizer.json").write_bytes(files["library tokenizer.json"][1])
print(json.dumps(out))
"""


def check_catastrophic_pattern() -> Result:
    """Each file read as an upload is (the pattern's verdict forgotten before each, so each
    is probed), then ``encode --model`` on the ``.model`` and on the library's file."""
    result = Result()
    with tempfile.TemporaryDirectory() as folder:
        code = _PATTERN.format(catastrophic=CATASTROPHIC, slow=SLOW_LIBRARY, folder=folder)
        figures = _child(code)
        cpu_after = figures.pop("cpu_after")
        for name, found in figures.items():
            result.add(
                f"{name}: refused in {found['seconds']:.1f} s (target {PATTERN_SECONDS:g} s): "
                f"{(found['message'] or 'NOT REFUSED')[:110]}",
                found["message"] is not None and found["seconds"] <= PATTERN_SECONDS,
            )
        result.add(
            f"CPU used in the second after: {cpu_after:.3f} s (nothing left running)",
            cpu_after < 0.1,
        )
        for name in ("evil.model", "tokenizer.json"):
            path = str(Path(folder) / name)
            seconds, cpu, status, _, stderr = _cli(["encode", "--model", path, "--text", "a" * 99])
            result.add(
                f"encode --model {name}: exit {status} in {seconds:.1f} s ({cpu:.1f} s CPU): "
                f"{stderr.strip()[:90]}",
                status == 2 and seconds <= PATTERN_SECONDS and "Traceback" not in stderr,
            )
    return result


# ---- the command line on an endless file ---------------------------------------------------


def _cli(args: list[str], stdin: str = os.devnull) -> tuple[float, float, int, float, str]:
    """Run ``python -m bpeviz args`` with ``stdin`` (a path) as its standard input: seconds,
    CPU seconds (what a busy machine does not inflate), exit status, peak memory (MB),
    stderr. One still running after ``CLI_KILL_SECONDS`` is killed (exit -9, which no target
    accepts)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder, open(stdin, "rb") as source:
        process = subprocess.Popen(
            [sys.executable, "-m", "bpeviz", *args],
            cwd=folder,
            env=env,
            stdin=source,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = threading.Timer(CLI_KILL_SECONDS, process.kill)
        deadline.start()
        try:
            stderr = process.stderr.read() if process.stderr else ""
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            deadline.cancel()
            if process.poll() is None:
                process.kill()
    seconds = time.perf_counter() - started
    if seconds >= CLI_KILL_SECONDS:
        stderr = f"(killed after {CLI_KILL_SECONDS:g} s) {stderr}"
    cpu = usage.ru_utime + usage.ru_stime
    return seconds, cpu, os.waitstatus_to_exitcode(status), usage.ru_maxrss / 1024, stderr


def check_cli_dev_zero() -> Result:
    result = Result()
    commands = {  # "-": standard input, /dev/zero piped in; named, it is refused as a device
        "train": ["train", "-", "--vocab-size", "300", "--out", "x"],
        "encode --file": ["encode", "--encoding", "cl100k_base", "--file", "-"],
        "decode --file": ["decode", "--encoding", "cl100k_base", "--file", "-"],
        "train (named)": ["train", "/dev/zero", "--vocab-size", "300", "--out", "x"],
    }
    for name, args in commands.items():
        seconds, cpu, status, peak, stderr = _cli(args, stdin="/dev/zero")
        result.add(
            f"{name} < /dev/zero: exit {status} in {seconds:.1f} s ({cpu:.1f} s CPU), peak "
            f"{peak:.0f} MB (targets "
            f"{CLI_SECONDS:g} s, {CLI_MB:g} MB): {stderr.strip()[:80]}",
            status == 2 and seconds <= CLI_SECONDS and peak < CLI_MB and "Traceback" not in stderr,
        )
    return result


# ---- user text in Markdown ----------------------------------------------------------------


def check_markdown_fetches() -> Result:
    """The hostile places of ``tests/browser/test_markdown_inert.py`` (Two runs' tables in
    presentation mode, an imported file's suffix and name on four pages, a lesson, an
    uploaded text's name, special tokens on five pages), in real Chromium with a listener on
    127.0.0.1: what the browser asked of it, and of the relative pixel, counted."""
    from browser_latency import load_harness

    harness = load_harness()
    for folder in (ROOT / "tests", ROOT / "tests" / "browser"):
        if str(folder) not in sys.path:
            sys.path.insert(0, str(folder))
    import test_markdown_inert as places
    from playwright.sync_api import sync_playwright

    scenarios = [
        ("two runs", places.test_two_runs_tables_in_presentation_mode_fetch_nothing, {}),
        ("imported file", places.test_an_imported_files_suffix_and_name_fetch_nothing, {}),
        ("lesson", places.test_a_lesson_fetches_nothing_and_keeps_its_emphasis, {}),
        ("uploaded text's name", places.test_an_uploaded_texts_name_fetches_nothing, {}),
        *[(f"special tokens on {page}", places.test_special_tokens_fetch_nothing, {"page": page})
          for page in ("step", "tokenize", "compare", "runs", "export")],
    ]  # fmt: skip
    result = Result()
    listener = places.Listener()
    pixels: list[str] = []
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        server = harness.start_server(Path(folder) / "server.log")
        browser = playwright.chromium.launch(
            executable_path=str(harness.CHROMIUM), headless=True, args=harness.CHROMIUM_ARGS
        )
        try:
            for name, scenario, kwargs in scenarios:
                app = harness.new_app_page(browser, server.url)
                counter = places.Fetches(app, listener)
                try:
                    scenario(app, listener, **kwargs)
                except AssertionError as error:
                    failures.append(f"{name}: {str(error).splitlines()[0][:120]}")
                finally:
                    pixels.extend(counter.pixels)
                    app.page.context.close()
        finally:
            browser.close()
            harness.stop_server(server)
            listener.close()
    count = len(listener.hits) + len(pixels)
    result.add(f"the Markdown fetch count: {count} over {len(scenarios)} places (target 0)",
               count == 0)  # fmt: skip
    result.add(f"user text drawn as links or images: {failures or 'none'}", not failures)
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
    "tokenize-box-1mb-o200k": check_tokenize_box_1mb_o200k,
    "tokenize-box-1mb-library": check_tokenize_box_1mb_library,
    "compare-box-1mb": check_compare_box_1mb,
    "compare-box-1mb-library": check_compare_box_1mb_library,
    "catastrophic-pattern": check_catastrophic_pattern,
    "cli-dev-zero": check_cli_dev_zero,
    "budget-paste-100kb": check_budget_paste_100kb,
    "budget-paste-1mb": check_budget_paste_1mb,
    "budget-largest": check_budget_largest,
    "budget-largest-words": check_budget_largest_words,
    "markdown-fetches": check_markdown_fetches,
    "crowd-paste-link": _crowd("paste"),
    "crowd-import": _crowd("import"),
    "crowd-budget": _crowd("budget"),
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
