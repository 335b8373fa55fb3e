"""Export / import: download the trained tokenizer and its history; upload a model to inspect."""

import streamlit as st

from bpeviz.app.export import files as export
from bpeviz.app.export.buttons import (
    KEY_OPEN,
    offer_html_page,
    offer_wordpiece_json,
    open_on_import,
)
from bpeviz.app.export.unigram import unigram_downloads
from bpeviz.app.frame.inert import escape_markdown
from bpeviz.app.frame.run_settings import Message
from bpeviz.app.frame.state import (
    current_settings,
    current_text,
    imported_tokenizer,
    remember_imported_tokenizer,
)
from bpeviz.app.frame.text_input import MAX_UPLOAD_MB
from bpeviz.app.frame.training import current_run, shared_import
from bpeviz.app.frame.unigram_runs import unigram_chosen
from bpeviz.app.frame.widgets import caption, show_messages
from bpeviz.app.shared import tables
from bpeviz.app.shared.choices import opened_on_import
from bpeviz.app.shared.csv_cells import csv_bytes
from bpeviz.app.shared.token_view import library_note
from bpeviz.engine.history import History
from bpeviz.engine.wordpiece_history import WordPieceHistory
from bpeviz.formats.hf_models import LibraryTokenizer

KEY_UPLOAD = "export_model_files"
KEY_PATTERN = "export_pattern"
KEY_LOADED = "_export_loaded"  # (upload signature, LoadedModel or error message)

OPENERS = {"tokenize": ("Tokenize with it", "✂️"), "compare": ("Compare it", "⚖️")}


if (opening := st.session_state.pop(KEY_OPEN, None)) is not None:
    st.switch_page(f"app_pages/{opening}.py", query_params=opened_on_import()[opening])
st.title("Export / import")

# ---- download ---------------------------------------------------------------------------

st.header("Download your tokenizer", anchor=False)
settings = current_settings()
if unigram_chosen():  # its tokenizer.json and its rounds as one page (bpeviz/app/export/unigram.py)
    unigram_downloads()
trained = None if unigram_chosen() else current_run()
history = trained if isinstance(trained, History) else None
wordpiece = trained if isinstance(trained, WordPieceHistory) else None
text_info = current_text()
if wordpiece is not None and text_info is not None:
    name = text_info.name
    stem = export.file_stem(name, wordpiece.vocab_size)
    caption(
        f"The tokenizer trained in the sidebar: {wordpiece.vocab_size:,} tokens "
        f"({wordpiece.merge_count:,} merges), {settings.summary()}."
    )
    st.markdown("**Hugging Face tokenizer.json** (a WordPiece model: `##` continuations, `[UNK]`)")
    offer_wordpiece_json(text_info, settings, stem)
    st.caption(
        "The minbpe and tiktoken files and the merge history CSV are BPE's: a WordPiece "
        "tokenizer is its vocabulary, which encodes by longest match, not by merges."
    )
    offer_html_page(text_info, settings)
if history is not None and text_info is not None:
    name = text_info.name
    stem = export.file_stem(name, history.vocab_size)
    caption(
        f"The tokenizer trained in the sidebar: {history.vocab_size:,} tokens "
        f"({history.merge_count:,} merges), {current_settings().summary()}."
    )
    for item in export.export_formats(history.tokenizer, stem=stem):
        st.markdown(f"**{item.title}**")
        if item.error is not None:
            show_messages([Message("warning", f"Not available: {item.error}")])
            continue
        with st.container(horizontal=True, gap="small"):
            for download in item.files:
                st.download_button(
                    download.label,
                    download.data,
                    file_name=download.file_name,
                    mime=download.mime,
                    icon=":material/download:",
                    key=f"export_{download.file_name}",
                    on_click="ignore",
                )

    offer_html_page(text_info, settings)

    st.header("Merge history as CSV", anchor=False)
    st.caption(
        "One row per merge: the pair (ids and readable), the new token and id, how often the "
        "pair occurred (overlaps counted) and how many were replaced, the pairs it tied with, "
        "the tie rule and the token count of the training text afterwards."
    )
    frame = tables.merge_frame(history)
    st.download_button(
        "History CSV",
        csv_bytes(frame),
        file_name=f"{stem}-history.csv",
        mime="text/csv",
        icon=":material/download:",
        key="export_history_csv",
        on_click="ignore",
    )
    st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        height=260,
        column_config=tables.MERGE_LABELS,
        # the CSV also holds the token's hex and the tied pairs' ids; on the page they add width
        column_order=[c for c in frame.columns if c not in ("token_hex", "tied_ids")],
    )

# ---- upload -----------------------------------------------------------------------------

st.header("Inspect a model file", anchor=False)
st.markdown(
    "Upload a minbpe `.model`, a tiktoken `.tiktoken`, any Hugging Face `tokenizer.json` "
    "(byte-level BPE such as GPT-2's or Qwen's is encoded by bpeviz, with its trace and build "
    "tree; WordPiece, Unigram, SentencePiece-style BPE or a template that adds a BOS, as in "
    "Llama 3, by the Hugging Face tokenizers library), or a GPT-2 `vocab.json` together with "
    "its `merges.txt` (select both files). The model is then offered on the **Tokenize** and "
    "**Compare** pages and measured on the **Compression** page."
)
files = st.file_uploader(
    "Model file(s)",
    type=list(export.UPLOAD_TYPES),
    accept_multiple_files=True,
    key=KEY_UPLOAD,
    max_upload_size=MAX_UPLOAD_MB,
)
pattern = st.selectbox(
    "Split pattern for files that do not store one (GPT-2 files, .tiktoken)",
    list(export.PATTERN_CHOICES),
    format_func=export.pattern_label,
    key=KEY_PATTERN,
    help="A .model file stores its pattern. GPT-2's vocab.json/merges.txt and tiktoken's "
    "ranks do not: pick the one the model was trained with (bpeviz's own exports use the "
    "sidebar's pre-tokenizer).",
)

if files:
    signature = (tuple(file.file_id for file in files), pattern)
    stored = st.session_state.get(KEY_LOADED)
    if stored is None or stored[0] != signature:
        try:
            loaded = shared_import(
                [(file.name, file.getvalue()) for file in files], pattern=pattern
            )
        except ValueError as error:
            stored = (signature, str(error))
        else:
            stored = (signature, loaded)
            remember_imported_tokenizer(loaded.source, loaded.tokenizer)
        st.session_state[KEY_LOADED] = stored
    result = stored[1]
    if isinstance(result, str):
        show_messages([Message("error", f"Could not read the upload. {result}")])
    else:
        st.success(
            f"Loaded {escape_markdown(result.source)} as a {result.kind}. "
            "It is now offered on the Tokenize and Compare pages."
        )
        links = st.columns(2)
        for column, (page, (label, icon)) in zip(links, OPENERS.items(), strict=True):
            column.button(
                label, icon=icon, key=f"export_open_{page}", on_click=open_on_import, args=(page,)
            )
        if isinstance(result.tokenizer, LibraryTokenizer):
            st.info(library_note(result.tokenizer), icon="ℹ️")
        else:
            st.dataframe(result.summary.frame(), hide_index=True, width="stretch")
            st.markdown("**The first learned tokens**")
            st.dataframe(export.first_tokens_frame(result.tokenizer), hide_index=True, height=300)
else:
    imported = imported_tokenizer()
    if imported is not None:
        caption(
            f"Imported this session: {imported[0]} (offered on the Tokenize and Compare pages)."
        )
