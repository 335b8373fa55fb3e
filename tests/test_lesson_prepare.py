"""A lesson's slides are computed before the class reaches them (issue 28, item 8; the module
``bpeviz/app/lesson/prepare.py``). Under AppTest: the bundled lesson opened from a link is
prepared in the background; once that is done, every slide is shown with the slow work
refused (training, the Compression page's curves and tables, a real tokenizer's ranks, the
Step page's record), and no slide's page needs any of it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
import streamlit as st
from apptest_support import new_app, run

import bpeviz.app.step.view as step_view
import bpeviz.real.registry as registry
from bpeviz.app.compression import curves, parallel
from bpeviz.app.frame import training
from bpeviz.app.lesson import prepare
from bpeviz.app.lesson.prepare import progress_of
from bpeviz.app.lesson.slides import bundled_lessons
from bpeviz.app.shared import charts
from bpeviz.classroom.hubs.choose import current_hub
from bpeviz.classroom.state import View

PREPARED_WITHIN_S = 600  # the whole lesson on a loaded two-core machine


class ComputedLate(AssertionError):
    """A slide's page computed what the lesson's preparation should have."""


def refused(name: str) -> Callable[..., Any]:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise ComputedLate(f"{name} ran when a slide was shown")

    return refuse


def wait_prepared(lesson: Any) -> None:
    deadline = time.monotonic() + PREPARED_WITHIN_S
    while (progress := progress_of(lesson)) is None or not progress.finished:
        assert progress is not None, "loading the lesson started no preparation"
        assert time.monotonic() < deadline, f"{progress.done} of {progress.slides} slides"
        time.sleep(0.05)


@pytest.fixture
def cold_caches() -> None:
    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.mark.usefixtures("cold_caches")
def test_every_slide_of_a_loaded_lesson_is_computed_before_it_is_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prepare, "PREPARING", True)  # apptest_support turns it off
    lesson = bundled_lessons()["bpe"]
    at = run(new_app(lesson="bpe"))
    wait_prepared(lesson)
    references_for = curves.references_for
    monkeypatch.setattr(training, "run_training", refused("training"))
    monkeypatch.setattr(curves, "compression_curves", refused("the compression curves"))
    monkeypatch.setattr(
        curves,  # the page measures its own lines (none on these slides) with it too
        "references_for",
        lambda real, texts: (
            refused("the real tokenizers' lines")() if real else references_for(real, texts)
        ),
    )
    monkeypatch.setattr(parallel, "passage_table", refused("the parallel passage's table"))
    monkeypatch.setattr(registry, "load_bundled", refused("loading a real tokenizer's ranks"))
    monkeypatch.setattr(step_view, "payload_json", refused("the Step page's record"))
    monkeypatch.setattr(charts, "vega_spec", refused("the Compression page's chart"))
    for number in range(2, len(lesson.slides) + 1):  # the first was shown before: loaded it
        at = run(at.button(key="lesson_next").click())
        assert at.query_params["slide"] == str(number)


def test_a_student_joining_a_class_prepares_its_lesson_in_the_students_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Behind scripts/serve.py a student's worker may not be the teacher's, and each worker
    has caches of its own: the class's run names its lesson, and a join prepares it there."""
    monkeypatch.setattr(prepare, "PREPARING", True)
    lesson = bundled_lessons()["bpe"]
    class_run = {"state": {}, "pages": {}, "lesson": {"lesson": "bpe"}}
    code, _key = current_hub().create(class_run, View())
    assert progress_of(lesson) is None
    run(new_app(**{"class": code}))
    wait_prepared(lesson)


COURSE = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5


@pytest.mark.usefixtures("cold_caches")
def test_a_unigram_slide_is_prepared_as_a_unigram_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """prepare.py trained WordPiece for every algorithm but BPE, so a Unigram slide got a
    WordPiece run it never shows, and its page then trained Unigram while the class waited."""
    from bpeviz.app.frame import unigram_runs
    from bpeviz.app.lesson.slides import Slide
    from bpeviz.app.step import unigram as unigram_step

    monkeypatch.setattr(prepare, "wordpiece_for", refused("WordPiece training"))
    view = {"src": "paste", "paste": COURSE, "algo": "unigram", "pretok": "words", "vocab": 12}
    for job in prepare.slide_jobs(Slide("Unigram", "step", view)):
        job()
    monkeypatch.setattr(unigram_runs, "train_unigram", refused("Unigram training"))
    monkeypatch.setattr(unigram_step, "unigram_payload", refused("the Unigram record"))
    at = run(new_app(**Slide("Unigram", "step", view).query()))
    assert not at.error


@pytest.mark.usefixtures("cold_caches")
def test_the_two_runs_slide_is_prepared_with_its_comparison(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """prepare.py trained the Two runs slide's runs and drew their chart, but not what the page
    compares of them (the merges only one run makes, those the other's pre-tokenizer cuts,
    their tables: ``two_runs/compared.py``), so the teacher's first load of the slide made
    them while the class waited (slide 10: 5.6 s with a hundred students following)."""
    from bpeviz.app.two_runs import parting

    lesson = bundled_lessons()["bpe"]
    number = next(n for n, s in enumerate(lesson.slides, 1) if s.page == "runs")
    for slide in lesson.slides[number - 2 : number]:  # the slide before, where Next is clicked
        for job in prepare.slide_jobs(slide):
            job()
    at = run(new_app(lesson="bpe", slide=str(number - 1)))
    monkeypatch.setattr(training, "run_training", refused("training"))
    for name in ("only_in", "cut_by", "merge_frame"):
        monkeypatch.setattr(parting, name, refused(f"the runs' comparison ({name})"))
    at = run(at.button(key="lesson_next").click())
    assert at.title[0].value == "Two training runs"


def test_a_slides_page_is_compiled_where_the_server_keeps_its_scripts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its first visitor (the teacher, on the slide, while the class's reruns share the core)
    compiled it: Two runs' took 68 ms of that load's 291 ms of script CPU."""
    from pathlib import Path

    from streamlit.runtime import Runtime
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache

    scripts = ScriptCache()
    server = type("Server", (), {"_script_cache": scripts})()
    monkeypatch.setattr(Runtime, "exists", classmethod(lambda cls: True))
    monkeypatch.setattr(Runtime, "instance", classmethod(lambda cls: server))
    prepare.compile_page("runs")
    page = (Path(__file__).parents[1] / "app_pages" / "two_runs.py").resolve()  # as st.Page has it
    assert list(scripts._cache) == [str(page)]
