"""Compare: one text through the tokenizer trained here and cl100k_base, side by side."""

import streamlit as st

from bpeviz.app import compare
from bpeviz.app.marks import MARK_NEW, legend_html
from bpeviz.app.settings import Message
from bpeviz.app.spans import id_views, tokens_html
from bpeviz.app.state import current_settings
from bpeviz.app.training import cl100k, current_history, encode, history_key
from bpeviz.app.widgets import columns, escape_markdown, linked_text_area, show_messages, show_spans

MAX_SHOWN_TOKENS = 3_000
OURS, THEIRS = "yours", "cl100k_base"

st.title("Compare with cl100k_base")
st.markdown(
    "The same text through the tokenizer trained in the sidebar and through GPT-4's "
    "`cl100k_base`. A **cut** is a place between two tokens, counted in bytes from the start; "
    "the outlined tokens start at a cut that the other tokenizer does not make there."
)

history = current_history()
settings = current_settings()
text = linked_text_area(
    "Text to compare", key="compare_text", default=compare.DEFAULT_COMPARE_TEXT, height=110
)
if history is None:
    st.stop()  # current_history has said why
if not text:
    st.info("Type or paste some text above to compare the two tokenizers on it.")
    st.stop()
try:
    reference = cl100k()
except RuntimeError as error:
    show_messages([Message("error", f"cl100k_base is not available: {error}")])
    st.stop()

ours_ids = encode(history.tokenizer, history_key(history), text)
theirs_ids = encode(reference, "cl100k", text)
result = compare.compare(
    text, history.tokenizer, reference, names=(OURS, THEIRS), ids=(ours_ids, theirs_ids)
)

show_spans(legend_html(mark=None))
st.caption(
    "A bold outline marks a token that starts where the other tokenizer does not cut. "
    "Hover a token for its id and bytes."
)
panes = columns(2, key="compare_panes")
for pane, tokenization, only, title in (
    (
        panes[0],
        result.ours,
        result.diff.only_ours,
        f"Yours: {escape_markdown(settings.summary())}",
    ),
    (
        panes[1],
        result.theirs,
        result.diff.only_theirs,
        "cl100k_base: GPT-4, 100,256 tokens",
    ),
):
    with pane:
        st.subheader(title, anchor=False)
        numbers = st.columns(3)  # the panes stack when narrow; three numbers fit then
        numbers[0].metric("Tokens", f"{tokenization.token_count:,}")
        numbers[1].metric("Bytes per token", f"{tokenization.bytes_per_token:.2f}")
        numbers[2].metric("Cuts only here", f"{len(only):,}")
        shown = tokenization.ids[:MAX_SHOWN_TOKENS]
        marks = compare.start_marks(tokenization, only, mark=MARK_NEW)
        if len(shown) < tokenization.token_count:
            st.caption(f"Showing the first {len(shown):,} of {tokenization.token_count:,} tokens.")
        tokenizer = history.tokenizer if tokenization is result.ours else reference
        show_spans(
            tokens_html(id_views(tokenizer, shown), marks=marks[: len(shown)]),
            scroll=True,
        )

st.subheader("Where the cuts differ", anchor=False)
diff = result.diff
counts = columns(3, key="compare_counts", pairs=True)
counts[0].metric("Cuts both make", f"{len(diff.shared):,}")
counts[1].metric("Only yours", f"{len(diff.only_ours):,}")
counts[2].metric("Only cl100k_base", f"{len(diff.only_theirs):,}")
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
