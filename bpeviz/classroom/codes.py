"""Join codes a class can read off a projector, and the limits on wrong ones.

A code is 9 characters from 31 that cannot be confused off a projector (no 0/O, 1/I/L),
shown as three groups of three: 31⁹ ≈ 26 trillion codes. A right code always gets in, and a page
already in a class always gets back in: nothing here refuses a hit. The defence against
guessing is the size of the code space (docs/teaching.md works it out)
and what cannot hurt a class: a socket has one try (its hello; a miss closes it), and
misses (codes that name no class) are counted per session
(:data:`MAX_FAILED_JOINS` a minute; a session past it waits, its own right code too) and per
client address (:data:`MAX_FAILED_JOINS_PER_ADDRESS`, far above a lecture hall's typos;
past it a miss is told "too many", and the address's hits still get in). A link to an ended
class is told so, and is no miss.

The address is the browser's (:func:`client_address`): behind ``make serve``'s nginx the
peer is nginx, on loopback, and nginx says whose request it passes on in ``X-Real-IP``;
that header is believed only beside the secret that ``scripts/serve.py`` gave nginx and the
workers (``BPEVIZ_PROXY_SECRET``): any other program on the machine could set it to anything.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import secrets
import threading
import time
from collections import deque
from collections.abc import Mapping
from typing import Protocol

ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"  # no 0 O 1 I L
CODE_LENGTH = 9
MAX_FAILED_JOINS = 10  # per session, per FAILED_JOIN_WINDOW_S
MAX_FAILED_JOINS_PER_ADDRESS = 1_000  # per client address (all its sessions), per window
FAILED_JOIN_WINDOW_S = 60.0
CLASSES_PER_ADDRESS = 50  # open classes started from one address (a building), by default
PROXY_SECRET_ENV = "BPEVIZ_PROXY_SECRET"  # set by scripts/serve.py for nginx and the workers
PROXY_HEADER = "x-bpeviz-proxy"
NO_CLASS = "There is no class with this code: check the code."
TOO_MANY = "Too many wrong class codes from here: wait a minute and try again."


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

    >>> normal_code(" k7q-m4x-abc ")
    'K7QM4XABC'
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

    def count(self, address: str, now: float | None = None) -> int:
        """Failures of ``address`` in the window up to ``now``."""
        now = time.monotonic() if now is None else now
        with self._lock:
            return len(self._recent(address, now))

    def allowed(self, address: str, now: float | None = None) -> bool:
        """Whether ``address`` is under its limit now."""
        return self.count(address, now) < self.limit

    def fail(self, address: str, now: float | None = None) -> None:
        """Count a failed attempt (a code that names no class)."""
        now = time.monotonic() if now is None else now
        with self._lock:
            if len(self._fails) > 10_000:  # bounded memory: forget the oldest addresses
                self._fails.pop(next(iter(self._fails)))
            self._fails.setdefault(address, deque()).append(now)


def is_loopback(peer: str | None) -> bool:
    """Whether a peer is this machine (``None``: Streamlit's word for a loopback peer; an
    IPv4 address mapped into IPv6, as a dual-stack server sees it, counts as itself).

    >>> is_loopback("::ffff:127.0.0.1"), is_loopback("127.0.0.1"), is_loopback("10.0.0.1")
    (True, True, False)
    """
    if peer is None:
        return True
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return bool((mapped or address).is_loopback)


def client_address(
    headers: Mapping[str, str], peer: str | None, *, proxy_secret: str | None = None
) -> str:
    """Whose request this is, for the limits: the peer's address; for a loopback peer that
    shows our nginx's secret (``proxy_secret``, default: ``BPEVIZ_PROXY_SECRET``), the
    address nginx saw (``X-Real-IP``); any other loopback peer is ``"loopback"``.

    >>> client_address({"x-real-ip": "203.0.113.7", "x-bpeviz-proxy": "s"}, None, proxy_secret="s")
    '203.0.113.7'
    >>> client_address({"x-real-ip": "203.0.113.7"}, "127.0.0.1", proxy_secret="s")
    'loopback'
    >>> client_address({}, "198.51.100.2")
    '198.51.100.2'
    """
    if not is_loopback(peer):
        return str(peer)
    secret = os.environ.get(PROXY_SECRET_ENV, "") if proxy_secret is None else proxy_secret
    shown = str(headers.get(PROXY_HEADER) or headers.get("X-Bpeviz-Proxy") or "")
    if secret and hmac.compare_digest(shown.encode("utf-8"), secret.encode("utf-8")):
        forwarded = str(headers.get("x-real-ip") or headers.get("X-Real-IP") or "").strip()
        return forwarded[:64] or "loopback"
    return "loopback"


def classes_per_address() -> int:
    """How many open classes one client address may have started: ``BPEVIZ_CLASSES_PER_ADDRESS``
    (``scripts/serve.py --classes-per-address``), else :data:`CLASSES_PER_ADDRESS`. Each
    teacher's session holds one class; this cap is for abuse, sized for a building whose
    teachers all reach the server from one address."""
    raw = os.environ.get("BPEVIZ_CLASSES_PER_ADDRESS", "")
    return int(raw) if raw.strip().isdigit() and int(raw) > 0 else CLASSES_PER_ADDRESS


class Window(Protocol):
    """Failures per name in a sliding window: in this process (:class:`FailedJoins`) or
    shared by every worker through Redis (``redis_hub.RedisWindow``)."""

    limit: int

    def count(self, who: str, now: float | None = None) -> int: ...

    def fail(self, who: str, now: float | None = None) -> None: ...


class JoinLimit:
    """Misses (codes that name no class) counted per session and per client address.

    A session past its limit waits, its own tries all refused (a guesser in one session); an
    address past its limit only hears its misses told as too many: its hits, the right codes
    of a lecture hall's other students behind the same campus address, always get in."""

    def __init__(
        self,
        per_session: int = MAX_FAILED_JOINS,
        per_address: int = MAX_FAILED_JOINS_PER_ADDRESS,
        window_s: float = FAILED_JOIN_WINDOW_S,
        *,
        sessions: Window | None = None,
        addresses: Window | None = None,
    ) -> None:
        self.sessions: Window = sessions or FailedJoins(per_session, window_s)
        self.addresses: Window = addresses or FailedJoins(per_address, window_s)

    def session_allowed(self, session: str, now: float | None = None) -> bool:
        """Whether this session may try a code now (it has not missed too often)."""
        return self.sessions.count(session, now) < self.sessions.limit

    def miss(self, address: str, session: str, now: float | None = None) -> str:
        """Count a miss for both; the sentence to tell it (:data:`TOO_MANY` past a limit)."""
        over = (
            self.sessions.count(session, now) >= self.sessions.limit
            or self.addresses.count(address, now) >= self.addresses.limit
        )
        self.addresses.fail(address, now)
        self.sessions.fail(session, now)
        return TOO_MANY if over else NO_CLASS
