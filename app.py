"""bpeviz: the frame. Page setup, shared settings in the sidebar, and the list of pages.

Start it with ``make run``, which runs ``streamlit run server.py``: ``server.py`` serves this
frame with the live class's routes beside it (``streamlit run app.py`` would start the pages
without them, so a live class could not start). Every page reads the sidebar's settings through
``bpeviz.app`` and reuses the one cached training run; the settings, the page and the step
live in the URL, so a link reproduces the exact view.
"""

import streamlit as st

from bpeviz.app.frame.sidebar import sidebar
from bpeviz.app.frame.state import init_state, presentation_mode, sweep_closed_sessions
from bpeviz.app.frame.training import let_go_of_closed_sessions
from bpeviz.app.frame.widgets import inject_css, show_link_messages, show_messages
from bpeviz.app.lesson.view import go_to_slide, lesson_bar, lesson_sidebar, seed_lesson
from bpeviz.app.live.live_class import class_bar, class_controls, follow_page, start_or_join
from bpeviz.app.live.presenter import presenter_window
from bpeviz.app.live.projector_first import drawing

st.set_page_config(
    page_title="bpeviz: byte-level BPE, merge by merge",
    page_icon="🧩",
    layout="wide",
    initial_sidebar_state="collapsed" if presentation_mode() else "auto",
)
init_state()
if presenter_window():  # the teacher's second window: the presenter view alone
    st.stop()
seed_lesson()
sweep_closed_sessions(let_go_of_closed_sessions)

# Each page by the name a live class uses for it (bpeviz.classroom.state.PAGES).
pages = {
    "step": st.Page(
        "app_pages/step.py",
        title="Step through training",
        icon=":material/footprint:",
        default=True,
    ),
    "tokenize": st.Page(
        "app_pages/tokenize.py",
        title="Tokenize text",
        icon=":material/content_cut:",
        url_path="tokenize",
    ),
    "compression": st.Page(
        "app_pages/compression.py",
        title="Compression",
        icon=":material/trending_down:",
        url_path="compression",
    ),
    "compare": st.Page(
        "app_pages/compare.py",
        title="Compare tokenizers",
        icon=":material/compare_arrows:",
        url_path="compare",
    ),
    "runs": st.Page(
        "app_pages/two_runs.py",
        title="Two training runs",
        icon=":material/difference:",
        url_path="runs",
    ),
    "export": st.Page(
        "app_pages/export.py", title="Export / import", icon=":material/save:", url_path="export"
    ),
    "about": st.Page("app_pages/about.py", title="About", icon=":material/info:", url_path="about"),
}
class_messages = start_or_join()  # before the sidebar: a student gets the class's run
page = st.navigation(list(pages.values()))
page_name = next(name for name, known in pages.items() if known == page)
follow_page(page_name, pages)  # a following student sent to the teacher's page: at once
# Each page its own document title (a browser tab, a screen reader's first words: WCAG 2.4.2).
st.set_page_config(page_title=f"{page.title} · bpeviz")
sidebar()
go_to_slide()  # a slide just applied: its page, before the class bar names its run
class_controls()
lesson_sidebar()
inject_css()
show_link_messages()
show_messages(class_messages)
projector = drawing()  # the students following the teacher's new run wait for its page
try:
    class_bar(page_name, pages)
    lesson_bar()
    page.run()
finally:  # however the page ended: after st.stop() Streamlit refuses every call
    projector.run_ended()
