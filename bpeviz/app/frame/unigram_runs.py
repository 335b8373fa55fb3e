"""Unigram runs for the app: trained once per text and settings, shared by every session.

Beside :mod:`bpeviz.app.frame.training` (BPE's runs), in a cache of their own bounded in
bytes, and trained in the same turns (two at once per server). A Unigram run keeps each
round's vocabulary with its probabilities and removal losses, so its weight is counted from
those. What it trains on is text: an upload that is not UTF-8 is refused with a sentence
(Unigram's pieces are characters; byte fallback is for encoding, not training).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from bpeviz.app.frame.run_settings import Message, Settings, check_settings
from bpeviz.app.frame.sized_cache import SizedCache
from bpeviz.app.frame.state import current_settings, text_and_messages
from bpeviz.app.frame.text_input import TrainingText
from bpeviz.app.frame.training import (
    RUN_BYTES,
    session_id,
    text_digest,
    trained,
    training_turn,
)
from bpeviz.app.frame.widgets import show_messages
from bpeviz.engine.budget import SERVER_UNIGRAM_BUDGET
from bpeviz.engine.unigram import UnigramRun, train_unigram
from bpeviz.formats.hf_models import LibraryTokenizer, read_tokenizer_json
from bpeviz.formats.hf_unigram import to_hf_unigram_json

# The most characters Unigram trains on here: Tiny Shakespeare (1.1 M characters, about
# 25 s to vocab 4,096 on this machine's core). Its seed holds every substring of every word.
UNIGRAM_MAX_CHARS = 1_200_000
PIECE_BYTES = 90  # a piece in one round: its string's share, its probability and loss

UnigramKey = tuple[str, str, Any]


@st.cache_resource(show_spinner=False)
def _unigram_runs() -> SizedCache[UnigramKey, UnigramRun]:
    """The process's one cache of Unigram runs (bounded in bytes like BPE's runs)."""
    return SizedCache(RUN_BYTES, keep=lambda key: key[0] == "sample", most_kept=8)


def held_bytes(run: UnigramRun) -> int:
    """About what a run holds: every round's pieces, probabilities and removal losses."""
    return sum(round_.size for round_ in run.rounds) * PIECE_BYTES + 64 * len(run.words)


def unigram_text(text: TrainingText) -> tuple[str | None, list[Message]]:
    """The text Unigram trains on, or why it cannot."""
    if isinstance(text.data, bytes):
        return None, [
            Message(
                "error",
                "Unigram trains on text, and this upload is not UTF-8 text: choose BPE, "
                "which trains on bytes, or upload a UTF-8 file.",
            )
        ]
    if len(text.data) > UNIGRAM_MAX_CHARS:
        return None, [
            Message(
                "error",
                f"Unigram trains on at most {UNIGRAM_MAX_CHARS:,} characters here, and this "
                f"text has {len(text.data):,}: paste or upload a shorter part of it.",
            )
        ]
    return text.data, []


def unigram_run_for(text: TrainingText, data: str, settings: Settings) -> tuple[UnigramRun, str]:
    """The run of ``data`` (``text``'s) under ``settings``, trained once; and its cache key
    as a string, which names it for the step record."""
    config = settings.config()
    source = (
        ("sample", settings.sample_key) if text.source == "sample" else ("text", text_digest(data))
    )
    key = (*source, config)

    def train() -> UnigramRun:
        with training_turn(), st.spinner("Training Unigram…"):
            return trained(  # apart from the server past a few kilobytes, as BPE's runs
                len(data),
                train_unigram,
                data,
                config.vocab_size,
                max_piece_length=config.max_piece_length,
                seed_size=config.seed_size,
                shrinking_factor=config.shrinking_factor,
                em_iterations=config.em_iterations,
                budget=SERVER_UNIGRAM_BUDGET,
            )

    run = _unigram_runs().get(key, train, held_bytes, user=session_id())
    return run, repr(key)


def current_unigram_run(*, show: bool = True) -> tuple[UnigramRun, str, str] | None:
    """The sidebar's Unigram run: ``(run, its text, its key)``, or ``None`` after saying why
    (no text, a bad setting, a text Unigram cannot train on). Never raises."""
    settings = current_settings()
    text, messages = text_and_messages(settings)
    messages = messages + check_settings(settings)
    found = None
    if text is not None and not any(m.level == "error" for m in messages):
        data, problems = unigram_text(text)
        messages += problems
        if data is not None:
            try:
                run, key = unigram_run_for(text, data, settings)
            except ValueError as error:
                messages.append(Message("error", f"Cannot train: {error}."))
            else:
                found = (run, data, key)
                if run.final.size > settings.vocab_size:
                    messages.append(
                        Message(
                            "info",
                            f"Training stopped at {run.final.size:,} tokens, above the vocab "
                            f"size {settings.vocab_size:,}: {run.stop_reason}.",
                        )
                    )
    if show:
        show_messages(messages)
    return found


def unigram_chosen() -> bool:
    """Whether the sidebar's algorithm is Unigram."""
    return current_settings().algorithm == "unigram"


@st.cache_resource(max_entries=8, show_spinner=False)
def _library(run_key: str, _document: str) -> LibraryTokenizer:
    reader = read_tokenizer_json(_document)
    if not isinstance(reader, LibraryTokenizer):  # a Unigram file is always the library's
        raise TypeError("a Unigram tokenizer.json was read as a BPE one")
    return reader


def current_unigram_tokenizer(*, show: bool = True) -> tuple[LibraryTokenizer, str] | None:
    """The sidebar's Unigram run as a tokenizer for the Tokenize and Compare pages: its
    ``tokenizer.json`` (``bpeviz/formats/hf_unigram.py``) read by the ``tokenizers`` library,
    which cuts every word as the run's Viterbi does (``tests/test_unigram_files.py``); and
    its cache key for encodings. ``None`` after saying why there is none (unless ``show`` is
    false)."""
    found = current_unigram_run(show=show)
    if found is None:
        return None
    run, _, run_key = found
    return unigram_tokenizer(run, run_key)


def unigram_tokenizer(run: UnigramRun, run_key: str) -> tuple[LibraryTokenizer, str]:
    """A Unigram run (``run_key``: from :func:`unigram_run_for`) as a tokenizer, read once,
    and its cache key for encodings."""
    return _library(run_key, to_hf_unigram_json(run.model())), f"unigram {run_key}"
