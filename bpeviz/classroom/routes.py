"""The class's routes beside the Streamlit app: one WebSocket per browser, and the QR code.

``/api/class/socket`` carries a class's events both ways, as JSON text messages. The first
message says who is there: ``{"type": "hello", "code", "role": "teacher", "key"}`` or
``{"type": "hello", "code", "role": "student", "id", "nick", "tab"}`` (``tab``: the page's
own token, the same on each reconnect: the page's old socket is let go, not counted). Then
the teacher sends ``view``, ``reveal`` and ``end``; a student sends ``answer`` and ``nick``.
The server sends ``welcome`` once, then the class's events (:mod:`bpeviz.classroom.state`),
``answered`` to the one student whose answer it took, ``error`` with a sentence for a person
(and the type of message it ``refused``) when it refuses something, and ``ended`` when the
class is gone.

Every message is bounded (:data:`MAX_MESSAGE_BYTES`, :data:`RATE_PER_S`), every field is
checked, and a socket that floods, stalls or sends what no page sends is closed, with a close
reason that says why. A message over the size limit closes the socket at once; under
uvicorn's ``websockets-sansio`` protocol (Streamlit's) the limit is also the parser's
(:func:`bound_reads`), so a frame that announces more is refused on its header, never read:
the server's own limit (``server.maxMessageSize``, 200 MB) is for the app's socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from bpeviz.classroom.codes import TOO_MANY, client_address, normal_code
from bpeviz.classroom.hubs.choose import current_hub
from bpeviz.classroom.hubs.common import Hub, Subscriber
from bpeviz.classroom.public_url import join_base
from bpeviz.classroom.qr import qr_svg
from bpeviz.classroom.state import (
    ENDED,
    UNAVAILABLE,
    ClassError,
    ClassGone,
    ClassState,
    ClassUnavailable,
    PagesOpen,
    ended_event,
)

log = logging.getLogger(__name__)

SOCKET_PATH = "/api/class/socket"
MAX_MESSAGE_BYTES = 2_048
RATE_PER_S = 10.0  # messages a socket may send per second, on average
RATE_BURST = 20
HELLO_TIMEOUT_S = 10.0
STUDENT_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")
CLOSE_POLICY = 1008  # WebSocket close code: a policy violation
CLOSE_TOO_BIG = 1009  # WebSocket close code: a message too big
TOO_LONG = f"That message is too long: {MAX_MESSAGE_BYTES} bytes at most."
NO_HELLO = "This page said nothing to the class: reload the page."
STRUCK_OUT = "This page sent too many messages the class refuses: reload it."
FELL_BEHIND = "This page fell behind the class: reconnecting."
FAULT = "The server could not do that: try again, or reload the page."
CLOSE_FAULT = 1011  # WebSocket close code: the server met an unexpected condition
CLOSE_TRY_AGAIN = 1013  # WebSocket close code: try again later


class MessageTooLong(Exception):
    """A message over :data:`MAX_MESSAGE_BYTES`: the socket closes (no strike)."""


def bound_reads(socket: WebSocket) -> bool:
    """Make the server's WebSocket parser refuse any frame over :data:`MAX_MESSAGE_BYTES`
    on its header (uvicorn's ``websockets-sansio`` protocol: its ``websockets`` parser reads
    the limit at each frame), before the socket is accepted: its first frame is bounded
    too. Whether it could (another server reads the whole message; :func:`_receive` still
    refuses it)."""
    protocol = getattr(getattr(socket, "_receive", None), "__self__", None)
    parser = getattr(protocol, "conn", None)
    if parser is None or not isinstance(getattr(parser, "max_message_size", None), int | None):
        return False
    parser.max_message_size = MAX_MESSAGE_BYTES  # type: ignore[union-attr]
    return True


def close_reason(sentence: str) -> str:
    """A sentence cut to what a close frame holds (123 bytes of UTF-8)."""
    return sentence.encode("utf-8")[:123].decode("utf-8", "ignore")


class Bucket:
    """A token bucket: :data:`RATE_PER_S` messages a second, bursts of :data:`RATE_BURST`."""

    def __init__(self) -> None:
        self.tokens = float(RATE_BURST)
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(RATE_BURST, self.tokens + (now - self.at) * RATE_PER_S)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


async def _read(socket: WebSocket, timeout: float | None = None) -> str:
    """The next message's text, bounded. A binary frame is a refused message (a strike),
    not a fault: no page sends one."""
    frame = await asyncio.wait_for(socket.receive(), timeout)
    if frame["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(frame.get("code", 1000), frame.get("reason"))
    text = frame.get("text")
    if not isinstance(text, str):
        raise ClassError("A class message is JSON text, not binary.")
    if len(text.encode("utf-8")) > MAX_MESSAGE_BYTES:
        raise MessageTooLong(TOO_LONG)
    return text


def _parse(text: str) -> dict[str, Any]:
    """A class message from its text; JSON nested deeper than the parser goes (1,500 ``[``
    fit in the size limit) is refused like any other bad JSON."""
    try:
        message = json.loads(text)
    except (ValueError, RecursionError):
        raise ClassError("That message is not JSON.") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ClassError("A message is a JSON object with a type.")
    return message


async def _refuse(socket: WebSocket, sentence: str) -> None:
    await socket.send_text(json.dumps({"type": "error", "message": sentence, "fatal": True}))
    await socket.close(CLOSE_POLICY, close_reason(sentence))


async def _unavailable(socket: WebSocket) -> None:
    """The class's store is out of reach for now: said (not fatal), closed, the page retries."""
    await socket.send_text(json.dumps({"type": "error", "message": UNAVAILABLE}))
    await socket.close(CLOSE_TRY_AGAIN, UNAVAILABLE)


async def _gone(socket: WebSocket) -> None:
    """The class is gone (ended, expired): say so as the class's own end, and close."""
    await socket.send_text(ended_event().text)
    await socket.close(1000, ENDED)


def _teacher_change(message: dict[str, Any]) -> Any:
    kind = message["type"]
    now = time.time()
    if kind == "view":
        return lambda state: state.show(message.get("view"), now)
    if kind == "reveal":
        return lambda state: state.reveal(message.get("step"), message.get("right_rows"), now)
    if kind == "end":
        return lambda state: state.end()
    raise ClassError(f"A teacher does not send {kind!r}.")


def _student_change(student_id: str, message: dict[str, Any]) -> Any:
    kind = message["type"]
    if kind == "answer":
        return lambda state: state.answer(student_id, message.get("step"), message.get("row"))
    if kind == "nick":
        return lambda state: state.rename(student_id, message.get("nick"))
    raise ClassError(f"A student does not send {kind!r}.")


async def _send_events(socket: WebSocket, subscriber: Subscriber) -> None:
    """Send the class's events as they come (the inbox keeps only the latest of each tally:
    ``hub.Inbox``), until the class ends or the socket is let go."""
    ended = False
    while True:
        event = await subscriber.queue.get()
        if event is None:  # the class ended (told just before), or this socket never read
            await socket.close(1000 if ended else CLOSE_POLICY, ENDED if ended else FELL_BEHIND)
            return
        ended = ended or event.message["type"] == "ended"
        await socket.send_text(event.text)


def _sent(sender: asyncio.Task[None]) -> None:
    """A sender's end, read: a send to a socket that closed meanwhile is no fault to report
    (unread, asyncio would log it as "Task exception was never retrieved")."""
    if not sender.cancelled() and sender.exception() is not None:
        log.debug("a class socket's sender stopped: %r", sender.exception())


async def _admit(
    socket: WebSocket, hub: Hub, hello: dict[str, Any], address: str
) -> tuple[str, ClassState, bool, str] | None:
    """Who the hello is, or ``None`` when it is refused (then told and closed).

    A right code always gets in, and so does a page already in the class (the teacher with
    its key, a student whose id the class knows), whatever others sent: only misses are
    counted (per session and per address: :class:`~bpeviz.classroom.codes.JoinLimit`), and
    only a session's own misses hold back its own next try."""
    student_id = hello.get("id")
    valid_id = isinstance(student_id, str) and STUDENT_ID.fullmatch(student_id) is not None
    session = f"socket:{student_id if valid_id else address}"
    code = normal_code(str(hello.get("code") or ""))
    state = await hub.read(code) if code else None
    teacher = hello.get("role") == "teacher"
    if code is None or state is None:
        # the limits and was_given off the event loop: Redis's client there blocks
        if code is not None and await asyncio.to_thread(hub.was_given, code):
            await _gone(socket)  # a page or a link of a class that has ended: no miss
        else:
            await _refuse(socket, await asyncio.to_thread(hub.misses.miss, address, session))
        return None
    if teacher:
        if not state.is_teacher(hello.get("key")):
            await _refuse(socket, "Only the teacher's browser can drive this class.")
            return None
        return code, state, True, ""
    if not valid_id:
        await _refuse(socket, "This browser sent no student id: reload the page.")
        return None
    known = student_id in state.students
    if not known and not await asyncio.to_thread(hub.misses.session_allowed, session):
        await _refuse(socket, TOO_MANY)  # this page's own wrong codes, a minute ago
        return None
    return code, state, False, str(student_id)


async def class_socket(socket: WebSocket) -> None:
    """One browser in one class, from hello to close. An unexpected error here is logged and
    ends this socket alone, with a sentence; every other socket goes on."""
    try:
        await _class_socket(socket)
    except ClassUnavailable:
        log.warning("a class socket let go: the class could not be reached")
        with contextlib.suppress(Exception):
            await _unavailable(socket)
    except Exception:
        log.exception("a class socket failed")
        with contextlib.suppress(Exception):  # not fatal: the page tries again
            await socket.send_text(json.dumps({"type": "error", "message": FAULT}))
            await socket.close(CLOSE_FAULT, FAULT)


async def _class_socket(socket: WebSocket) -> None:
    hub = current_hub()
    bound_reads(socket)
    await socket.accept()
    address = client_address(socket.headers, socket.client.host if socket.client else None)
    try:
        hello = _parse(await _read(socket, HELLO_TIMEOUT_S))
    except WebSocketDisconnect:
        return
    except MessageTooLong:
        await socket.close(CLOSE_TOO_BIG, TOO_LONG)
        return
    except (TimeoutError, ClassError) as error:
        await socket.close(CLOSE_POLICY, close_reason(str(error) or NO_HELLO))
        return
    admitted = await _admit(socket, hub, hello, address)
    if admitted is None:
        return
    code, state, teacher, student_id = admitted
    tab = hello.get("tab") if not teacher else None  # the page's own token, across reconnects
    tab = tab if isinstance(tab, str) and STUDENT_ID.fullmatch(tab) else None
    subscriber = hub.fanout.add(code, teacher=teacher, tab=f"{student_id}/{tab}" if tab else None)
    joined = False  # a refused join (class full, pages open) has no page of this id to leave
    try:
        if teacher:  # a class whose teacher is away for long ends (ClassState.idle_at)
            await hub.change(code, lambda s: s.teacher_arrives())
        else:
            await hub.change(code, lambda s: s.join(student_id, hello.get("nick") or "", tab))
            hub.fanout.replace_tab(code, subscriber)
        joined = True
        state = await hub.read(code)  # after subscribing: no change falls between the two
        if state is None:
            raise ClassGone()
        await socket.send_text(
            json.dumps(
                state.welcome("teacher" if teacher else "student", None if teacher else student_id)
            )
        )
        sender = asyncio.create_task(_send_events(socket, subscriber))
        sender.add_done_callback(_sent)
        try:
            await _serve(socket, hub, code, teacher, student_id, sender)
        finally:
            sender.cancel()
    except ClassGone:
        await _gone(socket)
    except PagesOpen as error:  # for now: a page may close, a dropped one be seen to go
        await socket.send_text(json.dumps({"type": "error", "message": str(error)}))
        await socket.close(CLOSE_TRY_AGAIN, close_reason(str(error)))
    except ClassError as error:
        await _refuse(socket, str(error))
    except WebSocketDisconnect:
        pass
    finally:
        hub.fanout.remove(code, subscriber)
        if joined and teacher:
            await _leave(hub, code, lambda s: s.teacher_leaves(time.time()))
        elif joined:
            await _leave(hub, code, lambda s: s.leave(student_id, tab))


async def _leave(hub: Hub, code: str, leave: Any) -> None:
    """The page's place given back; a class ended meanwhile has none to give, but a leave
    that fails otherwise is logged: the student would count as connected until the class
    ends (the teacher as there), and their browser one page short."""
    try:
        await hub.change(code, leave)
    except ClassGone:
        pass
    except Exception as error:  # the socket is closing: nothing to tell it
        log.warning("class %s: a page's leave failed: %r", code, error)


async def _serve(
    socket: WebSocket,
    hub: Hub,
    code: str,
    teacher: bool,
    student_id: Any,
    sender: asyncio.Task[None],
) -> None:
    bucket = Bucket()
    strikes = 0
    faults = 0
    receiver = asyncio.ensure_future(_read(socket))
    while True:
        done, _ = await asyncio.wait({receiver, sender}, return_when=asyncio.FIRST_COMPLETED)
        if sender in done:  # the class ended, or this socket fell behind
            receiver.cancel()
            return
        message: dict[str, Any] = {}
        try:
            slow = not bucket.take()  # before any parsing: a flood costs the server little
            text = receiver.result()  # a frame that is not a class message is a strike
            if slow:
                raise ClassError("Too many messages: slow down.")
            message = _parse(text)
            change = _teacher_change(message) if teacher else _student_change(student_id, message)
            await hub.change(code, change)
            if message["type"] == "answer" and not teacher:  # now the page may say it is in
                taken = {"type": "answered", "step": message["step"], "row": message["row"]}
                await socket.send_text(json.dumps(taken))
        except MessageTooLong:
            await socket.close(CLOSE_TOO_BIG, TOO_LONG)
            return
        except ClassGone:
            receiver.cancel()
            await _gone(socket)
            return
        except (WebSocketDisconnect, asyncio.CancelledError, ClassUnavailable):
            raise
        except Exception as error:  # a refusal, or a fault in a change: a strike either way
            strikes += 1
            if not isinstance(error, ClassError):  # logged once a socket: no log floods
                faults += 1
                if faults == 1:
                    log.exception("class %s: a message failed", code)
            if strikes > RATE_BURST:
                await _refuse(socket, STRUCK_OUT)
                return
            said = str(error) if isinstance(error, ClassError) else FAULT
            refused = {"type": "error", "message": said, "refused": message.get("type")}
            await socket.send_text(json.dumps(refused))
        receiver = asyncio.ensure_future(_read(socket))


async def class_qr(request: Request) -> Response:
    """The join link of a class as a QR code (SVG), for the projector."""
    address = client_address(request.headers, request.client.host if request.client else None)
    code = normal_code(request.path_params["code"])
    hub = current_hub()
    if code is None or await hub.read(code) is None:  # an open class's own is never refused
        if code is not None and await asyncio.to_thread(hub.was_given, code):
            return Response(ENDED, 404, media_type="text/plain")  # a class that was: no miss
        said = await asyncio.to_thread(hub.misses.miss, address, f"qr:{address}")
        if said == TOO_MANY:
            return Response(said, 429, media_type="text/plain")
        return Response("No such class.", 404, media_type="text/plain")
    base = join_base(str(request.base_url).rstrip("/"))
    link = f"{base}/?class={code}"
    return Response(qr_svg(link), media_type="image/svg+xml", headers={"Cache-Control": "no-store"})


def class_routes() -> list[Any]:
    """The routes of :mod:`bpeviz.classroom`, to add beside the app (``server.py``)."""
    return [
        WebSocketRoute(SOCKET_PATH, class_socket),
        Route("/api/class/{code}/qr.svg", class_qr),
    ]


__all__ = ["SOCKET_PATH", "class_routes"]
