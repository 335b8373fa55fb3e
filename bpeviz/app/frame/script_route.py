"""The app's address of the browser's script (:func:`bpeviz.web.script_address`).

The one Streamlit component imports the script from here rather than carrying it inline
(:func:`bpeviz.web.script_loader` says why). The address names the script by its content, so
the answer may be kept for good: a page fetches it once, and a new version of bpeviz has a
new address.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bpeviz.web import script_address, script_bytes

KEPT_FOR_GOOD = "public, max-age=31536000, immutable"


async def _view_script(_request: Request) -> Response:
    return Response(
        script_bytes(),
        media_type="text/javascript",
        headers={"Cache-Control": KEPT_FOR_GOOD},
    )


def script_routes() -> list[Any]:
    """The route of the script, for ``st.App(routes=...)`` (``server.py``)."""
    return [Route(script_address(), _view_script, methods=["GET"])]
