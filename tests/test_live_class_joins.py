"""Joining a live class from the app (``?class=CODE``): the limit on wrong codes counts per
session and per client address, so one browser typing wrong codes locks out no one else.

Two AppTest sessions stand for two students' browsers on one machine: Streamlit gives no
address for a loopback peer (``st.context.ip_address`` is ``None``, as for every browser
behind ``make serve``'s nginx when the worker does not rewrite the peer): a limit keyed by it
alone would be one count for all of them.
"""

from __future__ import annotations

from typing import Any

import pytest
import streamlit as st
from apptest_support import new_app, open_page, run
from protocol_client import run_coroutine

from bpeviz.classroom import codes
from bpeviz.classroom.hubs.choose import current_hub
from bpeviz.classroom.state import View

WRONG = "ZZZZZZZZZ"  # a well-formed code that names no class


@pytest.fixture
def fresh_limit(monkeypatch: pytest.MonkeyPatch) -> codes.JoinLimit:
    """A limit with no failures yet, and every browser a loopback peer with no proxy header
    (AppTest's own context gives each run a different stand-in address)."""
    monkeypatch.setattr(type(st.context), "ip_address", property(lambda _self: None))
    monkeypatch.setattr(type(st.context), "headers", property(lambda _self: {}))
    limit = codes.JoinLimit()
    monkeypatch.setattr(current_hub(), "misses", limit)
    return limit


def errors(at: Any) -> list[str]:
    return [element.value for element in at.error]


def test_a_flood_of_wrong_codes_from_one_session_refuses_no_other_sessions_right_code(
    fresh_limit: codes.JoinLimit,
) -> None:
    code, _key = current_hub().create({"state": {}, "pages": {}}, View())
    flooder = run(new_app(**{"class": WRONG}))
    for _ in range(codes.MAX_FAILED_JOINS - 1):
        flooder.query_params["class"] = WRONG
        run(flooder)
    assert any("no class with the code" in text for text in errors(flooder))
    flooder.query_params["class"] = code  # right, but this session is out of tries
    run(flooder)
    assert any("Too many wrong class codes" in text for text in errors(flooder))
    student = run(new_app(**{"class": code}))
    assert not errors(student)
    assert student.session_state["_live_class"]["code"] == code


def test_a_teachers_session_holds_one_live_class(fresh_limit: codes.JoinLimit) -> None:
    """``?class=new`` again (a reload of the start link, a second click) keeps the class
    this session started: no second class."""
    teacher = run(new_app(**{"class": "new"}))
    held = teacher.session_state["_live_class"]
    assert held["role"] == "teacher"
    teacher.query_params["class"] = "new"
    run(teacher)
    assert teacher.session_state["_live_class"]["code"] == held["code"]
    assert teacher.query_params["class"] in (held["code"], [held["code"]])


def test_a_right_code_gets_in_after_a_flood_of_wrong_codes_from_the_same_address(
    fresh_limit: codes.JoinLimit,
) -> None:
    """A lecture hall behind one address: a bot's misses past the address's limit (from
    many sessions) refuse no other session's right code."""
    code, _key = current_hub().create({"state": {}, "pages": {}}, View())
    for number in range(codes.MAX_FAILED_JOINS_PER_ADDRESS + 5):
        fresh_limit.miss("loopback", f"bot-{number}")
    student = run(new_app(**{"class": code}))
    assert not errors(student)
    assert student.session_state["_live_class"]["code"] == code


def test_a_link_to_an_ended_class_says_it_has_ended_and_is_no_miss(
    fresh_limit: codes.JoinLimit,
) -> None:
    code, _key = current_hub().create({"state": {}, "pages": {}}, View())
    run_coroutine(current_hub().change(code, lambda s: s.end()))
    late = run(new_app(**{"class": code}))
    assert [text.replace("\\", "") for text in errors(late)] == ["This class has ended."]
    assert fresh_limit.addresses.count("loopback") == 0


def test_a_student_takes_the_classs_page_settings_and_leaves_their_own(
    fresh_limit: codes.JoinLimit,
) -> None:
    """Issue 28: slide 2's "Token ids" carried over to slide 12 on the students' pages. A run
    given to a student sets the page settings it holds and returns those it leaves out to
    their defaults."""
    teacher = run(new_app(**{"class": "new"}))
    code = teacher.session_state["_live_class"]["code"]
    student = open_page("app_pages/tokenize.py", tok_view="Token ids")
    assert student.session_state["tok_view"] == "Token ids"
    del student.query_params["tok_view"]  # a following student's address holds the code only
    student.query_params["class"] = code
    run(student)
    assert student.session_state["_live_class"]["role"] == "student"
    assert "tok_view" not in student.session_state or student.session_state["tok_view"] != (
        "Token ids"
    )
