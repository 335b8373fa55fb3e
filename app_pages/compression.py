"""Compression: bytes per token as the vocabulary grows, English and Japanese on one chart."""

from functools import partial
from typing import Any

import pandas as pd
import streamlit as st

from bpeviz.app.compression import curves as compression
from bpeviz.app.compression import parallel
from bpeviz.app.compression.clicks import (
    KEY_CHART,
    KEY_GO,
    WORDPIECE_PRETOKENIZER,
    open_clicked_step,
)
from bpeviz.app.frame.inert import escape_markdown
from bpeviz.app.frame.links import query_from_state
from bpeviz.app.frame.state import (
    current_settings,
    imported_tokenizer,
    presentation_mode,
)
from bpeviz.app.frame.training import (
    chosen_tokenizer,
    compression_chart_spec,
    compression_key,
    compression_numbers,
    current_run,
    sample_curves,
    sample_passages,
    sample_references,
    train_sample,
    train_wordpiece_sample,
)
from bpeviz.app.frame.unigram_runs import current_unigram_tokenizer, unigram_chosen
from bpeviz.app.frame.widgets import columns, show_chart, show_table
from bpeviz.app.shared import charts
from bpeviz.app.shared.choices import TRAINED
from bpeviz.app.step.view import link_query, session_view
from bpeviz.real.registry import missing_note

SAMPLES = compression.SAMPLES
INTRO = (
    "Each line is the bytes of text one token covers as merges are learned (higher: fewer "
    "tokens). Japanese lies higher only because UTF-8 spends 3 bytes on most of its "
    "characters: for the same passage it needs more tokens than English (the last table)."
)
HOW_TO_READ = """\
- **Solid** lines: a tokenizer trained here, measured on the text it was trained on.
  **Dashed**: on the other language; they stay near 1 byte per token, as a tokenizer learns
  no merges for a language it never saw.
- **Dotted**: real tokenizers (GPT-4's `cl100k_base`, GPT-4o's `o200k_base`, GPT-2's
  `r50k_base`, Codex's `p50k_base`, Mistral's `tekken_240911`), the sidebar's when no curve
  holds it, and one imported on the Export / import page. Hover a line for its name; the
  table below the chart has every number.
- Every curve starts at 1 byte per token. The first Japanese merges only glue bytes back into
  characters (the very first is `<E3><81>`, the lead bytes of most hiragana).
- **Dash-dot** lines (with “WordPiece curves” on): WordPiece trained on the same two samples
  up to the same vocab size (BERT's pre-tokenizer, score rule, tie rule first), the
  algorithm BERT uses. Hover a point to compare it with BPE's at the same vocab size.
- The grey line is the sidebar's vocab size. Click a point to open the Step page at that
  merge (the sidebar then holds that sample and these settings; a dash-dot point opens
  that WordPiece run).
- This page always trains on the two bundled samples (gpt4 pre-tokenizer, tie rule first),
  about 5 KB each and different texts, whatever the sidebar holds.
"""
VOCAB_CHOICES = list(compression.VOCAB_CHOICES)
PRETOKENIZER, TIE_BREAK = compression.PRETOKENIZER, compression.TIE_BREAK
YOURS_LINE, IMPORTED_LINE = "yours", "imported"


st.title("Compression")
st.markdown(INTRO)
with st.expander("How to read this"):
    st.markdown(HOW_TO_READ)

settings = current_settings()
left, right = columns([3, 2], key="compression_controls")
with left:
    max_vocab = st.select_slider(
        "Train each sample up to vocab size",
        options=VOCAB_CHOICES,
        value=1024,
        key="compression_vocab",
        bind="query-params",
        help="One training run per sample (gpt4 pre-tokenizer, tie rule first); every smaller "
        "vocab size on the chart is a prefix of its merges, so nothing is retrained per point.",
    )
LINE_TOGGLES = (
    ("Other-language lines", "compression_cross",
     "Encodes the other sample at about 20 vocab sizes (the dashed lines)."),
    ("Reference lines", "compression_real",
     "GPT-4's cl100k_base (100,256 tokens), GPT-4o's o200k_base (199,998), GPT-2's r50k_base "
     "(50,256), Codex's p50k_base (50,280) and Mistral's tekken_240911 (131,072; the text's "
     "own tokens, without the <s> it puts before a prompt) on the same two texts, for scale; "
     "the sidebar's "
     "tokenizer when it is none of the curves here; a tokenizer imported on the Export / "
     "import page, if any."),
    ("WordPiece curves", "compression_wordpiece",
     "Trains WordPiece on each sample once, up to the same vocab size (BERT's pre-tokenizer, "
     "score rule), and draws its bytes per token beside BPE's (dash-dot)."),
)  # fmt: skip
LINE_DEFAULTS = (True, True, False)  # WordPiece trains two more runs: asked for
WORDPIECE_NOTE = (
    "Dash-dot: WordPiece on the same text. It counts differently from BPE: the spaces between "
    "words are no tokens, and a word's inner pieces are tokens marked `##` (`play` `##ing`), "
    "so its curves start above 1 byte per token, at a vocabulary of every character, plain "
    "and with `##`."
)
with right:
    cross, reference, wordpiece = [
        st.toggle(label, value=default, key=key, help=text)
        for (label, key, text), default in zip(LINE_TOGGLES, LINE_DEFAULTS, strict=True)
    ]

with st.spinner("Training on the English and Japanese samples…"):
    histories = {
        name: train_sample(key, max_vocab, PRETOKENIZER, TIE_BREAK) for name, key in SAMPLES.items()
    }
sample_keys = tuple(SAMPLES.items())
curves = sample_curves(sample_keys, max_vocab, PRETOKENIZER, TIE_BREAK, cross)
wordpiece_runs = {}
if wordpiece:
    try:
        wordpiece_runs = {
            name: train_wordpiece_sample(key, max_vocab, WORDPIECE_PRETOKENIZER)
            for name, key in SAMPLES.items()
        }
    except ValueError as error:
        st.warning(f"No WordPiece curves: {escape_markdown(str(error))}.")
    else:
        wordpiece_curves = [
            compression.wordpiece_curve(run, language=name) for name, run in wordpiece_runs.items()
        ]
        curves = pd.concat([curves, *wordpiece_curves], ignore_index=True)
        st.caption(WORDPIECE_NOTE)
references = None
own_measured: tuple[tuple[Any, ...], ...] = ()  # the sidebar's and an imported tokenizer's
imported = imported_tokenizer()
yours = None
unigram = None  # the sidebar's Unigram run, as a tokenizer
if reference and not compression.on_a_curve(
    settings, SAMPLES.values(), pretokenizer=PRETOKENIZER, tie_break=TIE_BREAK,
    max_vocab=max_vocab,
):  # fmt: skip
    if unigram_chosen():  # its tokenizer.json, cut by the tokenizers library as it cuts
        found = current_unigram_tokenizer(show=False)
        unigram = found[0] if found is not None else None
    else:
        yours = current_run(show=False)  # the sidebar's run (cached, shared with other pages)
if yours is not None or unigram is not None:
    st.caption(
        f"“{YOURS_LINE}” is the sidebar's tokenizer ({escape_markdown(settings.summary())}), "
        "measured on the same two texts."
    )
if reference and imported is not None:
    st.caption(
        f"“{IMPORTED_LINE}” is {escape_markdown(imported[0])}, loaded on the Export / import "
        "page, measured on the same two texts (with any tokens its template adds)."
    )
if reference and missing_note() is not None:
    st.caption(escape_markdown(missing_note() or ""))
if reference:
    texts = {name: history.text for name, history in histories.items()}
    try:
        bundled = sample_references(sample_keys)
    except RuntimeError as error:
        st.error(f"The real tokenizers' lines are not available: {escape_markdown(str(error))}")
    else:
        yours_tokenizer = (
            chosen_tokenizer(TRAINED, yours, None)[0] if yours is not None else unigram
        )
        own = {  # this session's: measured here
            **({YOURS_LINE: yours_tokenizer} if yours_tokenizer is not None else {}),
            **({IMPORTED_LINE: imported[1]} if imported is not None else {}),  # any kind
        }
        measured = compression.references_for(own, texts)
        own_measured = tuple(measured.itertuples(index=False, name=None))
        references = pd.concat([bundled, measured]).reset_index(drop=True)

marker = settings.vocab_size if settings.vocab_size >= settings.base_size else None
# The curves and lines by what makes them, so that the chart and the numbers, alike for every
# visitor on the same ones, are found without hashing their tables.
curves_key = compression_key(
    sample_keys, max_vocab, cross=cross, wordpiece=tuple(wordpiece_runs),
    references=references is not None, own=own_measured,
)  # fmt: skip
chart = compression_chart_spec(
    curves_key, marker, projector=presentation_mode(), _curves=curves, _references=references
)
show_chart(chart, key=KEY_CHART, on_select=open_clicked_step, selection_mode=charts.PICK)
if st.session_state.pop(KEY_GO, False):
    # The link of the new view: the clicked run's settings and step. Naming them also keeps
    # switch_page from clearing this page's widget-bound parameters, which Streamlit refuses.
    link = query_from_state(st.session_state) | link_query(session_view())
    st.switch_page("app_pages/step.py", query_params=link)
for name, history in histories.items():
    if history.merge_count < max_vocab - history.base:
        st.info(
            f"The {name} sample ran out of pairs after {history.merge_count:,} merges "
            f"(vocab size {history.vocab_size:,}): every piece of its text is already one token, "
            "so its curve ends there. A tokenizer this large has simply memorised a 5 KB text."
        )
for name, run in wordpiece_runs.items():
    if run.base > max_vocab:
        st.caption(
            f"WordPiece on the {name} sample starts at a vocabulary of {run.base:,} (its "
            f"characters, plain and with `##`), above the {max_vocab:,} trained here: one point."
        )
    elif run.vocab_size < max_vocab:
        st.caption(
            f"WordPiece on the {name} sample ran out of pairs at a vocabulary of "
            f"{run.vocab_size:,}: every word of it is one token."
        )

if marker is None:
    st.caption("The sidebar's vocab size is below 256, so there is no marker to draw.")
else:
    st.markdown(f"**Bytes per token at vocab size {marker:,}** (the grey line)")
    if marker > max_vocab:
        st.caption(
            f"That is above the {max_vocab:,} trained here: the own-text numbers are those at "
            f"{max_vocab:,}. Raise “Train each sample up to” to reach it."
        )
    languages = tuple(SAMPLES)
    st.table(
        compression_numbers(
            curves_key, marker, languages, _curves=curves, _references=references
        ),
        hide_index=True,
    )

st.header("The same passage in English and Japanese", anchor=False)
texts = parallel.passages()
try:
    passage = sample_passages(sample_keys, max_vocab, PRETOKENIZER, TIE_BREAK, real=True)
except RuntimeError as error:
    passage = sample_passages(sample_keys, max_vocab, PRETOKENIZER, TIE_BREAK, real=False)
    st.caption(f"The real tokenizers are not available here: {escape_markdown(str(error))}")
if imported is not None:  # any kind
    extra = parallel.passage_table({IMPORTED_LINE: imported[1]}, texts)
    passage = pd.concat([passage, extra]).reset_index(drop=True)
st.markdown(
    f"{parallel.sizes_sentence(texts)} The tokens each tokenizer needs for the whole passage, "
    "so the last column is the cost of saying the same thing in Japanese "
    "(`sample_texts/parallel_*.txt`, written for bpeviz)."
)
show_table(
    passage,
    formats={"Japanese ÷ English": "{:.2f}×"},
    column_config={"Japanese ÷ English": st.column_config.NumberColumn(format="%.2f×")},
)
for _, row in passage.iloc[len(histories) :].iterrows():
    st.markdown(parallel.cost_sentence(row))
st.download_button(
    "Download the curves as CSV",
    partial(compression.curves_csv, curves, references),  # made on click
    file_name=f"bpeviz-compression-{max_vocab}.csv",
    mime="text/csv",
    key="compression_csv",
)
