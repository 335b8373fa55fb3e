"""Step through training: merge k, the counts it was picked from, and the text around it.

Convention (said on the page too): step k means k merges are done, and everything shown is
about merge k, the one that just happened. Step 0 is the raw bytes, with the pair merge 1
will join outlined. The view is drawn in the browser (``bpeviz/app/step/view.py``); the
server only trains, hands over the run's record and offers the downloads of where the
student stopped.
"""

import streamlit as st

from bpeviz.app.frame.links import query_from_state
from bpeviz.app.frame.state import KEY_FOCUS, current_settings, current_text, presentation_mode
from bpeviz.app.frame.styles import FOCUS_STYLE
from bpeviz.app.frame.training import current_run
from bpeviz.app.frame.unigram_runs import current_unigram_run, unigram_chosen
from bpeviz.app.frame.widgets import caption
from bpeviz.app.shared.chart_clicks import KEY_BACK, KEY_UNDO, undo_chart_click
from bpeviz.app.step.downloads import bpe_downloads, wordpiece_downloads
from bpeviz.app.step.unigram import unigram_step_view
from bpeviz.app.step.view import step_view
from bpeviz.engine.history import History
from bpeviz.engine.readable import counted
from bpeviz.engine.wordpiece_history import WordPieceHistory

st.title("Step through training")
if st.session_state.pop(KEY_BACK, False):
    st.switch_page("app_pages/compression.py", query_params=query_from_state(st.session_state))
if unigram_chosen():  # one step is one round (bpeviz/app/step/unigram.py)
    found = current_unigram_run()
    if found is None:
        st.stop()
    run, data, run_key = found
    text_name = current_text().name if current_text() is not None else "text"
    caption(f"{text_name} · {counted(len(data), 'character')} · {current_settings().summary()}")
    if not presentation_mode():
        st.caption(
            "**Step k**: the first k rounds are done: each ran EM, then removed the tokens "
            "whose removal raised the loss least. Step 0 is the seed."
        )
    unigram_step_view(run, data, run_key)
    st.stop()
text = current_text()
history = current_run()
if history is None or text is None:
    st.stop()

settings = current_settings()
undo = st.session_state.get(KEY_UNDO)
if undo is not None and undo.sentence and undo.holds(st.session_state):
    with st.container(horizontal=True, vertical_alignment="center"):
        st.info(undo.sentence, icon="↪️")
        st.button(
            "Go back",
            key="chart_click_undo",
            help="Put the sidebar and the step back as they were, and return to the chart.",
            on_click=undo_chart_click,
            args=(st.session_state,),
        )
size = len(history.text) if isinstance(history, History) else len(history.text.encode("utf-8"))
summary = f"{text.name} · {counted(size, 'byte')} · {settings.summary()}"
if presentation_mode():  # the Focus view's switch on the summary's line: rows are dear here
    with st.container(horizontal=True, vertical_alignment="center", gap="large"):
        caption(summary)
        focus = st.toggle(
            "Focus view",
            key=KEY_FOCUS,
            bind="query-params",
            help="The merge and the text only, in larger type: for the back of the room.",
            width="content",
        )
    if focus:
        st.html(FOCUS_STYLE)
else:
    caption(summary)
if not presentation_mode():  # on a projector, room for the text matters more
    st.caption("**Step k**: the first k merges are done; everything below is about **merge k**.")

k, _ = step_view(history)

if isinstance(history, WordPieceHistory):
    if not presentation_mode():
        wordpiece_downloads(history, k, text, settings)
elif not presentation_mode():
    bpe_downloads(history, k, text, settings)
