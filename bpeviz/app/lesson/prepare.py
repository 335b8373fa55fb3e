"""A lesson's slides computed before the class reaches them (issue 28: "no slide keeps a class
waiting").

A slide is a view of the app, and the first load of a view pays for what it needs: a training
run, the Step page's record of it, a real tokenizer's ranks, the Compression page's curves
and tables (13 s on the first visit), the Two runs page's two runs and their comparison
(4.6 s), the page's script compiled. In a class the whole room waits for that. So when a
lesson is loaded, or a class starts, every slide's view is computed in the background into
the caches its page reads, which every session of the server shares: the slide on screen
first, then the ones after it, then those before.

Bounded: one thread per server process does it (one core at most), its training takes turns
with the sessions' (:func:`bpeviz.app.frame.training.taking_turns`, two at once), a lesson is
prepared once while it is queued or under way, and a slide once per :data:`SLIDE_KEPT_S`
(the caches may have let its work go since). What is left out: what a page draws on every
run anyway (charts, HTML), and a slide whose page cannot be computed from the lesson alone
(an upload, a bad setting): its page says why when it is shown. A failure here is skipped,
never raised: preparing must not break a lesson.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import queue
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st
from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner.script_cache import ScriptCache

from bpeviz.app.compression import curves as compression
from bpeviz.app.frame.run_settings import check_settings, default_state, settings_from_state
from bpeviz.app.frame.text_input import TrainingText, text_from_paste
from bpeviz.app.frame.training import (
    Run,
    compression_chart_spec,
    compression_key,
    compression_numbers,
    encode,
    history_for,
    history_key,
    real_tokenizer,
    sample_curves,
    sample_passages,
    sample_references,
    train_sample,
    wordpiece_for,
)
from bpeviz.app.frame.unigram_runs import unigram_run_for, unigram_text
from bpeviz.app.lesson.slides import PAGES, Lesson, Slide, slide_state, to_toml
from bpeviz.app.shared.choices import TRAINED
from bpeviz.app.step.unigram import unigram_record
from bpeviz.app.step.view import prepare_record
from bpeviz.app.two_runs import parting as runs
from bpeviz.app.two_runs import state as runs_state
from bpeviz.app.two_runs.across_view import train_run
from bpeviz.app.two_runs.chart import RUNS_CHART_HEIGHT, curves_spec
from bpeviz.app.two_runs.compared import compared
from bpeviz.engine.history import History
from bpeviz.engine.samples import get_sample
from bpeviz.real.registry import bundled_names

APP_ROOT = Path(__file__).resolve().parents[3]  # where app.py's pages are
SLIDE_KEPT_S = 600  # a slide prepared this recently is not prepared again
# Whether loading a lesson prepares it. AppTest runs the app inside the test process, where a
# thread still preparing after one test would fill the next test's fresh caches:
# ``tests/apptest_support.py`` turns it off there (``tests/test_lesson_prepare.py`` back on).
PREPARING = True
MOST_LESSONS = 16  # lessons whose progress is kept (the oldest forgotten first)


@dataclass
class Progress:
    """How far one lesson's preparation got: slides done (prepared or skipped) of all."""

    slides: int
    done: int = 0
    started: float = field(default_factory=time.monotonic)
    seconds: float | None = None  # when every slide is done: how long they took

    @property
    def finished(self) -> bool:
        return self.done >= self.slides


class _Preparations:
    """The server's one queue of lessons to prepare, its one thread (a daemon: a server
    stopping does not wait for it), and each lesson's progress."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.queue: queue.SimpleQueue[tuple[list[Slide], Progress]] = queue.SimpleQueue()
        self.progress: OrderedDict[str, Progress] = OrderedDict()
        threading.Thread(target=self._work, name="bpeviz-lesson", daemon=True).start()

    def _work(self) -> None:
        while True:
            _prepare_all(*self.queue.get())


@st.cache_resource(show_spinner=False)
def _preparations() -> _Preparations:
    return _Preparations()


def lesson_key(lesson: Lesson) -> str:
    """A lesson's name for its progress: its file's digest (two sessions' same lesson share)."""
    return hashlib.sha256(to_toml(lesson).encode("utf-8")).hexdigest()[:16]


def prepare_lesson(lesson: Lesson, *, first: int = 0) -> None:
    """Compute every slide of ``lesson`` in the background, slide ``first`` (from 0) first.
    Returns at once; nothing happens when it is queued, under way or done lately (a class of
    students joining asks for it once each)."""
    if not PREPARING:
        return
    server = _preparations()
    key = lesson_key(lesson)
    with server.lock:
        held = server.progress.get(key)
        if held is not None and time.monotonic() - held.started < SLIDE_KEPT_S:
            return  # under way, or done lately: its slides are still kept
        server.progress[key] = Progress(len(lesson.slides))
        server.progress.move_to_end(key)
        while len(server.progress) > MOST_LESSONS:
            server.progress.popitem(last=False)
    count = len(lesson.slides)
    order = [lesson.slides[(first + shift) % count] for shift in range(count)]
    server.queue.put((order, server.progress[key]))


def progress_of(lesson: Lesson) -> Progress | None:
    """The lesson's preparation, if one was started in this process."""
    return _preparations().progress.get(lesson_key(lesson))


def _prepare_all(slides: list[Slide], progress: Progress) -> None:
    for slide in slides:
        with contextlib.suppress(Exception):  # the slide's page says what is wrong, if shown
            _prepared(json.dumps([slide.page, slide.query()], sort_keys=True), slide)
        progress.done += 1
    progress.seconds = time.monotonic() - progress.started


@st.cache_resource(max_entries=256, ttl=SLIDE_KEPT_S, show_spinner=False)
def _prepared(key: str, _slide: Slide) -> float:
    """Prepare ``_slide`` (named by ``key``: its page and view); the seconds it took.

    A cached function of its own: a slide is done once while kept, and the cached functions
    it calls show no spinner (Streamlit shows one for the outermost only), which a thread
    with no page to show it in must not try."""
    started = time.perf_counter()
    for job in slide_jobs(_slide):
        job()
    return time.perf_counter() - started


def slide_jobs(slide: Slide) -> list[Callable[[], object]]:
    """What the first load of ``slide``'s page computes, as calls of the shared caches the
    page itself calls (in the order the page does): each a cache hit once done."""
    state = default_state() | slide_state(slide)[0]
    settings = settings_from_state(state)
    text = _text(state, settings.source, settings.sample_key)
    jobs: list[Callable[[], object]] = [lambda: compile_page(slide.page)]
    trainable = text is not None and not any(m.level == "error" for m in check_settings(settings))
    run: Callable[[], Run] | None = None
    if trainable and text is not None and settings.algorithm == "unigram":
        trainable = False  # the Unigram run is the slide's only run
        data = unigram_text(text)[0]  # else the page says why it cannot train
        if data is not None and slide.page not in ("about", "export"):

            def unigram_run() -> object:
                found, key = unigram_run_for(text, data, settings)
                return unigram_record(found, data, key) if slide.page == "step" else found

            jobs.append(unigram_run)
    if trainable and text is not None and slide.page not in ("about", "export"):

        def run() -> Run:
            if not settings.is_bpe:
                return wordpiece_for(text, settings)
            history = history_for(text, settings)
            history.tokenizer  # noqa: B018 (built once, kept with the run)
            return history

        jobs.append(run)
    if slide.page == "step" and run is not None:
        jobs.append(lambda: prepare_record(run(), int(state.get("step") or 0)))
    elif slide.page == "tokenize":
        jobs += _tokenize_jobs(state, run)
    elif slide.page == "runs" and text is not None:
        jobs.append(lambda: _two_runs(text, settings, state))
    elif slide.page == "compression":
        jobs += _compression_jobs(int(state.get("compression_vocab") or 1024), settings)
    elif slide.page == "compare":
        names = [state.get(key) for key in ("cmp_left", "cmp_right")]
        jobs += [
            lambda name=name: real_tokenizer(name) for name in names if name in bundled_names()
        ]
    return jobs


def compile_page(page: str) -> None:
    """The page's script compiled into the server's one cache of scripts, which its first
    visitor fills (the teacher, on the slide: Two runs' took 70 ms of its 220 ms of CPU, and
    a class's reruns share the cores with it). Without a running server's (AppTest's runtime
    is a stand-in), nothing; a page that fails to compile says so when shown."""
    scripts = getattr(Runtime.instance(), "_script_cache", None) if Runtime.exists() else None
    if isinstance(scripts, ScriptCache):
        with contextlib.suppress(Exception):
            scripts.get_bytecode(str(APP_ROOT / PAGES[page]))


def _text(state: dict[str, Any], source: str, sample_key: str) -> TrainingText | None:
    """The sidebar's text the slide trains on (a sample or a pasted text; an upload is a
    session's own)."""
    if source == "paste":
        return text_from_paste(state.get("paste"))[0]
    if source != "sample":
        return None
    try:
        sample = get_sample(sample_key)
    except ValueError:
        return None
    return TrainingText(sample.title, sample.text, "sample")


def _tokenize_jobs(
    state: dict[str, Any], run: Callable[[], Run] | None
) -> list[Callable[[], object]]:
    """A real tokenizer's ranks, and the slide's text encoded, as the Tokenize page keys it."""
    model, text = state.get("tok_model"), state.get("tok_text")
    if model in bundled_names():
        jobs: list[Callable[[], object]] = [lambda: real_tokenizer(model)]
        if text:
            jobs.append(lambda: encode(real_tokenizer(model), model, text))
        return jobs
    if model == TRAINED and run is not None and text:

        def trained() -> object:
            history = run()
            if not isinstance(history, History):  # the page encodes another algorithm's
                return None
            return encode(history.tokenizer, history_key(history), text)

        return [trained]
    return []


def _two_runs(text: TrainingText, sidebar: Any, state: dict[str, Any]) -> object:
    """The Two runs page's two runs, what it compares of them (:mod:`bpeviz.app.two_runs.compared`),
    and their curves' chart at the step the page opens on (as the projector and as a
    student's page draw it)."""
    histories, labelled, pretokenizers = {}, {}, {}
    for name in runs.RUN_NAMES:
        chosen = runs_state.run_settings(state, name, runs_state.DEFAULTS[name])
        full = runs_state.trained_settings(sidebar, chosen)
        histories[name] = train_run(text, full)[0]
        if not isinstance(histories[name], History):
            return None  # runs of other algorithms: the page encodes them itself
        histories[name].tokenizer  # noqa: B018
        labelled[f"{name}: {chosen.summary()}"] = histories[name]
        pretokenizers[name] = chosen.pretokenizer
    merges = list(compared(histories, pretokenizers).merges.values())
    difference = runs.first_difference(*merges)
    last = max(len(merges[0]), len(merges[1]))
    opens = state.get(runs_state.KEY_STEP, min(difference.step, last) if difference else last)
    step = min(int(opens), last)
    for projector, height in ((True, RUNS_CHART_HEIGHT[True]), (False, RUNS_CHART_HEIGHT[False])):
        curves_spec(labelled, step=step, height=height, projector=projector)
    return labelled


def _compression_jobs(vocab: int, sidebar: Any) -> list[Callable[[], object]]:
    """The Compression page at this vocab size, its toggles as they start (every line on),
    and its chart as the projector and the students draw it (when the sidebar's run is one
    of its curves: else each session measures its own line)."""
    samples = tuple(compression.SAMPLES.items())
    rules = (compression.PRETOKENIZER, compression.TIE_BREAK)
    jobs: list[Callable[[], object]] = [
        lambda key=key: train_sample(key, vocab, *rules) for _, key in samples
    ]
    jobs.append(lambda: sample_curves(samples, vocab, *rules, True))

    def real_lines() -> object:
        try:
            sample_references(samples)
            return sample_passages(samples, vocab, *rules, real=True)
        except RuntimeError:  # a real tokenizer's ranks are missing: the page says so
            return sample_passages(samples, vocab, *rules, real=False)

    jobs.append(real_lines)
    on_a_curve = compression.on_a_curve(
        sidebar, [key for _, key in samples], pretokenizer=rules[0], tie_break=rules[1],
        max_vocab=vocab,
    )  # fmt: skip

    def chart(projector: bool) -> object:
        texts = {name: train_sample(key, vocab, *rules).text for name, key in samples}
        references = pd.concat(
            [sample_references(samples), compression.references_for({}, texts)]
        ).reset_index(drop=True)
        curves = sample_curves(samples, vocab, *rules, True)
        key = compression_key(samples, vocab, cross=True, references=True)
        marker = sidebar.vocab_size if sidebar.vocab_size >= sidebar.base_size else None
        if marker is not None:
            languages = tuple(compression.SAMPLES)
            compression_numbers(key, marker, languages, _curves=curves, _references=references)
        return compression_chart_spec(
            key, marker, projector=projector, _curves=curves, _references=references
        )

    if on_a_curve:
        jobs += [lambda projector=projector: chart(projector) for projector in (True, False)]
    return jobs
