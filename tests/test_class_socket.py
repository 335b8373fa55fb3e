"""The class's socket (``/api/class/socket``) under a browser that breaks its limits.

The route runs in a real uvicorn server, configured as Streamlit configures its own
(``_get_uvicorn_config_kwargs``: the ``websockets-sansio`` protocol, 200 MB messages allowed
to the app's own socket), on a loopback port, in a thread; each test is a client speaking
the class protocol with ``websockets``. Every wait is bounded (:data:`WAIT_S`), never a pause.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import re
import struct
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.error import HTTPError
from urllib.request import ProxyHandler, build_opener

import pytest
import segno
import uvicorn
from protocol_client import run_coroutine
from serve_script import load_serve
from starlette.applications import Starlette
from streamlit.web.server.starlette.starlette_server import _get_uvicorn_config_kwargs
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bpeviz.classroom import routes
from bpeviz.classroom.codes import JoinLimit
from bpeviz.classroom.hubs.choose import current_hub
from bpeviz.classroom.state import MAX_SOCKETS_PER_STUDENT, ClassState, ClassUnavailable, View

WAIT_S = 10.0
STUDENT = {"type": "hello", "role": "student", "id": "student-0001"}


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    port = load_serve().free_port()
    kwargs = {**_get_uvicorn_config_kwargs(), "log_level": "warning", "lifespan": "off"}
    config = uvicorn.Config(Starlette(routes=routes.class_routes()), "127.0.0.1", port, **kwargs)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + WAIT_S
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"ws://127.0.0.1:{port}{routes.SOCKET_PATH}"
    finally:
        server.should_exit = True
        thread.join(WAIT_S)


@pytest.fixture
def code() -> str:
    return current_hub().create({"state": {}}, View())[0]


async def student(url: str, code: str) -> ClientConnection:
    client = await connect(url, proxy=None, open_timeout=WAIT_S, max_size=None)
    await client.send(json.dumps({**STUDENT, "code": code}))
    welcome = json.loads(await asyncio.wait_for(client.recv(), WAIT_S))
    assert welcome["type"] == "welcome"
    return client


async def until_closed(client: ClientConnection) -> tuple[list[dict[str, Any]], Any]:
    """Every message until the server closes the socket, and its close frame."""
    heard: list[dict[str, Any]] = []
    with contextlib.suppress(ConnectionClosed):
        while True:
            heard.append(json.loads(await asyncio.wait_for(client.recv(), WAIT_S)))
    await asyncio.wait_for(client.wait_closed(), WAIT_S)
    return heard, client.protocol.close_rcvd


def test_an_oversized_message_closes_the_socket_at_once_saying_why(
    server_url: str, code: str
) -> None:
    async def scenario() -> tuple[list[dict[str, Any]], Any]:
        client = await student(server_url, code)
        await client.send(json.dumps({"type": "nick", "nick": "x" * routes.MAX_MESSAGE_BYTES}))
        return await until_closed(client)

    heard, closed = run_coroutine(scenario())
    assert closed is not None and closed.code == 1009  # message too big
    assert str(routes.MAX_MESSAGE_BYTES) in closed.reason  # ours, or the parser's: the limit
    assert [m for m in heard if m["type"] == "error"] == []  # no strike: closed


def test_the_server_reads_no_more_of_a_frame_than_the_limit(server_url: str, code: str) -> None:
    """A frame that announces 100 MB is refused on its header: the server closes the socket
    without waiting for the body (which this client never sends)."""

    async def scenario() -> Any:
        client = await student(server_url, code)
        header = struct.pack("!BBQ", 0x81, 0x80 | 127, 100_000_000) + b"\0\0\0\0"
        client.transport.write(header + b"{}")  # a text frame's header, its mask, 2 bytes
        _heard, closed = await until_closed(client)
        return closed

    closed = run_coroutine(scenario())
    assert closed is not None and closed.code == 1009


def test_too_many_messages_are_refused_then_the_socket_is_closed(
    server_url: str, code: str
) -> None:
    async def scenario() -> tuple[list[dict[str, Any]], Any]:
        client = await student(server_url, code)
        for number in range(2 * routes.RATE_BURST + 5):  # faster than RATE_PER_S
            with contextlib.suppress(ConnectionClosed):
                await client.send(json.dumps({"type": "nick", "nick": f"n{number}"}))
        return await until_closed(client)

    heard, closed = run_coroutine(scenario())
    refusals = [m["message"] for m in heard if m["type"] == "error" and not m.get("fatal")]
    assert "Too many messages: slow down." in refusals
    assert closed is not None and closed.code == 1008
    assert "too many messages" in closed.reason


def test_a_page_that_sends_what_no_page_sends_is_told_then_closed(
    server_url: str, code: str
) -> None:
    async def scenario() -> tuple[list[dict[str, Any]], Any]:
        client = await student(server_url, code)
        for _ in range(routes.RATE_BURST + 1):  # a student does not drive: each a strike
            await client.send(json.dumps({"type": "view", "view": {}}))
        return await until_closed(client)

    heard, closed = run_coroutine(scenario())
    refusals = [m["message"] for m in heard if m["type"] == "error" and not m.get("fatal")]
    assert refusals == ["A student does not send 'view'."] * routes.RATE_BURST
    assert closed is not None and closed.code == 1008


def test_a_socket_of_a_class_that_is_gone_hears_that_it_has_ended(server_url: str) -> None:
    """A student's page whose class the teacher ends, and one reconnecting after, are both
    told the class has ended (not "no class with this code"), and closed."""
    code, key = current_hub().create({"state": {}}, View())

    async def scenario() -> tuple[list[dict[str, Any]], Any, list[dict[str, Any]], Any]:
        client = await student(server_url, code)
        teacher = await connect(server_url, proxy=None, open_timeout=WAIT_S)
        await teacher.send(
            json.dumps({"type": "hello", "code": code, "role": "teacher", "key": key})
        )
        await teacher.send(json.dumps({"type": "end"}))
        heard, closed = await until_closed(client)
        again = await connect(server_url, proxy=None, open_timeout=WAIT_S)
        await again.send(json.dumps({**STUDENT, "code": code}))
        heard_again, closed_again = await until_closed(again)
        await teacher.close()
        return heard, closed, heard_again, closed_again

    heard, closed, heard_again, closed_again = run_coroutine(scenario())
    ended = {"type": "ended", "message": "This class has ended."}
    assert heard[-1] == ended and heard_again == [ended]
    assert closed.reason == closed_again.reason == "This class has ended."


def test_a_student_hears_whether_their_answer_was_taken(server_url: str) -> None:
    """The page says "your answer is in" only on ``answered``; a refused answer comes back
    as an error naming what was refused."""
    code, key = current_hub().create({"state": {}}, View())
    quiz = {**View().__dict__, "step": 4, "quiz": True}

    async def scenario() -> list[dict[str, Any]]:
        teacher = await connect(server_url, proxy=None, open_timeout=WAIT_S)
        await teacher.send(
            json.dumps({"type": "hello", "code": code, "role": "teacher", "key": key})
        )
        await teacher.send(json.dumps({"type": "view", "view": quiz}))
        while json.loads(await asyncio.wait_for(teacher.recv(), WAIT_S)).get("question") != 4:
            pass  # the welcome, the view: until the counts say the question is open
        client = await student(server_url, code)
        heard: list[dict[str, Any]] = []
        for step, row in ((4, 2), (4, 1), (5, 0)):  # once; again; a question not open
            await client.send(json.dumps({"type": "answer", "step": step, "row": row}))
            while True:
                message = json.loads(await asyncio.wait_for(client.recv(), WAIT_S))
                if message["type"] in ("answered", "error"):
                    heard.append(message)
                    break
        await client.close()
        await teacher.close()
        return heard

    assert run_coroutine(scenario()) == [
        {"type": "answered", "step": 4, "row": 2},
        {"type": "error", "message": "You have answered this question.", "refused": "answer"},
        {"type": "error", "message": "This question is closed.", "refused": "answer"},
    ]


def test_a_socket_that_says_nothing_is_closed_after_the_hello_timeout(
    server_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(routes, "HELLO_TIMEOUT_S", 0.3)

    async def scenario() -> tuple[float, Any]:
        started = time.monotonic()
        client = await connect(server_url, proxy=None, open_timeout=WAIT_S)
        _heard, closed = await until_closed(client)
        return time.monotonic() - started, closed

    took, closed = run_coroutine(scenario())
    assert closed is not None and closed.code == 1008
    assert closed.reason == routes.NO_HELLO
    assert took < WAIT_S


def test_the_qr_code_is_the_join_link_as_svg(server_url: str, code: str) -> None:
    """The projector's QR code holds the join link (this server, ``/?class=CODE``): its
    modules are segno's for that link, drawn as one path (on a white one); an unknown code
    is a 404."""
    base = server_url.replace("ws://", "http://").removesuffix(routes.SOCKET_PATH)
    opener = build_opener(ProxyHandler({}))  # loopback: never through a proxy
    with opener.open(f"{base}/api/class/{code}/qr.svg", timeout=WAIT_S) as answer:
        kind, body = answer.headers["Content-Type"], answer.read().decode("utf-8")
    assert kind.startswith("image/svg+xml")
    link = f"{base}/?class={code}"
    drawn = io.BytesIO()
    segno.make_qr(link, error="m").save(drawn, kind="svg", scale=1, border=4)
    modules = re.findall(r' d="([^"]+)"', drawn.getvalue().decode("utf-8"))
    assert len(modules) == 1 and modules[0] in re.findall(r' d="([^"]+)"', body)  # + white
    assert f"QR code: {link}" in body  # its title names the link, for a screen reader
    assert "<script" not in body.lower()
    with pytest.raises(HTTPError) as missing:
        opener.open(f"{base}/api/class/ZZZZZZ/qr.svg", timeout=WAIT_S)
    missing.value.close()  # the refusal holds its response's socket until closed
    assert missing.value.code == 404


def test_a_message_that_is_not_a_class_message_is_a_strike_not_the_end(
    server_url: str, code: str
) -> None:
    """Text that is not JSON, or JSON without a type, is told as a refusal and counted as
    a strike; the page stays in the class (it was closed for good at the first one)."""

    async def scenario() -> list[dict[str, Any]]:
        client = await student(server_url, code)
        heard = []
        for text in ("not json", json.dumps(["no", "type"])):
            await client.send(text)
            answer = {"type": ""}
            while answer["type"] != "error":  # the class's own events may come first
                answer = json.loads(await asyncio.wait_for(client.recv(), WAIT_S))
            heard.append(answer)
        await client.close()
        return heard

    heard = run_coroutine(scenario())
    assert [(m["type"], m["message"], m.get("fatal")) for m in heard] == [
        ("error", "That message is not JSON.", None),
        ("error", "A message is a JSON object with a type.", None),
    ]


def test_a_refused_extra_page_does_not_free_a_place_for_the_next(
    server_url: str, code: str
) -> None:
    """With MAX_SOCKETS_PER_STUDENT pages of one student open, every further page is
    refused: the fifth as the fourth (a refused page once took a place off the count on its
    way out, so every second extra page got in). Not for good: a page closed, the next
    retry gets in."""

    async def scenario() -> list[dict[str, Any]]:
        pages = [await student(server_url, code) for _ in range(MAX_SOCKETS_PER_STUDENT)]
        answers = []
        for _ in range(3):
            extra = await connect(server_url, proxy=None, open_timeout=WAIT_S)
            await extra.send(json.dumps({**STUDENT, "code": code}))
            answers.append(json.loads(await asyncio.wait_for(extra.recv(), WAIT_S)))
            await asyncio.wait_for(extra.wait_closed(), WAIT_S)
        for page in pages:
            await page.close()
        return answers

    answers = run_coroutine(scenario())
    assert [(a["type"], a.get("fatal")) for a in answers] == [("error", None)] * 3


@pytest.fixture
def fresh_limits() -> Iterator[None]:
    """No misses counted yet (the hub's limits are the process's, shared by every test)."""
    hub = current_hub()
    kept = hub.misses
    hub.misses = JoinLimit()
    try:
        yield
    finally:
        hub.misses = kept


async def hello(url: str, message: dict[str, Any]) -> dict[str, Any]:
    """The server's first answer to a new socket's hello (then the socket is closed)."""
    client = await connect(url, proxy=None, open_timeout=WAIT_S, max_size=None)
    await client.send(json.dumps(message))
    answer = json.loads(await asyncio.wait_for(client.recv(), WAIT_S))
    await client.close()
    return answer


def test_a_right_code_and_a_page_in_the_class_get_in_whatever_wrong_codes_came_first(
    server_url: str, fresh_limits: None
) -> None:
    """One campus address (here: loopback for all): a teacher and a student in the class,
    then 60 wrong codes from 60 pages; a new student with the right code joins, the student
    and the teacher reconnect (they were refused, and the teacher's page never came back)."""
    code, key = current_hub().create({"state": {}}, View())
    teacher_hello = {"type": "hello", "code": code, "role": "teacher", "key": key}

    async def scenario() -> list[str]:
        first = await student(server_url, code)
        wrong = [
            await hello(server_url, {**STUDENT, "id": f"guesser-{n:04d}", "code": "ZZZZZZZZZ"})
            for n in range(60)
        ]
        assert wrong[0]["message"] == "There is no class with this code: check the code."
        answers = [
            await hello(server_url, {**STUDENT, "id": "student-new1", "code": code}),
            await hello(server_url, {**STUDENT, "code": code}),  # the student's second socket
            await hello(server_url, teacher_hello),
        ]
        await first.close()
        return [answer["type"] for answer in answers]

    assert run_coroutine(scenario()) == ["welcome"] * 3


def test_a_link_to_an_ended_class_says_so_and_is_no_miss(
    server_url: str, fresh_limits: None
) -> None:
    code, _key = current_hub().create({"state": {}}, View())
    run_coroutine(current_hub().change(code, lambda s: s.end()))

    async def scenario() -> list[dict[str, Any]]:
        return [await hello(server_url, {**STUDENT, "code": code}) for _ in range(3)]

    answers = run_coroutine(scenario())
    assert answers == [{"type": "ended", "message": "This class has ended."}] * 3
    assert current_hub().misses.addresses.count("loopback") == 0


def test_the_qr_code_of_an_open_class_is_never_refused(
    server_url: str, code: str, fresh_limits: None
) -> None:
    base = server_url.replace("ws://", "http://").removesuffix(routes.SOCKET_PATH)
    opener = build_opener(ProxyHandler({}))
    for _ in range(12):  # ten wrong QR requests were enough to refuse the right one
        with pytest.raises(HTTPError) as missing:
            opener.open(f"{base}/api/class/ZZZZZZZZZ/qr.svg", timeout=WAIT_S)
        missing.value.close()
    with opener.open(f"{base}/api/class/{code}/qr.svg", timeout=WAIT_S) as answer:
        assert answer.status == 200


def test_the_qr_code_of_an_ended_class_says_so_and_is_no_miss(
    server_url: str, fresh_limits: None
) -> None:
    code, _key = current_hub().create({"state": {}}, View())
    run_coroutine(current_hub().change(code, lambda s: s.end()))
    base = server_url.replace("ws://", "http://").removesuffix(routes.SOCKET_PATH)
    with pytest.raises(HTTPError) as gone:
        build_opener(ProxyHandler({})).open(f"{base}/api/class/{code}/qr.svg", timeout=WAIT_S)
    said = gone.value.read().decode("utf-8")
    gone.value.close()
    assert (gone.value.code, said) == (404, "This class has ended.")
    assert current_hub().misses.addresses.count("loopback") == 0


def test_a_refused_hello_leaves_no_seat_taken(server_url: str, code: str) -> None:
    async def scenario() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        refused = [
            await hello(server_url, {**STUDENT, "id": f"student-{n:04d}", "code": code, "nick": 1})
            for n in range(5)
        ]
        real = await hello(server_url, {**STUDENT, "id": "student-real", "code": code})
        return refused, real

    refused, real = run_coroutine(scenario())
    assert {(a["type"], a["message"]) for a in refused} == {("error", "A nickname is text.")}
    assert real["type"] == "welcome" and real["connected"] == 1


def test_an_error_in_one_sockets_handler_is_told_to_it_and_ends_no_other(
    server_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fault in a change (here: a nickname change that raises a RuntimeError) is logged and
    told to its page as a sentence; that page and the teacher's stay in the class."""
    code, key = current_hub().create({"state": {}}, View())

    def broken(self: Any, student_id: str, nick: Any) -> None:
        raise RuntimeError("a fault")

    async def scenario() -> tuple[dict[str, Any], str]:
        teacher = await connect(server_url, proxy=None, open_timeout=WAIT_S)
        await teacher.send(
            json.dumps({"type": "hello", "code": code, "role": "teacher", "key": key})
        )
        assert json.loads(await asyncio.wait_for(teacher.recv(), WAIT_S))["type"] == "welcome"
        client = await student(server_url, code)
        monkeypatch.setattr(ClassState, "rename", broken)
        await client.send(json.dumps({"type": "nick", "nick": "Ada"}))
        told = {"type": ""}
        while told["type"] != "error":
            told = json.loads(await asyncio.wait_for(client.recv(), WAIT_S))
        monkeypatch.undo()
        await teacher.send(json.dumps({"type": "view", "view": {**View().__dict__, "step": 3}}))
        heard = {"type": ""}
        while heard["type"] != "view":
            heard = json.loads(await asyncio.wait_for(client.recv(), WAIT_S))
        await client.close()
        await teacher.close()
        return told, heard["type"]

    told, heard = run_coroutine(scenario())
    assert told["message"] == "The server could not do that: try again, or reload the page."
    assert not told.get("fatal") and heard == "view"


@pytest.mark.parametrize(
    "frame", [b"\x00binary", "[" * 1500], ids=["binary frames", "JSON too deep"]
)
def test_frames_no_page_sends_are_strikes_and_log_nothing(
    server_url: str, code: str, frame: bytes | str, caplog: pytest.LogCaptureFixture
) -> None:
    """Binary frames, and JSON nested past what a page sends (which the JSON parser would
    meet as a RecursionError), are strikes like any refused message: 30 of them close the
    socket as too many refused, and fill no log with tracebacks."""

    async def scenario() -> tuple[list[dict[str, Any]], Any]:
        client = await student(server_url, code)
        for _ in range(30):
            with contextlib.suppress(ConnectionClosed):
                await client.send(frame)
        return await until_closed(client)

    with caplog.at_level("WARNING"):
        heard, closed = run_coroutine(scenario())
    assert closed is not None and closed.code == 1008
    assert closed.reason == routes.close_reason(routes.STRUCK_OUT)
    assert [m for m in heard if m["type"] == "error" and m.get("fatal")]
    assert len([r for r in caplog.records if r.name.startswith("bpeviz")]) <= 2


def test_a_class_out_of_reach_for_a_moment_is_no_refusal(
    server_url: str, code: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The class's store out of reach (Redis restarting: ClassUnavailable) is told as "try
    again" and the socket closed 1013 (try again later): no fatal refusal, which would stop
    the page reconnecting for good, and no traceback."""
    hub = current_hub()

    async def unavailable(*_args: Any) -> Any:
        raise ClassUnavailable()

    async def scenario() -> tuple[list[dict[str, Any]], Any]:
        client = await student(server_url, code)
        monkeypatch.setattr(hub, "change", unavailable)
        await client.send(json.dumps({"type": "nick", "nick": "Ada"}))
        return await until_closed(client)

    with caplog.at_level("WARNING"):
        heard, closed = run_coroutine(scenario())
    errors = [m for m in heard if m["type"] == "error"]
    assert errors and not any(m.get("fatal") for m in errors)
    assert closed is not None and closed.code == 1013
    assert not [r for r in caplog.records if r.name.startswith("bpeviz") and r.exc_info]


def test_a_teacher_page_hears_what_changed_between_its_hello_and_its_welcome(
    server_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The class changes (another tab of the teacher moves to step 7) after the teacher's
    socket is admitted but before it is subscribed: its welcome still has step 7, because it
    reads the class after subscribing (an event before that it would never hear)."""
    hub = current_hub()
    code, key = hub.create({"state": {}}, View())
    subscribe = hub.fanout.add

    def moved_meanwhile(*args: Any, **kwargs: Any) -> Any:
        moved = ClassState.from_json(hub._classes[code].to_json())  # as another worker's write
        moved.show({**View().__dict__, "step": 7}, time.time())
        hub._classes[code] = moved
        return subscribe(*args, **kwargs)

    async def scenario() -> dict[str, Any]:
        teacher = await connect(server_url, proxy=None, open_timeout=WAIT_S)
        monkeypatch.setattr(hub.fanout, "add", moved_meanwhile)
        await teacher.send(
            json.dumps({"type": "hello", "code": code, "role": "teacher", "key": key})
        )
        welcome = json.loads(await asyncio.wait_for(teacher.recv(), WAIT_S))
        await teacher.close()
        return dict(welcome)

    welcome = run_coroutine(scenario())
    assert welcome["type"] == "welcome" and welcome["view"]["step"] == 7


def test_a_tab_that_reconnects_again_and_again_takes_one_place(server_url: str, code: str) -> None:
    """A tab whose Wi-Fi drops: each reconnect's hello names the tab, so it replaces the tab's
    old socket (which the server may not have seen go) instead of taking a page's place: the
    fifth reconnect gets in, and the old sockets are let go."""

    async def scenario() -> tuple[list[str], list[bool]]:
        sockets, heard = [], []
        for _ in range(MAX_SOCKETS_PER_STUDENT + 2):  # none closed: as if half-open
            client = await connect(server_url, proxy=None, open_timeout=WAIT_S)
            await client.send(json.dumps({**STUDENT, "code": code, "tab": "tab-00000001"}))
            heard.append(json.loads(await asyncio.wait_for(client.recv(), WAIT_S))["type"])
            sockets.append(client)
        for old in sockets[:-1]:
            await until_closed(old)
        still = [socket.protocol.close_rcvd is None for socket in sockets]
        for socket in sockets:
            await socket.close()
        return heard, still

    heard, still = run_coroutine(scenario())
    assert heard == ["welcome"] * (MAX_SOCKETS_PER_STUDENT + 2)
    assert still == [False] * (MAX_SOCKETS_PER_STUDENT + 1) + [True]


def test_the_class_knows_whether_its_teachers_page_is_connected(server_url: str) -> None:
    """What the away rule (ClassState.idle_at) reads: a teacher's socket counts while open."""
    hub = current_hub()
    code, key = hub.create({"state": {}}, View())

    async def teacher_sockets() -> int:
        state = await hub.read(code)
        assert state is not None
        return state.teacher_sockets

    async def scenario() -> tuple[int, int]:
        teacher = await connect(server_url, proxy=None, open_timeout=WAIT_S)
        await teacher.send(
            json.dumps({"type": "hello", "code": code, "role": "teacher", "key": key})
        )
        assert json.loads(await asyncio.wait_for(teacher.recv(), WAIT_S))["type"] == "welcome"
        connected = await teacher_sockets()
        await teacher.close()
        deadline = time.monotonic() + WAIT_S
        while await teacher_sockets() and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        return connected, await teacher_sockets()

    assert run_coroutine(scenario()) == (1, 0)
