"""Tokenization surprises: short texts that show where tokens trip a language model up.

The list follows the surprises Andrej Karpathy's minbpe lecture walks through (spelling,
arithmetic, code indentation, trailing spaces, special tokens, rare "glitch" tokens, emoji,
non-English text). The texts and sentences are our own, stored as data in
``sample_texts/surprises.json``: each entry has a ``key`` (what a link holds,
``?surprise=arithmetic``), a ``title`` for the menu, the ``text`` and one sentence, ``look``,
saying what to look at.

What is left out: the menu itself (the Tokenize page) and any tokenizing.
"""

from __future__ import annotations

import json
from collections.abc import MutableMapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from bpeviz.engine.samples import SAMPLES_DIR

SURPRISES_FILE: Path = SAMPLES_DIR / "surprises.json"


@dataclass(frozen=True)
class Surprise:
    """One preset: its link key, menu title, text, and the sentence saying what to look at."""

    key: str
    title: str
    text: str
    look: str


def parse_surprises(raw: str) -> tuple[Surprise, ...]:
    """Read the presets from JSON text; ``ValueError`` saying what is wrong with an entry.

    >>> [s.key for s in parse_surprises('[{"key": "a", "title": "A", "text": "x", "look": "y"}]')]
    ['a']
    """
    entries = json.loads(raw)
    if not isinstance(entries, list):
        raise ValueError("the surprises file must hold a JSON list of presets")
    surprises: list[Surprise] = []
    for number, entry in enumerate(entries, start=1):
        fields = ("key", "title", "text", "look")
        if not isinstance(entry, dict) or not all(
            isinstance(entry.get(name), str) and entry[name] for name in fields
        ):
            raise ValueError(f"preset {number} needs non-empty strings {', '.join(fields)}")
        surprises.append(Surprise(*(entry[name] for name in fields)))
    keys = [surprise.key for surprise in surprises]
    if len(set(keys)) != len(keys):
        raise ValueError(f"preset keys must be unique, got {keys}")
    return tuple(surprises)


@lru_cache(maxsize=1)
def load_surprises() -> tuple[Surprise, ...]:
    """The bundled presets, in menu order (read once: the file never changes while running)."""
    return parse_surprises(SURPRISES_FILE.read_text(encoding="utf-8"))


def find_surprise(key: str | None) -> Surprise | None:
    """The preset called ``key``, or ``None`` (no key, or one a link got wrong)."""
    return next((surprise for surprise in load_surprises() if surprise.key == key), None)


# The Tokenize page's menu of surprises calls these two. They are a module's functions, not
# the page's: Streamlit keeps a menu's callbacks for the session, and a page's function holds
# the page's globals, its run among them.
def surprise_title(key: str) -> str:
    """How the menu shows a preset's key: its title."""
    return getattr(find_surprise(key), "title", key)


def fill_surprise(state: MutableMapping[str, Any]) -> None:
    """The menu's callback: the chosen preset's text goes into the box (before it is drawn)."""
    chosen = find_surprise(state.get("surprise"))
    if chosen is not None:
        state["tok_text"] = chosen.text
