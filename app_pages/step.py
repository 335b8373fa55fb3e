"""Step through training: merge k, the counts it was picked from, and the text around it.

Convention (said on the page too): step k means k merges are done, and everything shown is
about merge k, the one that just happened. Step 0 is the raw bytes, with the pair merge 1
will join outlined. The view is drawn in the browser (``bpeviz/app/step_view.py``); the
server only trains, hands over the run's record and offers the downloads of where the
student stopped.
"""

import streamlit as st

from bpeviz.app import tables
from bpeviz.app.state import current_settings, current_text, presentation_mode
from bpeviz.app.step_view import step_view
from bpeviz.app.training import current_history
from bpeviz.app.widgets import caption
from bpeviz.readable import counted

st.title("Step through training")
text = current_text()
history = current_history()
if history is None or text is None:
    st.stop()

settings = current_settings()
caption(f"{text.name} · {counted(len(history.text), 'byte')} · {settings.summary()}")
if not presentation_mode():  # on a projector, room for the text matters more
    st.caption(
        "**Step k** means the first k merges are done. Everything below is about **merge k**: "
        "the pair it joined, the counts it was picked from, and the text just before and "
        "after it. Keys: ← → previous / next, Home / End first / last, K play or pause."
    )

k, _ = step_view(history)

if not presentation_mode():
    tokenizer = history.tokenizer
    table = history.pair_table(k - 1 if k else 0)
    chosen = history.steps[max(k, 1) - 1].pair if history.merge_count else None
    with st.container(horizontal=True, gap="small"):
        if len(table):
            st.download_button(
                f"Download all {counted(len(table), 'pair')} before merge {max(k, 1):,} (CSV)",
                data=lambda: tables.pair_csv(table, tokenizer, chosen=chosen),
                file_name=f"pairs_before_merge_{max(k, 1)}.csv",
                mime="text/csv",
                key="pairs_csv",
            )
        if k:
            st.download_button(
                "Download merge 1 (CSV)" if k == 1 else f"Download merges 1–{k:,} (CSV)",
                data=lambda: tables.merge_csv(history, k),
                file_name=f"merges_1_to_{k}.csv",
                mime="text/csv",
                key="merges_csv",
            )
