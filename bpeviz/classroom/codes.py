"""Join codes a class can read off a projector, and a limit on guessing them.

A code is 6 characters from 31 that cannot be confused off a projector (no 0/O, 1/I/L):
31⁶ ≈ 887 million codes. With at most :data:`~bpeviz.classroom.state.MAX_CLASSES` classes
open, one guess finds a class with a chance of 1 in 18 million; failed joins are limited to
:data:`MAX_FAILED_JOINS` a minute per address, so one address needs about 30,000 hours of
guessing on average to find any class.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import deque

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0 O 1 I L
CODE_LENGTH = 6
MAX_FAILED_JOINS = 10  # per address, per FAILED_JOIN_WINDOW_S
FAILED_JOIN_WINDOW_S = 60.0


def new_code() -> str:
    """A random join code.

    >>> code = new_code()
    >>> len(code) == CODE_LENGTH and set(code) <= set(ALPHABET)
    True
    """
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(text: str) -> str | None:
    """A code as a student may type it (any case, with spaces or dashes), or
    ``None`` when it cannot be one.

    >>> normal_code(" k7q-m4x ")
    'K7QM4X'
    >>> normal_code("K7QM4") is None, normal_code("<b>") is None
    (True, True)
    """
    cleaned = text.strip().upper().replace("-", "").replace(" ", "")
    if len(cleaned) != CODE_LENGTH or not set(cleaned) <= set(ALPHABET):
        return None
    return cleaned


class FailedJoins:
    """Failed join attempts per address in the last minute: a sliding window.

    >>> limit = FailedJoins(limit=2, window_s=60)
    >>> limit.allowed("a", now=0), limit.fail("a", now=0), limit.fail("a", now=1)
    (True, None, None)
    >>> limit.allowed("a", now=2), limit.allowed("b", now=2), limit.allowed("a", now=61)
    (False, True, True)
    """

    def __init__(self, limit: int = MAX_FAILED_JOINS, window_s: float = FAILED_JOIN_WINDOW_S):
        self.limit = limit
        self.window_s = window_s
        self._fails: dict[str, deque[float]] = {}
        self._lock = threading.Lock()  # the script's threads and the event loop share it

    def _recent(self, address: str, now: float) -> deque[float]:
        fails = self._fails.setdefault(address, deque())
        while fails and fails[0] <= now - self.window_s:
            fails.popleft()
        if not fails:
            del self._fails[address]
            return deque()
        return fails

    def allowed(self, address: str, now: float | None = None) -> bool:
        """Whether ``address`` may try another code now."""
        now = time.monotonic() if now is None else now
        with self._lock:
            return len(self._recent(address, now)) < self.limit

    def fail(self, address: str, now: float | None = None) -> None:
        """Count a failed attempt (a code that names no class)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            if len(self._fails) > 10_000:  # bounded memory: forget the oldest addresses
                self._fails.pop(next(iter(self._fails)))
            self._fails.setdefault(address, deque()).append(now)


# The one limit of this process: a wrong code typed into the app (the script) and one sent
# over the class's socket count together.
failed_joins = FailedJoins()
