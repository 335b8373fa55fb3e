"""User text in Markdown, made inert: the one way a user's string reaches a Streamlit element
that renders Markdown (captions, messages, ``st.table`` cells, labels, radio options).

Streamlit renders GitHub Markdown there, plus its own ``:red[…]``, ``:smile:`` and ``$…$``:
a pasted ``![x](http://host/p.png)`` in a table cell is an image request from every browser
that opens the link. :func:`escape_markdown` shows such a string as the characters it holds:

- every ASCII punctuation mark is backslash-escaped (CommonMark allows it for each one), so
  no link, image, emphasis, HTML tag, entity, directive or formula is parsed;
- a bare address is not turned into a link: GitHub's autolinks are found in the text after
  escapes are undone, so a word joiner (U+2060, invisible) goes between ``www`` and its dot,
  before a colon between a letter and a non-space (``http:``) and before an ``@`` inside a
  word (an e-mail address);
- bidirectional controls (U+202A-U+202E, U+2066-U+2069) are shown as ``\\u202e``, as token
  text shows them (:func:`bpeviz.engine.readable.readable`): they would reorder what follows them.

:func:`lesson_markdown` is the same for a teacher's lesson notes, keeping the Markdown they
write (emphasis, lists, headings, code): only what fetches or links is escaped, and code is
left as written. HTML for ``st.html`` is escaped by :func:`bpeviz.app.shared.token_label.esc`
instead, with :func:`visible_bidi` first (:func:`bpeviz.app.frame.widgets.caption`).
"""

from __future__ import annotations

import re

WORD_JOINER = "\u2060"
_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")
# Where GitHub's autolinks start: www., a scheme's colon (http:, mailto:), an e-mail's @
# (a colon or @ with a space after it starts none: "size: 10" is left alone).
_AUTOLINK_STARTS = re.compile(r"(?i)(?<=\bwww)(?=\.)|(?<=[a-z])(?=:\S)|(?<=\S)(?=@\S)")
_BIDI_CONTROLS = re.compile(r"[\u202a-\u202e\u2066-\u2069]")
# Markdown a lesson note may not use: links and images ([ ] ( ) !), HTML and autolinks (< >),
# Streamlit's directives (:) and formulas ($), entities (&) and the escape itself.
_LESSON_SPECIALS = re.compile(r"[\\\[\]()!<>:$&]")
# Code in a note, kept as written: a fenced block (to its closing fence, or the end), or an
# inline span (a run of backticks, then the same run again).
_CODE = re.compile(
    r"^ {0,3}(?P<fence>`{3,}|~{3,})[^\n]*\n.*?(?:^ {0,3}(?P=fence)[`~]*[ \t]*$|\Z)"
    r"|(?P<ticks>`+)(?!`).+?(?<!`)(?P=ticks)(?!`)",
    re.MULTILINE | re.DOTALL,
)


def visible_bidi(text: str) -> str:
    """Bidirectional controls shown as ``\\u202e`` (HTML needs this too: ``st.html`` text).

    >>> visible_bidi("a\u202eb")
    'a\\\\u202eb'
    """
    return _BIDI_CONTROLS.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def _no_autolinks(text: str) -> str:
    return _AUTOLINK_STARTS.sub(WORD_JOINER, text)


def escape_markdown(text: str) -> str:
    """``text`` as Markdown that shows exactly these characters: no link, image, emphasis
    or directive, no bare address made a link, no bidirectional control left to act.

    >>> escape_markdown("**b** ![x](p.png)")
    '\\\\*\\\\*b\\\\*\\\\* \\\\!\\\\[x\\\\]\\\\(p\\\\.png\\\\)'
    >>> escape_markdown("www.x.org") == "www" + WORD_JOINER + "\\\\.x\\\\.org"
    True
    """
    return _PUNCTUATION.sub(r"\\\g<0>", _no_autolinks(visible_bidi(text)))


def _escape_prose(text: str) -> str:
    return _LESSON_SPECIALS.sub(r"\\\g<0>", _no_autolinks(visible_bidi(text)))


def lesson_markdown(text: str) -> str:
    """A lesson note's Markdown with emphasis, lists, headings and code kept, and links and
    images shown as the text they are written as (the address visible, nothing fetched).

    >>> lesson_markdown("*Look* at `a[0]` and [this](http://x.org)")
    '*Look* at `a[0]` and \\\\[this\\\\]\\\\(http\\u2060\\\\://x.org\\\\)'
    """
    parts: list[str] = []
    done = 0
    for code in _CODE.finditer(text):
        parts.append(_escape_prose(text[done : code.start()]))
        parts.append(visible_bidi(code.group()))
        done = code.end()
    parts.append(_escape_prose(text[done:]))
    return "".join(parts)
