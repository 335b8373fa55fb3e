"""One live class, with no I/O: who is in it, what the teacher shows, and the quiz.

Everything a class holds is here and nowhere else, as plain data that goes to JSON and back
(:meth:`ClassState.to_json`), so that a class kept in Redis behaves as one kept in memory.
Each change is a method that checks its input and says what to tell whom: the hub sends
:class:`Event` s on, to everyone or to the teacher alone. Nothing a student sends reaches
another student except as counts (how many answered, and the spread after the reveal).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import unicodedata
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

MAX_STUDENTS = 200  # connected at once, per class
MAX_CLASSES = 200  # open at once, per server (4 times the classes one address may open)
MAX_SOCKETS_PER_STUDENT = 3  # a student's pages (tabs; a reload's new socket before the old drops)
MAX_SOCKETS_PER_TAB = 8  # one tab's reconnects the server has not yet seen the old sockets of
IDLE_LIMIT_S = 3 * 3600.0  # a class nobody drove for 3 hours ends
TEACHER_AWAY_S = 30 * 60.0  # and one whose teacher's page was not connected for 30 minutes
MAX_NICK_CHARS = 24
MAX_TITLE_CHARS = 200  # a lesson slide's title, in the teacher's view
MAX_STEP = 1_000_000
CHOICES = 4  # a quiz question's rows: 0 (the real next merge) to 3
PAGES = ("step", "tokenize", "compression", "compare", "runs", "export", "about")
WHEN = ("before", "after")
TOP_SCORES = 5  # nicknames on the teacher's board
RUN_ID = re.compile(r"(?:[0-9a-f]{16})?")

Audience = Literal["all", "teacher"]


ENDED = "This class has ended."


class ClassError(ValueError):
    """A request the class refuses; the message says why, in one sentence for a person."""


UNAVAILABLE = "The class could not be reached: trying again."


class ClassUnavailable(Exception):
    """The class's store could not be reached a moment ago (Redis restarting, say): not a
    refusal (not a :class:`ClassError`): the page is let go and tries again."""

    def __init__(self) -> None:
        super().__init__(UNAVAILABLE)


class PagesOpen(ClassError):
    """A browser at its limit of pages in the class: refused for now, not for good (a page
    may close, or be a socket of a dropped connection the server has not seen go yet)."""


class ClassGone(ClassError):
    """The class has ended, or expired, or never was: every page still in it is told
    :data:`ENDED` and let go."""

    def __init__(self) -> None:
        super().__init__(ENDED)


def ended_event() -> Event:
    """What every page of a class hears when the class is gone."""
    return Event("all", {"type": "ended", "message": ENDED})


@dataclass(frozen=True)
class Event:
    """Something to send on: ``to`` everyone in the class, or to the teacher alone."""

    to: Audience
    message: dict[str, Any]

    @cached_property
    def text(self) -> str:
        """The message as JSON, made once for every socket it goes to."""
        return json.dumps(self.message, separators=(",", ":"))


@dataclass
class View:
    """What the teacher shows: the page, on the Step page the step and its switches, and
    the run it is of (:func:`~bpeviz.classroom.hubs.common.run_id`; empty: the class's first)."""

    page: str = "step"
    step: int = 0
    when: str = "after"
    pieces: bool = False
    quiz: bool = False
    run: str = ""
    slide: int = 0  # a lesson's slide shown, from 1 (0: no lesson), of ``slides``
    slides: int = 0
    title: str = ""  # the slide's title: the teacher's text, shown to students as text

    @classmethod
    def checked(cls, raw: Any) -> View:
        """A view from a message, every field checked (:class:`ClassError` if not)."""
        if not isinstance(raw, dict) or set(raw) - set(cls.__dataclass_fields__):
            raise ClassError("A view is page, step, when, pieces, quiz, run and slide.")
        view = cls(**raw)
        if view.page not in PAGES:
            raise ClassError(f"There is no page {view.page!r}.")
        if type(view.step) is not int or not 0 <= view.step <= MAX_STEP:
            raise ClassError("A step is a whole number from 0.")
        if view.when not in WHEN:
            raise ClassError("A view is before or after its merge.")
        if type(view.pieces) is not bool or type(view.quiz) is not bool:
            raise ClassError("Pieces and quiz are on or off.")
        if not isinstance(view.run, str) or not RUN_ID.fullmatch(view.run):
            raise ClassError("A view's run is named by 16 hexadecimal digits.")
        view.check_slide()
        return view

    def check_slide(self) -> None:
        """The slide's number, count and title (a lesson's: :mod:`bpeviz.app.lesson.slides`)."""
        numbers = (self.slide, self.slides)
        if any(type(n) is not int for n in numbers) or not 0 <= self.slide <= self.slides <= 500:
            raise ClassError("A slide is a number from 1 to the lesson's count of slides.")
        if not isinstance(self.title, str) or len(self.title) > MAX_TITLE_CHARS:
            raise ClassError(f"A slide's title is text of {MAX_TITLE_CHARS} characters at most.")


@dataclass(frozen=True)
class Student:
    """A student as the class knows them; replaced on a change, never changed in place, so
    that :meth:`ClassState.change_whole` can keep the class as it was for the price of a
    shallow copy."""

    nick: str = ""
    sockets: int = 0  # open connections (a student's tab may reconnect before it drops)
    tabs: dict[str, int] = field(default_factory=dict)  # sockets per tab that named itself
    right: int = 0
    answered: int = 0


@dataclass
class Question:
    """The class quiz at one step: who chose which row, and the rows that were right."""

    step: int
    answers: dict[str, int] = field(default_factory=dict)
    right_rows: list[int] | None = None  # set when the teacher reveals

    def spread(self) -> list[int]:
        counts = [0] * CHOICES
        for row in self.answers.values():
            counts[row] += 1
        return counts


def _pages(student: Student) -> int:
    """A student's pages: each tab that named itself, and each socket that did not."""
    return student.sockets - sum(student.tabs.values()) + len(student.tabs)


def _copied(value: Any) -> Any:
    """A field of a class, copied as deep as a change reaches: its dicts and lists (the
    students, frozen, are shared), the question's answers."""
    if isinstance(value, dict | list):
        return value.copy()
    if isinstance(value, Question):
        return replace(value, answers=value.answers.copy())
    return value


def clean_nick(text: Any) -> str:
    """A nickname as shown: letters, marks, numbers, punctuation and spaces, trimmed.

    It is user text and reaches a page only as text (never HTML); control and format
    characters (a right-to-left override) are dropped so that it cannot disguise others.

    >>> clean_nick("  <b>Ada</b>\\u202e ")
    '<b>Ada</b>'
    """
    if not isinstance(text, str):
        raise ClassError("A nickname is text.")
    spaced = " ".join(text.split())  # line breaks and tabs become one space
    kept = "".join(ch for ch in spaced if unicodedata.category(ch)[0] != "C")
    return kept.strip()[:MAX_NICK_CHARS]


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass
class ClassState:
    """A class: its code, the teacher's view, who is in it and the quiz (the run every
    student gets is kept beside it by the hub: it is large and changes seldom)."""

    code: str
    teacher_digest: str  # of the key only the teacher's browser holds
    last_active: float
    view: View = field(default_factory=View)
    students: dict[str, Student] = field(default_factory=dict)
    question: Question | None = None
    right_total: int = 0  # over the revealed questions: the running class score
    answered_total: int = 0
    ended: bool = False
    teacher_sockets: int = 0  # the teacher's pages connected (in every worker)
    teacher_seen: float | None = None  # when the teacher's last page left (None: created)

    def __post_init__(self) -> None:
        if self.teacher_seen is None:  # a new class: its teacher has TEACHER_AWAY_S to connect
            self.teacher_seen = self.last_active

    # ---- who is who ----------------------------------------------------------------------

    def is_teacher(self, key: Any) -> bool:
        return isinstance(key, str) and hmac.compare_digest(key_digest(key), self.teacher_digest)

    def connected(self) -> int:
        return sum(1 for student in self.students.values() if student.sockets > 0)

    def join(self, student_id: str, nick: Any = "", tab: str | None = None) -> list[Event]:
        """A student's browser connects (again: the same id keeps its score). A socket that
        names its ``tab`` (a page's own token) counts with that tab's other sockets as one
        page: a tab reconnecting before the server saw its old socket drop still gets in.

        Every check comes before the first change: a refused hello leaves no trace (a hello
        whose nickname is a number once took a seat for good)."""
        nick = clean_nick(nick) if nick else ""
        student = self.students.get(student_id)
        if (student is None or student.sockets == 0) and self.connected() >= MAX_STUDENTS:
            raise ClassError(f"This class is full ({MAX_STUDENTS} students).")
        tabs = dict(student.tabs) if student is not None else {}
        new_page = tab is None or tab not in tabs
        if student is not None and new_page and _pages(student) >= MAX_SOCKETS_PER_STUDENT:
            raise PagesOpen(
                f"This browser has {MAX_SOCKETS_PER_STUDENT} pages open in the class: close one."
            )
        if tab is not None and tabs.get(tab, 0) >= MAX_SOCKETS_PER_TAB:
            raise PagesOpen("This page reconnected too often at once: wait a moment.")
        if student is None:
            if len(self.students) >= 4 * MAX_STUDENTS:  # ids seen: bounded too
                self._forget_one_away()
            student = Student()
        if tab is not None:
            tabs[tab] = tabs.get(tab, 0) + 1
        self.students[student_id] = replace(
            student, sockets=student.sockets + 1, nick=nick or student.nick, tabs=tabs
        )
        return [self._counts()]

    def leave(self, student_id: str, tab: str | None = None) -> list[Event]:
        student = self.students.get(student_id)
        if student is None or student.sockets == 0:
            return []
        tabs = dict(student.tabs)
        if tab is not None and tab in tabs:
            tabs[tab] -= 1
            if tabs[tab] <= 0:
                del tabs[tab]
        self.students[student_id] = replace(student, sockets=student.sockets - 1, tabs=tabs)
        return [self._counts()]

    def rename(self, student_id: str, nick: Any) -> list[Event]:
        student = self.students.get(student_id)
        if student is None:
            raise ClassError("Join the class first.")
        self.students[student_id] = replace(student, nick=clean_nick(nick))
        return [self._board()] if self.answered_total else []

    def _forget_one_away(self) -> None:
        for student_id, student in self.students.items():
            if student.sockets == 0:
                del self.students[student_id]
                return

    # ---- the teacher's view --------------------------------------------------------------

    def show(self, raw_view: Any, now: float) -> list[Event]:
        """The teacher moved: everyone follows. A quiz at a new step opens a new question."""
        view = View.checked(raw_view)
        self.view = view
        self.last_active = now
        events = [Event("all", {"type": "view", "view": asdict(view)})]
        if view.page == "step" and view.quiz:
            if self.question is None or self.question.step != view.step:
                self.question = Question(view.step)
                events.append(self._counts())
        elif self.question is not None and self.question.right_rows is None:
            self.question = None  # the teacher left the quiz before revealing
            events.append(self._counts())
        return events

    # ---- the class quiz ------------------------------------------------------------------

    def answer(self, student_id: str, step: Any, row: Any) -> list[Event]:
        """A student's answer, once per question; the teacher sees the count and spread."""
        question = self.question
        student = self.students.get(student_id)
        if student is None:
            raise ClassError("Join the class first.")
        if question is None or step != question.step or question.right_rows is not None:
            raise ClassError("This question is closed.")
        if type(row) is not int or not 0 <= row < CHOICES:
            raise ClassError("An answer is one of the four pairs.")
        if student_id in question.answers:
            raise ClassError("You have answered this question.")
        question.answers[student_id] = row
        return [self._counts(), self._spread()]

    def reveal(self, step: Any, right_rows: Any, now: float) -> list[Event]:
        """The teacher reveals: everyone gets the spread and the right rows (every pair tied
        with the real next merge counts as right), and the class score moves on."""
        question = self.question
        if question is None or step != question.step:
            raise ClassError("There is no open question at this step.")
        if question.right_rows is not None:
            raise ClassError("This question is revealed already.")
        if (
            not isinstance(right_rows, list)
            or 0 not in right_rows
            or not all(type(row) is int and 0 <= row < CHOICES for row in right_rows)
        ):
            raise ClassError("The right rows are rows 0 to 3, row 0 among them.")
        question.right_rows = sorted(set(right_rows))
        self.last_active = now
        right = 0
        for student_id, row in question.answers.items():
            # an answer counts in the tally even when its student left and was forgotten
            # (past 4 x MAX_STUDENTS ids): only a student still known gets it on the board
            was_right = row in question.right_rows
            right += was_right
            student = self.students.get(student_id)
            if student is not None:
                self.students[student_id] = replace(
                    student, answered=student.answered + 1, right=student.right + was_right
                )
        self.right_total += right
        self.answered_total += len(question.answers)
        reveal = {
            "type": "reveal",
            "step": question.step,
            "spread": question.spread(),
            "right_rows": question.right_rows,
            "answered": len(question.answers),
            "right": right,
            "score": self.score(),
        }
        # the answers before the board: a board sent later (a rename) then replaces this one
        return [Event("all", reveal), self._answers(question), self._board()]

    def _answers(self, question: Question) -> Event:
        """The teacher's record of a revealed question, for the class's results: who chose
        which row, each student by nickname or else by number (in the order they joined;
        the same number all class long)."""
        numbers = {student_id: n for n, student_id in enumerate(self.students, start=1)}
        answers = [
            [self._answerer(student_id, numbers), row]
            for student_id, row in question.answers.items()
        ]
        message = {
            "type": "answers",
            "step": question.step,
            "spread": question.spread(),
            "right_rows": question.right_rows,
            "answers": answers,
        }
        return Event("teacher", message)

    def _answerer(self, student_id: str, numbers: dict[str, int]) -> str:
        """How the results name who answered: the nickname, else "Student N"; a student the
        class has forgotten (past 4 x MAX_STUDENTS ids) is no longer known by either."""
        student = self.students.get(student_id)
        if student is None:
            return "A student who left"
        return student.nick or f"Student {numbers[student_id]}"

    def score(self) -> dict[str, int]:
        return {"right": self.right_total, "answered": self.answered_total}

    def _counts(self) -> Event:
        question = self.question
        counts = {
            "type": "counts",
            "connected": self.connected(),
            "answered": len(question.answers) if question else 0,
            "question": question.step if question else None,
        }
        return Event("all", counts)

    def _spread(self) -> Event:
        assert self.question is not None
        return Event(
            "teacher",
            {"type": "spread", "step": self.question.step, "spread": self.question.spread()},
        )

    def _board(self) -> Event:
        # a board of best scores: never a nickname with none right (projected, it shames)
        named = [s for s in self.students.values() if s.nick and s.right]
        named.sort(key=lambda s: (-s.right, s.answered, s.nick))
        board = [{"nick": s.nick, "right": s.right, "answered": s.answered} for s in named]
        return Event("teacher", {"type": "board", "top": board[:TOP_SCORES]})

    # ---- what a browser gets when it connects ----------------------------------------------

    def welcome(self, role: str, student_id: str | None = None) -> dict[str, Any]:
        question = self.question
        message: dict[str, Any] = {
            "type": "welcome",
            "role": role,
            "code": self.code,
            "view": asdict(self.view),
            "connected": self.connected(),
            "score": self.score(),
            "question": None,
        }
        if question is not None:
            asked: dict[str, Any] = {
                "step": question.step,
                "answered": len(question.answers),
                "right_rows": question.right_rows,
            }
            if role == "teacher" or question.right_rows is not None:
                asked["spread"] = question.spread()
            if student_id is not None and student_id in question.answers:
                asked["mine"] = question.answers[student_id]
            message["question"] = asked
        if student_id is not None and student_id in self.students:
            student = self.students[student_id]
            message["me"] = {
                "nick": student.nick,
                "right": student.right,
                "answered": student.answered,
            }
        return message

    # ---- lifetime ------------------------------------------------------------------------

    def teacher_arrives(self) -> list[Event]:
        self.teacher_sockets += 1
        return []

    def teacher_leaves(self, now: float) -> list[Event]:
        self.teacher_sockets = max(0, self.teacher_sockets - 1)
        if self.teacher_sockets == 0:
            self.teacher_seen = now
        return []

    def idle_at(self) -> float:
        """When the class ends by itself: :data:`IDLE_LIMIT_S` after it was last driven, or
        :data:`TEACHER_AWAY_S` after its teacher's last page left (or it was created, if no
        page of the teacher ever connected): a class nobody runs gives its place back."""
        idle = self.last_active + IDLE_LIMIT_S
        if self.teacher_sockets == 0:
            idle = min(idle, (self.teacher_seen or self.last_active) + TEACHER_AWAY_S)
        return idle

    def idle(self, now: float) -> bool:
        return self.ended or now > self.idle_at()

    def end(self) -> list[Event]:
        self.ended = True
        return [ended_event()]

    def change_whole(self, change: Callable[[ClassState], list[Event]]) -> list[Event]:
        """``change(self)``, all or nothing: whatever it raises (a refusal, or a fault half-way
        through), the class is left as it was, byte for byte. Both hubs change a class only
        through this."""
        before = {name: _copied(value) for name, value in vars(self).items()}
        try:
            return change(self)
        except BaseException:
            vars(self).update(before)
            raise

    def to_json(self) -> str:
        # vars, not asdict: the same JSON 10× faster (asdict deep-copies every student), and
        # a class in Redis is written whole on every change
        return json.dumps(self, default=vars, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> ClassState:
        raw = json.loads(text)
        raw["view"] = View(**raw["view"])
        raw["students"] = {key: Student(**value) for key, value in raw["students"].items()}
        if raw["question"] is not None:
            raw["question"] = Question(**raw["question"])
        return cls(**raw)
