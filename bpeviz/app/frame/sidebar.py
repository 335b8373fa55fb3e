"""The shared sidebar: every page trains on what it shows, so it is drawn once by the frame
(``app.py``), and it writes the chosen settings into the URL so a link reproduces the view.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from bpeviz.app.frame import run_settings
from bpeviz.app.frame.inert import visible_bidi
from bpeviz.app.frame.links import MAX_LINK_TEXT_CHARS, query_from_state
from bpeviz.app.frame.state import (
    KEY_PRESENT,
    KEY_STEP,
    KEY_UPLOAD_WIDGET,
    KEY_UPLOADED,
    detach_from_class,
    follows_class,
    keep_long_text,
)
from bpeviz.app.frame.text_input import MAX_PASTE_BYTES, MAX_UPLOAD_MB, format_size
from bpeviz.app.frame.widgets import caption
from bpeviz.engine.algorithms import ALGORITHM_REGISTRY, ALGORITHMS
from bpeviz.engine.config import (
    MAX_EM_ITERATIONS,
    MAX_PIECE_LENGTH_LIMIT,
    MAX_SEED_SIZE,
    MAX_VOCAB_SIZE,
    SHRINKING_BOUNDS,
)
from bpeviz.engine.pretokenize import END_OF_WORD, PRETOKENIZER_REGISTRY
from bpeviz.engine.samples import get_sample, list_samples
from bpeviz.engine.tie_rules import TIE_BREAKS, TIE_RULES
from bpeviz.engine.wordpiece import SCORE_RULES


def _apply_sample_suggestions() -> None:
    """Callback of the sample picker: a new sample brings its suggested settings.

    It also starts at step 0: a teacher switching to the ties example wants
    to land before its tie, not at whatever step the last sample was on.
    """
    sample = get_sample(st.session_state[run_settings.KEY_SAMPLE])
    algorithm = str(st.session_state.get(run_settings.KEY_ALGORITHM) or "bpe")
    for key, value in run_settings.suggested_state(sample, algorithm).items():
        st.session_state[key] = value
    st.session_state[KEY_STEP] = 0


def _fit_to_algorithm() -> None:
    """Keep the settings the algorithm can use: its pre-tokenizers only, ``</w>`` for BPE
    only, a vocab size from its smallest one (a state from a live class or an old session
    may hold another algorithm's). The sidebar offers no other choice."""
    state = st.session_state
    algorithm = str(state.get(run_settings.KEY_ALGORITHM) or "bpe")
    if algorithm not in ALGORITHM_REGISTRY:
        algorithm = state[run_settings.KEY_ALGORITHM] = "bpe"
    pretokenizer = str(state.get(run_settings.KEY_PRETOKENIZER) or "")
    state[run_settings.KEY_PRETOKENIZER] = run_settings.fitted_pretokenizer(algorithm, pretokenizer)
    if algorithm != "bpe":
        state[run_settings.KEY_END_OF_WORD] = False
    vocab = state.get(run_settings.KEY_VOCAB)
    if isinstance(vocab, int | float) and vocab < run_settings.min_vocab(algorithm):
        state[run_settings.KEY_VOCAB] = run_settings.min_vocab(algorithm)


def _new_algorithm() -> None:
    """Callback of the algorithm picker: fit the settings to it and start at step 0."""
    _fit_to_algorithm()
    st.session_state[KEY_STEP] = 0


def _store_upload() -> None:
    """Callback of the uploader: keep the file's bytes so they survive hiding the widget."""
    uploaded = st.session_state.get(KEY_UPLOAD_WIDGET)
    st.session_state[KEY_UPLOADED] = (
        None if uploaded is None else (uploaded.name, uploaded.getvalue())
    )


def _index(options: list[str] | tuple[str, ...], key: str) -> int:
    """Where the session's value of ``key`` is among a picker's options (0 when absent)."""
    value = st.session_state.get(key)
    return options.index(value) if value in options else 0


def sidebar() -> None:
    """Draw the shared settings in the sidebar and write them into the URL.

    Every widget is drawn with the session's current value as its default, not only
    through its key. A browser that has not drawn a widget before takes the widget's
    default, and the value the server seeded from the link can miss that browser: a
    student who types while the first run is drawing starts a second run, and the server
    drops what the first had queued and not yet sent. Drawn with its own default
    (Vocab size 1, Sample, ``bytes``), the widget then sent that back on the next click.

    Each setting's state is kept for the session (``persist_state``): a live class's
    student gets the teacher's settings in a callback and is sent to the teacher's page at
    once (``st.switch_page``), and without it the new page started with no vocab size.
    """
    state = st.session_state
    samples = {sample.key: sample for sample in list_samples()}
    _fit_to_algorithm()
    algorithm = ALGORITHM_REGISTRY[state[run_settings.KEY_ALGORITHM]]
    with st.sidebar:
        st.toggle(
            "Presentation mode",
            key=KEY_PRESENT,
            bind="query-params",
            help="Large type, strong outlines and less chrome, for a projector.",
        )
    if follows_class():
        st.sidebar.html(class_settings_html(state))
        st.sidebar.button(
            "Change settings",
            key="class_change_settings",
            on_click=detach_from_class,
            help="Explore on your own run: the class's settings to change; Follow the "
            "teacher gives the class's run back.",
        )
        _write_link()
        return
    with st.sidebar:
        st.radio(
            options=run_settings.SOURCES,
            index=_index(run_settings.SOURCES, run_settings.KEY_SOURCE),
            horizontal=True,
            **_named(run_settings.KEY_SOURCE),
        )
        source = state[run_settings.KEY_SOURCE]
        if source == "sample":
            st.selectbox(
                options=list(samples),
                index=_index(list(samples), run_settings.KEY_SAMPLE),
                on_change=_apply_sample_suggestions,
                **_named(run_settings.KEY_SAMPLE),
                help="Choosing a sample also applies the settings it is meant to be seen with.",
            )
            st.caption(samples[state[run_settings.KEY_SAMPLE]].description)
        elif source == "paste":
            st.text_area(
                value=str(state.get(run_settings.KEY_PASTE) or ""),
                height=150,
                **_named(run_settings.KEY_PASTE, formatted=False),
                placeholder="Paste or type the text to train on…",
                help=f"Up to {format_size(MAX_PASTE_BYTES)}. Texts of up to "
                f"{MAX_LINK_TEXT_CHARS:,} characters are kept in the page's link.",
            )
            if len(state.get(run_settings.KEY_PASTE) or "") > MAX_LINK_TEXT_CHARS:
                st.caption(
                    f"This text is longer than {MAX_LINK_TEXT_CHARS:,} characters: the "
                    "page's link refers to it, and this server keeps it for a reload."
                )
        else:
            st.file_uploader(
                f"{SETTINGS[KEY_UPLOAD_WIDGET].label} (up to {MAX_UPLOAD_MB} MB)",
                type=None,
                key=KEY_UPLOAD_WIDGET,
                on_change=_store_upload,
                max_upload_size=MAX_UPLOAD_MB,
                help="A plain-text file (.txt, .md, .csv…). Text that is not UTF-8 is "
                "trained on as raw bytes. An uploaded file is not part of the page's link.",
            )
            stored = state.get(KEY_UPLOADED)
            if stored is not None:
                caption(f"Using {stored[0]} ({format_size(len(stored[1]))}).")
        st.selectbox(
            options=ALGORITHMS,
            index=_index(ALGORITHMS, run_settings.KEY_ALGORITHM),
            on_change=_new_algorithm,
            **_named(run_settings.KEY_ALGORITHM),
            help="; ".join(f"**{info.description}**" for info in ALGORITHM_REGISTRY.values()),
        )
        if algorithm.name == "wordpiece":
            st.radio(
                options=SCORE_RULES,
                index=_index(SCORE_RULES, run_settings.KEY_SCORE_RULE),
                horizontal=True,
                **_named(run_settings.KEY_SCORE_RULE),
                help="**score**: the textbook's, the pair with the best count(ab) / (count(a) × "
                "count(b)); **frequency**: the most frequent pair, what the tokenizers "
                "library's WordPieceTrainer really does.",
            )
        if algorithm.name == "unigram":
            _unigram_settings()
        smallest = run_settings.min_vocab(algorithm.name)
        st.number_input(
            value=max(smallest, run_settings.settings_from_state(state).vocab_size),
            min_value=smallest,
            step=1,
            help=(
                f"256 byte tokens plus one per merge (plus the {END_OF_WORD} marker when it is on)."
                if algorithm.name == "bpe"
                else "Every token: [UNK], the text's characters (and their ## forms), then one "
                "per merge."
            )
            + f" At most {MAX_VOCAB_SIZE:,}; training stops early when no pair is left.",
            **_named(run_settings.KEY_VOCAB, formatted=False),
        )
        pretokenizers = algorithm.pretokenizers
        st.selectbox(
            options=pretokenizers,
            index=_index(pretokenizers, run_settings.KEY_PRETOKENIZER),
            **_named(run_settings.KEY_PRETOKENIZER),
            help="How the text is cut into pieces first; merges never cross a piece boundary: "
            + "; ".join(f"**{name}**: {_pretokenizer_about(name)}" for name in pretokenizers),
        )
        st.selectbox(
            options=TIE_BREAKS,
            index=_index(TIE_BREAKS, run_settings.KEY_TIE_BREAK),
            **_named(run_settings.KEY_TIE_BREAK),
            help="When several pairs share the top count, this picks one: "
            + "; ".join(f"**{rule.name}**: {rule.description}" for rule in TIE_RULES.values()),
        )
        st.text_input(
            value=str(state.get(run_settings.KEY_SPECIALS) or ""),
            **_named(run_settings.KEY_SPECIALS, formatted=False),
            placeholder="none (e.g. <|endoftext|>)",
            help=f"Separated by spaces or commas; at most {run_settings.MAX_SPECIAL_TOKENS} "
            f"tokens and {run_settings.MAX_SPECIALS_CHARS:,} characters. A special token is never "
            "split or merged.",
        )
        st.checkbox(
            value=bool(state.get(run_settings.KEY_END_OF_WORD)),
            **_named(run_settings.KEY_END_OF_WORD, formatted=False),
            disabled=state[run_settings.KEY_PRETOKENIZER] != "words" or algorithm.name != "bpe",
            help="Sennrich et al.'s marker at the end of every word (words pre-tokenizer only).",
        )
    _write_link()


def class_settings_html(state: Any) -> str:
    """A following student's settings, read-only: each under its widget's label and as its
    widget would show it (``SETTINGS``; in ``data-value``, that text in full).

    While following, the settings are the class's; drawing their nine widgets was a third of
    each follower's run, and a hundred followers rerun at every slide, in one interpreter.
    """
    keys = run_settings
    algorithm = ALGORITHM_REGISTRY[state[keys.KEY_ALGORITHM]]
    source = state.get(keys.KEY_SOURCE)
    shown = [keys.KEY_SOURCE]
    if source == "sample" and state.get(keys.KEY_SAMPLE) in _sample_keys():
        shown.append(keys.KEY_SAMPLE)
    elif source == "paste":
        shown.append(keys.KEY_PASTE)
    shown.append(keys.KEY_ALGORITHM)
    if algorithm.name == "wordpiece":
        shown.append(keys.KEY_SCORE_RULE)
    if algorithm.name == "unigram":
        shown += keys.UNIGRAM_KEYS
    shown += [keys.KEY_VOCAB, keys.KEY_PRETOKENIZER, keys.KEY_TIE_BREAK, keys.KEY_SPECIALS,
              keys.KEY_END_OF_WORD]  # fmt: skip
    rows = [(SETTINGS[key], SETTINGS[key].reads(state.get(key))) for key in shown]
    if source not in ("sample", "paste") and state.get(KEY_UPLOADED) is not None:
        rows.insert(1, (SETTINGS[KEY_UPLOAD_WIDGET], state[KEY_UPLOADED][0]))  # its file's name
    items = "".join(
        f'<dt>{html.escape(setting.label)}</dt><dd data-setting="{setting.key}" data-value="'
        f'{html.escape(shows, quote=True)}">{html.escape(visible_preview(shows))}</dd>'
        for setting, shows in rows
    )
    return (
        '<div class="bpe-class-settings"><p class="bpe-caption">The class\'s settings, as the '
        "teacher set them (Change settings to explore your own).</p>"
        f"<dl>{items}</dl></div>"
    )


def visible_preview(value: str, limit: int = 120) -> str:
    """A setting's value on one short line: a pasted text's first ``limit`` characters, its
    bidirectional controls shown as ``\\u202e`` (as a caption shows them)."""
    line = " ".join(visible_bidi(value).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class Setting:
    """A sidebar setting as a person reads it: its state key, its widget's label, and how its
    value reads (``shows``, a menu's or radio's format function; ``number_format``, a number
    box's). The widgets and a follower's read-only list both read it, so they name and show
    each setting alike."""

    key: str
    label: str
    shows: Callable[[Any], str] = str
    number_format: str | None = None

    def reads(self, value: Any) -> str:
        """``value`` as the widget shows it (nothing for a setting that has none).

        >>> [SETTINGS[key].reads(value) for key, value in [("ushrink", 0.8), ("eow", False)]]
        ['0.80', 'off']
        """
        if value is None:
            return ""
        return self.number_format % value if self.number_format else self.shows(value)


def _named(key: str, *, formatted: bool = True) -> dict[str, Any]:
    """The keyword arguments every sidebar widget of setting ``key`` takes from ``SETTINGS``
    (its label and key, kept for the session; a menu's or radio's format function, a number
    box's format)."""
    setting = SETTINGS[key]
    named: dict[str, Any] = {"label": setting.label, "key": key, "persist_state": "session"}
    if formatted:
        named["format_func"] = setting.shows
    if setting.number_format:
        named["format"] = setting.number_format
    return named


def _sample_keys() -> set[str]:
    return {sample.key for sample in list_samples()}


def _sample_title(key: str) -> str:
    return get_sample(key).title


# Unigram's settings: key -> (smallest, largest, step, help), SentencePiece's names in help.
_UNIGRAM_BOUNDS: dict[str, tuple[int | float, int | float, int | float, str]] = {
    "umaxlen": (1, MAX_PIECE_LENGTH_LIMIT, 1,
     "The seed holds every substring of a word up to this many characters "
     "(SentencePiece's max_sentencepiece_length, 16)."),
    "useed": (1, MAX_SEED_SIZE, 1,
     "The seed keeps at most this many of the longer substrings, the most frequent; every "
     "character is kept too (SentencePiece's seed_sentencepiece_size, 1,000,000)."),
    "ushrink": (SHRINKING_BOUNDS[0], SHRINKING_BOUNDS[1], 0.05,
     "The share of tokens each round keeps: 0.75 removes the quarter whose removal raises "
     "the loss least (SentencePiece's shrinking_factor)."),
    "uem": (1, MAX_EM_ITERATIONS, 1,
     "Expected counts and probabilities re-estimated this many times before each pruning "
     "(SentencePiece's num_sub_iterations, 2)."),
}  # fmt: skip


def _unigram_settings() -> None:
    """Unigram's own settings, within the bounds its trainer takes (``TrainingConfig``)."""
    state = st.session_state
    defaults = run_settings.default_state()
    for key, (smallest, largest, step, about) in _UNIGRAM_BOUNDS.items():
        value = state.get(key, defaults[key])
        if not isinstance(value, int | float) or not smallest <= value <= largest:
            value = state[key] = defaults[key]  # a live class's or an old session's
        st.number_input(
            min_value=smallest,
            max_value=largest,
            value=value,
            step=step,
            help=about,
            **_named(key, formatted=False),
        )


# A few words per pre-tokenizer for the menu: the chosen option is an input's value, cut at
# the sidebar's edge (240 px at 1366), never wrapped; the help says each in full.
_PRETOKENIZER_WORDS = {
    "bytes": "no split",
    "gpt2": "GPT-2's pattern",
    "gpt4": "GPT-4's pattern",
    "words": "whitespace",
    "bert": "BERT's split",
}


def _pretokenizer_label(name: str) -> str:
    """``gpt4: GPT-4's pattern``: the name, then a few words."""
    return f"{name}: {_PRETOKENIZER_WORDS.get(name, _pretokenizer_about(name))}"


def _pretokenizer_about(name: str) -> str:
    """What the pre-tokenizer does, in full; BERT's (WordPiece only) is described here."""
    known = PRETOKENIZER_REGISTRY.get(name)
    return known.help if known else "whitespace and every punctuation mark, as BERT does"


# Every sidebar setting, in the order the read-only list gives them.
SETTINGS: dict[str, Setting] = {
    setting.key: setting
    for setting in (
        Setting(run_settings.KEY_SOURCE, "Training text",
                lambda source: run_settings.SOURCE_LABELS.get(source, "")),
        Setting(run_settings.KEY_SAMPLE, "Sample", _sample_title),
        Setting(run_settings.KEY_PASTE, "Your text"),
        Setting(KEY_UPLOAD_WIDGET, "Text file"),
        Setting(run_settings.KEY_ALGORITHM, "Algorithm",
                lambda name: ALGORITHM_REGISTRY[name].title),
        Setting(run_settings.KEY_SCORE_RULE, "WordPiece rule"),
        Setting("umaxlen", "Longest piece (characters)"),
        Setting("useed", "Seed size"),
        Setting("ushrink", "Shrinking factor", number_format="%.2f"),
        Setting("uem", "EM iterations a round"),
        Setting(run_settings.KEY_VOCAB, "Vocab size"),
        Setting(run_settings.KEY_PRETOKENIZER, "Pre-tokenizer", _pretokenizer_label),
        Setting(run_settings.KEY_TIE_BREAK, "Tie rule"),
        Setting(run_settings.KEY_SPECIALS, "Special tokens"),
        Setting(run_settings.KEY_END_OF_WORD, f"{END_OF_WORD} end-of-word marker",
                lambda on: "on" if on else "off"),
    )
}  # fmt: skip


def _write_link() -> None:
    """Put the settings into the URL: set what changed, drop what is back to its default."""
    wanted = query_from_state(st.session_state)
    for key in run_settings.STATE_KEYS:
        if key in wanted:
            if st.query_params.get(key) != wanted[key]:
                st.query_params[key] = wanted[key]
        elif key in st.query_params:
            del st.query_params[key]
    paste = str(st.session_state.get(run_settings.KEY_PASTE) or "")
    long_paste = (
        st.session_state.get(run_settings.KEY_SOURCE) == "paste"
        and run_settings.KEY_PASTE not in wanted
    )
    keep_long_text(run_settings.KEY_PASTE, paste, in_link=long_paste and bool(paste))
