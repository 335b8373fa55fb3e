"""The Export page's downloads for a Unigram run: its ``tokenizer.json`` (the ``tokenizers``
library reads it and cuts every word as our Viterbi does: ``bpeviz/formats/hf_unigram.py``)
and the Step page's view of it as one HTML page."""

from __future__ import annotations

from functools import partial

import streamlit as st

from bpeviz.app.export.files import file_stem
from bpeviz.app.frame.run_settings import Settings
from bpeviz.app.frame.state import current_settings, current_text
from bpeviz.app.frame.text_input import TrainingText
from bpeviz.app.frame.unigram_runs import current_unigram_run, unigram_run_for
from bpeviz.app.frame.widgets import caption
from bpeviz.app.step.unigram import unigram_page_for
from bpeviz.formats.hf_unigram import to_hf_unigram_json


def unigram_downloads() -> None:
    """The downloads of the sidebar's Unigram run (or why there is none)."""
    found = current_unigram_run()
    if found is None:
        return
    run, data, _ = found
    text = current_text()
    if text is None:  # a run was found, so the sidebar has a text
        return
    name = text.name
    stem = file_stem(name, run.final.size)
    settings = current_settings()
    summary = settings.summary()
    caption(
        f"The Unigram tokenizer trained in the sidebar: {run.final.size:,} tokens after "
        f"{len(run.rounds) - 1:,} rounds of pruning, {summary}."
    )
    st.markdown(
        "**Hugging Face tokenizer.json** (Unigram, scores = ln P, Metaspace, byte fallback)"
    )
    st.download_button(
        "tokenizer.json",
        data=partial(_unigram_json, text, data, settings),
        file_name=f"{stem}.tokenizer.json",
        mime="application/json",
        icon=":material/download:",
        key="export_unigram_json",
        on_click="ignore",
    )
    st.header("This run as one HTML page", anchor=False)
    st.caption(
        "The Step page's view with this run inside it, round by round, with each word's "
        "lattice and sampling: it works with no server at all."
    )
    st.download_button(
        "Download this run as an HTML page",
        data=partial(_unigram_page, text, data, settings, name),
        file_name=f"{stem}-{len(run.rounds) - 1}-rounds.html",
        mime="text/html",
        icon=":material/download:",
        key="export_html_page",
        on_click="ignore",
    )


# Streamlit keeps a download's function as long as the session is open, so these name the run
# (its text and settings) and find it again when clicked, never hold it: an open page would
# otherwise keep its rounds after the bounded cache of runs let them go.
def _unigram_json(text: TrainingText, data: str, settings: Settings) -> str:
    return to_hf_unigram_json(unigram_run_for(text, data, settings)[0].model())


def _unigram_page(text: TrainingText, data: str, settings: Settings, name: str) -> str:
    run, run_key = unigram_run_for(text, data, settings)
    return unigram_page_for(run, data, run_key, name=name, summary=settings.summary())
