"""Where classes live, and how a change reaches every browser in one.

A hub keeps each class's :class:`~bpeviz.classroom.state.ClassState` and hands each change's
events to the class's open sockets (:class:`Fanout`). :class:`MemoryHub` keeps classes in
this process, the default: no service to start. With several worker processes
(``make serve``), :class:`~bpeviz.classroom.hubs.redis_hub.RedisHub` keeps them in Redis and
passes events between workers by pub/sub; :func:`current_hub` picks one from the
environment (``BPEVIZ_REDIS_URL``).

Two kinds of caller use a hub: the Streamlit script (a thread: it starts a class and reads
the run a student joins) through plain methods, and the sockets (the server's event loop)
through ``async`` ones.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any, Protocol

from bpeviz.classroom.codes import JoinLimit, new_code
from bpeviz.classroom.state import (
    MAX_CLASSES,
    ClassError,
    ClassState,
    Event,
    View,
    ended_event,
    key_digest,
)

log = logging.getLogger(__name__)
QUEUE_LIMIT = 256  # events waiting for one socket: unreachable (see Inbox), a last guard
SWEEP_S = 60.0  # how often each process looks for its sockets' classes gone (expired)
GIVEN_S = 7 * 24 * 3600.0  # how long a code is remembered as given: its links say "ended"
MAX_GIVEN = 100_000  # codes remembered in memory at most
SNAPSHOTS = ("view", "counts", "spread", "board")  # each tells the whole of its kind
Change = Callable[[ClassState], list[Event]]


def _is_snapshot(event: Event | None) -> bool:
    return event is not None and event.message.get("type") in SNAPSHOTS


class Inbox:
    """One socket's events in order, where a snapshot (the view, a tally, the board) replaces
    the one of its kind still waiting: the latest is all a page needs. So a socket's queue
    holds one event of each snapshot kind, besides the rare others (a reveal, the end): 200
    answers at once are one tally waiting, not 400 events (which filled a 256-event queue
    and closed every socket of the class). ``None`` says: close the socket.

    >>> inbox = Inbox()
    >>> for n in (1, 2, 3):
    ...     inbox.put(Event("all", {"type": "counts", "answered": n}))
    >>> [event.message["answered"] for event in inbox.taken()]
    [3]
    """

    def __init__(self) -> None:
        self._events: list[Event | None] = []
        self._ready = asyncio.Event()

    def put(self, event: Event | None) -> None:
        """Queue ``event``; a snapshot replaces the one of its kind queued after the last
        other event (a reveal, the end: barriers no snapshot moves past, or the page would
        hear a tally after the reveal it came before)."""
        if event is not None and event.message.get("type") in SNAPSHOTS:
            kind = event.message["type"]
            start = len(self._events)
            while start > 0 and _is_snapshot(self._events[start - 1]):
                start -= 1
            tail = [e for e in self._events[start:] if e is None or e.message["type"] != kind]
            self._events[start:] = tail
        self._events.append(event)
        if len(self._events) > QUEUE_LIMIT:  # a socket that never reads: let it go
            self._events = [None]
        self._ready.set()

    def empty(self) -> bool:
        return not self._events

    def get_nowait(self) -> Event | None:
        if not self._events:
            raise asyncio.QueueEmpty
        event = self._events.pop(0)
        if not self._events:
            self._ready.clear()
        return event

    async def get(self) -> Event | None:
        while not self._events:
            await self._ready.wait()
        return self.get_nowait()

    def taken(self) -> list[Event | None]:
        """Every event waiting, taken out."""
        events, self._events = self._events, []
        self._ready.clear()
        return events


class Subscriber:
    """One open socket's inbox: the events of its class for it (the teacher's alone to the
    teacher's sockets)."""

    def __init__(self, teacher: bool = False, tab: str | None = None) -> None:
        self.teacher = teacher
        self.tab = tab  # the student's id and the page's token, when the page named its tab
        self.queue = Inbox()

    def put(self, event: Event | None) -> None:
        if event is None or event.to == "all" or self.teacher:
            self.queue.put(event)

    def taken(self) -> list[Event | None]:
        return self.queue.taken()


class Fanout:
    """The sockets of each class in this process, and the sending of events to them."""

    def __init__(self) -> None:
        self._sockets: dict[str, set[Subscriber]] = {}

    def add(self, code: str, *, teacher: bool = False, tab: str | None = None) -> Subscriber:
        subscriber = Subscriber(teacher, tab)
        self._sockets.setdefault(code, set()).add(subscriber)
        return subscriber

    def replace_tab(self, code: str, subscriber: Subscriber) -> None:
        """Let go of this process's other sockets of ``subscriber``'s tab: a page reconnected
        (its Wi-Fi dropped), so they are its old ones, maybe half-open and not yet noticed."""
        for other in list(self._sockets.get(code, ())):
            if (
                other is not subscriber
                and subscriber.tab is not None
                and other.tab == subscriber.tab
            ):
                other.put(None)

    def remove(self, code: str, subscriber: Subscriber) -> None:
        sockets = self._sockets.get(code)
        if sockets is not None:
            sockets.discard(subscriber)
            if not sockets:
                del self._sockets[code]

    def send(self, code: str, events: list[Event]) -> None:
        """Hand ``events`` to every socket of ``code`` (from the event loop's thread)."""
        for subscriber in list(self._sockets.get(code, ())):
            for event in events:
                subscriber.put(event)

    def close(self, code: str) -> None:
        for subscriber in list(self._sockets.get(code, ())):
            subscriber.put(None)

    def codes(self) -> list[str]:
        """The classes with a socket open in this process."""
        return list(self._sockets)


class Hub(Protocol):
    fanout: Fanout
    misses: JoinLimit  # wrong codes: per session and per address, shared by the workers
    classes_per_address: int

    def create(self, run: dict[str, Any], view: View, creator: str = "") -> tuple[str, str]:
        """A new class for ``run`` (JSON data: the settings and text every student trains),
        as its code and the teacher's key; :class:`ClassError` past the server's limit or
        past :attr:`classes_per_address` open classes started by ``creator`` (the client's
        address; empty: not counted)."""

    def run_of(self, code: str) -> dict[str, Any] | None:
        """The run of an open class (what :meth:`create` or :meth:`set_run` was given),
        else ``None``."""

    def set_run(self, code: str, key: str, run: dict[str, Any]) -> None:
        """The teacher changed the run (a lesson's slide, a setting): students who follow
        take it next; :class:`ClassError` if the class has ended or ``key`` is not the
        teacher's."""

    def is_teacher(self, code: str, key: str) -> bool: ...

    def was_given(self, code: str) -> bool:
        """Whether ``code`` was a class's in the last :data:`GIVEN_S` (open or ended): a link
        to it is told the class has ended, and is no miss."""

    async def read(self, code: str) -> ClassState | None:
        """The open class ``code`` (a copy to read, not to change), else ``None``."""

    async def change(self, code: str, change: Change) -> list[Event]:
        """Apply ``change`` to the class, atomically, and send its events to every socket
        of the class (in every worker); :class:`ClassError` if the class has ended."""

    async def start(self) -> None:
        """Start what the hub needs in the server's event loop (the server's lifespan)."""

    async def stop(self) -> None: ...


def run_id(run: dict[str, Any]) -> str:
    """A short name for a run, the same in every worker: a view names the run it shows, so
    a student's browser knows when the teacher's run is no longer its own.

    >>> run_id({"state": {"vocab": 300}}) == run_id({"state": {"vocab": 300}})
    True
    >>> run_id({"state": {"vocab": 300}}) == run_id({"state": {"vocab": 301}})
    False
    """
    text = json.dumps(run, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def server_full() -> ClassError:
    return ClassError(
        f"This server has {MAX_CLASSES} classes open, its limit: end one, or try again when "
        "one has ended."
    )


def client_full(limit: int) -> ClassError:
    return ClassError(
        f"{limit} classes started from this network address are open, its limit: end one "
        "first, or ask whoever runs the server to raise BPEVIZ_CLASSES_PER_ADDRESS."
    )


def new_class(view: View, taken: Callable[[str], bool]) -> tuple[ClassState, str]:
    """A class with a code not in use and the teacher's key (returned, never stored)."""
    code = new_code()
    while taken(code):
        code = new_code()
    key = secrets.token_urlsafe(24)
    return ClassState(code, key_digest(key), time.time(), view=view), key


async def end_gone_classes(hub: Hub) -> None:
    """Tell the sockets of each class that is gone (expired after 3 idle hours: the memory
    hub forgets it when next asked, Redis drops its keys) that it has ended, and close them.
    Run every :data:`SWEEP_S` by :func:`sweep_forever`."""
    for code in hub.fanout.codes():
        if await hub.read(code) is None:
            hub.fanout.send(code, [ended_event()])
            hub.fanout.close(code)


async def sweep_forever(hub: Hub, every_s: float = SWEEP_S) -> None:
    """:func:`end_gone_classes` every ``every_s``, until cancelled (the server's lifespan)."""
    while True:
        await asyncio.sleep(every_s)
        try:
            await end_gone_classes(hub)
        except Exception:  # Redis away, say: the next sweep tries again
            log.warning("could not look for ended classes", exc_info=True)
