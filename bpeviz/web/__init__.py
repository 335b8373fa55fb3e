"""The browser's half of bpeviz: plain JavaScript and CSS kept as files in the package.

The script is a few files with one idea each, joined in a fixed order (:data:`SCRIPTS`) into
one ES module, with no build tool: the record's pure functions (tested by ``node --test``,
``tests/js``), its DOM helpers, keyboard paths (one Tab stop per box, arrows between its
items), token spans, the inspector, the step view's panels, Unigram's lattice, the quiz
(solo and the class's), controls and view, Unigram's view, and the entry points. Above them
:func:`constants` writes what Python defines once: the record's field names, kinds and
marks (:mod:`bpeviz.records.schema`), the palette's size, ``</w>`` and the quotes of a
token's name. ``tokens.css`` styles every span, card and legend (the palette's colours come
from :data:`PALETTE`); ``step.css`` lays out the step view;
``page.css`` frames an exported page. An exported page carries them inline: nothing is
fetched. The app serves the stylesheet inline and the script from its own address
(:func:`script_address`, named by its content), which its one Streamlit component imports
(:func:`script_loader`); nothing comes from elsewhere.
"""

from __future__ import annotations

import hashlib
import html
import json
from functools import cache
from importlib.resources import files
from typing import Any

from bpeviz.engine.pretokenize import END_OF_WORD
from bpeviz.engine.readable import WHITESPACE
from bpeviz.engine.wordpiece import CONTINUATION
from bpeviz.records import schema
from bpeviz.records.narration import quoted

SCRIPTS = (  # each file uses only what it or an earlier one defines (tests/test_web_js.py)
    "core/record.js",
    "core/dom.js",
    "core/keyboard.js",
    "core/spans.js",
    "core/inspector.js",
    "step/panels.js",
    "step/unigram_lattice.js",
    "step/quiz.js",
    "live/live_quiz.js",
    "live/class_results.js",
    "step/controls.js",
    "step/address.js",
    "step/step_view.js",
    "step/unigram_view.js",
    "live/live.js",
    "live/presenter.js",
    "live/class_bar.js",
    "core/main.js",
)
STYLESHEETS = ("core/tokens.css", "step/step.css", "live/class.css")
PAGE_STYLESHEET = "core/page.css"  # only the exported page: its header and margins

# The token fills, ``.bpe-c0`` … ``.bpe-c7``, each with its border (the fill's own colour made
# darker, at 10% luminance: 3.2:1 or more against its fill and 7:1 against the page, a token's
# edge in greyscale too). Every pair of fills stays ΔE2000 ≥ 10.6 apart with full colour vision
# and under simulated protanopia, deuteranopia and tritanopia, and token text stays AA on each
# (tests/test_palette.py, which cites the methods). Found by a search over sRGB that kept each
# slot's hue family and maximised the closest pair; then checked by eye, simulations included.
PALETTE: tuple[tuple[str, str], ...] = (
    ("#F0D8B4", "#625848"),  # sand
    ("#66BFFA", "#2F5E7D"),  # blue
    ("#EAF084", "#595C2F"),  # lime yellow
    ("#C6A8C6", "#645464"),  # mauve
    ("#90BAA2", "#475E51"),  # sage green
    ("#EAA266", "#775130"),  # orange
    ("#AEF0FF", "#425E64"),  # pale cyan
    ("#D8DED8", "#575A57"),  # light grey
)


def colour_index(token_id: int) -> int:
    """The palette colour of a token drawn by itself: the same id has the same colour
    wherever it is drawn (the script's ``colourIndex``; tests/test_web_js.py holds them equal).
    """
    return token_id % len(PALETTE)


def chip_html(label: str, token_id: int | None) -> str:
    """A token drawn by itself, as markup for ``st.html``: the script's ``chip`` in its box, its
    label escaped (``None``: an id not known, drawn without a colour)."""
    colour = "" if token_id is None else f" bpe-c{colour_index(token_id)}"
    text = html.escape(label) or "&#8203;"
    return f'<span class="bpe-chipbox"><span class="bpe-chip{colour}">{text}</span></span>'


def chip_note_html(text: str) -> str:
    """A note beside chips (the merge card's ``id 97``), its text escaped."""
    return f'<span class="bpe-chipid">{html.escape(text)}</span>'


@cache
def asset(name: str) -> str:
    """The text of one of this folder's files."""
    return files(__package__).joinpath(name).read_text(encoding="utf-8")


def _names(fields: tuple[str, ...]) -> str:
    return json.dumps({name: index for index, name in enumerate(fields)})


def _public(names: type) -> dict[str, Any]:
    return {name: value for name, value in vars(names).items() if not name.startswith("_")}


def constants() -> str:
    """The JavaScript constants that come from Python: one definition for both languages.

    >>> "const VOCAB = {\\"label\\": 0," in constants()
    True
    """
    opening, closing = quoted("")[0], quoted("")[-1]
    lines = [
        f"const SCHEMA = {schema.SCHEMA};",
        f"const VOCAB = {_names(schema.VOCAB_FIELDS)};",
        f"const MERGE = {_names(schema.MERGE_FIELDS)};",
        f"const TOP = {_names(schema.TOP_FIELDS)};",
        f"const TOP_ROW = {len(schema.TOP_FIELDS)};",
        f"const SCORE_TOP = {_names(schema.SCORE_TOP_FIELDS)};",
        f"const SCORE_TOP_ROW = {len(schema.SCORE_TOP_FIELDS)};",
        f"const CONTINUATION_MARK = {json.dumps(CONTINUATION)};",
        f"const SENTENCE = {_names(schema.SENTENCE_FIELDS)};",
        f"const PARENT = {_names(schema.PARENT_FIELDS)};",
        f"const START = {_names(schema.START_FIELDS)};",
        f"const KIND = {json.dumps({kind.name: kind.value for kind in schema.Kind})};",
        f"const MARK = {json.dumps(_public(schema.Mark))};",
        f"const JOINED = {schema.JOINED};",
        f"const END_OF_WORD = {json.dumps(END_OF_WORD)};",
        f"const WHITESPACE = {json.dumps({symbol: name for _, symbol, name in WHITESPACE})};",
        f"const PALETTE_SIZE = {len(PALETTE)};",
        f"const quoted = (text) => `{opening}${{text}}{closing}`;",
    ]
    return "// Written by bpeviz.web.constants from the Python definitions.\n" + "\n".join(lines)


@cache
def script() -> str:
    """The one script of the app and of an exported page: :func:`constants`, then each of
    :data:`SCRIPTS` in order, as one ES module."""
    return "\n".join([constants(), *(asset(name) for name in SCRIPTS)])


SCRIPT_ROUTE = "/api/script/"  # where the app serves script() (bpeviz.app.frame.script_route)


@cache
def script_bytes() -> bytes:
    """:func:`script` as the app serves it (UTF-8), encoded once."""
    return script().encode("utf-8")


@cache
def script_address() -> str:
    """The app's address of :func:`script`: named by its content, so a browser keeps it for
    good and a changed script has a new name.

    >>> script_address().startswith("/api/script/view.") and script_address().endswith(".js")
    True
    """
    return f"{SCRIPT_ROUTE}view.{hashlib.sha256(script_bytes()).hexdigest()[:16]}.js"


@cache
def script_loader() -> str:
    """The script of the app's Streamlit component: it imports :func:`script` from
    :func:`script_address` (once per page; the browser keeps the file) and hands it each
    run's data in order.

    Why not the script itself: Streamlit sends a component's inline script with each of its
    elements, again on every run that changes one, and the step view and the class bar are
    one component of 178 KB. A student's rerun for a slide heard 460 KB so (the median of
    ``benchmarks/lesson_slides.py``; 55 MB a slide for 120 students), 28 KB with this."""
    return (
        # from the page's origin: Streamlit runs this as a module of a blob: address
        f"const loaded = import(new URL({json.dumps(script_address())}, location.origin).href);\n"
        "export default function (component) {\n"
        "  loaded.then((module) => module.default(component));\n"
        "}\n"
    )


def palette_css() -> str:
    """The ``.bpe-cN`` rules of :data:`PALETTE`."""
    return "".join(
        f".bpe-c{index}{{background:{background};border-color:{border};}}"
        for index, (background, border) in enumerate(PALETTE)
    )


PALETTE_PLACE = "/* PALETTE: the .bpe-c0 ... colours, written here by bpeviz.web.stylesheets */"


def stylesheets() -> str:
    """Every stylesheet of the views, as one CSS text (the palette's rules where
    ``tokens.css`` holds their place: after ``.bpe-t``, before the outlines)."""
    css = "\n".join(asset(name) for name in STYLESHEETS)
    return css.replace(PALETTE_PLACE, palette_css(), 1)


def step_page(payload_json: str, *, title: str, subtitle: str) -> str:
    """One self-contained HTML page that steps through a run with no server at all.

    The script is :func:`script`, run as a module (its ``mountPage`` reads the run's record
    from a ``<script type="application/json">`` element, ``<`` escaped so that no text in it
    can close the element, and keeps the step in the address's ``#step=``); ``title`` and
    ``subtitle`` are escaped.
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
        f'<script type="module">\n{script()}\nmountPage();\n</script>\n'
        "</body></html>\n"
    )


__all__ = [
    "PALETTE",
    "asset",
    "chip_html",
    "chip_note_html",
    "colour_index",
    "constants",
    "script",
    "step_page",
    "stylesheets",
]
