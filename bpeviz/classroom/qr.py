"""A class's join link as a QR code, in SVG: sharp at any size on a projector.

The code is made by ``segno`` (the well-kept pure-Python QR library). Error correction
"M" (15% of the code can be unreadable) survives a projector's glare and keystone; a
version-3 code's 29 modules (37 with the quiet zone), drawn 370 px wide, are 10 px
each: a phone camera reads them from the back of a lecture hall.
"""

from __future__ import annotations

import io

import segno


def qr_svg(link: str) -> str:
    """The SVG of a QR code that holds ``link``, black on white with its quiet zone,
    scaling to the box it is drawn in (no fixed width or height)."""
    code = segno.make_qr(link, error="m")
    out = io.BytesIO()
    code.save(
        out,
        kind="svg",
        scale=1,
        border=4,
        dark="#000",
        light="#fff",
        omitsize=True,
        title="QR code: " + link,
        xmldecl=False,
        svgns=True,
    )
    return out.getvalue().decode("utf-8")
