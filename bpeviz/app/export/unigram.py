"""The Export page's downloads for a Unigram run: its ``tokenizer.json`` (the ``tokenizers``
library reads it and cuts every word as our Viterbi does: ``bpeviz/formats/hf_unigram.py``)
and the Step page's view of it as one HTML page."""

from __future__ import annotations

import streamlit as st

from bpeviz.app.export.files import file_stem
from bpeviz.app.frame.state import current_settings, current_text
from bpeviz.app.frame.unigram_runs import current_unigram_run
from bpeviz.app.frame.widgets import caption
from bpeviz.app.step.unigram import unigram_page_for
from bpeviz.formats.hf_unigram import to_hf_unigram_json


def unigram_downloads() -> None:
    """The downloads of the sidebar's Unigram run (or why there is none)."""
    found = current_unigram_run()
    if found is None:
        return
    run, data, run_key = found
    text = current_text()
    name = text.name if text is not None else "text"
    stem = file_stem(name, run.final.size)
    summary = current_settings().summary()
    caption(
        f"The Unigram tokenizer trained in the sidebar: {run.final.size:,} tokens after "
        f"{len(run.rounds) - 1:,} rounds of pruning, {summary}."
    )
    st.markdown(
        "**Hugging Face tokenizer.json** (Unigram, scores = ln P, Metaspace, byte fallback)"
    )
    st.download_button(
        "tokenizer.json",
        data=lambda: to_hf_unigram_json(run.model()),
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
        data=lambda: unigram_page_for(run, data, run_key, name=name, summary=summary),
        file_name=f"{stem}-{len(run.rounds) - 1}-rounds.html",
        mime="text/html",
        icon=":material/download:",
        key="export_html_page",
        on_click="ignore",
    )
