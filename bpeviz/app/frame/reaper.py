"""Closed tabs give their memory back: a sweep that shuts down the sessions Streamlit forgot.

Streamlit keeps a closed tab's session for ``server.disconnectedSessionTTL`` seconds, so
that a dropped connection can resume it. After that the session is only dropped from a
table, and only when a later session is stored there; it is never shut down, so what it
uploaded stays in the server's memory for as long as the process runs. A class importing
a 10 MB model file each left 10 MB per student behind, for good.

:func:`start_sweeping` starts one thread per process that, every :data:`SWEEP_SECONDS`,
takes the sessions whose time has passed out of that table and shuts each down as
Streamlit does for a session that ends (its uploads, media and scripts released). Then it
hands the freed memory back to the system (glibc's ``malloc_trim``, where there is one):
freed in the middle of the heap, it would otherwise stay counted against the server.

It reads two private attributes of Streamlit's runtime (the session manager and its
table of closed sessions, Streamlit 1.67); when they are missing it logs that once and
does nothing, and ``tests/browser/test_reaper.py`` fails, so an upgrade cannot silently
bring the leak back.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import threading
from collections.abc import Callable
from typing import Any

SWEEP_SECONDS = 5.0
_LOGGER = logging.getLogger(__name__)


def _closed_sessions_table(runtime: Any) -> tuple[Any, threading.Lock] | None:
    """The TTL table of closed sessions and the lock Streamlit takes around it."""
    manager = getattr(runtime, "_session_mgr", None)
    storage = getattr(manager, "_session_storage", None)
    table = getattr(storage, "_cache", None)
    lock = getattr(manager, "_storage_lock", None)
    if table is None or lock is None or not hasattr(table, "expire"):
        return None
    return table, lock


def sweep_once(runtime: Any, let_go: Callable[[set[str]], object] | None = None) -> int:
    """Shut down the closed sessions whose time to resume has passed; how many there were.

    Then ``let_go`` is told the sessions still open or resumable (by id), to drop what
    the server's caches keep only for the others (:mod:`bpeviz.app.frame.sized_cache`).
    """
    found = _closed_sessions_table(runtime)
    if found is None:
        return 0
    table, lock = found
    with lock:
        count = _shut_down(table.expire())
    if count and let_go is not None:
        let_go({info.session.id for info in runtime._session_mgr.list_sessions()})
    if count:
        gc.collect()
        give_back_freed_memory()
    return count


def _shut_down(expired: list[tuple[str, Any]]) -> int:
    """Shut the sessions down; their last references go with this call's frame."""
    for _, info in expired:
        info.session.shutdown()
    return len(expired)


def give_back_freed_memory() -> None:
    """Return free heap pages to the system (glibc; elsewhere nothing happens)."""
    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        trim = None
    if trim is not None:
        trim(0)


def _sweep_forever(stop: threading.Event, let_go: Callable[[set[str]], object] | None) -> None:
    from streamlit import runtime

    while not stop.wait(SWEEP_SECONDS):
        if not runtime.exists():
            continue
        instance = runtime.get_instance()
        if _closed_sessions_table(instance) is None:
            _LOGGER.warning(
                "bpeviz: Streamlit's table of closed sessions was not found; closed "
                "sessions keep their uploads until the server restarts"
            )
            return
        try:
            sweep_once(instance, let_go)
        except Exception:  # a sweep must never take the server down
            _LOGGER.exception("bpeviz: sweeping closed sessions failed")


def start_sweeping(let_go: Callable[[set[str]], object] | None = None) -> threading.Event:
    """Start the sweeping thread (a daemon), which tells ``let_go`` the sessions left after
    each sweep that shut some down (see :func:`sweep_once`); setting the returned event
    stops it."""
    stop = threading.Event()
    threading.Thread(
        target=_sweep_forever, args=(stop, let_go), name="bpeviz-session-sweeper", daemon=True
    ).start()
    return stop
