"""The live class's state, codes and in-memory hub, without Streamlit or a server.

Expected values are the class's rules worked by hand: each answer counts once, every pair
tied with the real next merge is right, limits hold, an idle class ends.
"""

from __future__ import annotations

import re
import time

import pytest
from protocol_client import run_coroutine

from bpeviz.classroom import codes
from bpeviz.classroom.hubs.common import Inbox, end_gone_classes, run_id
from bpeviz.classroom.hubs.memory import MemoryHub
from bpeviz.classroom.state import (
    IDLE_LIMIT_S,
    MAX_CLASSES,
    MAX_SOCKETS_PER_STUDENT,
    MAX_STUDENTS,
    TEACHER_AWAY_S,
    ClassError,
    ClassState,
    Event,
    View,
    key_digest,
)

MAX_CLASSES_PER_CLIENT = 3  # a small cap, to test (the default: codes.classes_per_address())
ENDED_MESSAGE = {"type": "ended", "message": "This class has ended."}  # every page is told


def new_state(now: float = 0.0) -> ClassState:
    return ClassState("K7QM4XABC", key_digest("secret"), now)


def messages(events: list) -> list[tuple[str, dict]]:
    return [(event.to, event.message) for event in events]


def test_join_counts_students_and_a_reconnect_keeps_the_score() -> None:
    state = new_state()
    assert messages(state.join("student-aaaa"))[0][1]["connected"] == 1
    state.join("student-bbbb", "Bo")
    state.leave("student-aaaa")
    assert state.connected() == 1
    state.join("student-aaaa")  # a reload: the same id comes back
    assert state.connected() == 2 and len(state.students) == 2
    assert state.students["student-bbbb"].nick == "Bo"


def test_only_the_key_drives() -> None:
    state = new_state()
    assert state.is_teacher("secret")
    assert not state.is_teacher("Secret") and not state.is_teacher(None)


def test_the_teachers_view_goes_to_everyone_and_is_checked() -> None:
    state = new_state()
    events = messages(
        state.show(
            {"page": "step", "step": 12, "when": "before", "pieces": True, "quiz": False}, 5.0
        )
    )
    assert events == [
        (
            "all",
            {
                "type": "view",
                "view": {
                    "page": "step",
                    "step": 12,
                    "when": "before",
                    "pieces": True,
                    "quiz": False,
                    "run": "",  # none named: the class's first run
                    "slide": 0,  # no lesson
                    "slides": 0,
                    "title": "",
                },
            },
        )
    ]
    assert state.last_active == 5.0
    for bad in (
        {"page": "admin"},
        {"step": -1},
        {"step": "3"},
        {"when": "now"},
        {"quiz": 1},
        {"extra": 1},
        {"slide": 3, "slides": 2},
        {"slide": "1", "slides": 2},
        {"slide": 1, "slides": 2, "title": "x" * 201},
        "view",
    ):
        raw = {**View().__dict__, **bad} if isinstance(bad, dict) else bad
        with pytest.raises(ClassError):
            state.show(raw, 6.0)
    assert state.view.step == 12  # a refused view changes nothing


def quiz_at(state: ClassState, step: int) -> None:
    state.show({"page": "step", "step": step, "when": "after", "pieces": False, "quiz": True}, 1.0)


def test_each_student_answers_once_and_the_spread_goes_to_the_teacher_only() -> None:
    state = new_state()
    for name in ("aaaaaaaa", "bbbbbbbb", "cccccccc"):
        state.join(name)
    quiz_at(state, 4)
    state.answer("aaaaaaaa", 4, 0)
    events = messages(state.answer("bbbbbbbb", 4, 2))
    assert events[0] == ("all", {"type": "counts", "connected": 3, "answered": 2, "question": 4})
    assert events[1] == ("teacher", {"type": "spread", "step": 4, "spread": [1, 0, 1, 0]})
    with pytest.raises(ClassError, match="answered"):
        state.answer("aaaaaaaa", 4, 1)
    with pytest.raises(ClassError, match="closed"):
        state.answer("cccccccc", 5, 1)  # not the open question's step
    with pytest.raises(ClassError):
        state.answer("cccccccc", 4, 4)  # there are four rows: 0 to 3
    with pytest.raises(ClassError):
        state.answer("stranger", 4, 0)


def test_the_reveal_counts_tied_rows_right_and_keeps_a_running_score() -> None:
    state = new_state()
    for name in ("aaaaaaaa", "bbbbbbbb", "cccccccc"):
        state.join(name, name[0].upper())
    quiz_at(state, 0)
    state.answer("aaaaaaaa", 0, 0)
    state.answer("bbbbbbbb", 0, 1)  # tied with row 0: right too
    state.answer("cccccccc", 0, 3)
    events = messages(state.reveal(0, [0, 1], 2.0))
    assert events[0] == (
        "all",
        {
            "type": "reveal",
            "step": 0,
            "spread": [1, 1, 0, 1],
            "right_rows": [0, 1],
            "answered": 3,
            "right": 2,
            "score": {"right": 2, "answered": 3},
        },
    )
    assert events[2][0] == "teacher"
    assert [entry["nick"] for entry in events[2][1]["top"]] == ["A", "B"]  # C: none right
    assert events[1] == (
        "teacher",
        {
            "type": "answers",
            "step": 0,
            "spread": [1, 1, 0, 1],
            "right_rows": [0, 1],
            "answers": [["A", 0], ["B", 1], ["C", 3]],
        },
    )
    with pytest.raises(ClassError, match="revealed"):
        state.reveal(0, [0], 3.0)
    with pytest.raises(ClassError, match="closed"):
        state.answer("cccccccc", 0, 0)  # too late
    quiz_at(state, 1)  # the next question
    state.answer("cccccccc", 1, 0)
    state.reveal(1, [0], 4.0)
    assert state.score() == {"right": 3, "answered": 4}
    with pytest.raises(ClassError):
        quiz_at(state, 2)
        state.reveal(2, [1], 5.0)  # row 0, the real next merge, is always right


def test_the_results_name_a_student_without_a_nickname_by_their_number() -> None:
    state = new_state()
    for name in ("aaaaaaaa", "bbbbbbbb"):
        state.join(name)
    state.rename("bbbbbbbb", "Bo")
    quiz_at(state, 4)
    state.answer("aaaaaaaa", 4, 2)
    state.answer("bbbbbbbb", 4, 0)
    answers = messages(state.reveal(4, [0], 2.0))[1][1]
    assert answers["answers"] == [["Student 1", 2], ["Bo", 0]]
    assert messages([state._board()]) == [("teacher", {"type": "board", "top": [
        {"nick": "Bo", "right": 1, "answered": 1}]})]  # fmt: skip


def test_a_nickname_is_text_trimmed_and_without_control_characters() -> None:
    state = new_state()
    state.join("aaaaaaaa", "<b onclick=x>\u202eAda\n</b>" + "x" * 40)
    nick = state.students["aaaaaaaa"].nick
    assert nick.startswith("<b onclick=x>Ada </b>") and len(nick) == 24


def test_a_class_holds_at_most_max_students_connected() -> None:
    state = new_state()
    for number in range(MAX_STUDENTS):
        state.join(f"student-{number:04d}")
    with pytest.raises(ClassError, match="full"):
        state.join("student-late")
    state.leave("student-0000")
    state.join("student-late")  # a seat is free again
    state.join("student-0001")  # a second tab of a student already in: not a new seat


def test_one_student_holds_at_most_a_few_sockets() -> None:
    state = new_state()
    for _ in range(MAX_SOCKETS_PER_STUDENT):  # tabs, or a reload before the old one drops
        state.join("student-aaaa")
    with pytest.raises(ClassError, match="open"):
        state.join("student-aaaa")
    assert state.students["student-aaaa"].sockets == MAX_SOCKETS_PER_STUDENT
    state.leave("student-aaaa")
    state.join("student-aaaa")  # one closed: one may open


def test_a_tab_that_reconnects_counts_as_one_page() -> None:
    """Sockets that name their tab (a reconnect before the server saw the old one go) count
    as one page: the tab still gets in; another tab, past the limit, does not."""
    state = new_state()
    for tab in ("tab-1", "tab-2"):
        state.join("student-aaaa", tab=tab)
    for _ in range(MAX_SOCKETS_PER_STUDENT + 1):
        state.join("student-aaaa", tab="tab-3")
    with pytest.raises(ClassError, match="open"):
        state.join("student-aaaa", tab="tab-4")
    for _ in range(MAX_SOCKETS_PER_STUDENT + 1):
        state.leave("student-aaaa", tab="tab-3")
    state.join("student-aaaa", tab="tab-4")  # tab 3 closed for good: one may open
    assert state.students["student-aaaa"].sockets == 3 and state.connected() == 1


def test_a_class_ends_after_three_idle_hours_and_goes_to_json_and_back() -> None:
    state = new_state(now=100.0)
    state.teacher_arrives()
    state.join("aaaaaaaa")
    quiz_at(state, 3)
    state.answer("aaaaaaaa", 3, 2)
    again = ClassState.from_json(state.to_json())
    assert again == state
    assert not again.idle(1.0 + IDLE_LIMIT_S - 1)
    assert again.idle(1.0 + IDLE_LIMIT_S + 1)  # last active at 1.0, when the quiz opened


def test_codes_are_unambiguous_and_failed_joins_are_limited() -> None:
    assert not set("0O1IL") & set(codes.ALPHABET)
    assert len(codes.ALPHABET) == 31
    assert codes.CODE_LENGTH == 9  # 31**9: 26 trillion codes (see docs/teaching.md's arithmetic)
    assert codes.normal_code("abc-def-ghj") == "ABCDEFGHJ"  # typed small, with dashes
    assert codes.normal_code(" k7q m4x abc") == "K7QM4XABC"
    assert codes.normal_code("K7QM4XAB0") is None  # 0 is never in a code
    assert codes.normal_code("K7QM4XABI") is None  # nor I
    assert codes.normal_code("K7QM4XAB") is None  # eight characters
    limit = codes.FailedJoins(limit=3, window_s=60)
    for _ in range(3):
        limit.fail("10.0.0.1", now=0)
    assert not limit.allowed("10.0.0.1", now=59)
    assert limit.allowed("10.0.0.1", now=61)


def test_misses_are_limited_per_session_and_the_address_limit_refuses_no_hit() -> None:
    limit = codes.JoinLimit(per_session=3, per_address=5, window_s=60)
    for _ in range(3):
        assert limit.miss("203.0.113.7", "flooder", now=0) == codes.NO_CLASS
    assert not limit.session_allowed("flooder", now=1)  # its own tries wait, right or not
    assert limit.session_allowed("neighbour", now=1)  # same campus address
    assert limit.miss("203.0.113.7", "flooder", now=1) == codes.TOO_MANY
    for session in ("s1", "s2"):  # the address's sixth miss and on: said as too many
        limit.miss("203.0.113.7", session, now=2)
    assert limit.miss("203.0.113.7", "neighbour", now=3) == codes.TOO_MANY
    assert limit.session_allowed("other-student", now=3)  # a right code still gets in
    assert limit.miss("198.51.100.2", "elsewhere", now=3) == codes.NO_CLASS
    assert limit.miss("203.0.113.7", "later", now=61) == codes.NO_CLASS  # a minute on


def test_the_client_is_the_peer_or_what_our_own_proxy_says() -> None:
    """X-Real-IP is believed only with the secret our nginx sends (scripts/serve.py gives it
    to nginx and the workers), from a loopback peer; never from any other local program."""
    secret = "s" * 32
    nginx_says = {"x-real-ip": "203.0.113.7", "x-bpeviz-proxy": secret}
    for peer in ("127.0.0.1", "::1", "::ffff:127.0.0.1", None):  # None: Streamlit's loopback
        assert codes.client_address(nginx_says, peer, proxy_secret=secret) == "203.0.113.7"
    local_user = {"x-real-ip": "203.0.113.7"}
    assert codes.client_address(local_user, "127.0.0.1", proxy_secret=secret) == "loopback"
    wrong = {"x-real-ip": "203.0.113.7", "x-bpeviz-proxy": "guess"}
    assert codes.client_address(wrong, "127.0.0.1", proxy_secret=secret) == "loopback"
    assert codes.client_address(nginx_says, "127.0.0.1", proxy_secret="") == "loopback"
    assert codes.client_address(nginx_says, "198.51.100.2", proxy_secret=secret) == (
        "198.51.100.2"  # not our nginx
    )
    assert codes.client_address({}, "::ffff:127.0.0.1", proxy_secret="") == "loopback"
    assert codes.client_address({}, "::ffff:198.51.100.2", proxy_secret="") == (
        "::ffff:198.51.100.2"
    )
    long = {"x-real-ip": "x" * 500, "x-bpeviz-proxy": secret}
    assert len(codes.client_address(long, "127.0.0.1", proxy_secret=secret)) == 64


def test_classes_per_address_default_fits_a_building_and_is_configurable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("BPEVIZ_CLASSES_PER_ADDRESS", raising=False)
    assert codes.classes_per_address() == 50
    monkeypatch.setenv("BPEVIZ_CLASSES_PER_ADDRESS", "7")
    assert codes.classes_per_address() == 7
    assert MemoryHub().classes_per_address == 7


def test_an_ended_class_is_known_as_ended_not_as_a_wrong_code() -> None:
    async def scenario() -> tuple[bool, bool, bool]:
        hub = MemoryHub()
        code, _key = hub.create({}, View())
        open_ = hub.was_given(code)
        await hub.change(code, lambda s: s.end())
        return open_, hub.was_given(code), hub.was_given("ZZZZZZZZZ")

    assert run_coroutine(scenario()) == (True, True, False)


def test_the_memory_hub_holds_classes_sends_events_and_ends_them() -> None:
    async def scenario() -> None:
        hub = MemoryHub()
        code, key = hub.create({"state": {"vocab": 300}}, View())
        assert hub.run_of(code) == {"state": {"vocab": 300}}
        assert hub.is_teacher(code, key) and not hub.is_teacher(code, "guess")
        inbox = hub.fanout.add(code)
        await hub.change(code, lambda s: s.show({**View().__dict__, "step": 7}, time.time()))
        event = inbox.queue.get_nowait()
        assert event.message["view"]["step"] == 7
        await hub.change(code, lambda s: s.end())
        assert inbox.queue.get_nowait().message == ENDED_MESSAGE
        assert hub.run_of(code) is None and await hub.read(code) is None
        with pytest.raises(ClassError, match="ended"):
            await hub.change(code, lambda s: s.end())

    run_coroutine(scenario())


def test_ending_a_class_in_memory_closes_its_sockets() -> None:
    async def scenario() -> None:
        hub = MemoryHub()
        code, _key = hub.create({}, View())
        sockets = [hub.fanout.add(code), hub.fanout.add(code)]
        await hub.change(code, lambda s: s.end())
        for inbox in sockets:
            assert inbox.queue.get_nowait().message == ENDED_MESSAGE
            assert inbox.queue.get_nowait() is None  # the socket closes

    run_coroutine(scenario())


def test_a_class_gone_idle_is_told_to_every_socket_as_ended() -> None:
    async def scenario() -> None:
        hub = MemoryHub()
        idle, _key = hub.create({}, View())
        driven, _key = hub.create({}, View())
        gone, kept = hub.fanout.add(idle), hub.fanout.add(driven)
        assert await hub.read(idle) is not None
        hub._classes[idle].last_active -= IDLE_LIMIT_S + 1  # three hours and a second ago
        await end_gone_classes(hub)
        assert gone.queue.get_nowait().message == ENDED_MESSAGE
        assert gone.queue.get_nowait() is None
        assert kept.queue.empty()  # the class still driven hears nothing
        with pytest.raises(ClassError, match="ended"):
            await hub.change(idle, lambda s: s.join("student-late"))

    run_coroutine(scenario())


def test_one_client_opens_at_most_a_few_classes_at_once() -> None:
    async def scenario() -> None:
        hub = MemoryHub(classes_per_address=MAX_CLASSES_PER_CLIENT)
        mine = [
            hub.create({}, View(), creator="203.0.113.7")[0] for _ in range(MAX_CLASSES_PER_CLIENT)
        ]
        with pytest.raises(ClassError, match="from this network address"):
            hub.create({}, View(), creator="203.0.113.7")
        hub.create({}, View(), creator="198.51.100.2")  # another client: its own count
        await hub.change(mine[0], lambda s: s.end())
        hub.create({}, View(), creator="203.0.113.7")  # one ended: one may start

    run_coroutine(scenario())


def test_the_memory_hub_refuses_a_class_past_its_limit() -> None:
    hub = MemoryHub()
    for _ in range(MAX_CLASSES):
        hub.create({}, View())
    with pytest.raises(ClassError, match="limit"):
        hub.create({}, View())


def test_a_view_names_its_run_by_sixteen_hex_digits_or_none() -> None:
    assert View.checked({"run": "0123456789abcdef"}).run == "0123456789abcdef"
    assert View.checked({}).run == ""  # the class's first run
    for bad in ("0123456789ABCDEF", "0123456789abcde", "<script>", 12):
        with pytest.raises(ClassError, match="run"):
            View.checked({"run": bad})


def test_the_teacher_alone_changes_the_run_of_an_open_class() -> None:
    hub = MemoryHub()
    code, key = hub.create({"state": {"sample": "english"}}, View())
    hub.set_run(code, key, {"state": {"sample": "aaabdaaabac"}})
    assert hub.run_of(code) == {"state": {"sample": "aaabdaaabac"}}
    with pytest.raises(ClassError, match="teacher"):
        hub.set_run(code, "guess", {"state": {"sample": "german"}})
    assert hub.run_of(code) == {"state": {"sample": "aaabdaaabac"}}
    run_coroutine(hub.change(code, lambda s: s.end()))
    with pytest.raises(ClassError, match="teacher of an open class"):
        hub.set_run(code, key, {"state": {}})
    assert hub.run_of(code) is None


def test_a_run_is_named_alike_whatever_the_order_of_its_settings() -> None:
    first = run_id({"state": {"sample": "english", "vocab": 512}})
    assert first == run_id({"state": {"vocab": 512, "sample": "english"}})
    assert first != run_id({"state": {"vocab": 513, "sample": "english"}})
    assert re.fullmatch(r"[0-9a-f]{16}", first)


def test_with_the_defaults_one_address_cannot_fill_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One address (a building, or someone scripting ?class=new) starting every class it
    may: others can still start theirs (the per-address cap is well below the server's)."""
    monkeypatch.delenv("BPEVIZ_CLASSES_PER_ADDRESS", raising=False)
    hub = MemoryHub()
    with pytest.raises(ClassError, match="from this network address"):
        for _ in range(MAX_CLASSES + 1):
            hub.create({}, View(), creator="203.0.113.7")
    hub.create({}, View(), creator="198.51.100.2")  # not "this server has ... open"
    assert 4 * codes.classes_per_address() <= MAX_CLASSES


def test_a_waiting_tally_never_jumps_past_a_waiting_reveal() -> None:
    """A socket's inbox merges a snapshot only with one of its kind queued after the last
    other event: the tally of question 3 stays before question 3's reveal, and question 4's
    tally after question 4's view (a page hearing them in any other order would show the
    reveal of a question whose last tally it never saw, or a tally of a question not asked)."""
    inbox = Inbox()
    for event in (
        Event("all", {"type": "counts", "question": 3, "answered": 5}),
        Event("all", {"type": "reveal", "step": 3}),
        Event("all", {"type": "view", "step": 4}),
        Event("all", {"type": "counts", "question": 4, "answered": 0}),
        Event("all", {"type": "counts", "question": 4, "answered": 1}),
    ):
        inbox.put(event)
    heard = [
        (e.message["type"], e.message.get("question", e.message.get("step")))
        for e in inbox.taken()
        if e is not None
    ]
    assert heard == [("counts", 3), ("reveal", 3), ("view", 4), ("counts", 4)]


def test_a_class_whose_teacher_is_away_for_long_is_freed() -> None:
    """A class whose teacher's page never connected, or left, for TEACHER_AWAY_S is idle
    (its place on the server free again), however recently it was driven before."""
    never = new_state(now=100.0)
    assert not never.idle(100.0 + TEACHER_AWAY_S - 1)
    assert never.idle(100.0 + TEACHER_AWAY_S + 1)
    state = new_state(now=100.0)
    state.teacher_arrives()
    assert not state.idle(100.0 + 2 * TEACHER_AWAY_S)  # the teacher is there
    state.teacher_leaves(5_000.0)
    again = ClassState.from_json(state.to_json())
    assert not again.idle(5_000.0 + TEACHER_AWAY_S - 1)
    assert again.idle(5_000.0 + TEACHER_AWAY_S + 1)
    again.teacher_arrives()
    assert not again.idle(5_000.0 + TEACHER_AWAY_S + 1)
    assert TEACHER_AWAY_S < IDLE_LIMIT_S
