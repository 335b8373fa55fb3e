"""The campus scenario of ``benchmarks/live_class.py`` (issue 27): a lecture hall behind one
address, with a bot among it, and sockets that drop.

Every client comes from one address (loopback; through ``make serve``'s nginx, the address
nginx saw, told beside its secret). In order:

1. five teachers start classes (``/?class=new``, each a Streamlit session at the protocol
   level: the class bar's data holds the code and the teacher's key); the first teaches;
2. the teacher's socket says hello; then, at once, 200 students join (the class cap) while a
   bot sends 500 wrong codes, and 20 of the students first mistype the code 3 times;
3. the teacher steps (a view every :data:`STEP_EVERY_S`), and mid-lesson the teacher's socket
   and 30 students' are dropped and open again (the same key, the same ids);
4. all 200 answer the quiz within 100 ms; the teacher reveals; every student changes their
   nickname 3 times (600 changes).

Students are class sockets (``websockets`` clients speaking the class protocol), not
Streamlit sessions: the scenario is about the class's routes and hub, and 200 sessions
would measure Streamlit on two shared cores instead.

Counted: right-code joins refused, reconnects refused, sockets the server closed (each must
be 0); measured: the teacher's step -> every student's socket, p95; the teacher's count
complete after the last answer; the server's memory (RSS of its process tree).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any

from classroom_load import RssSampler, p95
from protocol_client import Student
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bpeviz.classroom.codes import ALPHABET, CODE_LENGTH
from bpeviz.classroom.routes import SOCKET_PATH

STUDENTS = 200
TEACHERS = 5
BOT_WRONG_CODES = 500
MISTYPERS, MISTYPES = 20, 3
DROPPED = 30
STEPS = 10
STEP_EVERY_S = 0.5
ANSWER_WITHIN_S = 0.1
NICK_CHANGES = 3
WAIT_S = 30.0
JOINING_AT_ONCE = 50  # sockets saying hello together
STEP_VIEW = {"page": "step", "when": "after", "pieces": False, "quiz": False, "run": ""}
TARGET_STEP_P95_S = {"one": 0.300, "serve": 0.500}
TARGET_COUNT_S = 1.0
TARGET_RSS_MB = 1024


@dataclass
class CampusFigures:
    setup: str
    students: int = 0
    right_refused: int = 0
    reconnects_refused: int = 0
    server_closed: int = 0
    teachers_refused: int = 0
    bot_told: dict[str, int] = field(default_factory=dict)
    latency: list[float] = field(default_factory=list)
    count_after_last: float | None = None
    rss_peak: float = 0.0
    errors: list[str] = field(default_factory=list)


class Socket:
    """One class socket and what it heard, with the time each view arrived."""

    def __init__(self, url: str, hello: dict[str, Any]) -> None:
        self.url, self.hello = url, hello
        self.socket: ClientConnection | None = None
        self.views: dict[int, float] = {}
        self.counts: list[tuple[float, dict[str, Any]]] = []
        self.errors: list[str] = []
        self.closed_by_server: str | None = None
        self.leaving = False
        self.reader: asyncio.Task[None] | None = None

    async def open(self) -> dict[str, Any]:
        """Connect and say hello; the server's first answer (a welcome, or why not)."""
        self.leaving = False
        self.socket = await connect(self.url, proxy=None, open_timeout=WAIT_S, max_size=None)
        await self.socket.send(json.dumps(self.hello))
        first = json.loads(await asyncio.wait_for(self.socket.recv(), WAIT_S))
        if first.get("type") == "welcome":
            self.reader = asyncio.create_task(self._read(self.socket))
        else:
            await self.socket.close()
        return first

    async def _read(self, socket: ClientConnection) -> None:
        try:
            async for text in socket:
                now, message = time.time(), json.loads(text)
                kind = message.get("type")
                if kind == "view":
                    self.views.setdefault(message["view"]["step"], now)
                elif kind == "counts":
                    self.counts.append((now, message))
                elif kind == "error":
                    self.errors.append(message.get("message", ""))
        except ConnectionClosed:
            pass
        if not self.leaving and socket is self.socket:
            close = socket.protocol.close_rcvd
            self.closed_by_server = f"{close.code} {close.reason}" if close else "dropped"

    async def send(self, message: dict[str, Any]) -> None:
        assert self.socket is not None
        await self.socket.send(json.dumps(message))

    async def drop(self) -> None:
        self.leaving = True
        if self.socket is not None:
            await self.socket.close()
        if self.reader is not None:
            await asyncio.gather(self.reader, return_exceptions=True)


def wrong_code(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(CODE_LENGTH))


async def start_class(base_url: str) -> tuple[str, str] | str:
    """A teacher's ``/?class=new`` session: the class's code and key, or what it was told."""
    session = Student(base_url, query="class=new")
    try:
        await session.open(timeout=120)
        data = session.component_data("class_bar")
        if not isinstance(data, dict) or "key" not in data:
            return "; ".join(session.problems()) or "no class bar"
        return str(data["code"]), str(data["key"])
    finally:
        await session.close()


async def until(done: Any, what: str, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout:g} s")
        await asyncio.sleep(0.01)


async def campus(
    base_url: str, pids: list[int], setup: str, students: int, seed: int
) -> CampusFigures:
    figures = CampusFigures(setup, students)
    rng = random.Random(seed)
    url = base_url.replace("http://", "ws://", 1) + SOCKET_PATH
    rss = RssSampler(pids)
    sockets: list[Socket] = []
    try:
        started = [await start_class(base_url) for _ in range(TEACHERS)]
        classes = [one for one in started if isinstance(one, tuple)]
        figures.teachers_refused = TEACHERS - len(classes)
        figures.errors += [f"a teacher was told: {one}" for one in started if isinstance(one, str)]
        if not classes:
            return figures
        code, key = classes[0]
        teacher = Socket(url, {"type": "hello", "code": code, "role": "teacher", "key": key})
        if (await teacher.open()).get("type") != "welcome":
            figures.reconnects_refused += 1
            return figures
        gate = asyncio.Semaphore(JOINING_AT_ONCE)

        async def wrong(student_id: str) -> str:
            async with gate:
                hello = {"type": "hello", "code": wrong_code(rng), "role": "student"}
                answer = await Socket(url, {**hello, "id": student_id}).open()
                return str(answer.get("message", answer.get("type")))

        async def arrive(index: int) -> Socket | None:
            student_id = f"campus-student-{index:04d}"
            if index < MISTYPERS:
                for _ in range(MISTYPES):
                    await wrong(student_id)
            one = Socket(url, {"type": "hello", "code": code, "role": "student", "id": student_id})
            async with gate:
                answer = await one.open()
            if answer.get("type") != "welcome":
                figures.right_refused += 1
                figures.errors.append(f"student {index} was refused: {answer}")
                return None
            return one

        async def bot() -> None:
            told = await asyncio.gather(*(wrong(f"bot-{n:04d}") for n in range(BOT_WRONG_CODES)))
            for sentence in told:
                figures.bot_told[sentence] = figures.bot_told.get(sentence, 0) + 1

        joined, _ = await asyncio.gather(
            asyncio.gather(*(arrive(i) for i in range(students))), bot()
        )
        sockets = [one for one in joined if one is not None]
        await until(
            lambda: bool(teacher.counts) and teacher.counts[-1][1]["connected"] == len(sockets),
            f"the teacher's count of {len(sockets)} students",
        )

        async def step(number: int) -> None:
            sent = time.time()
            await teacher.send({"type": "view", "view": {**STEP_VIEW, "step": number}})
            await until(
                lambda: all(number in one.views for one in sockets),
                f"step {number}: {sum(number in one.views for one in sockets)} students heard it",
            )
            figures.latency += [one.views[number] - sent for one in sockets]

        for number in range(1, STEPS + 1):
            due = time.monotonic() + STEP_EVERY_S
            await step(number)
            if number == STEPS // 2:  # mid-lesson: the teacher's and 30 students' sockets drop
                dropped = rng.sample(sockets, min(DROPPED, len(sockets)))
                await asyncio.gather(teacher.drop(), *(one.drop() for one in dropped))
                back = await asyncio.gather(teacher.open(), *(one.open() for one in dropped))
                refused = [answer for answer in back if answer.get("type") != "welcome"]
                figures.reconnects_refused += len(refused)
                figures.errors += [f"a reconnect was refused: {answer}" for answer in refused]
            await asyncio.sleep(max(0.0, due - time.monotonic()))

        # The quiz: every student answers within 100 ms; the teacher's count must be complete.
        question = STEPS + 1
        await teacher.send({"type": "view", "view": {**STEP_VIEW, "step": question, "quiz": True}})
        await until(lambda: all(question in one.views for one in sockets), "the quiz's view")
        sent_at: list[float] = []

        async def answer(one: Socket) -> None:
            await asyncio.sleep(rng.uniform(0, ANSWER_WITHIN_S))
            sent_at.append(time.time())
            await one.send({"type": "answer", "step": question, "row": rng.randrange(4)})

        await asyncio.gather(*(answer(one) for one in sockets))

        def complete() -> float | None:
            for at, counts in teacher.counts:
                if counts.get("question") == question and counts["answered"] == len(sockets):
                    return at
            return None

        try:
            await until(lambda: complete() is not None, "the teacher's count of the answers")
            done = complete()
            figures.count_after_last = None if done is None else done - max(sent_at)
        except TimeoutError as error:
            figures.errors.append(str(error))
        await teacher.send({"type": "reveal", "step": question, "right_rows": [0]})
        for round_ in range(NICK_CHANGES):
            await asyncio.gather(
                *(
                    one.send({"type": "nick", "nick": f"Student {i} v{round_}"})
                    for i, one in enumerate(sockets)
                )
            )
        await teacher.send({"type": "view", "view": {**STEP_VIEW, "step": question + 1}})
        await until(
            lambda: (
                all(question + 1 in one.views for one in [*sockets, teacher])
                or any(one.closed_by_server for one in [*sockets, teacher])
            ),
            "the view after the nicknames",
        )
        for one in [teacher, *sockets]:
            if one.closed_by_server:
                figures.server_closed += 1
                figures.errors.append(f"the server closed a socket: {one.closed_by_server}")
        refusals = [sentence for one in sockets for sentence in one.errors]
        figures.errors += [f"a student was told: {sentence}" for sentence in refusals[:5]]
        for other_code, other_key in classes:  # end the five classes: the server as found
            ender = Socket(
                url, {"type": "hello", "code": other_code, "role": "teacher", "key": other_key}
            )
            if (await ender.open()).get("type") == "welcome":
                await ender.send({"type": "end"})
                await ender.drop()
    except Exception as error:  # a failed scenario is a finding: report it with the rest
        figures.errors.append(f"the campus stopped: {type(error).__name__}: {error}")
    finally:
        for one in sockets:
            await one.drop()
        figures.rss_peak = rss.stop()
    return figures


def campus_rows(figures: CampusFigures) -> list[tuple[str, str, str, bool | None]]:
    target = TARGET_STEP_P95_S[figures.setup]
    step_p95 = p95(figures.latency) if figures.latency else None
    after = figures.count_after_last
    told = ", ".join(f"{n} '{sentence}'" for sentence, n in figures.bot_told.items())
    return [
        (
            "campus: right-code joins refused",
            str(figures.right_refused),
            "= 0",
            figures.right_refused == 0,
        ),
        (
            f"campus: reconnects refused (teacher + {min(DROPPED, figures.students)})",
            str(figures.reconnects_refused),
            "= 0",
            figures.reconnects_refused == 0,
        ),
        (
            "campus: sockets closed by the server",
            str(figures.server_closed),
            "= 0",
            figures.server_closed == 0,
        ),
        (
            f"campus: teachers refused ({TEACHERS} from one address)",
            str(figures.teachers_refused),
            "= 0",
            figures.teachers_refused == 0,
        ),
        (f"campus: the bot's {BOT_WRONG_CODES} wrong codes were told", "", told or "-", None),
        (
            "campus: teacher's step -> every student, p95",
            "-" if step_p95 is None else f"{step_p95 * 1000:.0f} ms",
            f"<= {target * 1000:.0f} ms",
            step_p95 is not None and step_p95 <= target,
        ),
        (
            "campus: teacher's count complete after last answer",
            "-" if after is None else f"{after * 1000:.0f} ms",
            f"<= {TARGET_COUNT_S * 1000:.0f} ms ({figures.students} answers in 100 ms)",
            after is not None and after <= TARGET_COUNT_S,
        ),
        (
            "campus: server memory peak (RSS)",
            f"{figures.rss_peak:.0f} MB",
            f"<= {TARGET_RSS_MB} MB",
            0 < figures.rss_peak <= TARGET_RSS_MB,
        ),
    ]
