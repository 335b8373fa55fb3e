"""Every page opens with at most two short sentences (issue 31: the pages read like a manual;
Compare's intro was 61 words, Compression's 55). Longer explanations go behind "How to read
this" or into help popovers. About is left out: the page is the explanation itself.
"""

from __future__ import annotations

import re

import pytest
from apptest_support import open_page

MAX_SENTENCES = 2
MAX_WORDS = 45
PAGES = ["step", "tokenize", "compression", "compare", "two_runs", "export"]


def intro(page: str) -> str | None:
    """The text between the page's title and its first widget, header or chart, if any."""
    at = open_page(f"app_pages/{page}.py")
    texts: list[str] = []
    started = False
    for node in at.main:
        kind = type(node).__name__
        if kind == "Title":
            started = True
            continue
        if not started:
            continue
        if kind in ("Markdown", "Caption"):
            texts.append(node.value)
            continue
        break
    return " ".join(texts) or None


@pytest.mark.parametrize("page", PAGES)
def test_a_page_opens_with_two_short_sentences_at_most(page: str) -> None:
    text = intro(page)
    if text is None:
        return  # no intro: the page's controls come first
    plain = re.sub(r"[*`]", "", text)
    sentences = re.findall(r"[.!?](?:\s|$)", plain)
    assert len(sentences) <= MAX_SENTENCES, plain
    assert len(plain.split()) <= MAX_WORDS, (len(plain.split()), plain)
