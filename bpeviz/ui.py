"""The Streamlit glue: shared sidebar, session state, links, cached training, small helpers.

This is the only ``bpeviz`` module that imports Streamlit. Pages call these functions and
draw what the pure modules (``bpeviz.display``, ``bpeviz.tables``, ``bpeviz.settings``) build.

The API other pages rely on:

- :func:`current_settings` -> :class:`~bpeviz.settings.Settings` (the sidebar's values);
- :func:`current_text` -> :class:`~bpeviz.settings.TrainingText` or ``None``;
- :func:`current_history` -> the trained :class:`~bpeviz.history.History` or ``None`` (after
  showing why); trained once per settings and text, shared by every page and session;
- :func:`cl100k` -> the real ``cl100k_base`` tokenizer (loaded once per server);
- :func:`train_sample` -> the history of a bundled sample with given settings (cached);
- :func:`show_spans` draws HTML from ``bpeviz.display``; :func:`presentation_mode` says
  whether the app is in projector mode;
- :func:`remember_imported_tokenizer` / :func:`imported_tokenizer` share a tokenizer
  uploaded on one page (Export / import) with the Tokenize page.

State: every key is set with ``st.session_state.setdefault`` (or by a widget) and never at
module level. The settings travel in the URL (see :mod:`bpeviz.settings` for the format),
written after the sidebar is drawn; the step, presentation mode and page-level choices are
widgets bound to query parameters (``bind="query-params"``).
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from bpeviz import charts
from bpeviz import settings as cfg
from bpeviz.display import FOCUS_SCRIPT, esc, stylesheet
from bpeviz.history import History, train
from bpeviz.samples import get_sample, list_samples
from bpeviz.tokenizer import Tokenizer
from bpeviz.trainer import TIE_BREAK_DESCRIPTIONS, TIE_BREAKS

KEY_PRESENT = "present"
KEY_STEP = "step"
KEY_PLAYING = "_playing"
KEY_SPEED = "speed"
KEY_JUMP = "jump"
KEY_UPLOAD_WIDGET = "upload"
KEY_UPLOADED = "_uploaded"  # (name, bytes) kept after the uploader is hidden
KEY_INITIALISED = "_bpeviz_initialised"
KEY_LINK_MESSAGES = "_link_messages"
KEY_IMPORTED = "_imported_tokenizer"
KEY_LAST_TICK = "_last_tick"
SPEEDS: tuple[float, ...] = (0.5, 1.0, 2.0, 3.0)
PROGRESS_AFTER_SECONDS = 0.3
_MARKDOWN_SPECIALS = re.compile(r"[\\`*_{}\[\]()<>#+\-.!|~$:]")


# ---- state and the sidebar --------------------------------------------------------------


def init_state() -> None:
    """Once per session, before any widget: seed the settings from the link (query params)."""
    if st.session_state.get(KEY_INITIALISED):
        return
    params = {key: st.query_params[key] for key in cfg.STATE_KEYS if key in st.query_params}
    state, messages = cfg.state_from_query(params)
    for key, value in state.items():
        st.session_state.setdefault(key, value)
    st.session_state[KEY_LINK_MESSAGES] = messages
    st.session_state[KEY_INITIALISED] = True


def _apply_sample_suggestions() -> None:
    """Callback of the sample picker: a new sample brings its suggested settings.

    It also starts at step 0 with autoplay off: a teacher switching to the ties example wants
    to land before its tie, not at whatever step the last sample was on.
    """
    sample = get_sample(st.session_state[cfg.KEY_SAMPLE])
    for key, value in cfg.suggested_state(sample).items():
        st.session_state[key] = value
    st.session_state[KEY_STEP] = 0
    st.session_state[KEY_PLAYING] = False


def _store_upload() -> None:
    """Callback of the uploader: keep the file's bytes so they survive hiding the widget."""
    uploaded = st.session_state.get(KEY_UPLOAD_WIDGET)
    st.session_state[KEY_UPLOADED] = (
        None if uploaded is None else (uploaded.name, uploaded.getvalue())
    )


def sidebar() -> None:
    """Draw the shared settings in the sidebar and write them into the URL."""
    state = st.session_state
    samples = {sample.key: sample for sample in list_samples()}
    with st.sidebar:
        st.toggle(
            "Presentation mode",
            key=KEY_PRESENT,
            bind="query-params",
            help="Large type, strong outlines and less chrome, for a projector.",
        )
        st.radio(
            "Training text",
            cfg.SOURCES,
            format_func=cfg.SOURCE_LABELS.__getitem__,
            key=cfg.KEY_SOURCE,
            horizontal=True,
        )
        source = state[cfg.KEY_SOURCE]
        if source == "sample":
            st.selectbox(
                "Sample",
                list(samples),
                format_func=lambda key: samples[key].title,
                key=cfg.KEY_SAMPLE,
                on_change=_apply_sample_suggestions,
                persist_state="session",
                help="Choosing a sample also applies the settings it is meant to be seen with.",
            )
            st.caption(samples[state[cfg.KEY_SAMPLE]].description)
        elif source == "paste":
            st.text_area(
                "Your text",
                key=cfg.KEY_PASTE,
                height=150,
                persist_state="session",
                placeholder="Paste or type the text to train on…",
                help=f"Up to {cfg.format_size(cfg.MAX_PASTE_BYTES)}. Texts of up to "
                f"{cfg.MAX_LINK_TEXT_CHARS:,} characters are kept in the page's link.",
            )
            if len(state.get(cfg.KEY_PASTE) or "") > cfg.MAX_LINK_TEXT_CHARS:
                st.caption(
                    f"This text is longer than {cfg.MAX_LINK_TEXT_CHARS:,} characters, so "
                    "the page's link does not include it."
                )
        else:
            st.file_uploader(
                f"Text file (up to {cfg.MAX_UPLOAD_MB} MB)",
                type=None,
                key=KEY_UPLOAD_WIDGET,
                on_change=_store_upload,
                max_upload_size=cfg.MAX_UPLOAD_MB,
                help="A plain-text file (.txt, .md, .csv…). Text that is not UTF-8 is "
                "trained on as raw bytes. An uploaded file is not part of the page's link.",
            )
            stored = state.get(KEY_UPLOADED)
            if stored is not None:
                caption(f"Using {stored[0]} ({cfg.format_size(len(stored[1]))}).")
        st.number_input(
            "Vocab size",
            key=cfg.KEY_VOCAB,
            min_value=1,
            step=1,
            help="256 byte tokens plus one per merge (plus the </w> marker when it is on). "
            f"At most {cfg.MAX_VOCAB_SIZE:,}; training stops early when no pair is left.",
        )
        st.selectbox(
            "Pre-tokenizer",
            cfg.PRETOKENIZERS,
            key=cfg.KEY_PRETOKENIZER,
            format_func=cfg.PRETOKENIZER_LABELS.__getitem__,
            help="How the text is cut into pieces first; merges never cross a piece boundary.",
        )
        st.selectbox(
            "Tie rule",
            TIE_BREAKS,
            key=cfg.KEY_TIE_BREAK,
            help="When several pairs share the top count, this picks one: "
            + "; ".join(f"**{name}**: {text}" for name, text in TIE_BREAK_DESCRIPTIONS.items()),
        )
        st.text_input(
            "Special tokens",
            key=cfg.KEY_SPECIALS,
            placeholder="none (e.g. <|endoftext|>)",
            help="Separated by spaces or commas. A special token is never split or merged.",
        )
        st.checkbox(
            "</w> end-of-word marker",
            key=cfg.KEY_END_OF_WORD,
            disabled=state[cfg.KEY_PRETOKENIZER] != "words",
            help="Sennrich et al.'s marker at the end of every word (words pre-tokenizer only).",
        )
    _write_link()


def _write_link() -> None:
    """Put the settings into the URL: set what changed, drop what is back to its default."""
    wanted = cfg.query_from_state(st.session_state)
    for key in cfg.STATE_KEYS:
        if key in wanted:
            if st.query_params.get(key) != wanted[key]:
                st.query_params[key] = wanted[key]
        elif key in st.query_params:
            del st.query_params[key]


def escape_markdown(text: str) -> str:
    """Backslash-escape Markdown punctuation so a file name or token shows literally."""
    return _MARKDOWN_SPECIALS.sub(r"\\\g<0>", text)


def show_messages(messages: list[cfg.Message]) -> None:
    """Draw messages as ``st.error`` / ``st.warning`` / ``st.info`` (shown literally)."""
    for message in messages:
        draw = {"error": st.error, "warning": st.warning, "info": st.info}[message.level]
        draw(escape_markdown(message.text))


def caption(text: str) -> None:
    """A caption whose text is shown literally (it may hold a file name or token text)."""
    st.html(f'<p class="bpe-caption">{esc(text)}</p>')


def show_link_messages() -> None:
    """Warnings about a link's parameters that were ignored (shown once per session)."""
    messages = st.session_state.get(KEY_LINK_MESSAGES) or []
    if messages:
        show_messages(messages)
        st.session_state[KEY_LINK_MESSAGES] = []


def presentation_mode() -> bool:
    """Whether the app is in presentation (projector) mode."""
    return bool(st.session_state.get(KEY_PRESENT, False))


def inject_css() -> None:
    """The stylesheet for token spans and cards (and presentation mode's overrides)."""
    st.html(stylesheet(presentation=presentation_mode()))


def show_spans(html: str, *, scroll: bool = False, focus: str | None = None) -> None:
    """Draw HTML built by ``bpeviz.display`` (already escaped) with ``st.html``.

    ``scroll`` puts it in a box of fixed height that scrolls, so long texts do not push the
    rest of the page around. ``focus`` (a key, such as the step) scrolls that box to its first
    outlined token whenever the key changes; see ``display.FOCUS_SCRIPT``.
    """
    if scroll:
        key = f' data-focus="{esc(focus)}"' if focus is not None else ""
        html = f'<div class="bpe-scroll"{key}>{html}</div>'
    st.html(html)
    if focus is not None:
        # Its own element, with the app's one constant script: user text never runs.
        st.html(FOCUS_SCRIPT, unsafe_allow_javascript=True)


def columns(spec: int | list[int], *, key: str, pairs: bool = False, **kwargs: Any) -> list[Any]:
    """``st.columns`` that stack when the main area is narrow (a phone, or 800 px with the
    sidebar open), instead of squeezing tables and numbers until they are cut off.

    Below ``display.STACK_BELOW_PX`` each column takes the full width; with ``pairs`` they
    go two to a row (four numbers become a 2 × 2 block).
    """
    with st.container(key=f"stack_{'pairs_' if pairs else ''}{key}"):
        return st.columns(spec, **kwargs)


def show_chart(chart: Any, **kwargs: Any) -> Any:
    """Draw an Altair chart full width; in presentation mode with projector-sized text.

    ``kwargs`` go to ``st.altair_chart`` (``key``, ``on_select``, ``selection_mode``); its
    return value (the selection state, with ``on_select``) is returned.
    """
    if presentation_mode():
        chart = charts.projector_type(chart)
    return st.altair_chart(chart, width="stretch", **kwargs)


def linked_text_area(label: str, *, key: str, default: str = "", **kwargs: Any) -> str:
    """A text area whose text travels in the link (query parameter ``key``) when short.

    On the first visit a text in the URL wins over ``default``. Afterwards the URL follows the
    box: it holds the text while it is at most ``MAX_LINK_TEXT_CHARS`` characters and not the
    default, and drops it otherwise (a caption says so). Nothing typed is ever cut.
    """
    seeded = f"_seeded_{key}"
    if not st.session_state.get(seeded):
        st.session_state.setdefault(key, st.query_params.get(key, default))
        st.session_state[seeded] = True
    text = st.text_area(label, key=key, **kwargs)
    if text and text != default and len(text) <= cfg.MAX_LINK_TEXT_CHARS:
        if st.query_params.get(key) != text:
            st.query_params[key] = text
    else:
        if key in st.query_params:
            del st.query_params[key]
        if len(text) > cfg.MAX_LINK_TEXT_CHARS:
            st.caption(
                f"{len(text):,} characters: longer than {cfg.MAX_LINK_TEXT_CHARS:,}, so the "
                "page's link does not include this text."
            )
    return text


# ---- the text and the training run ------------------------------------------------------


def current_settings() -> cfg.Settings:
    """The training settings chosen in the sidebar."""
    return cfg.settings_from_state(st.session_state)


def _text_and_messages(settings: cfg.Settings) -> tuple[cfg.TrainingText | None, list[cfg.Message]]:
    if settings.source == "paste":
        return cfg.text_from_paste(st.session_state.get(cfg.KEY_PASTE))
    if settings.source == "upload":
        stored = st.session_state.get(KEY_UPLOADED)
        if stored is None:
            return None, [
                cfg.Message(
                    "info",
                    f"Upload a text file in the sidebar (up to {cfg.MAX_UPLOAD_MB} MB), or "
                    "pick a sample.",
                )
            ]
        return cfg.text_from_upload(*stored)
    try:
        sample = get_sample(settings.sample_key)
    except ValueError as error:
        return None, [cfg.Message("error", str(error))]
    return cfg.TrainingText(sample.title, sample.text, sample.language, None, "sample"), []


def current_text() -> cfg.TrainingText | None:
    """The text chosen in the sidebar, or ``None`` when there is none usable (no message)."""
    return _text_and_messages(current_settings())[0]


@dataclass
class _Slot:
    """One cache entry: the history for one (text, settings), trained at most once."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    history: History | None = None


@st.cache_resource(max_entries=6, ttl=3600, show_spinner=False)
def _user_slot(digest: str, training_key: tuple[Any, ...]) -> _Slot:
    return _Slot()


@st.cache_resource(max_entries=24, show_spinner=False)
def _sample_slot(sample_key: str, training_key: tuple[Any, ...]) -> _Slot:
    return _Slot()


def _digest(data: str | bytes) -> str:
    raw = data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    return ("s" if isinstance(data, str) else "b") + hashlib.sha256(raw).hexdigest()


def _train_with_progress(data: str | bytes, settings: cfg.Settings) -> History:
    """Train, showing a progress bar if it takes more than a moment."""
    started = time.perf_counter()
    bar: Any = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if time.perf_counter() - started < PROGRESS_AFTER_SECONDS:
            return
        if bar is None:
            bar = st.progress(0.0)
        bar.progress(min(done / max(total, 1), 1.0), text=f"Training: merge {done:,} of {total:,}")

    try:
        return train(
            data,
            settings.vocab_size,
            pretokenizer=settings.pretokenizer,
            tie_break=settings.tie_break,
            special_tokens=settings.special_tokens,
            end_of_word=settings.end_of_word,
            progress=progress,
        )
    finally:
        if bar is not None:
            bar.empty()


def _history_in(slot: _Slot, data: str | bytes, settings: cfg.Settings) -> History:
    with slot.lock:
        if slot.history is None:
            slot.history = _train_with_progress(data, settings)
        return slot.history


def current_history(*, show: bool = True) -> History | None:
    """The history for the sidebar's text and settings, trained once and then reused.

    On a problem (no text, a bad setting) it shows why with ``st.error``/``st.warning`` and
    returns ``None``; it never raises. When training stopped before the vocab size asked
    for, it says how far it got and why. ``show=False`` keeps it silent.
    """
    settings = current_settings()
    text, messages = _text_and_messages(settings)
    messages = messages + cfg.check_settings(settings)
    history = None
    if text is not None and not any(m.level == "error" for m in messages):
        try:
            history = history_for(text, settings)
        except ValueError as error:
            messages.append(cfg.Message("error", f"Cannot train: {error}."))
        else:
            if len(text.data) > 1:  # a single character has its own warning already
                messages += cfg.outcome_messages(settings, history.merge_count, history.stop_reason)
    if show:
        show_messages(messages)
    return history


def history_for(text: cfg.TrainingText, settings: cfg.Settings) -> History:
    """The history of ``text`` under ``settings`` (not necessarily the sidebar's), cached in
    the same bounded slots as :func:`current_history`, so a run both use trains once.

    Raises ``ValueError`` for settings the trainer refuses; check them first with
    ``settings.check_settings``.
    """
    if text.source == "sample":
        slot = _sample_slot(settings.sample_key, settings.training_key())
    else:
        slot = _user_slot(_digest(text.data), settings.training_key())
    return _history_in(slot, text.data, settings)


def train_sample(key: str, vocab_size: int, pretokenizer: str, tie_break: str) -> History:
    """The history of bundled sample ``key`` with these settings (trained once, cached).

    Raises ``ValueError`` for an unknown sample or impossible settings.
    """
    settings = cfg.Settings(
        source="sample",
        sample_key=key,
        vocab_size=vocab_size,
        pretokenizer=pretokenizer,
        tie_break=tie_break,
    )
    sample = get_sample(key)
    return _history_in(_sample_slot(key, settings.training_key()), sample.text, settings)


@st.cache_resource(max_entries=1, show_spinner="Loading cl100k_base (100,256 tokens)…")
def cl100k() -> Tokenizer:
    """GPT-4's ``cl100k_base`` (its real ranks, our encoder), loaded once per server.

    Raises ``RuntimeError`` (``Cl100kUnavailable``) with an explanation when the ranks file
    is not installed; nothing is cached then, so a later call tries again.
    """
    from bpeviz.cl100k import load_cl100k

    return load_cl100k()


@st.cache_data(max_entries=16, show_spinner="Tokenizing…")
def encode(_tokenizer: Tokenizer, tokenizer_key: Any, text: str) -> list[int]:
    """``_tokenizer.encode(text)``, cached per (``tokenizer_key``, text).

    ``tokenizer_key`` must name the tokenizer uniquely (e.g. ``"cl100k"`` or the training
    settings and text digest); the tokenizer itself is not hashed.
    """
    return _tokenizer.encode(text)


def history_key(history: History) -> tuple[Any, ...]:
    """A cache key naming a trained tokenizer: its text and its merges' settings."""
    run = history.run
    return (
        _digest(history.text),
        run.tie_break,
        run.pretokenizer,
        history.merge_count,
        run.special_tokens,
        history.base,
    )


def remember_imported_tokenizer(name: str, tokenizer: Tokenizer) -> None:
    """Keep a tokenizer loaded from a file (Export / import page) for this session."""
    st.session_state[KEY_IMPORTED] = (name, tokenizer)


def imported_tokenizer() -> tuple[str, Tokenizer] | None:
    """The tokenizer imported this session, as ``(name, tokenizer)``, if any."""
    return st.session_state.get(KEY_IMPORTED)


# ---- the step control -------------------------------------------------------------------


def clamp_step(merge_count: int) -> None:
    """Keep the step inside ``0..merge_count`` when a new training run is shorter."""
    step = st.session_state.get(KEY_STEP)
    if isinstance(step, int) and not 0 <= step <= merge_count:
        st.session_state[KEY_STEP] = min(max(step, 0), merge_count)


def _move(delta: int | None = None, *, to: int | None = None, last: int = 0) -> None:
    current = int(st.session_state.get(KEY_STEP) or 0)
    target = current + delta if delta is not None else (to or 0)
    st.session_state[KEY_STEP] = min(max(target, 0), last)


def _jump(last: int) -> None:
    """Callback of the "Go to step" box: move there, then empty the box.

    The box is never written while the script runs: a value pushed into it on every run
    came back from the browser as a "change" while the slider was moving fast, and the
    jump it then made sent the step backwards.
    """
    target = st.session_state.get(KEY_JUMP)
    if target is None:
        return
    _move(to=int(target), last=last)
    st.session_state[KEY_JUMP] = None


def _toggle_play(last: int) -> None:
    playing = not st.session_state.get(KEY_PLAYING, False)
    st.session_state[KEY_PLAYING] = playing
    st.session_state[KEY_LAST_TICK] = time.monotonic()
    if playing and int(st.session_state.get(KEY_STEP) or 0) >= last:
        st.session_state[KEY_STEP] = 0


def autoplay_interval() -> float | None:
    """Seconds between autoplay steps, or ``None`` when not playing (for ``st.fragment``)."""
    if not st.session_state.get(KEY_PLAYING, False):
        return None
    return float(st.session_state.get(KEY_SPEED, 1.0))


def step_controls(merge_count: int) -> int:
    """The step slider, previous/next/first/last buttons, jump box and autoplay; returns k.

    Keyboard: ← / → previous / next, Home / End first / last, K play or pause. Meant to be
    called inside an ``st.fragment(run_every=autoplay_interval())``: each timer tick
    advances one step, and playing stops at the last merge.
    """
    state = st.session_state
    state.setdefault(KEY_PLAYING, False)
    state.setdefault(KEY_SPEED, 1.0)
    last = merge_count
    if state[KEY_PLAYING]:
        interval = float(state[KEY_SPEED])
        now = time.monotonic()
        if now - state.get(KEY_LAST_TICK, 0.0) >= interval * 0.8:
            state[KEY_LAST_TICK] = now
            _move(1, last=last)
        if int(state.get(KEY_STEP) or 0) >= last:
            state[KEY_PLAYING] = False
            st.rerun()  # the whole app, so the fragment stops its timer
    k = st.slider(
        "Step: merges done",
        min_value=0,
        max_value=last,
        key=KEY_STEP,
        bind="query-params",
        help="Step k shows the text after k merges, and merge k itself.",
    )
    k = min(max(int(k), 0), last)
    with st.container(horizontal=True, vertical_alignment="bottom", gap="small"):
        st.button(
            "First",
            icon=":material/first_page:",
            key="step_first",
            on_click=_move,
            kwargs={"to": 0, "last": last},
            disabled=k == 0,
            shortcut="Home",
            help="Reset: back to step 0, the raw bytes (Home).",
        )
        st.button(
            "Previous",
            icon=":material/chevron_left:",
            key="step_prev",
            on_click=_move,
            args=(-1,),
            kwargs={"last": last},
            disabled=k == 0,
            shortcut="Left",
        )
        st.button(
            "Next",
            icon=":material/chevron_right:",
            key="step_next",
            on_click=_move,
            args=(1,),
            kwargs={"last": last},
            disabled=k >= last,
            shortcut="Right",
            type="primary",
        )
        st.button(
            "Last",
            icon=":material/last_page:",
            key="step_last",
            on_click=_move,
            kwargs={"to": last, "last": last},
            disabled=k >= last,
            shortcut="End",
        )
        playing = state[KEY_PLAYING]
        if st.button(
            "Pause" if playing else "Play",
            icon=":material/pause:" if playing else ":material/play_arrow:",
            key="step_play",
            on_click=_toggle_play,
            args=(last,),
            shortcut="K",
            help="Step through the merges by themselves (K).",
        ):
            st.rerun()  # the whole app: the fragment's timer starts or stops
        st.select_slider(
            "Pace",
            SPEEDS,
            format_func=lambda seconds: f"{seconds:g} s",
            key=KEY_SPEED,
            help="Autoplay: seconds between steps.",
            width=120,
        )
        st.number_input(
            "Go to step",
            min_value=0,
            max_value=last,
            value=None,
            step=1,
            placeholder=f"0–{last:,}",
            key=KEY_JUMP,
            on_change=_jump,
            args=(last,),
            width=130,
        )
    if playing and state.get("_speed_seen") not in (None, state[KEY_SPEED]):
        state["_speed_seen"] = state[KEY_SPEED]
        st.rerun()
    state["_speed_seen"] = state[KEY_SPEED]
    return k


def fragment(body: Callable[[], None], *, run_every: float | None) -> None:
    """Run ``body`` as an ``st.fragment`` (rerun alone; every ``run_every`` seconds if set)."""
    st.fragment(body, run_every=run_every)()
