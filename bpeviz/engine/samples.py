"""The sample texts bundled with bpeviz, and the settings each one opens with.

The texts live in ``sample_texts/`` next to the package, described by ``sample_texts/samples.json``
(title, language, source, licence and the pretokenizer / tie-break / vocabulary size that make the
example show what it is meant to show, e.g. the Wikipedia ``aaabdaaabac`` walk-through).

This module is plain standard-library Python with no Streamlit import, so the app, the tests and
the benchmarks can all use it. The files never change while the app runs, so they are read once
and cached; callers still get a fresh list each time and may modify it freely.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from bpeviz.engine.config import TrainingConfig

SAMPLES_DIR: Path = Path(__file__).resolve().parents[2] / "sample_texts"
METADATA_FILE = "samples.json"
DEFAULT_SAMPLE_KEY = "english"


@dataclass(frozen=True)
class Sample:
    """One bundled text with its metadata."""

    key: str
    title: str
    language: str
    kind: str
    description: str
    source: str
    licence: str
    text: str
    settings: TrainingConfig  # what it opens with


def _parse_settings(key: str, raw: dict[str, Any]) -> TrainingConfig:
    settings = TrainingConfig(
        vocab_size=int(raw["vocab_size"]),
        pretokenizer=str(raw["pretokenizer"]),
        tie_break=str(raw["tie_break"]),
        end_of_word=bool(raw["end_of_word"]),
    )
    problems = settings.problems()
    if problems:
        raise ValueError(f"sample {key!r}: {' '.join(problems)}")
    return settings


@lru_cache(maxsize=1)
def _load_all() -> tuple[Sample, ...]:
    entries = json.loads((SAMPLES_DIR / METADATA_FILE).read_text(encoding="utf-8"))
    samples = []
    for entry in entries:
        key = str(entry["key"])
        samples.append(
            Sample(
                key=key,
                title=str(entry["title"]),
                language=str(entry["language"]),
                kind=str(entry["kind"]),
                description=str(entry["description"]),
                source=str(entry["source"]),
                licence=str(entry["licence"]),
                text=(SAMPLES_DIR / entry["file"]).read_text(encoding="utf-8"),
                settings=_parse_settings(key, entry["settings"]),
            )
        )
    return tuple(samples)


def list_samples() -> list[Sample]:
    """All bundled samples, in the order of ``samples.json``."""
    return list(_load_all())


def get_sample(key: str) -> Sample:
    """The sample called ``key``; raises ``ValueError`` naming the known keys if there is none."""
    for sample in _load_all():
        if sample.key == key:
            return sample
    known = ", ".join(sample.key for sample in _load_all())
    raise ValueError(f"unknown sample {key!r}; known samples: {known}")
