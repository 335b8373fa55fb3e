"""The Tokenize page cuts pasted text exactly where the engine does.

The expected ids come from the engine itself: ``bpeviz.engine.trainer`` on the English sample with
the settings it opens with (what the sidebar trains); for ``cl100k_base`` and ``o200k_base`` they
come from tiktoken (``tests/tiktoken_oracle.py``). The page's spans are read back from the
DOM: each span's hover title starts with its id, and its text is the token's readable form
(``␣`` for a space).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from sample_runs import sample_history

from bpeviz.engine.readable import readable

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

TEXT = (
    "Hello world,  the printer counted pairs.\n"
    "\tTabs and  spaces: 1234 times!\n"
    "駅前の小さな本屋で、子どもは文字を覚えた。 🙂"
)


def paste(app: AppPage, text: str) -> None:
    """Type ``text`` into the Tokenize box and apply it (Ctrl+Enter), as a person would."""
    box = app.page.locator(".st-key-tok_text textarea")
    box.fill(text)
    app.rerun(lambda: box.press("Control+Enter"))


def shown_ids(app: AppPage) -> list[int]:
    titles = [span["title"] for span in app.spans()]
    ids = []
    for title in titles:
        match = re.match(r"id (\d+) ·", title)
        assert match, f"span title without an id: {title!r}"
        ids.append(int(match.group(1)))
    return ids


def choose(app: AppPage, key: str, label: str) -> None:
    option = app.page.locator(f".st-key-{key}").get_by_text(label, exact=False).first
    app.rerun(option.click)


def test_trained_tokenizer_boundaries_match_the_engine(app: AppPage) -> None:
    app.open("tokenize")
    paste(app, TEXT)

    expected = sample_history("english").tokenizer.encode(TEXT)
    assert shown_ids(app) == expected
    texts = [span["text"] for span in app.spans()]
    tokenizer = sample_history("english").tokenizer
    assert texts == [readable(tokenizer.decode_bytes([token_id])) for token_id in expected]
    # The spans, read in order with their visible whitespace undone, are the text again
    # (as far as it is English: this tokenizer writes most Japanese bytes as hex).
    plain = "".join(texts).replace("␣", " ").replace("↵", "\n").replace("⇥", "\t")
    assert plain.startswith(TEXT[: TEXT.index("駅")])
    # Tokens that are only part of a character are grouped under the character they spell.
    assert app.page.locator('.bpe-scroll .bpe-g[data-char="🙂"]').count() == 1
    app.assert_clean()


def test_whitespace_is_visible(app: AppPage) -> None:
    app.open("tokenize")
    paste(app, TEXT)
    # Scrolled to, as a person would: lines off screen are not rendered (content-visibility),
    # so their innerText is empty until then.
    box = app.page.locator(".bpe-scroll")
    box.scroll_into_view_if_needed()
    app.page.wait_for_function("el => el.innerText.includes('␣')", arg=box.element_handle())
    visible = box.inner_text()
    for mark in ("␣", "↵", "⇥"):
        assert mark in visible, f"{mark} not shown"
    assert any(span["text"].startswith("␣") for span in app.spans())
    app.assert_clean()


def test_the_legend_names_each_whitespace_symbol_drawn(app: AppPage) -> None:
    """A space, a tab and a form feed (one byte each, so drawn as symbols by any tokenizer):
    the legend keys those three, in bpeviz.engine.readable's order, and no other (it keyed only
    ␣ ↵ ⇥, always all three, and never the form feed's ␌)."""
    app.open("tokenize")
    paste(app, "a b\tc\x0cd")
    legend = app.page.locator(".st-key-tok_spans .bpe-legend").inner_text()
    assert "␣ space · ⇥ tab · ␌ form feed" in legend
    assert "newline" not in legend
    app.assert_clean()


def test_token_ids_toggle_shows_the_ids(app: AppPage) -> None:
    app.open("tokenize")
    paste(app, TEXT)
    expected = sample_history("english").tokenizer.encode(TEXT)

    choose(app, "tok_view", "Token ids")
    assert [span["text"] for span in app.spans()] == [str(token_id) for token_id in expected]
    assert shown_ids(app) == expected

    choose(app, "tok_view", "Text")
    assert shown_ids(app) == expected
    tokenizer = sample_history("english").tokenizer
    assert [span["text"] for span in app.spans()][:3] == [
        readable(tokenizer.decode_bytes([token_id])) for token_id in expected[:3]
    ]
    app.assert_clean()


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_real_tokenizer_boundaries_match_tiktoken(app: AppPage, name: str) -> None:
    """GPT-4's and GPT-4o's tokenizers in the page: ids from tiktoken (its published recipe)."""
    from tiktoken_oracle import tiktoken_encoding

    expected = tiktoken_encoding(name).encode(TEXT, allowed_special="all")
    app.open("tokenize")
    paste(app, TEXT)
    choose(app, "tok_model", name)
    assert shown_ids(app) == expected
    assert f"tok_model={name}" in app.page.url
    app.assert_clean()


def test_the_replay_numbers_merges_as_the_step_page_does(app: AppPage) -> None:
    """ "Why was this word split": "merge N" must be the merge the Step page calls merge N."""
    app.open("tokenize")
    paste(app, "counted")
    labels = app.page.locator(".st-key-tok_trace_rows .bpe-trace-label").all_inner_texts()
    assert labels[0] == "start" and len(labels) > 2, labels
    history = sample_history("english")
    for label in labels[1:]:
        match = re.fullmatch(r"merge (\d+): “(.*)” \+ “(.*)”", label)
        assert match, label
        step = history.steps[int(match.group(1)) - 1]  # the Step page's "Merge N"
        pair = tuple(readable(history.tokenizer.token_bytes(part)) for part in step.pair)
        assert pair == (match.group(2), match.group(3)), (
            f"{label!r}, but the Step page's merge {step.step} joins “{pair[0]}” + “{pair[1]}”"
        )
    app.assert_clean()
