"""The cyclic garbage collector paused while a trainer runs (BPE's and WordPiece's).

Training allocates millions of small lists and ints but creates no reference cycles, so
collections find nothing; pausing them saves about a third of the time. A module of its own
so that both trainers share it without importing each other.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector for the ``with`` block; enable it again after, if it was."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
