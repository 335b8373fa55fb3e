"""Issue 29: an open page keeps no run the server's bounded cache of runs has let go.

Streamlit keeps what a page hands it for as long as the session is open: a download's
function, a button's or menu's callback, a menu's format function. A function the page script
defines holds the script's globals, the sidebar's run among them, so twenty open pages at the
budget kept twenty runs (240 MB) after the cache let them go. Pages hand Streamlit only
functions of modules, which name a run (text and settings) and never hold it.
"""

from __future__ import annotations

import gc

import pytest
from apptest_support import keep_downloads, open_page

from bpeviz.app.frame import training, unigram_runs
from bpeviz.engine.history import History
from bpeviz.engine.unigram import UnigramRun
from bpeviz.engine.wordpiece_history import WordPieceHistory

PAGES = ["step", "tokenize", "compare", "compression", "two_runs", "export", "about"]
WORD = "tugboat"  # a word no other test trains on, so only this test's runs are counted


def trained_on(run: object, word: str) -> bool:
    """Whether ``run`` is a run (of any algorithm) whose training text holds ``word``."""
    kind = type(run)  # not isinstance: a dead weak proxy among the objects would raise
    if issubclass(kind, History | WordPieceHistory):
        return word in str(run.text)  # type: ignore[attr-defined]
    return issubclass(kind, UnigramRun) and any(word in piece for piece in run.words)  # type: ignore[attr-defined]


@pytest.mark.parametrize("algorithm", ["bpe", "wordpiece", "unigram"])
@pytest.mark.parametrize("page", PAGES)
def test_an_open_page_keeps_no_run_the_cache_let_go(
    page: str, algorithm: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = keep_downloads(monkeypatch)  # as a server keeps them (AppTest drops them)
    text = f"hug pug pun bun hugs {WORD} " * 4
    link = {"src": "paste", "paste": text, "algo": algorithm, "pretok": "words"}
    session = open_page(f"app_pages/{page}.py", **link, vocab="270" if algorithm == "bpe" else "20")
    assert [run for run in gc.get_objects() if trained_on(run, WORD)] or page == "about"
    training._runs.clear()  # the caches let every run go, as the next sessions' runs make them
    training.step_records.clear()
    unigram_runs._unigram_runs.clear()
    gc.collect()
    assert not [run for run in gc.get_objects() if trained_on(run, WORD)], f"{page} keeps a run"
    for make, name in made.values():  # a download clicked now: made from the run found again
        assert not callable(make) or make(), name
    assert not session.exception  # the session stayed open throughout
