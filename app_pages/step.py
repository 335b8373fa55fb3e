"""Step through training: merge k, the counts it was picked from, and the text around it.

Convention (said on the page too): step k means k merges are done, and everything shown is
about merge k, the one that just happened. Step 0 is the raw bytes, with the pair merge 1
will join outlined.
"""

import streamlit as st

from bpeviz.app import charts, tables
from bpeviz.app.card import merge_card_html, start_card_html
from bpeviz.app.controls import autoplay_interval, clamp_step, fragment, step_controls
from bpeviz.app.marks import first_marked, legend_html, step_outline, window
from bpeviz.app.spans import segment_views, tokens_html
from bpeviz.app.state import current_settings, current_text, presentation_mode
from bpeviz.app.training import current_history
from bpeviz.app.widgets import caption, columns, show_spans
from bpeviz.readable import counted
from bpeviz.trainer import MergeStep

WINDOW_TOKENS = 4_000
TOP_PAIRS = 12

st.title("Step through training")
text = current_text()
history = current_history()
if history is None or text is None:
    st.stop()

settings = current_settings()
tokenizer = history.tokenizer
merges = history.merge_count
caption(f"{text.name} · {len(history.text):,} bytes · {settings.summary()}")
if not presentation_mode():  # on a projector, room for the text matters more
    st.caption(
        "**Step k** means the first k merges are done. Everything below is about **merge k**: "
        "the pair it joined, the counts it was picked from, and the text just before and "
        "after it."
    )
if merges:
    clamp_step(merges)  # with no merge at all, the step-0 card says why


def show_counts(k: int, step: MergeStep | None) -> None:
    """Tokens, bytes per token, vocabulary size and merges done at step k."""
    tokens, ratio = history.token_count(k), history.compression_ratio(k)
    cells = columns(4, key="step_counts", pairs=True)
    cells[0].metric(
        "Tokens in the text",
        f"{tokens:,}",
        delta=f"{-step.replacements:,}" if step else None,
        delta_color="inverse",
    )
    per_token = "The text's bytes divided by its tokens."
    if tokenizer.end_of_word:
        per_token += " Each word's </w> marker is a token too, so this starts below 1."
    cells[1].metric(
        "Bytes per token",
        f"{ratio:.3f}",
        delta=f"{ratio - history.compression_ratio(k - 1):+.3f}" if step else None,
        help=per_token,
    )
    cells[2].metric("Vocabulary size", f"{history.base + k:,}", help="Base symbols + k merges")
    cells[3].metric("Merges done", f"{k:,} of {merges:,}")


def step_view() -> None:
    k = step_controls(merges) if merges else 0
    step = history.steps[k - 1] if k else None
    after = history.segmentation(k)

    if step is None:
        first = history.steps[0] if merges else None
        card = start_card_html(
            text_bytes=len(history.text), tokens=len(after), first=first, tokenizer=tokenizer
        )
    else:
        all_tied = history.tied_pairs(k) if step.more_tied else None
        card = merge_card_html(
            step,
            tokenizer,
            merge_total=merges,
            tokens_before=history.token_count(k - 1),
            all_tied=all_tied,
        )
    show_spans(card)

    projector = presentation_mode()
    if not projector:  # on a projector the text comes first, the numbers after it
        show_counts(k, step)

    text_column, table_column = columns([3, 2], key="step_panes", gap="medium")
    with text_column:
        st.subheader("The text, token by token")
        if step is not None:
            when = st.segmented_control(
                f"Show the text before or after merge {k}",
                ["Before merge", "After merge"],  # the option text is what the link holds
                default="After merge",
                required=True,
                key="text_when",
                bind="query-params",
                label_visibility="collapsed",
            )
        else:
            when = "now"
        outline = step_outline(history, k, before=when == "Before merge")
        shown, marks = outline.shown, outline.marks
        lo, hi = window(len(shown), first_marked(marks), WINDOW_TOKENS)
        if (lo, hi) != (0, len(shown)):
            st.caption(
                f"Long text: showing tokens {lo + 1:,}–{hi:,} of {len(shown):,}, from just "
                "before this merge's first place."
            )
        views = segment_views(
            history.text,
            shown.starts,
            shown.ends,
            shown.ids,
            tokenizer,
            base=history.base,
            lo=lo,
            hi=hi,
        )
        show_spans(legend_html(mark=outline.legend, views=views))
        show_spans(
            tokens_html(views, marks=marks[lo:hi]), scroll=True, focus=f"{k}-{when}"
        )

    with table_column:
        table = history.pair_table(k - 1 if step else 0)
        if step is not None:
            st.subheader(f"Pairs before merge {k:,}")
            chosen, note = step.pair, f"◀ merge {k}"
        else:
            st.subheader("Pairs now")
            chosen, note = (history.steps[0].pair if merges else None), "◀ merge 1"
        if len(table):
            frame = tables.pair_frame(
                table, tokenizer, chosen=chosen, chosen_note=note, limit=TOP_PAIRS
            )
            st.dataframe(
                frame,
                column_order=("rank", "pair", "count", "note"),
                column_config={
                    "rank": st.column_config.NumberColumn("#", width=32),
                    "pair": st.column_config.TextColumn("left + right", width=104),
                    "count": st.column_config.ProgressColumn(
                        "count",
                        min_value=0,
                        max_value=int(table.counts[0]),
                        format="%d",
                        width=96,
                    ),
                    "note": st.column_config.TextColumn("", width=112),
                },
                hide_index=True,
            )
            st.caption(
                f"Top {len(frame)} of {len(table):,} distinct pairs, best first: the top row is "
                "the pair the merge picks; ties are marked."
            )
            if not projector:
                st.download_button(
                    f"Download all {counted(len(table), 'pair')} (CSV)",
                    data=lambda: tables.pair_csv(table, tokenizer, chosen=chosen),
                    file_name=f"pairs_before_merge_{max(k, 1)}.csv",
                    mime="text/csv",
                    key="pairs_csv",
                )
        else:
            st.caption("No pairs: every piece of the text is a single token.")
        if merges:
            spec = charts.token_count_spec(history, k, projector=presentation_mode())
            st.vega_lite_chart(spec=spec, width="stretch")

    if projector:
        show_counts(k, step)
    st.subheader("Vocabulary learned so far")
    if k:
        st.dataframe(
            tables.merge_frame(history, k, newest_first=True),
            column_order=("merge", "new_id", "token", "left", "right", "count"),
            column_config={"new_id": "id"},
            hide_index=True,
            height=min(260, 35 * (k + 1) + 3),
        )
        if not projector:
            st.download_button(
                "Download merge 1 (CSV)" if k == 1 else f"Download merges 1–{k:,} (CSV)",
                data=lambda: tables.merge_csv(history, k),
                file_name=f"merges_1_to_{k}.csv",
                mime="text/csv",
                key="merges_csv",
            )
    else:
        st.caption(f"Nothing learned yet: the vocabulary is the {history.base} base symbols.")


fragment(step_view, run_every=autoplay_interval() if merges else None)
