"""The training cache: one training run per settings and text, shared by every page and
session, so switching pages or opening a link on a second laptop never trains twice.

Also the other cached heavy things the pages share: the real ``cl100k_base`` and
``o200k_base`` tokenizers (loaded once per server), encodings of texts with them, and
imported model files (read once per content, whoever uploads them).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from streamlit import dataframe_util
from streamlit.runtime.scriptrunner import get_script_run_ctx

from bpeviz.app.compression import curves as compression
from bpeviz.app.compression import parallel
from bpeviz.app.export.files import LoadedModel, load_upload
from bpeviz.app.frame.reaper import give_back_freed_memory
from bpeviz.app.frame.run_settings import (
    Message,
    Settings,
    check_settings,
    not_for_this_page,
    outcome_messages,
)
from bpeviz.app.frame.sized_cache import SizedCache
from bpeviz.app.frame.state import current_settings, text_and_messages
from bpeviz.app.frame.text_input import TrainingText
from bpeviz.app.frame.widgets import show_messages
from bpeviz.app.shared import charts
from bpeviz.app.shared.choices import BYTES, IMPORTED, TRAINED
from bpeviz.engine.apart import call_apart
from bpeviz.engine.budget import (
    SERVER_BUDGET,
    SERVER_WORDPIECE_BUDGET,
    check_wordpiece_budget,
    trained_symbols,
)
from bpeviz.engine.config import TrainingConfig
from bpeviz.engine.history import History
from bpeviz.engine.samples import get_sample
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.engine.trainer import check_run, corpus_for, run_training
from bpeviz.engine.wordpiece import UNK, initial_vocab, split_words, train_wordpiece
from bpeviz.engine.wordpiece_history import WordPieceHistory
from bpeviz.formats.hf_models import LibraryTokenizer, read_tokenizer_json
from bpeviz.formats.hf_wordpiece import to_hf_wordpiece_json
from bpeviz.real.registry import bundled_names
from bpeviz.records.step import TOP_PAIRS

PROGRESS_AFTER_SECONDS = 0.3
# Runs training at once, per server process: the machine's two cores. Training is CPU-bound,
# so more at once finish no sooner and only hold more memory (20 sessions at the budget
# would each hold a trainer's few hundred MB); a session past them waits its turn.
TRAINING_AT_ONCE = 2


# A run over this many symbols (BPE's distinct pieces, WordPiece's distinct words' characters,
# Unigram's characters) trains in a child process (bpeviz.engine.apart): its million small
# temporaries would otherwise stay scattered over the server's heap after it. Smaller runs
# (the bundled samples' 5,000) train here: a child's start (0.3 s, more under load) would
# cost more than their whole run, and their temporaries are a few megabytes.
APART_FROM_SYMBOLS = 20_000


def trained(size: int, function: Callable[..., Any], *arguments: Any, **options: Any) -> Any:
    """``function(*arguments, **options)``, in a child process when ``size`` (the symbols the
    run trains on) reaches :data:`APART_FROM_SYMBOLS`, else in this one."""
    if size < APART_FROM_SYMBOLS:
        return function(*arguments, **options)
    return call_apart(function, *arguments, **options)


@st.cache_resource(show_spinner=False)
def _training_turns() -> threading.BoundedSemaphore:
    return threading.BoundedSemaphore(TRAINING_AT_ONCE)


@contextmanager
def taking_turns(turns: threading.BoundedSemaphore, waiting: Callable[[], None]) -> Iterator[None]:
    """Hold one of ``turns`` while the block runs; when none is free, call ``waiting`` (to
    say so) and wait for one. The freed memory goes back to the system afterwards: what a
    trainer freed in the middle of the heap would otherwise stay counted against the server.
    """
    if not turns.acquire(blocking=False):
        waiting()
        turns.acquire()
    try:
        yield
    finally:
        turns.release()
        give_back_freed_memory()


@contextmanager
def training_turn() -> Iterator[None]:
    """One of the server's :data:`TRAINING_AT_ONCE` turns to train, saying so while this
    session waits for one."""
    note: Any = None

    def waiting() -> None:
        nonlocal note
        if session_id() is not None:  # else a thread preparing a lesson: nobody to tell
            note = st.info("Waiting for other sessions' training to finish (two train at once)…")

    with taking_turns(_training_turns(), waiting):
        if note is not None:
            note.empty()
        yield


# What the runs of pasted and uploaded texts may hold together (History.memory_bytes, its
# tokenizer counted): three or four runs at the budget (13 MB each), dozens of small ones. The
# bundled samples' runs are kept apart, 24 of them: a class opens them all lesson long.
RUN_BYTES = 48_000_000
SAMPLE_RUNS = 24


RunKey = tuple[str, str, TrainingConfig]  # ("sample", its key | "text", its digest, settings)
Run = History | WordPieceHistory  # a trained run of any algorithm the app draws
TRAINED_HERE: tuple[str, ...] = ("bpe", "wordpiece")  # the algorithms the app trains


def _is_sample(key: RunKey) -> bool:
    return key[0] == "sample"


# What the Step page's records may hold together: a record at the budget is a 2.3 MB string
# (4.6 MB held, its characters two bytes each), a bundled sample's half a megabyte; 24
# records at the budget kept 110 MB after a class had gone.
RECORD_BYTES = 16_000_000


@st.cache_resource(show_spinner=False)
def _runs() -> SizedCache[RunKey, Run]:
    """The process's one cache of trained runs (bounded in bytes: see its module)."""
    return SizedCache(RUN_BYTES, keep=_is_sample, most_kept=SAMPLE_RUNS)


@st.cache_resource(show_spinner=False)
def step_records() -> SizedCache[tuple[Any, int], tuple[str, str]]:
    """The process's one cache of the Step page's records (see ``bpeviz.app.step.view``)."""
    return SizedCache(RECORD_BYTES, keep=lambda key: False, most_kept=0)


def let_go_of_closed_sessions(alive: set[str]) -> None:
    """Drop the runs, records and encodings only closed sessions asked for (``alive``: the
    others' ids); the bundled samples' runs stay for the next class."""
    _runs().let_go_of_closed(alive=alive)
    step_records().let_go_of_closed(alive=alive)
    encodings().let_go_of_closed(alive=alive)


def session_id() -> str | None:
    """The id of the session this script runs for (``None`` outside one)."""
    ctx = get_script_run_ctx(suppress_warning=True)  # a lesson's preparing thread has none
    return ctx.session_id if ctx is not None else None


def text_digest(data: str | bytes) -> str:
    """A cache key for a text or bytes: its SHA-256, marked as text (``s``) or bytes (``b``)
    so the same bytes as text and as a file never share a key."""
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    return ("s" if isinstance(data, str) else "b") + hashlib.sha256(raw).hexdigest()


def _train_with_progress(data: str | bytes, settings: Settings) -> History:
    """Train within the server's budget (:mod:`bpeviz.engine.budget`: a run past it is refused
    before the first merge), showing a progress bar if it takes more than a moment."""
    started = time.perf_counter()
    bar: Any = None
    seen = session_id() is not None  # else a thread preparing a lesson: nobody to show

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if not seen or time.perf_counter() - started < PROGRESS_AFTER_SECONDS:
            return
        if bar is None:
            bar = st.progress(0.0)
        bar.progress(min(done / max(total, 1), 1.0), text=f"Training: merge {done:,} of {total:,}")

    config = settings.config()
    corpus = corpus_for(data, config)
    check_run(corpus, config, SERVER_BUDGET)  # refused at once, not after waiting a turn
    try:
        with training_turn():
            run = trained(
                trained_symbols(corpus),
                run_training,
                corpus,
                config,
                progress=progress,
                top_pairs=TOP_PAIRS,
                budget=SERVER_BUDGET,
            )
        return History(run)
    finally:
        if bar is not None:
            bar.empty()


def _held_bytes(run: Run) -> int:
    if isinstance(run, History):
        run.tokenizer  # noqa: B018 (every page builds it: weighed with it)
    return run.memory_bytes()


def _history_in(key: RunKey, data: str | bytes, settings: Settings) -> History:
    train = partial(_train_with_progress, data, settings)
    run = _runs().get(key, train, _held_bytes, user=session_id())
    assert isinstance(run, History), "a BPE run's key names a BPE run"
    return run


def _train_wordpiece(text: str, settings: Settings) -> WordPieceHistory:
    """Train WordPiece on ``text`` (every step's pair table kept for the step view), one of
    :data:`TRAINING_AT_ONCE` at a time, within the server's budget on the words' characters."""
    words = tuple(dict.fromkeys(split_words(text, settings.pretokenizer)))
    first = len(initial_vocab(words, (UNK,)))  # refused at once, not after waiting a turn
    check_wordpiece_budget(words, first, settings.vocab_size, SERVER_WORDPIECE_BUDGET)
    with st.spinner("Training WordPiece…"), training_turn():
        run = trained(
            sum(map(len, words)),
            train_wordpiece,
            text,
            settings.vocab_size,
            pretokenizer=settings.pretokenizer,
            score_rule=settings.score_rule,
            tie_break=settings.tie_break,
            top_pairs=TOP_PAIRS,
            budget=SERVER_WORDPIECE_BUDGET,
        )
    return WordPieceHistory(text, run)


def wordpiece_for(text: TrainingText, settings: Settings) -> WordPieceHistory:
    """The WordPiece run of ``text`` under ``settings``, cached with the BPE runs.

    Raises ``ValueError`` for a text WordPiece cannot train on (raw bytes, no words, past the
    budget) or settings it refuses.
    """
    if isinstance(text.data, bytes):
        raise ValueError("WordPiece trains on characters, and this file is not UTF-8 text")
    kind = "sample" if text.source == "sample" else "text"
    name = settings.sample_key if kind == "sample" else text_digest(text.data)
    train = partial(_train_wordpiece, text.data, settings)
    run = _runs().get((kind, name, settings.config()), train, _held_bytes, user=session_id())
    assert isinstance(run, WordPieceHistory), "a WordPiece run's key names a WordPiece run"
    return run


def wordpiece_outcome(settings: Settings, run: WordPieceHistory) -> list[Message]:
    """After training: say so when WordPiece stopped short of the vocab size, and why."""
    if run.vocab_size >= settings.vocab_size:
        return []
    return [
        Message(
            "info",
            f"Training stopped at a vocabulary of {run.vocab_size:,}, short of the "
            f"{settings.vocab_size:,} asked for: {run.stop_reason}.",
        )
    ]


def current_run(*, show: bool = True, algorithms: tuple[str, ...] = TRAINED_HERE) -> Run | None:
    """The run of the sidebar's text and settings, trained once and then reused: a BPE
    :class:`History` or a :class:`WordPieceHistory` (``algorithms``: those the page draws).

    On a problem (no text, a bad setting, an algorithm the page does not draw) it shows why
    with ``st.error``/``st.warning`` and returns ``None``; it never raises. When training
    stopped before the vocab size asked for, it says how far it got and why. ``show=False``
    keeps it silent.
    """
    settings = current_settings()
    text, messages = text_and_messages(settings)
    messages = messages + check_settings(settings)
    if settings.algorithm not in algorithms:
        messages.append(not_for_this_page(settings, algorithms))
    run: Run | None = None
    if text is not None and not any(m.level == "error" for m in messages):
        try:
            run = run_for(text, settings)
        except ValueError as error:
            messages.append(Message("error", f"Cannot train: {error}."))
        else:
            messages += _outcome(settings, run, text)
    if show:
        show_messages(messages)
    return run


def current_history(*, show: bool = True) -> History | None:
    """:func:`current_run` on a page that draws BPE runs only (another algorithm: it says so)."""
    run = current_run(show=show, algorithms=("bpe",))
    return run if isinstance(run, History) else None


def _outcome(settings: Settings, run: Run, text: TrainingText) -> list[Message]:
    """After training: say so when it stopped short of the vocab size asked for, and why."""
    if isinstance(run, WordPieceHistory):
        return wordpiece_outcome(settings, run)
    if len(text.data) <= 1:  # a single character has its own warning already
        return []
    return outcome_messages(settings, run.merge_count, run.stop_reason)


def run_for(text: TrainingText, settings: Settings) -> Run:
    """The BPE or WordPiece run of ``text`` under ``settings``, from :func:`current_run`'s
    cache (or trained into it)."""
    return history_for(text, settings) if settings.is_bpe else wordpiece_for(text, settings)


def history_for(text: TrainingText, settings: Settings) -> History:
    """The history of ``text`` under ``settings`` (not necessarily the sidebar's), cached in
    the same bounded slots as :func:`current_history`, so a run both use trains once.

    Raises ``ValueError`` for settings the trainer refuses; check them first with
    ``check_settings``.
    """
    if text.source == "sample":
        key = ("sample", settings.sample_key, settings.config())
    else:
        key = ("text", text_digest(text.data), settings.config())
    return _history_in(key, text.data, settings)


def train_sample(key: str, vocab_size: int, pretokenizer: str, tie_break: str) -> History:
    """The history of bundled sample ``key`` with these settings (trained once, cached).

    Raises ``ValueError`` for an unknown sample or impossible settings.
    """
    settings = Settings(
        source="sample",
        sample_key=key,
        vocab_size=vocab_size,
        pretokenizer=pretokenizer,
        tie_break=tie_break,
    )
    sample = get_sample(key)
    return _history_in(("sample", key, settings.config()), sample.text, settings)


def train_wordpiece_sample(key: str, vocab_size: int, pretokenizer: str) -> WordPieceHistory:
    """The WordPiece run of bundled sample ``key`` (score rule, tie rule ``first``), trained
    once and cached with the sidebar's runs: the Step page's WordPiece run of the sample with
    these settings is this one. Raises ``ValueError`` past the server's WordPiece budget."""
    settings = Settings(
        algorithm="wordpiece",
        source="sample",
        sample_key=key,
        vocab_size=vocab_size,
        pretokenizer=pretokenizer,
        tie_break="first",
    )
    sample = get_sample(key)
    return wordpiece_for(TrainingText(sample.title, sample.text), settings)


@dataclass
class _ImportSlot:
    """One imported model file's reading, done at most once: the model or why it failed."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    result: LoadedModel | str | None = None


@st.cache_resource(max_entries=4, ttl=3600, show_spinner=False)
def _import_slot(contents: tuple[str, ...], pattern: str) -> _ImportSlot:
    return _ImportSlot()


def shared_import(files: list[tuple[str, bytes]], *, pattern: str) -> LoadedModel:
    """Read uploaded model files as :func:`bpeviz.app.export.files.load_upload` does, once per
    content: sessions that upload the same bytes share one model.

    A 10 MB ``tokenizer.json`` takes seconds and over 100 MB to read; a class importing
    the file the teacher handed out must not pay that once per student. The model is
    keyed by what the files hold, not their names (the name shown is each session's own);
    a bad file's message is kept too. Raises ``ValueError`` with that message.
    """
    names = ", ".join(name for name, _ in files)
    slot = _import_slot(tuple(text_digest(data) for _, data in files), pattern)
    with slot.lock:
        if slot.result is None:
            try:
                slot.result = load_upload(files, pattern=pattern)
            except ValueError as error:  # the message starts with the names: kept apart
                slot.result = str(error).removeprefix(f"{names}: ")
    if isinstance(slot.result, str):
        raise ValueError(f"{names}: {slot.result}")
    if slot.result.source == names:
        return slot.result
    return LoadedModel(tokenizer=slot.result.tokenizer, kind=slot.result.kind, source=names)


@st.cache_resource(max_entries=8, show_spinner="Loading the real tokenizer's ranks…")  # 5 offered
def real_tokenizer(name: str) -> Tokenizer:
    """A real tokenizer (``cl100k_base``, ``r50k_base``, ``tekken_240911``, ...: its real ranks,
    our encoder), loaded once per server.

    Raises ``RuntimeError`` (``RanksUnavailable``) with an explanation when the ranks file
    is not installed; nothing is cached then, so a later call tries again.
    """
    from bpeviz.real.registry import load_bundled

    return load_bundled(name)


@st.cache_resource(max_entries=4, show_spinner="Loading the model's tokenizer…")
def named_tokenizer(name: str) -> Tokenizer:
    """The tokenizer of an encoding or an OpenAI model name (a chat model's encoding with its
    markup's special tokens), loaded once per server.

    Raises ``ValueError`` for a name that is not an OpenAI model (nothing is cached then).
    """
    from bpeviz.real.openai_models import load_named

    return load_named(name)


@st.cache_resource(max_entries=4, show_spinner=False)
def _wordpiece_tokenizer(key: tuple[Any, ...], _run: WordPieceHistory) -> LibraryTokenizer:
    """A WordPiece run as the ``tokenizers`` library reads its exported tokenizer.json (it
    encodes as bpeviz's WordPiece encoder does: ``tests/test_wordpiece.py``)."""
    read = read_tokenizer_json(to_hf_wordpiece_json(_run.run))
    assert isinstance(read, LibraryTokenizer), "a WordPiece file is read by the library"
    return read


def chosen_tokenizer(
    choice: str, history: Run | None, imported: tuple[str, Tokenizer] | None
) -> tuple[Tokenizer, Any]:
    """The tokenizer behind a choice of :mod:`bpeviz.app.shared.choices`, and its cache key for
    :func:`encode` (``None`` for an imported one: it is not named uniquely, so not cached).

    Raises ``RuntimeError`` when a real tokenizer's ranks are not installed, ``ValueError``
    for a choice that is not available.
    """
    if choice == TRAINED:
        if history is None:
            raise ValueError("there is no trained tokenizer: fix the sidebar's settings")
        if isinstance(history, WordPieceHistory):
            key = history_key(history)
            return _wordpiece_tokenizer(key, history), key
        return history.tokenizer, history_key(history)
    if choice == BYTES:
        return Tokenizer(), BYTES
    if choice == IMPORTED:
        if imported is None:
            raise ValueError("no tokenizer was imported: load one on the Export / import page")
        return imported[1], None
    return real_tokenizer(choice), choice


def encode_with(tokenizer: Tokenizer, tokenizer_key: Any, text: str) -> list[int]:
    """:func:`encode`, or a plain encode when the tokenizer has no cache key."""
    if tokenizer_key is None:
        return tokenizer.encode(text)
    return encode(tokenizer, tokenizer_key, text)


def encode_or_stop(tokenizer: Tokenizer, tokenizer_key: Any, text: str) -> list[int]:
    """:func:`encode_with`; when it cannot (a file's split pattern ran out of time on this
    text, or the ``tokenizers`` library gave up on it), the page says why and stops there."""
    try:
        return encode_with(tokenizer, tokenizer_key, text)
    except ValueError as error:
        show_messages([Message("error", f"This text could not be tokenized: {error}.")])
        st.stop()


# What the Tokenize and Compare pages' encodings may hold together, their ids as 4-byte
# numbers (8 past 2**31): a box tokenizes at most 200,000 characters (text_input.MAX_BOX_CHARS),
# so one encoding holds at most 0.8 MB, and these 16 MB twenty of the largest. Bounded by a
# count (16) before, its entries weighed anything from bytes to 7 MB of Python ints each.
ENCODE_BYTES = 16_000_000


@st.cache_resource(show_spinner=False)
def encodings() -> SizedCache[tuple[Any, str], np.ndarray]:
    """The process's one cache of encodings (bounded in bytes: see ``sized_cache``)."""
    return SizedCache(ENCODE_BYTES, keep=lambda key: False, most_kept=0)


def _ids_array(ids: list[int]) -> np.ndarray:
    """``ids`` as compact numbers: 4 bytes each when they fit, else 8."""
    array = np.array(ids, dtype=np.int64)
    if not len(array) or (array.min() >= 0 and array.max() < 2**31):
        return array.astype(np.int32)
    return array


def encode(_tokenizer: Tokenizer, tokenizer_key: Any, text: str) -> list[int]:
    """``_tokenizer.encode(text)``, cached per (``tokenizer_key``, text) in
    :func:`encodings`; each caller gets a list of its own.

    ``tokenizer_key`` must name the tokenizer uniquely (e.g. ``"cl100k_base"`` or the training
    settings and text digest); the tokenizer itself is not hashed.
    """

    def make() -> np.ndarray:
        with st.spinner("Tokenizing…"):
            return _ids_array(_tokenizer.encode(text))

    key = (tokenizer_key, text_digest(text))
    ids = encodings().get(key, make, lambda array: int(array.nbytes), user=session_id())
    return ids.tolist()


def history_key(history: Run) -> tuple[Any, ...]:
    """A cache key naming a trained tokenizer: its text and its merges' settings."""
    if isinstance(history, WordPieceHistory):
        wordpiece = history.run
        settings = (wordpiece.pretokenizer, wordpiece.score_rule, wordpiece.tie_break)
        return ("wordpiece", text_digest(history.text), *settings, history.merge_count)
    run = history.run
    return (
        text_digest(history.text),
        run.tie_break,
        run.pretokenizer,
        history.merge_count,
        run.special_tokens,
        history.base,
    )


# The Compression page's numbers on the bundled samples are the same for every session:
# measured once per server (7 vocab sizes × the cross lines on or off), not on each visit.
Samples = tuple[tuple[str, str], ...]  # (language, bundled sample key)


@st.cache_data(max_entries=14, show_spinner=False)
def sample_curves(
    samples: Samples, max_vocab: int, pretokenizer: str, tie_break: str, cross: bool
) -> pd.DataFrame:
    """:func:`compression.compression_curves` of the bundled samples' runs."""
    histories = {
        name: train_sample(key, max_vocab, pretokenizer, tie_break) for name, key in samples
    }
    return compression.compression_curves(histories, cross=cross)


# What names the Compression page's curves and reference lines, for the chart and the
# numbers kept below: the page's settings, and the few numbers measured of the sidebar's own
# or an imported tokenizer (see app_pages/compression.py).
CurvesKey = tuple[Any, ...]


def compression_key(
    samples: Samples,
    max_vocab: int,
    *,
    cross: bool,
    wordpiece: tuple[str, ...] = (),
    references: bool,
    own: tuple[tuple[Any, ...], ...] = (),
) -> CurvesKey:
    """The name of the Compression page's curves and lines: its samples trained up to
    ``max_vocab`` (its fixed rules), with the other-language lines or not, the samples'
    WordPiece curves drawn, the real tokenizers' lines or not, and ``own``: the rows measured
    of the sidebar's tokenizer and an imported one (:func:`compression.references_for`)."""
    rules = (compression.PRETOKENIZER, compression.TIE_BREAK)
    return (samples, max_vocab, *rules, cross, wordpiece, references, own)


@st.cache_data(max_entries=32, show_spinner=False)
def compression_chart_spec(
    key: CurvesKey,
    marker: int | None,
    *,
    projector: bool,
    _curves: pd.DataFrame,
    _references: pd.DataFrame | None,
) -> dict[str, Any]:
    """The Compression page's chart of ``_curves`` and ``_references`` (named by ``key``) as
    a Vega-Lite spec, built once for every session (a new visitor on the bundled samples gets
    the same chart): building and checking it took 0.6 s of each visit, and hashing the two
    tables to find it again a fifth of each following student's run. ``projector``:
    presentation mode's larger type."""
    chart = charts.compression_chart(
        compression.chart_points(_curves), references=_references, current_vocab_size=marker
    )
    return arrow_datasets(charts.vega_spec(charts.projector_type(chart) if projector else chart))


def arrow_datasets(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with its datasets converted to Arrow as Streamlit sends them, for a spec that
    is kept: Streamlit converts a dataset on every run that draws it, unless it is Arrow
    already (each following student's run of the Compression slide converted its 340 points
    again)."""
    datasets = spec.get("datasets", {})
    spec["datasets"] = {name: dataframe_util.convert_anything_to_arrow_bytes(rows)
                        for name, rows in datasets.items()}  # fmt: skip
    return spec


@st.cache_data(max_entries=32, show_spinner=False)
def compression_numbers(
    key: CurvesKey,
    marker: int,
    languages: tuple[str, ...],
    *,
    _curves: pd.DataFrame,
    _references: pd.DataFrame | None,
) -> pd.DataFrame:
    """:func:`compression.numbers_table` of ``_curves`` and ``_references`` (named by ``key``)
    at ``marker``, made once for every session, as the chart is."""
    return compression.numbers_table(
        _curves, _references, vocab_size=marker, languages=list(languages)
    )


@st.cache_data(max_entries=2, show_spinner=False)
def sample_references(samples: Samples) -> pd.DataFrame:
    """Every bundled real tokenizer measured on the samples. Raises ``RuntimeError`` when
    one cannot be loaded (nothing is cached then)."""
    real = {name: real_tokenizer(name) for name in bundled_names()}
    return compression.references_for(real, {name: get_sample(key).text for name, key in samples})


@st.cache_data(max_entries=14, show_spinner=False)
def sample_passages(
    samples: Samples, max_vocab: int, pretokenizer: str, tie_break: str, *, real: bool
) -> pd.DataFrame:
    """:func:`parallel.passage_table` of the samples' runs (and with ``real``, the bundled
    real tokenizers: ``RuntimeError`` when one cannot be loaded)."""
    tokenizers: dict[str, Tokenizer] = {}
    for name, key in samples:
        history = train_sample(key, max_vocab, pretokenizer, tie_break)
        tokenizers[f"trained on {name} (vocab {history.vocab_size:,})"] = history.tokenizer
    if real:
        tokenizers |= {name: real_tokenizer(name) for name in bundled_names()}
    return parallel.passage_table(tokenizers, parallel.passages())
