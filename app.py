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

# Each page by the name a live class uses for it (bpeviz.classroom.state.PAGES), which is its
# path in the address too: its file, and its title and icon in the navigation.
PAGE_FILES = {
    "step": ("app_pages/step.py", "Step through training", ":material/footprint:"),
    "tokenize": ("app_pages/tokenize.py", "Tokenize text", ":material/content_cut:"),
    "compression": ("app_pages/compression.py", "Compression", ":material/trending_down:"),
    "compare": ("app_pages/compare.py", "Compare tokenizers", ":material/compare_arrows:"),
    "runs": ("app_pages/two_runs.py", "Two training runs", ":material/difference:"),
    "export": ("app_pages/export.py", "Export / import", ":material/save:"),
    "about": ("app_pages/about.py", "About", ":material/info:"),
}


def app_page(name: str) -> st.Page:
    """The page a live class calls ``name``."""
    path, title, icon = PAGE_FILES[name]
    if name == "step":  # the default page: the app's bare address
        return st.Page(path, title=title, icon=icon, default=True)
    return st.Page(path, title=title, icon=icon, url_path=name)


class_messages = start_or_join()  # before the sidebar: a student gets the class's run
follow_page(app_page)  # a following student sent to the teacher's page: at once
pages = {name: app_page(name) for name in PAGE_FILES}
page = st.navigation(list(pages.values()))
page_name = next(name for name, known in pages.items() if known == page)
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
    class_bar(page_name)
    lesson_bar()
    page.run()
finally:  # however the page ended: after st.stop() Streamlit refuses every call
    projector.run_ended()
