"""The Export page's buttons whose functions Streamlit keeps as long as the session is open:
the downloads made on click of the sidebar's BPE or WordPiece run (its Step page view as one
HTML page, a WordPiece run's ``tokenizer.json``), and the buttons that open an imported file.

They live here, not in the page, because a function the page script defines holds the
script's globals, the run among them. And a download names its run (the text and settings)
and finds it again when clicked, never holding it: an open page would otherwise keep its run
after the bounded cache of runs (``training.RUN_BYTES``) let it go.
"""

from __future__ import annotations

from functools import partial

import streamlit as st

from bpeviz.app.export.files import page_file_name
from bpeviz.app.frame.run_settings import Settings
from bpeviz.app.frame.text_input import TrainingText
from bpeviz.app.frame.training import run_for, wordpiece_for
from bpeviz.app.shared.choices import opened_on_import
from bpeviz.app.step.view import step_page_for
from bpeviz.formats.hf_wordpiece import to_hf_wordpiece_json

KEY_OPEN = "_export_open"  # the page an opening button chose, switched to on the next run


def open_on_import(page: str) -> None:
    """Button callback: choose the file just imported in the page's menus, then go there."""
    st.session_state.update(opened_on_import()[page])
    st.session_state[KEY_OPEN] = page


def offer_html_page(text: TrainingText, settings: Settings) -> None:
    """The run of ``text`` under ``settings`` as one exported HTML page of the Step page's
    view, to download."""
    st.header("This run as one HTML page", anchor=False)
    st.caption(
        "The Step page's view with this run inside it: it steps (keys and autoplay too) "
        "with no server at all. Open it from disk, put it on a course web page, or hand it "
        "out for a lecture hall's wifi."
    )
    st.download_button(
        "Download this run as an HTML page",
        data=partial(_html_page, text, settings),
        file_name=page_file_name(text.name, run_for(text, settings).merge_count),
        mime="text/html",
        icon=":material/download:",
        key="export_html_page",
        on_click="ignore",
    )


def offer_wordpiece_json(text: TrainingText, settings: Settings, stem: str) -> None:
    """The WordPiece run of ``text`` under ``settings`` as a Hugging Face ``tokenizer.json``."""
    st.download_button(
        "tokenizer.json",
        data=partial(_wordpiece_json, text, settings),
        file_name=f"{stem}.tokenizer.json",
        mime="application/json",
        icon=":material/download:",
        key="export_wordpiece_json",
        on_click="ignore",
    )


def _html_page(text: TrainingText, settings: Settings) -> str:
    return step_page_for(run_for(text, settings), name=text.name, summary=settings.summary())


def _wordpiece_json(text: TrainingText, settings: Settings) -> str:
    return to_hf_wordpiece_json(wordpiece_for(text, settings).run)
