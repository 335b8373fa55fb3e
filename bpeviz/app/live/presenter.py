"""The presenter's window (``?presenter=CODE``) and what the projector's class bar tells it.

The window is a mode of the app with nothing but the presenter view (``web/live/presenter.js``):
the speaker notes, this and the next slide's titles, the clocks (the slide's planned minutes,
the lesson's, how far ahead of or behind the plan it is), the quiz's live spread, and how many
of the lesson's slides the server has prepared. Its data come from the teacher's other
window, the one whose session holds the lesson and whose socket is the class's, over the
browser's own channel: this session has no lesson, no run and no key of its own. So the
link names only the class; the teacher's key, already in that browser's storage, is what
lets it drive.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from bpeviz.app.frame.widgets import inject_css
from bpeviz.app.lesson.prepare import progress_of
from bpeviz.app.lesson.view import current_lesson
from bpeviz.app.step.view import component
from bpeviz.classroom.codes import normal_code
from bpeviz.classroom.state import MAX_TITLE_CHARS

KEY_PRESENTER = "presenter"  # the query parameter: the class's code


def presenter_info() -> dict[str, Any] | None:
    """The lesson's slide as the presenter view shows it (none when no lesson is on)."""
    held = current_lesson()
    if held is None:
        return None
    lesson, index = held
    slide = lesson.slides[index]
    following = lesson.slides[index + 1] if index + 1 < len(lesson.slides) else None
    progress = progress_of(lesson)
    return {
        "slide": index + 1,
        "slides": len(lesson.slides),
        "title": slide.title[:MAX_TITLE_CHARS],
        "next_title": following.title[:MAX_TITLE_CHARS] if following else "",
        "notes": slide.notes,
        "minutes": slide.minutes,
        "planned_before": sum(earlier.minutes for earlier in lesson.slides[:index]),
        "lesson_minutes": lesson.minutes,
        "prepared": [progress.done, progress.slides] if progress else None,
    }


def presenter_window() -> bool:
    """Draw the presenter view when the address asks for it (then the app draws nothing
    else); whether it did."""
    raw = st.query_params.get(KEY_PRESENTER)
    if raw is None:
        return False
    code = normal_code(raw)
    if not code:
        st.error(
            "This address names no class: open the presenter view with the teacher's "
            "Presenter view link."
        )
        return True
    st.set_page_config(page_title=f"Presenter view, class {code} · bpeviz")
    inject_css()  # the app's own styles: the view's are among them (web/live/class.css)
    component(data={"kind": "presenter", "code": code}, key="presenter_view")
    return True
