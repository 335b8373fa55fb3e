"""The lesson in the app: the bar above every page (Previous / Next slide, the slide's title,
"slide i of n", the speaker notes, PageUp / PageDown), and the sidebar's Lesson box (start a
bundled lesson, upload one, download the current one, end it).

Showing a slide is opening its link: :func:`apply_slide` puts the slide's settings into the
session state the sidebar and the pages read (before any widget is drawn: it is safe in a
callback), and the frame's :func:`lesson_bar` then switches to the slide's page with the
slide's query parameters. The lesson is in the link too, so a reload or a shared link stays
on that slide: a bundled one by name (``?lesson=bpe&slide=3``), a teacher's own whole
(``?lesson_file=z1...``, :func:`~bpeviz.app.lesson.slides.lesson_to_link`) when short enough.
The format itself is :mod:`bpeviz.app.lesson.slides`.
"""

from __future__ import annotations

import streamlit as st

from bpeviz.app.frame.inert import escape_markdown, lesson_markdown
from bpeviz.app.frame.links import whole_number
from bpeviz.app.frame.run_settings import Message
from bpeviz.app.frame.state import (
    KEY_LINK_MESSAGES,
    KEY_PAGE_SETTINGS,
    follows_class,
    held_class,
    presentation_mode,
)
from bpeviz.app.lesson.prepare import prepare_lesson
from bpeviz.app.lesson.slides import (
    MAX_LESSON_BYTES,
    MAX_LINK_LESSON_CHARS,
    PAGES,
    TEXT_BOXES,
    Lesson,
    LessonError,
    bundled_lessons,
    lesson_from_link,
    lesson_to_link,
    parse_lesson,
    slide_state,
    to_toml,
)
from bpeviz.web import asset

LINK_LESSON, LINK_FILE, LINK_SLIDE = "lesson", "lesson_file", "slide"
KEY_LESSON = "_lesson"  # (bundled name or None, Lesson)
KEY_INDEX = "_lesson_slide"  # the slide shown, from 0
KEY_GO = "_lesson_go"  # a slide was applied: switch to its page on this run
KEY_ERROR = "_lesson_error"  # the last upload's problem, shown until the next upload
KEY_SEEDED = "_lesson_seeded"
KEY_UPLOAD = "lesson_upload"
KEY_PICK = "lesson_pick"
KEY_KEYS = "lesson_keys"
PRESENT_MARGIN = "0.5rem"  # below the header, whose one control (the sidebar's) is far left
PRESENT_PAGE_TITLE = "1.6rem"  # the page's name under a slide's title, in presentation mode

# PageDown / PageUp anywhere on the page (but in a box being typed in):
# bpeviz/web/step/lesson_keys.js.
keys_component = st.components.v2.component("bpeviz_lesson_keys", js=asset("step/lesson_keys.js"))


def current_lesson() -> tuple[Lesson, int] | None:
    """The lesson being shown and the index of its slide, if any."""
    held = st.session_state.get(KEY_LESSON)
    if held is None:
        return None
    lesson: Lesson = held[1]
    index = min(max(int(st.session_state.get(KEY_INDEX) or 0), 0), len(lesson.slides) - 1)
    return lesson, index


def apply_slide(index: int) -> None:
    """Show slide ``index`` (from 0, kept in range) of the current lesson.

    Sets the session state its view needs and asks the frame to switch to its page on this
    run. Call it in a callback or before the sidebar is drawn (it sets widgets' values);
    a live class can call it with the teacher's slide.
    """
    held = current_lesson()
    if held is None:
        return
    lesson, _ = held
    index = min(max(index, 0), len(lesson.slides) - 1)
    state, dropped = slide_state(lesson.slides[index])
    kept = st.session_state.get(KEY_PAGE_SETTINGS, {})  # a live class's: the slide's now
    for key in dropped:
        st.session_state.pop(key, None)
        kept.pop(key, None)
    for box in TEXT_BOXES:  # a text box takes the slide's text (or its default) afresh
        st.session_state[f"_seeded_{box}"] = box in state
    st.session_state.update(state)
    st.session_state[KEY_INDEX] = index
    st.session_state[KEY_GO] = True


def start_lesson(lesson: Lesson, name: str | None) -> None:
    """Make ``lesson`` the current one (``name``: a bundled lesson's, for the link) at its
    first slide."""
    st.session_state[KEY_LESSON] = (name, lesson)
    apply_slide(0)
    prepare_lesson(lesson)  # every slide computed before the class reaches it


def _move(step: int) -> None:
    held = current_lesson()
    if held is not None:
        apply_slide(held[1] + step)


def _on_key() -> None:
    """The keys component's callback: PageDown / PageUp reported from the browser."""
    move = getattr(st.session_state.get(KEY_KEYS), "move", None)
    if move in (1, -1):
        _move(move)


def _start_bundled() -> None:
    name = st.session_state.get(KEY_PICK)
    if name in bundled_lessons():
        st.session_state.pop(KEY_ERROR, None)
        start_lesson(bundled_lessons()[name], name)


def _load_upload() -> None:
    """The uploader's callback: a good file starts its lesson; a bad one keeps everything as
    it was and says what to fix."""
    uploaded = st.session_state.get(KEY_UPLOAD)
    st.session_state.pop(KEY_ERROR, None)
    if uploaded is None:
        return
    try:
        lesson = parse_lesson(uploaded.getvalue())
    except LessonError as error:
        st.session_state[KEY_ERROR] = f"{uploaded.name}: {error}"
        return
    start_lesson(lesson, None)


def _end_lesson() -> None:
    for key in (KEY_LESSON, KEY_INDEX, KEY_GO):
        st.session_state.pop(key, None)


def _lesson_of_link() -> tuple[str | None, Lesson] | None:
    """The lesson a link names (``?lesson=bpe``) or holds (``?lesson_file=``), if any; a
    problem is said among the link's messages."""
    name = st.query_params.get(LINK_LESSON)
    packed = st.query_params.get(LINK_FILE)
    problem = None
    if name:
        lessons = bundled_lessons()
        if name in lessons:
            return name, lessons[name]
        problem = (
            f"The link's lesson={name!r} is not a bundled lesson ({', '.join(lessons)}); ignored."
        )
    elif packed:
        try:
            return None, lesson_from_link(packed)
        except LessonError as error:
            problem = f"{error} The link's lesson is ignored."
    if problem:
        st.session_state.setdefault(KEY_LINK_MESSAGES, []).append(Message("warning", problem))
    return None


def seed_lesson() -> None:
    """Once per session, before the sidebar: a link's lesson (and ``&slide=3``) opens."""
    if st.session_state.get(KEY_SEEDED):
        return
    st.session_state[KEY_SEEDED] = True
    held = _lesson_of_link()
    if held is None:
        return
    st.session_state[KEY_LESSON] = held
    slide = whole_number(st.query_params.get(LINK_SLIDE) or "")
    if slide is None:
        apply_slide(0)  # the lesson from its start
    else:  # the link already holds that slide's view, and maybe the presenter's changes
        st.session_state[KEY_INDEX] = min(max(slide - 1, 0), len(held[1].slides) - 1)
    prepare_lesson(held[1], first=int(st.session_state.get(KEY_INDEX) or 0))


def _link(name: str | None, lesson: Lesson, index: int) -> dict[str, str]:
    """The lesson's part of the link: by name, else whole when it fits, and the slide."""
    if name:
        return {LINK_LESSON: name, LINK_SLIDE: str(index + 1)}
    packed = lesson_to_link(lesson)
    if len(packed) > MAX_LINK_LESSON_CHARS:
        return {}
    return {LINK_FILE: packed, LINK_SLIDE: str(index + 1)}


def lesson_reference() -> dict[str, str] | None:
    """The current lesson as a link names it (bundled by name, else packed whole), without
    the slide; ``None`` with no lesson on, or one too long for a link."""
    held = current_lesson()
    if held is None:
        return None
    link = _link(st.session_state[KEY_LESSON][0], held[0], 0)
    link.pop(LINK_SLIDE, None)
    return link or None


def referenced_lesson(reference: object) -> Lesson | None:
    """The lesson :func:`lesson_reference` names (``None`` if it names none this server
    reads: another version's bundled lesson, a changed link)."""
    if not isinstance(reference, dict):
        return None
    name, packed = reference.get(LINK_LESSON), reference.get(LINK_FILE)
    if isinstance(name, str):
        return bundled_lessons().get(name)
    if isinstance(packed, str):
        try:
            return lesson_from_link(packed)
        except LessonError:
            return None
    return None


def _teaching() -> bool:
    """Whether this session is the teacher of a live class (its class bar then offers the
    presenter view)."""
    held = held_class()
    return held is not None and held["role"] == "teacher"


def go_to_slide() -> None:
    """After the sidebar, before the class bar: a slide just applied switches to its page.
    Switched after the class bar, the teacher's bar was drawn once with the new slide's run
    on the old page: the teacher's browser sent that view, and each student took the run on
    the old page, then switched page at the next view (two reruns each, where one does).
    After the sidebar: its Presentation mode toggle, bound to the link, is drawn, so the
    switch keeps its ``present`` (Streamlit refuses to set it, and drops it when not drawn)."""
    held = current_lesson()
    if held is None or not st.session_state.pop(KEY_GO, False):
        return
    lesson, index = held
    slide = lesson.slides[index]
    name = st.session_state[KEY_LESSON][0]
    st.switch_page(PAGES[slide.page], query_params={**slide.link(), **_link(name, lesson, index)})


def lesson_bar() -> None:
    """Above the page: the current slide and its controls (nothing when no lesson is on).

    Drawn by the frame after ``st.navigation`` and before the page runs (a slide just
    applied has switched to its page before: :func:`go_to_slide`).
    """
    held = current_lesson()
    if held is None:  # none, or ended: a reload must not start it again
        for key in (LINK_LESSON, LINK_FILE, LINK_SLIDE):
            st.query_params.pop(key, None)
        return
    lesson, index = held
    name = st.session_state[KEY_LESSON][0]
    slide = lesson.slides[index]
    for key, value in _link(name, lesson, index).items():
        if st.query_params.get(key) != value:
            st.query_params[key] = value
    last = len(lesson.slides) - 1
    present = presentation_mode()
    if present:
        # The bar comes first, under Streamlit's header; the slide's title names the view,
        # so the page's own title shrinks: the text's first tokens stay on a 1280×720 screen.
        st.html(
            f"<style>.st-key-lesson_bar{{margin-top:{PRESENT_MARGIN}}}"
            f".stMain h1{{font-size:{PRESENT_PAGE_TITLE};padding:0 0 .25rem}}"
            # the header shows through where it has nothing (its one control stays usable)
            '[data-testid="stHeader"],[data-testid="stToolbar"]'
            "{background:transparent;pointer-events:none}"
            '[data-testid="stHeader"] button{pointer-events:auto}</style>'
        )
    with st.container(key="lesson_bar", horizontal=True, vertical_alignment="center", gap="small"):
        st.button(
            "← Previous slide",
            key="lesson_previous",
            on_click=_move,
            args=(-1,),
            disabled=index == 0,
            help="Or press Page Up (what a presenter's clicker sends).",
        )
        st.button(
            "Next slide →",
            key="lesson_next",
            on_click=_move,
            args=(1,),
            disabled=index == last,
            help="Or press Page Down (what a presenter's clicker sends).",
        )
        # Projected to a class, the notes (answers among them) are in the presenter view only.
        if slide.notes and not (present and _teaching()):
            with st.popover("Speaker notes", icon=":material/speaker_notes:"):
                st.markdown(lesson_markdown(slide.notes))
        line = f"**{escape_markdown(slide.title)}** · slide {index + 1} of {len(lesson.slides)}"
        if not present:  # on a projector the line fits beside the buttons without it
            line += f" · {escape_markdown(lesson.title)}"
        st.markdown(line, width="content")  # beside the buttons when it fits
    keys_component(key=KEY_KEYS, on_move_change=_on_key)


def lesson_sidebar() -> None:
    """The sidebar's Lesson box: start a bundled lesson, upload one, download, end. Not for a
    student following a class (the teacher leads the lesson; a hundred followers each drew
    it at every slide)."""
    if follows_class():
        return
    lessons = bundled_lessons()
    held = current_lesson()
    error = st.session_state.get(KEY_ERROR)
    with st.sidebar.expander("Lesson", expanded=error is not None, icon=":material/school:"):
        st.radio(  # not a menu: a menu's chosen title is cut at the sidebar's edge; these wrap
            "Bundled lesson",
            list(lessons),
            format_func=lambda key: escape_markdown(
                f"{lessons[key].title} ({lessons[key].minutes} min)"
            ),
            key=KEY_PICK,
        )
        st.button("Start this lesson", key="lesson_start", on_click=_start_bundled)
        st.file_uploader(
            "Your lesson file (TOML)",
            type=["toml"],
            key=KEY_UPLOAD,
            on_change=_load_upload,
            max_upload_size=1,
            help=f"A lesson written as docs/lessons.md in bpeviz's repository shows, up to "
            f"{MAX_LESSON_BYTES // 1000} KB. The page's link then holds it (a lesson of "
            "most of up to 20 slides), so a reload or the link copied opens it again.",
        )
        if error is not None:
            st.error(
                f"{escape_markdown(error)} The lesson and the view you had are kept.",
                icon=":material/error:",
            )
        if held is not None:
            lesson, _ = held
            if not _link(st.session_state[KEY_LESSON][0], lesson, 0):
                st.caption(
                    f"This lesson is longer than a link holds ({MAX_LINK_LESSON_CHARS:,} "
                    "characters packed): it stays in this session; share its file."
                )
            st.download_button(
                "Download this lesson (TOML)",
                data=to_toml(lesson),
                file_name="lesson.toml",
                mime="application/toml",
                key="lesson_download",
                on_click="ignore",  # a download needs no run
            )
            st.button("End the lesson", key="lesson_end", on_click=_end_lesson)
