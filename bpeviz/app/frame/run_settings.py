"""The app's shared settings: what text to train on and how, checked before any training.

:class:`Settings` is the training settings every page shares, built from the session state
(:func:`settings_from_state`); plain Python (no Streamlit), so it is unit-tested directly.
The text they apply to is :mod:`bpeviz.app.frame.text_input`; the link format is
:mod:`bpeviz.app.frame.links`; the widgets are :mod:`bpeviz.app.frame.sidebar`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal

from bpeviz.engine.algorithms import ALGORITHM_REGISTRY
from bpeviz.engine.config import (
    DEFAULT_PRETOKENIZER,
    UNIGRAM_DEFAULTS,
    TrainingConfig,
    unique_special_tokens,
)
from bpeviz.engine.corpus import BYTE_COUNT
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
KEY_ALGORITHM = "algo"
KEY_SCORE_RULE = "wprule"  # WordPiece's: score or frequency
# Unigram's own settings (bpeviz.engine.config.UNIGRAM_DEFAULTS), by their TrainingConfig names.
UNIGRAM_KEYS: dict[str, str] = {
    "umaxlen": "max_piece_length",
    "useed": "seed_size",
    "ushrink": "shrinking_factor",
    "uem": "em_iterations",
}
STATE_KEYS: tuple[str, ...] = (
    KEY_ALGORITHM,
    KEY_SCORE_RULE,
    *UNIGRAM_KEYS,
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
class Settings(TrainingConfig):
    """The sidebar's settings: a :class:`TrainingConfig` (with the app's defaults) and where the
    text comes from (a frozen value: safe as a cache key).

    ``end_of_word`` is only ever true with BPE and the ``words`` pre-tokenizer.
    """

    vocab_size: int = 512
    pretokenizer: str = DEFAULT_PRETOKENIZER
    source: str = "sample"
    sample_key: str = DEFAULT_SAMPLE_KEY

    @property
    def merges_wanted(self) -> int:
        return self.vocab_size - self.base_size

    def config(self) -> TrainingConfig:
        """The training settings alone (what training depends on besides the text; the source
        and sample name do not): what the engine checks and trains with, and a cache key."""
        own = {item.name: getattr(self, item.name) for item in fields(TrainingConfig)}
        if self.algorithm != "unigram":  # unused: not part of the run's key
            own.update(UNIGRAM_DEFAULTS)
        return TrainingConfig(**own)


def min_vocab(algorithm: str) -> int:
    """The smallest vocab size the sidebar offers: BPE's 256 bytes and one merge; 1 for the
    others, whose first vocabulary is the text's characters (a WordPiece of 30 tokens is a
    lesson).

    >>> min_vocab("bpe"), min_vocab("wordpiece")
    (257, 1)
    """
    return MIN_VOCAB if algorithm == "bpe" else 1


def fitted_pretokenizer(algorithm: str, pretokenizer: str) -> str:
    """``pretokenizer`` if ``algorithm`` can run after it, else the algorithm's first choice
    (BPE's: the app's default). The sidebar offers only the algorithm's pre-tokenizers.

    >>> fitted_pretokenizer("wordpiece", "gpt4"), fitted_pretokenizer("bpe", "bert")
    ('words', 'gpt4')
    """
    info = ALGORITHM_REGISTRY.get(algorithm, ALGORITHM_REGISTRY["bpe"])
    if pretokenizer in info.pretokenizers:
        return pretokenizer
    return DEFAULT_PRETOKENIZER if info.name == "bpe" else info.pretokenizers[0]


def suggested_state(sample: Sample, algorithm: str = "bpe") -> dict[str, Any]:
    """The settings a sample opens with, as session-state values. The samples suggest BPE's;
    under another ``algorithm`` the pre-tokenizer is fitted to it and ``</w>`` is off.

    >>> suggested_state(get_sample("english"), "wordpiece")[KEY_PRETOKENIZER]
    'words'
    """
    suggested = sample.settings
    return {
        KEY_VOCAB: suggested.vocab_size,
        KEY_PRETOKENIZER: fitted_pretokenizer(algorithm, suggested.pretokenizer),
        KEY_TIE_BREAK: suggested.tie_break,
        KEY_END_OF_WORD: suggested.end_of_word and algorithm == "bpe",
    }


def default_state() -> dict[str, Any]:
    """A fresh session: the default sample with its suggested settings."""
    return {
        KEY_ALGORITHM: "bpe",
        KEY_SCORE_RULE: "score",
        **{key: UNIGRAM_DEFAULTS[name] for key, name in UNIGRAM_KEYS.items()},
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

    The ``</w>`` marker only applies to BPE with the ``words`` pre-tokenizer; elsewhere it is
    off. A pre-tokenizer the algorithm cannot use is kept, and :func:`check_settings` says so.
    """
    defaults = default_state()

    def get(key: str) -> Any:
        value = state.get(key)
        return defaults[key] if value is None else value

    pretokenizer = str(get(KEY_PRETOKENIZER))
    algorithm = str(get(KEY_ALGORITHM))
    vocab = get(KEY_VOCAB)
    unigram = {name: _number(get(key), defaults[key]) for key, name in UNIGRAM_KEYS.items()}
    return Settings(
        **unigram,  # type: ignore[arg-type]
        algorithm=algorithm,
        score_rule=str(get(KEY_SCORE_RULE)),
        source=str(get(KEY_SOURCE)),
        sample_key=str(get(KEY_SAMPLE)),
        vocab_size=int(vocab) if isinstance(vocab, int | float) else defaults[KEY_VOCAB],
        pretokenizer=pretokenizer,
        tie_break=str(get(KEY_TIE_BREAK)),
        special_tokens=parse_special_tokens(str(get(KEY_SPECIALS))),
        end_of_word=bool(get(KEY_END_OF_WORD)) and pretokenizer == "words" and algorithm == "bpe",
    )


def _number(value: Any, default: int | float) -> int | float:
    """A number widget's value as its setting's type (a whole number stays whole), or the
    default for anything else."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    if isinstance(default, int) and float(value).is_integer():
        return int(value)
    return float(value) if isinstance(default, float) else value


def check_settings(settings: Settings) -> list[Message]:
    """Problems with the settings themselves, each with how to fix it (empty list: fine)."""
    found = [Message("error", problem) for problem in settings.config().problems()]
    beyond = specials_beyond_the_box(settings.special_tokens)
    if beyond is not None:
        found.append(Message("error", f"The Special tokens box holds {beyond}: remove some."))
    return found


def not_for_this_page(settings: TrainingConfig, drawn: tuple[str, ...] = ("bpe",)) -> Message:
    """The error a page shows for settings of an algorithm it does not draw (``drawn``).

    >>> unigram = TrainingConfig(30, "words", algorithm="unigram")
    >>> not_for_this_page(unigram, ("bpe", "wordpiece")).text.split(": ")[0]
    'This page shows BPE and WordPiece runs so far, not Unigram'
    """
    titles = [ALGORITHM_REGISTRY[name].title for name in drawn]
    shown = " and ".join(titles) + (" runs only" if len(titles) == 1 else " runs")
    choose = "BPE" if len(titles) == 1 else "one of them"
    return Message(
        "error",
        f"This page shows {shown} so far, not {settings.algorithm_title}: choose {choose} as "
        "the algorithm in the sidebar.",
    )


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
