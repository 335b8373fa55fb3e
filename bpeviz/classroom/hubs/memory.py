"""Classes in this process's memory: the default hub, no service to start (one process
serves the whole class)."""

from __future__ import annotations

import threading
import time
from typing import Any

from bpeviz.classroom.codes import JoinLimit
from bpeviz.classroom.codes import classes_per_address as default_classes_per_address
from bpeviz.classroom.hubs.common import (
    GIVEN_S,
    MAX_GIVEN,
    Change,
    Fanout,
    client_full,
    new_class,
    server_full,
)
from bpeviz.classroom.state import MAX_CLASSES, ClassError, ClassGone, ClassState, Event, View


class MemoryHub:
    """Classes in this process's memory (one process serves the whole class)."""

    def __init__(self, *, classes_per_address: int | None = None) -> None:
        self.classes_per_address = classes_per_address or default_classes_per_address()
        self.misses = JoinLimit()
        self._given: dict[str, float] = {}  # every code given, when (see was_given)
        self._classes: dict[str, ClassState] = {}
        self._runs: dict[str, dict[str, Any]] = {}  # what each class trains: see run_of
        self._creators: dict[str, str] = {}  # who started each class (its client's address)
        self._lock = threading.Lock()  # the script's thread and the event loop share classes
        self.fanout = Fanout()

    def _open(self, code: str) -> ClassState | None:
        state = self._classes.get(code)
        if state is not None and state.idle(time.time()):
            self._forget(code)
            return None
        return state

    def _forget(self, code: str) -> None:
        del self._classes[code], self._runs[code]
        self._creators.pop(code, None)

    def _sweep(self) -> None:
        for code in list(self._classes):
            self._open(code)

    def create(self, run: dict[str, Any], view: View, creator: str = "") -> tuple[str, str]:
        with self._lock:
            self._sweep()
            if len(self._classes) >= MAX_CLASSES:
                raise server_full()
            mine = sum(1 for started_by in self._creators.values() if started_by == creator)
            if creator and mine >= self.classes_per_address:
                raise client_full(self.classes_per_address)
            state, key = new_class(view, lambda code: code in self._classes or code in self._given)
            self._classes[state.code] = state
            self._given[state.code] = time.time()
            if len(self._given) > MAX_GIVEN:  # the oldest first
                self._given.pop(next(iter(self._given)))
            self._runs[state.code] = run
            if creator:
                self._creators[state.code] = creator
            return state.code, key

    def run_of(self, code: str) -> dict[str, Any] | None:
        with self._lock:
            state = self._open(code)
            return self._runs[code] if state else None

    def set_run(self, code: str, key: str, run: dict[str, Any]) -> None:
        with self._lock:
            state = self._open(code)
            if state is None or not state.is_teacher(key):
                raise ClassError("Only the teacher of an open class can change its run.")
            self._runs[code] = run

    def is_teacher(self, code: str, key: str) -> bool:
        with self._lock:
            state = self._open(code)
            return state is not None and state.is_teacher(key)

    def was_given(self, code: str) -> bool:
        with self._lock:
            given = self._given.get(code)
            return given is not None and time.time() - given < GIVEN_S

    async def read(self, code: str) -> ClassState | None:
        with self._lock:
            return self._open(code)

    async def change(self, code: str, change: Change) -> list[Event]:
        with self._lock:
            state = self._open(code)
            if state is None:
                raise ClassGone()
            events = state.change_whole(change)
            if state.ended:
                self._forget(code)
        self.fanout.send(code, events)
        if state.ended:
            self.fanout.close(code)
        return events

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None
