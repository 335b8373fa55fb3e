"""The browser's half of bpeviz: plain JavaScript and CSS kept as files in the package.

``step.js`` draws token spans and the Step page's view from :func:`bpeviz.stepdata.payload`;
``tokens.css`` styles every span, card and legend; ``step.css`` lays out the step view;
``page.css`` frames an exported page. The
app serves them inline (a Streamlit component and the page's stylesheet) and an exported
page carries them inline: nothing is fetched, nothing is built.
"""

from __future__ import annotations

import html
from functools import cache
from importlib.resources import files

SCRIPT = "step.js"
STYLESHEETS = ("tokens.css", "step.css")
PAGE_STYLESHEET = "page.css"  # only the exported page: its header and margins


@cache
def asset(name: str) -> str:
    """The text of one of this folder's files."""
    return files(__package__).joinpath(name).read_text(encoding="utf-8")


def stylesheets() -> str:
    """Every stylesheet of the views, as one CSS text."""
    return "\n".join(asset(name) for name in STYLESHEETS)


def step_page(payload_json: str, *, title: str, subtitle: str) -> str:
    """One self-contained HTML page that steps through a run with no server at all.

    The script is ``step.js`` itself, run as a module (its ``mountPage`` reads the run's
    record from a ``<script type="application/json">`` element, ``<`` escaped so that no
    text in it can close the element, and keeps the step in the address's ``#step=``);
    ``title`` and ``subtitle`` are escaped.
    """
    data = payload_json.replace("<", "\\u003c")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n"
        f"<style>{stylesheets()}\n{asset(PAGE_STYLESHEET)}</style></head>\n<body>\n"
        f'<header><h1>{html.escape(title)}</h1><p class="bpe-sub">{html.escape(subtitle)}</p>'
        "</header>\n"
        '<main id="bpeviz-root" class="bpe-root"></main>\n'
        f'<script type="application/json" id="bpeviz-run">{data}</script>\n'
        f'<script type="module">\n{asset(SCRIPT)}\nmountPage();\n</script>\n'
        "</body></html>\n"
    )


__all__ = ["asset", "step_page", "stylesheets"]
