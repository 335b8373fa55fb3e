"""The Two runs page's state: its widget keys, the classic presets, and settings from state.

Plain Python (no Streamlit), so the presets and the link's round trip are unit-tested.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, replace
from typing import Any

from bpeviz.app.frame.run_settings import (
    KEY_SAMPLE,
    KEY_SOURCE,
    Settings,
    fitted_pretokenizer,
    suggested_state,
)
from bpeviz.app.two_runs.parting import RUN_NAMES
from bpeviz.engine.config import TrainingConfig
from bpeviz.engine.samples import get_sample

# Widget keys (and query parameters) of the page: runs_a_algo, runs_b_vocab, runs_step...
FIELDS: tuple[str, ...] = ("algo", "wprule", "pretok", "tie", "vocab", "eow")
KEY_STEP = "runs_step"


# Each run's settings where neither the link nor a preset names them: A without pieces.
DEFAULTS: dict[str, TrainingConfig] = {
    "A": TrainingConfig(512, "bytes"),
    "B": TrainingConfig(512, "gpt4"),
}


def widget_key(run: str, field: str) -> str:
    """The key of one run's setting widget, e.g. ``widget_key("A", "vocab") == "runs_a_vocab"``."""
    return f"runs_{run.lower()}_{field}"


@dataclass(frozen=True)
class Preset:
    """A classic comparison: a bundled sample, two settings, a step, and what it shows."""

    key: str
    label: str
    sample_key: str
    a: TrainingConfig
    b: TrainingConfig
    step: int
    lesson: str


PRESETS: tuple[Preset, ...] = (
    Preset(
        key="pieces",
        label="bytes against gpt4 on the English sample",
        sample_key="english",
        a=TrainingConfig(512, "bytes", "first"),
        b=TrainingConfig(512, "gpt4", "first"),
        step=1,
        lesson="With the bytes pre-tokenizer the whole text is one piece, so merges may cross "
        "word boundaries (the very first one joins e and the space after it); GPT-4's pattern "
        "cuts the text into words first, and its merges never cross one.",
    ),
    Preset(
        key="ties",
        label="aaabdaaabac: tie rule first against lexmin",
        sample_key="aaabdaaabac",
        a=TrainingConfig(259, "bytes", "first"),
        b=TrainingConfig(259, "bytes", "lexmin"),
        step=2,
        lesson="After aa, the pairs (aa, a) and (a, b) both occur twice. minbpe keeps the pair "
        "seen first in the text (aa + a); Wikipedia's walk-through, like Hugging Face, takes "
        "the pair with the smallest ids (a + b). Both runs end with the token aaab, built "
        "from different parents.",
    ),
)


def preset_state(item: Preset) -> dict[str, object]:
    """The session state that opens ``item``: its sample in the sidebar, both runs, its step.

    The sidebar takes the sample's own suggested settings too, as choosing it there would.

    >>> state = preset_state(preset("ties"))
    >>> state["sample"], state["runs_a_tie"], state["runs_b_tie"], state["runs_step"]
    ('aaabdaaabac', 'first', 'lexmin', 2)
    """
    state: dict[str, object] = {
        KEY_SOURCE: "sample",
        KEY_SAMPLE: item.sample_key,
        **suggested_state(get_sample(item.sample_key)),
        KEY_STEP: item.step,
    }
    for name, settings in zip(RUN_NAMES, (item.a, item.b), strict=True):
        for field, value in zip(FIELDS, state_values(settings), strict=True):
            state[widget_key(name, field)] = value
    return state


def state_values(settings: TrainingConfig) -> tuple[object, ...]:
    """The widgets' values for ``settings``, in the order of :data:`FIELDS`."""
    return (
        settings.algorithm,
        settings.score_rule,
        settings.pretokenizer,
        settings.tie_break,
        settings.vocab_size,
        settings.end_of_word,
    )


def run_settings(state: Mapping[str, object], run: str, default: TrainingConfig) -> TrainingConfig:
    """One run's settings from the page's widgets (missing or odd values: ``default``'s).

    ``</w>`` only applies to BPE after the ``words`` pre-tokenizer, as in the sidebar. An
    unknown algorithm or WordPiece rule is kept, and the settings' problems say so.
    """

    def get(field: str, fallback: object) -> object:
        value = state.get(widget_key(run, field))
        return fallback if value is None else value

    algorithm = str(get("algo", default.algorithm))
    pretokenizer = str(get("pretok", default.pretokenizer))
    vocab = get("vocab", default.vocab_size)
    return TrainingConfig(
        algorithm=algorithm,
        score_rule=str(get("wprule", default.score_rule)),
        pretokenizer=pretokenizer,
        tie_break=str(get("tie", default.tie_break)),
        vocab_size=int(vocab) if isinstance(vocab, int | float) else default.vocab_size,
        end_of_word=bool(get("eow", default.end_of_word))
        and pretokenizer == "words"
        and algorithm == "bpe",
    )


def fit_run(state: MutableMapping[str, object], run: str) -> None:
    """Keep run ``run``'s widgets to what its algorithm can use, as the sidebar does: one of
    its pre-tokenizers (WordPiece's words or bert, Unigram's words) and ``</w>`` off but
    for BPE. Called before the widgets are drawn and when the algorithm changes.

    >>> state = {"runs_b_algo": "unigram", "runs_b_pretok": "gpt4", "runs_b_eow": True}
    >>> fit_run(state, "B")
    >>> state["runs_b_pretok"], state["runs_b_eow"]
    ('words', False)
    """
    algorithm = str(state.get(widget_key(run, "algo")) or "bpe")
    pretokenizer = state.get(widget_key(run, "pretok"))
    if pretokenizer is not None:
        fitted = fitted_pretokenizer(algorithm, str(pretokenizer))
        if fitted != pretokenizer:
            state[widget_key(run, "pretok")] = fitted
    if algorithm != "bpe" and state.get(widget_key(run, "eow")):
        state[widget_key(run, "eow")] = False


def matching_preset(sample_key: str | None, a: TrainingConfig, b: TrainingConfig) -> Preset | None:
    """The preset these runs are (so the page can say what it shows), or ``None``.

    >>> matching_preset("aaabdaaabac", PRESETS[1].a, PRESETS[1].b).key
    'ties'
    >>> matching_preset("english", PRESETS[1].a, PRESETS[1].b) is None
    True
    """
    return next(
        (p for p in PRESETS if (p.sample_key, p.a, p.b) == (sample_key, a, b)),
        None,
    )


def preset(key: str) -> Preset:
    """The preset called ``key``; ``ValueError`` naming the known ones otherwise."""
    for candidate in PRESETS:
        if candidate.key == key:
            return candidate
    known = ", ".join(candidate.key for candidate in PRESETS)
    raise ValueError(f"unknown comparison {key!r}; known: {known}")


def trained_settings(sidebar: Settings, run: TrainingConfig) -> Settings:
    """What one run trains: the sidebar's settings (its text, special tokens, Unigram's
    seeding) with the run's own algorithm, rule, pre-tokenizer, tie rule, size and markers,
    whatever the sidebar's are. The page and a lesson's preparation train the same."""
    return replace(
        sidebar,
        pretokenizer=run.pretokenizer,
        tie_break=run.tie_break,
        vocab_size=run.vocab_size,
        end_of_word=run.end_of_word,
        algorithm=run.algorithm,
        score_rule=run.score_rule,
    )


def apply_preset(state: MutableMapping[str, Any], key: str) -> None:
    """A preset button's callback: the preset's sample, both runs and its step, before any
    widget. (A module's function: Streamlit keeps a button's callback for the session, and a
    page's would hold the page's globals, its runs among them.)"""
    state.update(preset_state(preset(key)))
