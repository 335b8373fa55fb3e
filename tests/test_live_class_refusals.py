"""A live class that no message can break: a refused message changes nothing, a reveal
cannot fail, and the fan-out holds at the class cap. Unit tests of the class state and the
in-memory hub, without Streamlit or a server.

Expected values are worked by hand: a refused hello is not a student, 205 of them leave the
class empty; a queue holds one event of each kind that replaces its predecessor.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from protocol_client import run_coroutine

from bpeviz.classroom.hubs.memory import MemoryHub
from bpeviz.classroom.hubs.redis_hub import apply_changes
from bpeviz.classroom.state import (
    MAX_SOCKETS_PER_STUDENT,
    MAX_STUDENTS,
    ClassError,
    ClassState,
    Event,
    View,
    key_digest,
)

QUIZ = {"page": "step", "step": 4, "when": "after", "pieces": False, "quiz": True}


# Three students in (one nicknamed, one with all its tabs open), one answer in, the question
# at step 4: the class every refused message is tried on.
SET_UP: list[Callable[[ClassState], list[Event]]] = [
    lambda s: s.join("student-a", "Ada"),
    lambda s: s.join("student-b"),
    *[lambda s: s.join("student-c")] * MAX_SOCKETS_PER_STUDENT,
    lambda s: s.show(QUIZ, s.last_active),
    lambda s: s.answer("student-a", 4, 0),
]


def class_with_a_question() -> ClassState:
    state = ClassState("K7QM4XABC", key_digest("secret"), 0.0)
    for change in SET_UP:
        change(state)
    return state


REFUSED: dict[str, Callable[[ClassState], Any]] = {
    "hello, nickname a number": lambda s: s.join("student-new", 12345),
    "hello, nickname a list": lambda s: s.join("student-a", ["Ada"]),
    "hello, too many pages": lambda s: s.join("student-c"),
    "answer, twice": lambda s: s.answer("student-a", 4, 1),
    "answer, no such row": lambda s: s.answer("student-b", 4, 7),
    "answer, row as text": lambda s: s.answer("student-b", 4, "0"),
    "answer, closed question": lambda s: s.answer("student-b", 5, 0),
    "answer, stranger": lambda s: s.answer("stranger-1", 4, 0),
    "nick, a number": lambda s: s.rename("student-b", 7),
    "nick, stranger": lambda s: s.rename("stranger-1", "Eve"),
    "view, no such page": lambda s: s.show({**QUIZ, "page": "nowhere"}, 2.0),
    "reveal, row 0 missing": lambda s: s.reveal(4, [1], 2.0),
}


@pytest.mark.parametrize("change", REFUSED.values(), ids=REFUSED.keys())
def test_a_refused_message_leaves_the_class_byte_for_byte_the_same(change: Callable) -> None:
    state = class_with_a_question()
    before = state.to_json()
    with pytest.raises(ClassError):
        change(state)
    assert state.to_json() == before


def test_a_leave_of_a_page_not_in_the_class_changes_nothing() -> None:
    state = class_with_a_question()
    before = state.to_json()
    assert state.leave("stranger-1") == []
    assert state.to_json() == before


def test_205_hellos_with_a_number_for_a_nickname_leave_the_class_empty() -> None:
    state = ClassState("K7QM4XABC", key_digest("secret"), 0.0)
    for number in range(205):
        with pytest.raises(ClassError, match="A nickname is text"):
            state.join(f"student-{number:04d}", 12345)
    assert state.connected() == 0
    state.join("student-real", "Ada")  # a real student still has a seat
    assert state.connected() == 1


def half_done(state: ClassState) -> list[Event]:
    """A change that fails half-way: the first join is made, the second is refused."""
    state.join("student-d")
    return state.join("student-e", 12345)


def test_the_memory_hub_makes_a_change_all_or_nothing() -> None:
    async def scenario() -> tuple[str, str]:
        hub = MemoryHub()
        code, _key = hub.create({}, View())
        await hub.change(code, lambda s: s.join("student-a", "Ada"))
        before = (await hub.read(code)).to_json()
        with pytest.raises(ClassError):
            await hub.change(code, half_done)
        return before, (await hub.read(code)).to_json()

    before, after = run_coroutine(scenario())
    assert after == before


def test_a_change_that_raises_something_unexpected_changes_nothing_either() -> None:
    def broken(state: ClassState) -> list[Event]:
        state.join("student-d")
        raise RuntimeError("a fault in a change")

    async def scenario() -> tuple[str, str]:
        hub = MemoryHub()
        code, _key = hub.create({}, View())
        before = (await hub.read(code)).to_json()
        with pytest.raises(RuntimeError):
            await hub.change(code, broken)
        return before, (await hub.read(code)).to_json()

    before, after = run_coroutine(scenario())
    assert after == before


def test_a_batch_in_the_redis_hub_keeps_the_changes_that_held_and_none_of_one_that_failed() -> None:
    state = class_with_a_question()
    before = class_with_a_question()
    outcomes = apply_changes(state, [half_done, lambda s: s.join("student-f")])
    assert isinstance(outcomes[0], ClassError) and not isinstance(outcomes[1], Exception)
    before.join("student-f")  # the second change alone, by hand
    assert state.to_json() == before.to_json()


def test_a_reveal_after_answerers_left_and_were_forgotten_counts_their_answers() -> None:
    """A student answers and leaves, 800 ids join and leave (the class forgets the away ones
    past 4 x MAX_STUDENTS ids), then the teacher reveals: no KeyError, and the answer that
    was given is in the tally (3 answered, 2 right: rows 0, 0 and 3)."""
    state = ClassState("K7QM4XABC", key_digest("secret"), 0.0)
    state.show({**QUIZ, "step": 0}, 1.0)
    for name, row in (("student-a", 0), ("student-b", 0), ("student-c", 3)):
        state.join(name)
        state.answer(name, 0, row)
    state.leave("student-a")
    for number in range(4 * MAX_STUDENTS):
        state.join(f"passer-{number:04d}")
        state.leave(f"passer-{number:04d}")
    assert "student-a" not in state.students  # forgotten
    events = state.reveal(0, [0], 2.0)
    reveal = events[0].message
    assert (reveal["answered"], reveal["right"], reveal["spread"]) == (3, 2, [2, 0, 0, 1])
    # the teacher's results name the forgotten answerer without a number that could collide
    (answers,) = [e.message for e in events if e.message["type"] == "answers"]
    assert answers["answers"] == [["A student who left", 0], ["Student 1", 0], ["Student 2", 3]]
    assert state.score() == {"right": 2, "answered": 3}
    assert state.question is not None and state.question.right_rows == [0]


def test_teacher_only_events_reach_the_teacher_only() -> None:
    async def scenario() -> tuple[list[str], list[str]]:
        hub = MemoryHub()
        code, _key = hub.create({}, View())
        teacher, student = hub.fanout.add(code, teacher=True), hub.fanout.add(code)
        await hub.change(code, lambda s: s.join("student-a"))
        await hub.change(code, lambda s: s.show(QUIZ, time.time()))
        await hub.change(code, lambda s: s.answer("student-a", 4, 2))
        return [e.message["type"] for e in teacher.taken()], [
            e.message["type"] for e in student.taken()
        ]

    to_teacher, to_student = run_coroutine(scenario())
    assert "spread" in to_teacher and "spread" not in to_student


def test_200_answers_at_once_leave_each_socket_one_tally_and_close_none() -> None:
    """Tallies are snapshots: the latest replaces the one waiting, so 200 answers (and 600
    nickname changes after a reveal) leave each socket's queue a few events long, never full,
    and its last counts say all 200 answered."""

    async def scenario() -> tuple[list[list[Event]], Event]:
        hub = MemoryHub()
        code, _key = hub.create({}, View())
        names = [f"student-{number:04d}" for number in range(MAX_STUDENTS)]
        for name in names:
            await hub.change(code, lambda s, name=name: s.join(name))
        sockets = [hub.fanout.add(code) for _ in names] + [hub.fanout.add(code, teacher=True)]
        await hub.change(code, lambda s: s.show(QUIZ, time.time()))
        for name in names:
            await hub.change(code, lambda s, name=name: s.answer(name, 4, 1))
        await hub.change(code, lambda s: s.reveal(4, [0, 1], time.time()))
        for round_ in range(3):
            for name in names:
                await hub.change(code, lambda s, n=name, r=round_: s.rename(n, f"{n} {r}"))
        return [inbox.taken() for inbox in sockets], sockets[-1]

    queues, _teacher = run_coroutine(scenario())
    for events in queues:
        assert None not in events  # no socket closed
        # view, counts, spread, reveal, the teacher's answers for the results and the board
        assert len(events) <= 6
    student_counts = [e for e in queues[0] if e.message["type"] == "counts"]
    assert student_counts[-1].message["answered"] == MAX_STUDENTS
    kinds = [e.message["type"] for e in queues[-1]]
    assert kinds.count("board") == 1 and "spread" in kinds
