"""While a student follows a live class, the student's settings are the class's (issue 28,
item 3): a browser's old widget value, sent back after the class's run was given, does not
replace it; a setting the student changes detaches the student to explore their own run.

The class's run is given to a student in one run (the join, or the class bar's callback);
the browser learns the widgets' new values from that run's answer. A rerun the browser asks
for before that answer reaches it (a trigger of the class bar, a page switch) carries each
widget's old value, and Streamlit takes the browser's values over the state: the student's
sidebar went back to their own vocab size under a bar that said "Following" (a rerun is
played here as AppTest does it: every widget's value as last drawn, or as set).
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from apptest_support import new_app, run
from streamlit.testing.v1 import AppTest

from bpeviz.app.frame import sidebar
from bpeviz.app.frame.run_settings import STATE_KEYS
from bpeviz.app.frame.state import KEY_HELD
from bpeviz.app.live.live_class import KEY_BAR, KEY_FOLLOW_PAGE
from bpeviz.classroom.hubs.choose import current_hub
from bpeviz.classroom.hubs.common import run_id


def class_bar_data(at: AppTest) -> dict[str, Any]:
    """The data the class bar's JavaScript was given this run (``web/live/class_bar.js``)."""
    for node in at.main:
        if getattr(node, "type", None) == "bidi_component" and node.proto.id.endswith(KEY_BAR):
            kind = node.proto.WhichOneof("data")
            return dict(json.loads(node.proto.mixed.json if kind == "mixed" else node.proto.json))
    raise AssertionError("no class bar on the page")


def joined(own_vocab: int) -> tuple[AppTest, AppTest, str]:
    """A teacher's class, and a student who set their own vocab size before joining it."""
    teacher = run(new_app(**{"class": "new"}))
    code = teacher.session_state[KEY_HELD]["code"]
    student = run(new_app())
    run(student.number_input(key="vocab").set_value(own_vocab))
    student.query_params["class"] = code
    run(student)
    return teacher, student, code


def sidebar_setting(at: AppTest, key: str) -> str | None:
    """The value a following student's read-only sidebar shows for ``key`` (its
    ``data-value``), ``None`` when it shows none."""
    for node in at.sidebar:
        if getattr(node, "type", None) == "html" and 'class="bpe-class-settings"' in node.value:
            found = re.search(rf'data-setting="{key}" data-value="([^"]*)"', node.value)
            return html.unescape(found.group(1)) if found else None
    return None


def test_a_following_students_settings_are_the_classs_shown_read_only() -> None:
    """While following, the settings are the class's: the sidebar names them and draws no
    widget (nothing a late browser value or a slip of the student can change; drawing the nine
    widgets was a third of each follower's run, at every slide, for a hundred followers). The
    Lesson box is the teacher's."""
    teacher, student, code = joined(own_vocab=612)
    class_vocab = teacher.session_state["vocab"]
    assert class_vocab != 612 and student.session_state["vocab"] == class_vocab
    run(student)  # a rerun (the browser's next) keeps it
    assert student.session_state["vocab"] == class_vocab
    with pytest.raises(KeyError):
        student.number_input(key="vocab")
    assert sidebar_setting(student, "vocab") == str(class_vocab)
    assert sidebar_setting(student, "pretok") == "gpt4: GPT-4's pattern"  # the menu's words
    assert not [button for button in student.button if button.key == "lesson_start"]
    data = class_bar_data(student)
    assert data["run"] == run_id(current_hub().run_of(code)) and not data.get("detached")


def test_a_student_who_explores_gets_the_settings_to_change_from_the_classs() -> None:
    """The sidebar's Change settings gives its widgets, showing the class's values, and the
    bar says "Exploring"; a change is the student's own, and the bar names no run of the
    class's (so that Follow asks for the class's run again)."""
    _teacher, student, code = joined(own_vocab=612)
    class_vocab = student.session_state["vocab"]
    run(student.button(key="class_change_settings").click())
    assert class_bar_data(student)["detached"]
    assert student.number_input(key="vocab").value == class_vocab
    assert sidebar_setting(student, "vocab") is None
    run(student.number_input(key="vocab").set_value(300))
    assert student.session_state["vocab"] == 300
    data = class_bar_data(student)
    assert data["detached"] and data["run"] != run_id(current_hub().run_of(code))
    run(student)  # still exploring on the next run: the run stays the student's
    assert student.session_state["vocab"] == 300 and class_bar_data(student)["detached"]


def test_a_student_sent_to_the_teachers_page_draws_the_sidebar_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A slide on another page: the class bar's callback gives the run and names the page.
    The switch comes before the sidebar is drawn, so the run that switches draws nothing for
    nothing (it drew the sidebar, the class bar and the lesson's bar, then switched, and the
    page ran them all again: two runs' work for each of a hundred students)."""
    _teacher, student, _code = joined(own_vocab=612)
    drawn: list[str] = []
    real_sidebar = sidebar.sidebar
    monkeypatch.setattr(sidebar, "sidebar", lambda: drawn.append("sidebar") or real_sidebar())
    student.session_state[KEY_FOLLOW_PAGE] = "tokenize"  # as _follow_run leaves it
    run(student)
    assert drawn == ["sidebar"]
    assert class_bar_data(student)["page"] == "tokenize"


def test_a_slide_names_one_run_for_the_class_however_often_the_teacher_reruns() -> None:
    """The teacher's first run of a slide published its run before the page drew its widgets;
    the next run (the step view's report, a bound widget's link) published it again with the
    page's defaults the slide leaves out (Tokenize's Input "Text", Show pieces off; Two runs'
    end-of-word markers off): another run's name, and every student followed twice."""
    teacher = run(new_app(lesson="bpe", present="true", **{"class": "new"}))
    code = teacher.session_state[KEY_HELD]["code"]
    for number in range(2, 11):
        teacher = run(teacher.button(key="lesson_next").click())
        if number not in (2, 10):  # Tokenize's first slide, and Two runs
            continue
        published = run_id(current_hub().run_of(code))
        run(teacher)
        assert run_id(current_hub().run_of(code)) == published, number


def test_a_followers_read_only_paste_is_text_with_its_bidi_controls_shown() -> None:
    """The read-only settings are HTML: a pasted tag is shown as its characters, and a
    right-to-left override as ``\\u202e`` (as a caption shows it), not left to reorder the
    rest of the sidebar's line (``data-value`` keeps the value itself, for tests)."""
    state = {"src": "paste", "paste": "<b>bold</b> a\u202eb", "algo": "bpe", "vocab": 300,
             "pretok": "gpt4", "tie": "first", "special": "", "eow": False}  # fmt: skip
    shown = sidebar.class_settings_html(state)
    assert "<b>" not in shown and "&lt;b&gt;bold&lt;/b&gt;" in shown
    visible = re.sub(r"<[^>]*>", "", shown)  # the text, without tags and their attributes
    assert "\u202e" not in visible and "a\\u202eb" in visible


def widget_shows(at: AppTest, key: str) -> tuple[str, str]:
    """The sidebar widget with ``key``: its label and its value as it reads on screen (a
    menu's or radio's option through its format function, a number in its format, a checkbox
    as on or off)."""
    for kind in ("selectbox", "radio", "number_input", "text_input", "text_area", "checkbox"):
        for widget in getattr(at.sidebar, kind):
            if widget.key != key:
                continue
            if kind in ("selectbox", "radio"):
                return widget.label, str(widget.format_func(widget.value))
            if kind == "number_input":
                number_format = widget.proto.format
                return widget.label, (number_format % widget.value if number_format
                                      else str(widget.value))  # fmt: skip
            if kind == "checkbox":
                return widget.label, "on" if widget.value else "off"
            return widget.label, str(widget.value)
    raise AssertionError(f"no widget {key} in the sidebar")


@pytest.mark.parametrize(
    "params",
    [
        {"algo": "wordpiece", "wprule": "frequency", "tie": "lexmax", "special": "<|x|>"},
        {"algo": "unigram", "ushrink": "0.8", "tie": "lexmin", "src": "paste", "paste": "ab ab"},
        {"algo": "bpe", "pretok": "words", "eow": "true", "tie": "first"},
    ],
    ids=["wordpiece", "unigram", "bpe-words"],
)
def test_a_followers_read_only_settings_read_as_their_widgets_show_them(
    params: dict[str, str],
) -> None:
    """Each read-only setting a follower sees has its widget's label and reads as the widget
    shows it (the WordPiece rule, the tie rule, a shrinking factor of 0.8 as its box's
    "0.80"), so the teacher's sidebar and a student's say the same thing."""
    at = run(new_app(**params))
    state = {key: at.session_state[key] for key in STATE_KEYS if key in at.session_state}
    shown = sidebar.class_settings_html(state)
    rows = re.findall(r"<dt>([^<]*)</dt><dd data-setting=\"([^\"]*)\"[^>]*>([^<]*)</dd>", shown)
    assert len(rows) >= 8
    for label, key, value in rows:
        assert widget_shows(at, key) == (html.unescape(label), html.unescape(value)), key


def test_the_teachers_bar_names_a_slides_run_only_on_its_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Next slide onto another page: the class bar was drawn with the new slide's run on the
    old page (the lesson's bar switched page after it), so the teacher's browser sent that
    view, and each student took the run on the old page and then, at the next view, switched
    page: two reruns per student instead of one (123 for 100 students on Two runs)."""
    from bpeviz.app.live import live_class

    teacher = run(new_app(lesson="bpe", present="true", **{"class": "new"}))
    run(teacher.button(key="lesson_next").click())  # slide 2, Tokenize
    drawn: list[tuple[str, str]] = []
    real = live_class.component

    def recorded(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("key") == KEY_BAR:
            drawn.append((kwargs["data"]["page"], kwargs["data"]["run"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(live_class, "component", recorded)
    run(teacher.button(key="lesson_next").click())  # slide 3, Step
    assert drawn and {page for page, _ in drawn} == {"step"}, drawn
