"""bpeviz's server: the Streamlit app (``app.py``) with the live class's routes beside it.

``streamlit run server.py`` finds ``app`` below and serves them on one port: the pages as
always, ``/api/class/…`` (:mod:`bpeviz.classroom.routes`), the WebSocket that carries a
class's events and its QR code, and ``/api/script/…`` (:mod:`bpeviz.app.frame.script_route`),
the browser's script, which the pages' component imports. The lifespan starts and stops the
class hub (Redis's listener when ``BPEVIZ_REDIS_URL`` is set) and the sweep that tells the
pages of an expired class that it has ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import streamlit as st

from bpeviz.app.frame.script_route import script_routes
from bpeviz.classroom.hubs.choose import current_hub
from bpeviz.classroom.hubs.common import sweep_forever
from bpeviz.classroom.routes import class_routes

log = logging.getLogger("bpeviz.server")


@asynccontextmanager
async def lifespan(_app: Any) -> AsyncIterator[None]:
    if os.environ.get("FORWARDED_ALLOW_IPS") != "":  # read by uvicorn before this file runs
        log.warning(
            "uvicorn believes X-Forwarded-For from loopback peers: start with "
            "FORWARDED_ALLOW_IPS= (make run, make serve do) so no local program picks its address"
        )
    hub = current_hub()
    await hub.start()
    sweeper = asyncio.create_task(sweep_forever(hub))  # expired classes: tell their pages
    try:
        yield
    finally:
        sweeper.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sweeper
        await hub.stop()


app = st.App("app.py", routes=[*class_routes(), *script_routes()], lifespan=lifespan)
