"""Which hub this process uses: Redis's when ``BPEVIZ_REDIS_URL`` is set (several worker
processes serve one class), else memory's. The one module that knows both hubs, so neither
hub imports the other."""

from __future__ import annotations

import os
import threading

from bpeviz.classroom.hubs.common import Hub
from bpeviz.classroom.hubs.memory import MemoryHub

_hub: Hub | None = None
_hub_lock = threading.Lock()


def current_hub() -> Hub:
    """This process's hub: Redis's when ``BPEVIZ_REDIS_URL`` is set, else memory's."""
    global _hub
    with _hub_lock:
        if _hub is None:
            url = os.environ.get("BPEVIZ_REDIS_URL")
            if url:
                from bpeviz.classroom.hubs.redis_hub import RedisHub

                _hub = RedisHub(url)
            else:
                _hub = MemoryHub()
        return _hub
