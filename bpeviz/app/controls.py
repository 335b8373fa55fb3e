"""The Step page's controls: the step slider, previous / next, jump, and autoplay.

They live in the session state (bound to the URL's ``step``), so a link opens at the same
merge, and autoplay is a fragment that reruns only itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import streamlit as st

from bpeviz.app.state import KEY_JUMP, KEY_LAST_TICK, KEY_PLAYING, KEY_SPEED, KEY_STEP

SPEEDS: tuple[float, ...] = (0.5, 1.0, 2.0, 3.0)


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
