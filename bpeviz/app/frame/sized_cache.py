"""A cache bounded in bytes, for what the server shares between sessions: trained runs and
their step records.

Streamlit's caches bound only a count, and a count says little here: a bundled sample's run
holds 2 MB, a paste trained at the budget 13 MB and more. Twenty sessions at the budget left
a count-bounded cache holding 250 MB after the class had gone. So this cache holds at most
``max_bytes`` of values, letting the least recently used go first. A value is made once per
key while it is kept, even when several sessions ask at once (they wait for the first).

Some keys are kept apart (``keep``): the bundled samples' runs, which a class opens all
lesson long and which are small. No paste evicts them; among themselves they are bounded by
a count, ``most_kept``. The value just made always stays, even past the bound (its session
reruns with it next), until another comes.

A value also goes when every session that asked for it has closed (:meth:`let_go_of_closed`,
called by :mod:`bpeviz.app.frame.reaper` as it shuts closed sessions down): a crowd's runs leave
with the crowd, not when the next class has pushed them out.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


@dataclass
class _Entry(Generic[V]):
    lock: threading.Lock = field(default_factory=threading.Lock)
    value: V | None = None
    size: int = 0
    users: set[str] = field(default_factory=set)  # the sessions that asked for it


class SizedCache(Generic[K, V]):
    """At most ``max_bytes`` of values (least recently used go first), besides at most
    ``most_kept`` values whose keys ``keep`` names, bounded apart by their count."""

    def __init__(self, max_bytes: int, *, keep: Callable[[K], bool], most_kept: int) -> None:
        self.max_bytes = max_bytes
        self.most_kept = most_kept
        self._keep = keep
        self._lock = threading.Lock()
        self._entries: OrderedDict[K, _Entry[V]] = OrderedDict()  # least recently used first

    def get(
        self, key: K, make: Callable[[], V], size: Callable[[V], int], *, user: str | None = None
    ) -> V:
        """The value of ``key``, made with ``make`` (once while kept) and weighed with
        ``size``, for the session ``user`` (``None``: for none, bounded in bytes only).
        What ``make`` raises is raised, and nothing is kept."""
        with self._lock:
            entry = self._entries.setdefault(key, _Entry())
            self._entries.move_to_end(key)
            if user is not None:
                entry.users.add(user)
        with entry.lock:
            if entry.value is not None:
                return entry.value
            try:
                value = make()
            except BaseException:
                with self._lock:
                    if self._entries.get(key) is entry:
                        del self._entries[key]
                raise
            entry.value, entry.size = value, size(value)
        with self._lock:
            if self._entries.get(key) is entry:
                self._let_go(but=key)
        return value

    def let_go_of_closed(self, *, alive: set[str]) -> int:
        """Drop the values (not the kept keys') whose sessions are all closed, named by none
        in ``alive``; the bytes let go."""
        freed = 0
        with self._lock:
            for key, entry in list(self._entries.items()):
                if entry.value is None or self._keep(key) or not entry.users:
                    continue  # being made, kept apart, or made for no session
                entry.users &= alive
                if not entry.users:
                    freed += self._entries.pop(key).size
        return freed

    def held_bytes(self, *, kept: bool) -> int:
        """The bytes held by the kept keys' values (``kept``) or by the others'."""
        with self._lock:
            return sum(e.size for k, e in self._entries.items() if self._keep(k) == kept)

    def _let_go(self, *, but: K) -> None:
        """Drop least recently used values until both bounds hold (never ``but``'s, nor one
        still being made: its sessions wait for it)."""
        ready = [k for k, e in self._entries.items() if e.value is not None and k != but]
        kept = [k for k in ready if self._keep(k)]
        others = [k for k in ready if not self._keep(k)]
        for key in kept[: max(0, len(kept) + self._keep(but) - self.most_kept)]:
            del self._entries[key]
        held = sum(e.size for k, e in self._entries.items() if not self._keep(k))
        for key in others:
            if held <= self.max_bytes:
                break
            held -= self._entries.pop(key).size
