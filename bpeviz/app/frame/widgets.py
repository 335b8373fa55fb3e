"""Small Streamlit helpers every page uses to draw what the pure modules build: messages,
captions, charts, short tables, columns and a text area that travels in the link (token spans:
:mod:`bpeviz.app.shared.token_view`).
"""

from __future__ import annotations

import html
from typing import Any

import pandas as pd
import streamlit as st

from bpeviz.app.frame.inert import escape_markdown, visible_bidi
from bpeviz.app.frame.links import MAX_LINK_TEXT_CHARS
from bpeviz.app.frame.run_settings import Message
from bpeviz.app.frame.state import (
    KEY_LINK_MESSAGES,
    keep_long_text,
    linked_long_text,
    presentation_mode,
)
from bpeviz.app.frame.styles import stylesheet
from bpeviz.app.frame.text_input import MAX_BOX_CHARS
from bpeviz.app.shared import charts
from bpeviz.app.shared.tables import presented


def show_messages(messages: list[Message]) -> None:
    """Draw messages as ``st.error`` / ``st.warning`` / ``st.info`` (shown literally)."""
    for message in messages:
        draw = {"error": st.error, "warning": st.warning, "info": st.info}[message.level]
        draw(escape_markdown(message.text))


def caption(text: str) -> None:
    """A caption whose text is shown literally (it may hold a file name or token text), its
    bidirectional controls as ``\\u202e`` (they would reorder the rest of the line)."""
    st.html(f'<p class="bpe-caption">{html.escape(visible_bidi(text))}</p>')


def show_link_messages() -> None:
    """Warnings about a link's parameters that were ignored (shown once per session)."""
    messages = st.session_state.get(KEY_LINK_MESSAGES) or []
    if messages:
        show_messages(messages)
        st.session_state[KEY_LINK_MESSAGES] = []


def inject_css() -> None:
    """The stylesheet for token spans and cards (and presentation mode's overrides)."""
    st.html(stylesheet(presentation=presentation_mode()))


def columns(spec: int | list[int], *, key: str, pairs: bool = False, **kwargs: Any) -> list[Any]:
    """``st.columns`` that stack when the main area is narrow (a phone, or 800 px with the
    sidebar open), instead of squeezing tables and numbers until they are cut off.

    Below ``styles.STACK_BELOW_PX`` each column takes the full width; with ``pairs`` they
    go two to a row (four numbers become a 2 × 2 block).
    """
    with st.container(key=f"stack_{'pairs_' if pairs else ''}{key}"):
        return st.columns(spec, **kwargs)


def show_chart(chart: Any, **kwargs: Any) -> Any:
    """Draw an Altair chart (or a Vega-Lite spec of one) full width; in presentation mode
    with projector-sized text.

    ``kwargs`` go to ``st.altair_chart`` (``key``, ``on_select``, ``selection_mode``); its
    return value (the selection state, with ``on_select``) is returned.
    """
    if isinstance(chart, dict):  # a Vega-Lite spec, projector-sized where asked when made
        return st.vega_lite_chart(spec=chart, width="stretch", **kwargs)
    if presentation_mode():
        chart = charts.projector_type(chart)
    return st.altair_chart(chart, width="stretch", **kwargs)


def show_table(
    frame: pd.DataFrame,
    *,
    columns: list[str] | None = None,
    labels: dict[str, str] | None = None,
    formats: dict[str, str] | None = None,
    height: int | None = None,
    **kwargs: Any,
) -> None:
    """A short table: Streamlit's data grid, or in presentation mode an HTML table.

    The grid draws its cells on a canvas at about 14 px, out of the stylesheet's reach; in
    presentation mode the same rows go to ``st.table``, whose text the stylesheet sets at
    projector size (``columns``, ``labels`` and ``formats``: see ``tables.presented``, which
    makes the cells' Markdown inert: ``st.table`` renders it, a token ``![x](…)`` as an image).
    ``kwargs`` (``column_config``...) go to ``st.dataframe`` alone.
    """
    if presentation_mode():
        shown = presented(frame, columns=columns, labels=labels, formats=formats)
        st.table(shown, hide_index=True, height=height or "content")
        return
    st.dataframe(frame, column_order=columns, hide_index=True, height=height or "auto", **kwargs)


def linked_text_area(label: str, *, key: str, default: str = "", **kwargs: Any) -> str:
    """A text area whose text travels in the link (query parameter ``key``) when short; returns
    the part of its text the page tokenizes.

    That is the whole text up to ``MAX_BOX_CHARS`` characters, else the first that many, and a
    caption says so: every encoder, the ``tokenizers`` library's too, then stays within a few
    seconds and a few hundred MB however much is pasted (``benchmarks/robustness.py``), and
    the box keeps all of it.

    On the first visit a text in the URL wins over ``default``. Afterwards the URL follows the
    box: it holds the text while it is at most ``MAX_LINK_TEXT_CHARS`` characters and not the
    default, and drops it otherwise (a caption says so). Nothing typed is ever cut, and the
    text stays with the session when the student visits another page (``persist_state``);
    drawn with it as its default too, a browser that missed the seeded value shows it (see
    :func:`bpeviz.app.frame.sidebar.sidebar`).
    """
    seeded = f"_seeded_{key}"
    if not st.session_state.get(seeded):
        long_text, missing = linked_long_text(key)
        show_messages(missing)
        linked = long_text if long_text is not None else st.query_params.get(key, default)
        st.session_state.setdefault(key, linked)
        st.session_state[seeded] = True
    current = str(st.session_state.get(key) or "")
    text = st.text_area(label, value=current, key=key, persist_state="session", **kwargs)
    long = len(text) > MAX_LINK_TEXT_CHARS
    if text and text != default and not long:
        if st.query_params.get(key) != text:
            st.query_params[key] = text
    elif key in st.query_params:
        del st.query_params[key]
    keep_long_text(key, text, in_link=long)
    if long:
        st.caption(
            f"{len(text):,} characters: longer than {MAX_LINK_TEXT_CHARS:,}, so the page's "
            "link refers to this text, and this server keeps it for a reload."
        )
    if len(text) > MAX_BOX_CHARS:
        st.caption(
            f"The text is {len(text):,} characters long: this page tokenizes the first "
            f"{MAX_BOX_CHARS:,} (the box keeps all of it)."
        )
        return text[:MAX_BOX_CHARS]
    return text


def seed_linked_choice(key: str, options: list[str], default: str) -> None:
    """Before a menu is drawn: its choice from the session, else the link's (``?key=...``),
    else ``default``; then :func:`keep_choice_in_link` after it.

    By hand, not ``bind="query-params"``: a bound menu writes the label its ``format_func``
    makes into the URL, and the Tokenize and Compare menus name an imported file by its file
    name while the link must keep the option's stable key (``Imported``). Set this way, the
    menu is drawn without ``index``: a lesson, a class or the Export page choose by the state.
    """
    state = st.session_state
    if state.get(key) not in options:
        linked = st.query_params.get(key)
        state[key] = linked if linked in options else default


def keep_choice_in_link(key: str, choice: str, default: str) -> None:
    """After the menu: the link holds its choice's key, or nothing at the default (as a bound
    widget's link does)."""
    if choice == default:
        st.query_params.pop(key, None)
    elif st.query_params.get(key) != choice:
        st.query_params[key] = choice
