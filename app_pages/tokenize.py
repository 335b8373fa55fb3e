"""Tokenize text: any text through the trained, a real or an imported tokenizer, and why a word
splits."""

import streamlit as st

from bpeviz.app.frame.inert import escape_markdown
from bpeviz.app.frame.run_settings import Message
from bpeviz.app.frame.state import current_text, imported_tokenizer, presentation_mode
from bpeviz.app.frame.training import (
    chosen_tokenizer,
    current_run,
    encode_or_stop,
    named_tokenizer,
)
from bpeviz.app.frame.unigram_runs import (
    current_unigram_run,
    current_unigram_tokenizer,
    unigram_chosen,
)
from bpeviz.app.frame.widgets import (
    columns,
    keep_choice_in_link,
    linked_text_area,
    seed_linked_choice,
    show_messages,
)
from bpeviz.app.shared import tables
from bpeviz.app.shared.choices import (
    IMPORTED,
    MODEL,
    MODEL_NAMES,
    TRAINED,
    menu_labels,
    model_summary,
    tokenizer_choices,
)
from bpeviz.app.shared.token_view import (
    OWN_ENGINE_NOTE,
    library_note,
    show_library_tokens,
    show_tokens,
    show_trace,
)
from bpeviz.app.tokenize import unigram_trace, wordpiece_trace
from bpeviz.app.tokenize.chat_view import show_chat_view
from bpeviz.app.tokenize.surprises import (
    fill_surprise,
    find_surprise,
    load_surprises,
    surprise_title,
)
from bpeviz.app.tokenize.trace import (
    long_piece_note,
    piece_label,
    trace_lines,
    trace_summary_html,
    traced_part,
)
from bpeviz.engine.pretokenize import to_bytes
from bpeviz.engine.unigram import split_words as split_unigram_words
from bpeviz.engine.wordpiece import split_words
from bpeviz.engine.wordpiece_encode import WordPieceEncoder
from bpeviz.engine.wordpiece_history import WordPieceHistory
from bpeviz.formats.hf_models import LibraryTokenizer
from bpeviz.real.mistral_tekken import BOS_NOTE
from bpeviz.real.registry import missing_note, prompt_text

MAX_SHOWN_TOKENS = 5_000


def _merge_number(rank: int) -> str:
    """Merge ranks count from 0; the Step page numbers merges from 1."""
    return f"merge {rank + 1:,}"


DEFAULT_TEXT = (
    "The printer counted pairs: “th”, “he”, “in”… 1234 times a day!\n"
    "駅前の小さな本屋で、子どもは文字を覚えた。 🙂 <|endoftext|>"
)

st.title("Tokenize text")
if (
    st.segmented_control(
        "Input",
        ["Text", "Chat"],
        default="Text",
        required=True,
        key="tok_input",
        bind="query-params",
        help="Chat: system, user and assistant messages built into a chat model's markup.",
    )
    == "Chat"
):
    show_chat_view()
    st.stop()
# A Unigram run is offered as its tokenizer.json, cut by the tokenizers library as our Viterbi cuts
unigram = current_unigram_tokenizer() if unigram_chosen() else None
history = None if unigram_chosen() else current_run()
text_info = current_text()
imported = imported_tokenizer()


def show_wordpiece_words(wordpiece: WordPieceHistory, text: str) -> None:
    """The trained WordPiece's longest matches in a chosen word, and the training words that
    encoding cuts differently from training."""
    st.header("Why was this word split like this?")
    words = list(dict.fromkeys(split_words(text, wordpiece.run.pretokenizer)))
    if words:
        encoder = WordPieceEncoder.from_run(wordpiece.run)
        word = st.selectbox("Word", words, key="tok_wp_word")
        trace = encoder.trace_word(word)
        st.markdown(f"**{escape_markdown(word)}** → {escape_markdown(' '.join(trace.tokens))}")
        for line in wordpiece_trace.trace_lines(trace):
            st.markdown(f"- {escape_markdown(line)}")
    else:
        st.caption("There is no word to look up here.")
    st.header("Training words that encoding cuts differently")
    frame = wordpiece_trace.differences_frame(wordpiece)
    if frame.empty:
        st.caption("Every word of the training text encodes as training left it.")
        return
    st.caption(
        "Training merged pairs; encoding takes the longest match from each word's start, "
        "so these words come out cut differently."
    )
    height = min(36 * (len(frame) + 1) + 2, 320)
    st.dataframe(frame, hide_index=True, width="stretch", height=height)


def show_unigram_words(text: str) -> None:
    """The trained Unigram's best cut of a chosen word, position by position (Viterbi)."""
    found = current_unigram_run(show=False)
    st.header("Why was this word split like this?")
    words = list(dict.fromkeys(split_unigram_words(text)))
    if found is None or not words:
        st.caption("There is no word to look up here.")
        return
    model = found[0].model()
    word = st.selectbox("Word", words, key="tok_ug_word")
    st.markdown(escape_markdown(unigram_trace.cut_sentence(word, model)))
    st.caption(
        "Each row is the word up to a character: the best log probability of any cut of it, "
        "and the last piece of that cut. Read the pieces back from the last row."
    )
    frame = unigram_trace.viterbi_frame(word, model)
    st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        height=min(36 * (len(frame) + 1) + 2, 320),
        column_config={
            "starts at": st.column_config.NumberColumn("starts at", format="%d"),
            "P": st.column_config.NumberColumn("P", format="%.4g"),
        },
    )


def show_counts(text: str, token_count: int) -> None:
    """The four numbers above the tokens, for any tokenizer."""
    stats = tables.text_stats(text, token_count)
    counts = columns(4, key="tokenize_counts", pairs=True)
    counts[0].metric("Characters", f"{stats.characters:,}")
    counts[1].metric("Bytes (UTF-8)", f"{stats.bytes:,}")
    counts[2].metric("Tokens", f"{stats.tokens:,}")
    counts[3].metric("Bytes per token", f"{stats.bytes_per_token:.2f}")


# The link holds the preset's key (?surprise=arithmetic), not its title: synced by hand, as
# a bound selectbox would write its formatted title into the URL.
if "surprise" not in st.session_state:
    st.session_state["surprise"] = getattr(
        find_surprise(st.query_params.get("surprise")), "key", None
    )
surprise = find_surprise(
    st.selectbox(
        "Tokenization surprises",
        [preset.key for preset in load_surprises()],
        format_func=surprise_title,
        placeholder="Pick an example of where tokens trip a model up…",
        key="surprise",
        on_change=fill_surprise,
        args=(st.session_state,),
        help="After the list in Karpathy's minbpe lecture: short texts whose tokens explain "
        "an odd behaviour of language models.",
    )
)
if surprise is None:
    st.query_params.pop("surprise", None)
elif st.query_params.get("surprise") != surprise.key:
    st.query_params["surprise"] = surprise.key
text = linked_text_area(
    "Text to tokenize",
    key="tok_text",
    default=surprise.text if surprise else DEFAULT_TEXT,
    height=130,
)
# The count and the tokens come right under the text, on a laptop's first screen; what to
# look at and the choices that change them follow.
tokens_area = st.container()
if surprise is not None:
    st.info(f"**What to look at.** {escape_markdown(surprise.look)}", icon="🔎")

# Option keys are short and stable: they are what the link holds (?tok_model=o200k_base);
# the menu names an imported file by its file name.
imported_name = imported[0] if imported is not None else None
choices = tokenizer_choices(
    trained_size=(
        unigram[0].vocab_size
        if unigram is not None
        else history.vocab_size
        if history is not None and text_info is not None
        else None
    ),
    imported_name=imported_name,
    models=True,
)
labels = menu_labels(list(choices), imported_name=imported_name, markdown=True)
model_column, view_column = columns([3, 2], key="tokenize_choices")
with model_column:
    seed_linked_choice("tok_model", list(choices), default=next(iter(choices)))
    model = st.radio(
        "Tokenizer",
        list(choices),
        captions=list(choices.values()),
        format_func=labels.__getitem__,
        key="tok_model",
    )
    keep_choice_in_link("tok_model", model, default=next(iter(choices)))
    if (note := missing_note()) is not None:
        st.caption(escape_markdown(note))
    model_name = None
    if model == MODEL:
        model_name = st.selectbox(
            "Model",
            MODEL_NAMES,
            key="tok_openai_model",
            bind="query-params",
            accept_new_options=True,
            help="As tiktoken's encoding_for_model maps names; type a dated one such as "
            "gpt-4o-2024-05-13. A chat model brings its markup's special tokens.",
        )
with view_column:
    view = st.segmented_control(
        "Show",
        ["Text", "Token ids"],
        default="Text",
        required=True,
        key="tok_view",
        bind="query-params",
    )
    group = st.toggle(
        "Group the bytes of one character",
        value=True,
        key="tok_group",
        help="Tokens that are only part of a character (shown as hex) are grouped under the "
        "character they spell.",
    )
    pieces = st.toggle(
        "Show pieces",
        value=False,
        key="tok_pieces",
        bind="query-params",
        help="Outline the pieces the pre-tokenizer cuts the text into before any merge: no "
        "token ever spans two of them.",
    )

try:
    if model_name is not None:
        tokenizer, tokenizer_key = named_tokenizer(model_name), ("model", model_name)
        st.caption(escape_markdown(model_summary(model_name)))
    elif model == TRAINED and unigram is not None:
        tokenizer, tokenizer_key = unigram
    else:
        tokenizer, tokenizer_key = chosen_tokenizer(model, history, imported)
except (RuntimeError, ValueError) as error:
    show_messages([Message("error", f"{model_name or model} is not available: {error}")])
    st.stop()
below_choices = st.container()  # the trained WordPiece's words go under the choices
with tokens_area:
    wordpiece = history if model == TRAINED and isinstance(history, WordPieceHistory) else None
    if isinstance(tokenizer, LibraryTokenizer):  # WordPiece, Unigram, ...: the library's view
        st.info(wordpiece_trace.NOTE if wordpiece else library_note(tokenizer), icon="ℹ️")
        if text:
            token_count = len(encode_or_stop(tokenizer, tokenizer_key, text))
            show_counts(text, token_count)
            if token_count > MAX_SHOWN_TOKENS:
                st.caption(f"Showing the first {MAX_SHOWN_TOKENS:,} of {token_count:,} tokens.")
            show_library_tokens(
                tokenizer, text, key="tok_spans", show="ids" if view == "Token ids" else "text",
                limit=MAX_SHOWN_TOKENS,
            )  # fmt: skip
        if wordpiece is not None:
            with below_choices:
                show_wordpiece_words(wordpiece, text)
        elif model == TRAINED and unigram is not None and text:
            with below_choices:
                show_unigram_words(text)
        st.stop()
    if model == IMPORTED:  # byte-level BPE (any file bpeviz reads): ours to trace
        st.caption(OWN_ENGINE_NOTE)
    # What the model is given: Tekken's BOS in front (drawn and counted as a special token).
    prompt = text if model_name is not None else str(prompt_text(model, text))
    if prompt != text:
        st.caption(escape_markdown(BOS_NOTE))
    ids = encode_or_stop(tokenizer, tokenizer_key, prompt)
    rank_label = "rank {:,}".format if tokenizer.ranks is not None else _merge_number

    if not text:
        st.info("Type or paste some text above to see its tokens.")
        st.stop()

    show_counts(text, len(ids))

    shown = ids[:MAX_SHOWN_TOKENS]
    if len(ids) > len(shown):
        st.caption(f"Showing the first {len(shown):,} of {len(ids):,} tokens.")
    if not presentation_mode():  # on a projector, the teacher says it
        st.caption("Click a token to see its bytes, where it came from and how it was built.")
    show_tokens(
        tokenizer,
        shown,
        key="tok_spans",
        text=prompt if pieces else None,
        show="ids" if view == "Token ids" else "text",
        group=group,
        copy=True,
        tokenizer_key=tokenizer_key,
    )

st.header("Why was this word split like this?")
chunks = tables.distinct_chunks(tokenizer, text)
if not chunks:
    st.caption("There is no piece of ordinary text to replay here (only special tokens).")
    st.stop()
if tokenizer.pretokenizer == "bytes" and tokenizer.pattern is None:
    st.caption(
        "With the bytes pre-tokenizer the whole text is one piece; here each word (with the "
        "spaces before it) is replayed on its own."
    )
else:
    st.caption(
        "The text is first cut into pieces by the pre-tokenizer; merges happen inside a piece."
    )
word = st.selectbox(
    "Piece of the text",
    chunks,
    index=tables.interesting_chunk(tokenizer, chunks),
    format_func=piece_label,
    key="tok_word",
)
part = traced_part(word)
if part != word:
    st.caption(long_piece_note(len(to_bytes(word)), len(to_bytes(part))))
trace = tokenizer.encode_trace(part)
encoded = tokenizer.encode(part, allow_special=False)
st.html(trace_summary_html(to_bytes(part), trace, encoded))
lines, more = trace_lines(tokenizer, to_bytes(part), trace, rank_label=rank_label)
show_trace(tokenizer, lines, more=more, key="tok_trace", tokenizer_key=tokenizer_key)
