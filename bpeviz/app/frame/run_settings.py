"""The app's shared settings: what text to train on and how, checked before any training.

:class:`Settings` is the training settings every page shares, built from the session state
(:func:`settings_from_state`); plain Python (no Streamlit), so it is unit-tested directly.
The text they apply to is :mod:`bpeviz.app.frame.text_input`; the link format is
:mod:`bpeviz.app.frame.links`; the widgets are :mod:`bpeviz.app.frame.sidebar`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from bpeviz.engine.config import DEFAULT_PRETOKENIZER, TrainingConfig, unique_special_tokens
from bpeviz.engine.corpus import BYTE_COUNT, base_size
from bpeviz.engine.pretokenize import END_OF_WORD
from bpeviz.engine.readable import counted
from bpeviz.engine.samples import DEFAULT_SAMPLE_KEY, Sample, get_sample, list_samples

SOURCES: tuple[str, ...] = ("sample", "paste", "upload")
SOURCE_LABELS: dict[str, str] = {"sample": "Sample", "paste": "Paste", "upload": "Upload"}


# Session-state keys; each is also the name of its query parameter.
KEY_SOURCE = "src"
KEY_SAMPLE = "sample"
KEY_VOCAB = "vocab"
# The vocab size boxes start at the 256 bytes and one merge: they took 1, then failed to
# train (256 failed too with the end-of-word marker). The bytes alone, before any merge, are
# the Tokenize page's "UTF-8 bytes" (bpeviz.app.shared.choices).
MIN_VOCAB = BYTE_COUNT + 1
KEY_PRETOKENIZER = "pretok"
KEY_TIE_BREAK = "tie"
KEY_SPECIALS = "special"
KEY_END_OF_WORD = "eow"
KEY_PASTE = "paste"
STATE_KEYS: tuple[str, ...] = (
    KEY_SOURCE,
    KEY_SAMPLE,
    KEY_VOCAB,
    KEY_PRETOKENIZER,
    KEY_TIE_BREAK,
    KEY_SPECIALS,
    KEY_END_OF_WORD,
    KEY_PASTE,
)


# The Special tokens box's bounds: a link keeps them (20,000 tokens made a 248,920-character
# address, which nginx and the server refuse), and each set is a regex compiled on the server.
MAX_SPECIAL_TOKENS = 64
MAX_SPECIALS_CHARS = 1_000

SUGGESTED_KEYS: tuple[str, ...] = (KEY_VOCAB, KEY_PRETOKENIZER, KEY_TIE_BREAK, KEY_END_OF_WORD)
Level = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Message:
    """Something to tell the user: ``error`` (nothing is trained), ``warning`` or ``info``."""

    level: Level
    text: str


@dataclass(frozen=True)
class Settings:
    """Training settings shared by every page (a frozen value: safe as a cache key).

    ``vocab_size`` counts the 256 bytes (and ``</w>``) plus merges; special tokens come after.
    ``end_of_word`` is only ever true with the ``words`` pre-tokenizer.
    """

    source: str = "sample"
    sample_key: str = DEFAULT_SAMPLE_KEY
    vocab_size: int = 512
    pretokenizer: str = DEFAULT_PRETOKENIZER
    tie_break: str = "first"
    special_tokens: tuple[str, ...] = ()
    end_of_word: bool = False

    @property
    def base_size(self) -> int:
        """Tokens before any merge: 256 bytes, plus ``</w>`` when the marker is on."""
        return base_size(self.end_of_word)

    @property
    def merges_wanted(self) -> int:
        return self.vocab_size - self.base_size

    def config(self) -> TrainingConfig:
        """The engine's view of these settings, which it checks and trains with."""
        return TrainingConfig(
            self.vocab_size,
            self.pretokenizer,
            self.tie_break,
            self.special_tokens,
            self.end_of_word,
        )

    def training_key(self) -> tuple[Any, ...]:
        """What training depends on, besides the text (the source and sample name do not)."""
        return (
            self.vocab_size,
            self.pretokenizer,
            self.tie_break,
            self.special_tokens,
            self.end_of_word,
        )

    def summary(self) -> str:
        """One line for a caption: ``vocab 512 · gpt4 · ties: first``."""
        parts = [f"vocab {self.vocab_size:,}", self.pretokenizer, f"ties: {self.tie_break}"]
        if self.end_of_word:
            parts.append(END_OF_WORD)
        if self.special_tokens:
            parts.append("specials: " + " ".join(self.special_tokens))
        return " · ".join(parts)


def suggested_state(sample: Sample) -> dict[str, Any]:
    """The settings a sample opens with, as session-state values."""
    return {
        KEY_VOCAB: sample.settings.vocab_size,
        KEY_PRETOKENIZER: sample.settings.pretokenizer,
        KEY_TIE_BREAK: sample.settings.tie_break,
        KEY_END_OF_WORD: sample.settings.end_of_word,
    }


def default_state() -> dict[str, Any]:
    """A fresh session: the default sample with its suggested settings."""
    return {
        KEY_SOURCE: "sample",
        KEY_SAMPLE: DEFAULT_SAMPLE_KEY,
        **suggested_state(get_sample(DEFAULT_SAMPLE_KEY)),
        KEY_SPECIALS: "",
        KEY_PASTE: "",
    }


def sample_keys() -> list[str]:
    return [sample.key for sample in list_samples()]


def parse_special_tokens(raw: str) -> tuple[str, ...]:
    """Special tokens typed in one box, separated by spaces or commas; duplicates dropped.

    >>> parse_special_tokens("<|endoftext|>, <|pad|>  <|endoftext|>")
    ('<|endoftext|>', '<|pad|>')
    """
    return unique_special_tokens(re.split(r"[,\s]+", raw or ""))


def specials_beyond_the_box(tokens: tuple[str, ...]) -> str | None:
    """What is too much about these special tokens for the box, or ``None``.

    >>> specials_beyond_the_box(("<|a|>",)) is None
    True
    """
    chars = len(" ".join(tokens))
    if len(tokens) <= MAX_SPECIAL_TOKENS and chars <= MAX_SPECIALS_CHARS:
        return None
    return (
        f"{counted(len(tokens), 'special token')} ({counted(chars, 'character')}), more than "
        f"the box takes: at most {MAX_SPECIAL_TOKENS} tokens and {MAX_SPECIALS_CHARS:,} "
        "characters"
    )


def settings_from_state(state: Mapping[str, Any]) -> Settings:
    """Read :class:`Settings` from the session state (missing keys take the defaults).

    The ``</w>`` marker only applies to the ``words`` pre-tokenizer; elsewhere it is off.
    """
    defaults = default_state()

    def get(key: str) -> Any:
        value = state.get(key)
        return defaults[key] if value is None else value

    pretokenizer = str(get(KEY_PRETOKENIZER))
    vocab = get(KEY_VOCAB)
    return Settings(
        source=str(get(KEY_SOURCE)),
        sample_key=str(get(KEY_SAMPLE)),
        vocab_size=int(vocab) if isinstance(vocab, int | float) else defaults[KEY_VOCAB],
        pretokenizer=pretokenizer,
        tie_break=str(get(KEY_TIE_BREAK)),
        special_tokens=parse_special_tokens(str(get(KEY_SPECIALS))),
        end_of_word=bool(get(KEY_END_OF_WORD)) and pretokenizer == "words",
    )


def check_settings(settings: Settings) -> list[Message]:
    """Problems with the settings themselves, each with how to fix it (empty list: fine)."""
    found = [Message("error", problem) for problem in settings.config().problems()]
    beyond = specials_beyond_the_box(settings.special_tokens)
    if beyond is not None:
        found.append(Message("error", f"The Special tokens box holds {beyond}: remove some."))
    return found


def outcome_messages(settings: Settings, merge_count: int, stop_reason: str) -> list[Message]:
    """After training: say so when it stopped before the vocab size asked for, and why."""
    wanted = settings.merges_wanted
    if merge_count >= wanted:
        return []
    return [
        Message(
            "info",
            f"Training stopped early: vocab size {settings.vocab_size:,} asks for "
            f"{counted(wanted, 'merge')}, and this text allowed {merge_count:,} "
            f"(vocab size {settings.base_size + merge_count:,}). Why: {stop_reason}.",
        )
    ]
