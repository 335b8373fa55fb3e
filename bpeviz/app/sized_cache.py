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


class SizedCache(Generic[K, V]):
    """At most ``max_bytes`` of values (least recently used go first), besides at most
    ``most_kept`` values whose keys ``keep`` names, bounded apart by their count."""

    def __init__(self, max_bytes: int, *, keep: Callable[[K], bool], most_kept: int) -> None:
        self.max_bytes = max_bytes
        self.most_kept = most_kept
        self._keep = keep
        self._lock = threading.Lock()
        self._entries: OrderedDict[K, _Entry[V]] = OrderedDict()  # least recently used first

    def get(self, key: K, make: Callable[[], V], size: Callable[[V], int]) -> V:
        """The value of ``key``, made with ``make`` (once while kept) and weighed with
        ``size``. What ``make`` raises is raised, and nothing is kept."""
        with self._lock:
            entry = self._entries.setdefault(key, _Entry())
            self._entries.move_to_end(key)
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
