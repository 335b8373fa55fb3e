"""Join codes a class can read off a projector, and a limit on guessing them.

A code is 6 characters from 31 that cannot be confused off a projector (no 0/O, 1/I/L):
31⁶ ≈ 887 million codes. With at most :data:`~bpeviz.classroom.state.MAX_CLASSES` classes
open, one guess finds a class with a chance of 1 in 18 million. Failed joins are limited per
session (:data:`MAX_FAILED_JOINS` a minute: a student who mistypes a few times) and per
client address (:data:`MAX_FAILED_JOINS_PER_ADDRESS`: a class behind one school NAT address
is many sessions), so one address needs about 6,000 hours of guessing on average to find
any class, and a flood of wrong codes from one session or address refuses no other's
right code.

The address is the browser's (:func:`client_address`): behind ``make serve``'s nginx the
peer is nginx, on loopback, and nginx says whose request it passes on in ``X-Real-IP``;
that header is believed from a loopback peer only (anyone else could set it to anything).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import deque
from collections.abc import Mapping

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0 O 1 I L
CODE_LENGTH = 6
MAX_FAILED_JOINS = 10  # per session, per FAILED_JOIN_WINDOW_S
MAX_FAILED_JOINS_PER_ADDRESS = 50  # per client address (all its sessions), per window
FAILED_JOIN_WINDOW_S = 60.0
LOOPBACK = ("127.0.0.1", "::1")


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


def client_address(headers: Mapping[str, str], peer: str | None) -> str:
    """Whose request this is, for the limits: the peer's address, or, when the peer is on
    loopback (our own nginx; ``None`` is Streamlit's word for a loopback peer), the address
    nginx saw (``X-Real-IP``), else ``"loopback"``.

    >>> client_address({"x-real-ip": "203.0.113.7"}, "127.0.0.1")
    '203.0.113.7'
    >>> client_address({"x-real-ip": "203.0.113.7"}, "198.51.100.2")  # not our nginx
    '198.51.100.2'
    >>> client_address({}, None)
    'loopback'
    """
    if peer is None or peer in LOOPBACK:
        forwarded = str(headers.get("x-real-ip") or headers.get("X-Real-IP") or "").strip()
        return forwarded[:64] or "loopback"
    return peer


class JoinLimit:
    """Failed joins counted per session and per client address: a join is allowed while
    both are under their limits, and a failed one counts for both."""

    def __init__(
        self,
        per_session: int = MAX_FAILED_JOINS,
        per_address: int = MAX_FAILED_JOINS_PER_ADDRESS,
        window_s: float = FAILED_JOIN_WINDOW_S,
    ) -> None:
        self.sessions = FailedJoins(per_session, window_s)
        self.addresses = FailedJoins(per_address, window_s)

    def allowed(self, address: str, session: str, now: float | None = None) -> bool:
        """Whether this session, from this address, may try another code now."""
        return self.addresses.allowed(address, now) and self.sessions.allowed(session, now)

    def fail(self, address: str, session: str, now: float | None = None) -> None:
        """Count a failed attempt (a code that names no class) for both."""
        self.addresses.fail(address, now)
        self.sessions.fail(session, now)


# The one limit of this process: a wrong code typed into the app (the script) and one sent
# over the class's socket count together.
failed_joins = JoinLimit()
