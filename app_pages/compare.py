"""Compare: one text through any two tokenizers (trained here, real, imported), side by side."""

import streamlit as st

from bpeviz.app.compare import boundaries as compare
from bpeviz.app.frame.inert import escape_markdown
from bpeviz.app.frame.run_settings import Message
from bpeviz.app.frame.state import current_settings, current_text, imported_tokenizer
from bpeviz.app.frame.training import chosen_tokenizer, current_run, encode_or_stop
from bpeviz.app.frame.unigram_runs import current_unigram_tokenizer, unigram_chosen
from bpeviz.app.frame.widgets import (
    columns,
    keep_choice_in_link,
    linked_text_area,
    seed_linked_choice,
    show_messages,
)
from bpeviz.app.shared.choices import (
    IMPORTED,
    TRAINED,
    compare_notes,
    default_pair,
    menu_labels,
    short_name,
    tokenizer_choices,
)
from bpeviz.app.shared.token_view import library_cuts_note, show_library_tokens, show_tokens
from bpeviz.formats.hf_models import LibraryTokenizer
from bpeviz.records.schema import Mark

MAX_SHOWN_TOKENS = 3_000

st.title("Compare tokenizers")
st.markdown(
    "One text through two tokenizers, side by side. An outlined token starts at a **cut** (a "
    "place between two tokens) that the other tokenizer does not make."
)

# A Unigram run is offered as its tokenizer.json, cut by the tokenizers library as our Viterbi cuts
unigram = current_unigram_tokenizer() if unigram_chosen() else None
history = None if unigram_chosen() else current_run()
settings = current_settings()
imported = imported_tokenizer()
imported_name = imported[0] if imported is not None else None
choices = tokenizer_choices(
    trained_size=(
        unigram[0].vocab_size
        if unigram is not None
        else history.vocab_size
        if history is not None and current_text()
        else None
    ),
    imported_name=imported_name,
)
options = list(choices)
labels = menu_labels(options, imported_name=imported_name, markdown=False)
first_default, second_default = default_pair(options)
pickers = columns(2, key="compare_pickers")
picked = []
# The options are short names: they are what the link holds (?cmp_left=...); the menu names
# an imported file by its file name.
for picker, label, default, key in (
    (pickers[0], "Left", first_default, "cmp_left"),
    (pickers[1], "Right", second_default, "cmp_right"),
):
    with picker:
        seed_linked_choice(key, options, default)
        choice = st.selectbox(label, options, format_func=labels.__getitem__, key=key)
        keep_choice_in_link(key, choice, default)
        st.caption(choices[choice])
        picked.append(choice)
for note in compare_notes(picked):
    st.caption(escape_markdown(note))
text = linked_text_area(
    "Text to compare", key="compare_text", default=compare.DEFAULT_COMPARE_TEXT, height=110
)
if picked[0] == picked[1]:
    st.info("Both sides are the same tokenizer: choose two different ones to compare.")
    st.stop()
if not text:
    st.info("Type or paste some text above to compare the two tokenizers on it.")
    st.stop()
try:
    sides = [
        unigram if choice == TRAINED and unigram is not None
        else chosen_tokenizer(choice, history, imported)
        for choice in picked
    ]  # fmt: skip
except (RuntimeError, ValueError) as error:
    show_messages([Message("error", f"That tokenizer is not available: {error}")])
    st.stop()

names = (short_name(picked[0]), short_name(picked[1]))
ids = (encode_or_stop(*sides[0], text), encode_or_stop(*sides[1], text))
result = compare.compare(text, sides[0][0], sides[1][0], names=names, ids=ids)


def pane_title(choice: str) -> str:
    if choice == TRAINED:
        return f"Yours: {escape_markdown(settings.summary())}"
    if choice == IMPORTED:
        return escape_markdown(str(imported_name))
    return f"{choice}: {escape_markdown(choices[choice])}"


st.caption("Hover a token for its id and bytes; click it to see how it was built.")
panes = columns(2, key="compare_panes")
for side, pane, tokenization, only, choice, name, (tokenizer, _) in (
    ("left", panes[0], result.ours, result.diff.only_ours, picked[0], names[0], sides[0]),
    ("right", panes[1], result.theirs, result.diff.only_theirs, picked[1], names[1], sides[1]),
):
    with pane:
        st.header(pane_title(choice), anchor=False)
        numbers = st.columns(3)  # the panes stack when narrow; three numbers fit then
        numbers[0].metric("Tokens", f"{tokenization.token_count:,}")
        numbers[1].metric("Bytes per token", f"{tokenization.bytes_per_token:.2f}")
        numbers[2].metric(
            "Cuts only here",
            f"{len(only):,}",
            help="A cut is a place between two tokens, counted in bytes from the text's start.",
        )
        shown = tokenization.ids[:MAX_SHOWN_TOKENS]
        marks = compare.start_marks(tokenization, only, mark=Mark.NEW)
        if len(shown) < tokenization.token_count:
            st.caption(f"Showing the first {len(shown):,} of {tokenization.token_count:,} tokens.")
        label = f"The text as {name} cuts it, token by token"  # the two boxes named apart
        if isinstance(tokenizer, LibraryTokenizer):  # WordPiece, Unigram, ...: the library's
            st.caption(library_cuts_note(tokenizer))
            show_library_tokens(
                tokenizer, text, key=f"cmp_spans_{side}", marks=marks, words=False,
                limit=MAX_SHOWN_TOKENS, label=label,
            )  # fmt: skip
        else:
            show_tokens(
                tokenizer, shown, key=f"cmp_spans_{side}", marks=marks[: len(shown)], label=label
            )

st.header("Where the cuts differ", anchor=False)
diff = result.diff
counts = columns(3, key="compare_counts", pairs=True)
counts[0].metric("Cuts both make", f"{len(diff.shared):,}")
counts[1].metric(f"Only {names[0]}", f"{len(diff.only_ours):,}")
counts[2].metric(f"Only {names[1]}", f"{len(diff.only_theirs):,}")
if diff.differing == 0:
    st.success("Both tokenizers cut this text in exactly the same places.")
else:
    table = compare.boundary_table(result)
    st.caption(
        "Each row is a cut only one tokenizer makes: its byte offset, who makes it, and the "
        "bytes on either side (␣ is a space; <E3> is a byte that is part of a character)."
    )
    if len(table) < diff.differing:
        st.caption(f"The first {len(table):,} of {diff.differing:,} differing cuts.")
    st.dataframe(
        table,
        hide_index=True,
        width="stretch",
        height=min(36 * (len(table) + 1) + 2, 420),
        column_config={
            "byte_offset": st.column_config.NumberColumn("byte offset", format="%d"),
            "only_in": "only in",
            "before": "before the cut",
            "after": "after the cut",
        },
    )
