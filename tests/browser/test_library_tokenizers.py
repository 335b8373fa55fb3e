"""A tokenizer.json that bpeviz's own reader refuses (BERT-style WordPiece), uploaded in a real
browser and used on the Tokenize page: the ids are the ``tokenizers`` library's, the page names
that engine, and each word's start is outlined where WordPiece has no ``##``.

The file is trained here with the library's own API (``tests/hf_files.py``); the expected ids
and tokens come from the library on that file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

TEXT = "The reprinters uncounted 1234 pairs!"


def import_file(app: AppPage, library: Any) -> None:
    """Upload a ``tokenizers`` file on the Export / import page."""
    app.open("export")
    files = [
        {"name": "tokenizer.json", "mimeType": "application/json",
         "buffer": library.to_str().encode()}
    ]  # fmt: skip
    app.upload_files(".st-key-export_model_files input[type=file]", files)



def tokenize_imported(app: AppPage, library: Any, text: str) -> list[dict[str, Any]]:
    """Import ``library`` (a file only the tokenizers library encodes) on the Export page,
    take it to the Tokenize page and tokenize ``text`` there: the spans drawn."""
    import_file(app, library)
    # The success message can arrive after the run upload_files waits for (seen on a loaded
    # machine): wait for it to be drawn, then read it.
    app.page.get_by_text("encoded by Hugging Face tokenizers").first.wait_for()
    assert "encoded by Hugging Face tokenizers" in app.main_text()
    app.rerun(app.page.get_by_text("Tokenize with it").click)
    # the button opens the Tokenize page with the uploaded file already chosen
    chosen = app.page.locator(".st-key-tok_model label:has(input:checked)").inner_text()
    assert "tokenizer.json" in chosen, chosen  # named by its file name
    box = app.page.locator(".st-key-tok_text textarea")
    box.fill(text)
    app.rerun(lambda: box.press("Control+Enter"))
    return app.spans(".st-key-tok_spans .bpe-scroll")

def test_wordpiece_continuations_are_drawn_as_one_word(app: AppPage, screenshots: Path) -> None:
    from hf_files import wordpiece

    library = wordpiece()
    expected = library.encode(TEXT)
    spans = tokenize_imported(app, library, TEXT)
    assert "Encoded by Hugging Face tokenizers" in app.main_text()
    ids = [int(re.match(r"id (\d+) ·", span["title"]).group(1)) for span in spans]
    assert ids == expected.ids
    # A ## token is drawn without its ##, as the rest of the word it continues.
    for span, token in zip(spans, expected.tokens, strict=True):
        if token.startswith("##"):
            assert span["text"] == token[2:]
    assert any(token.startswith("##") for token in expected.tokens)
    # Word starts are outlined: one per word and per special token, none on a ## token.
    starts = app.page.locator(
        ".st-key-tok_spans .bpe-scroll .bpe-piece:not(.bpe-piece-more)"
    ).count()
    words = sum(1 for token in expected.tokens if not token.startswith("##"))
    assert starts == words, (starts, words)
    app.screenshot(screenshots / "tokenize-wordpiece.png")
    app.assert_clean()


def test_wordpiece_against_cl100k_on_compare(app: AppPage, screenshots: Path) -> None:
    """Compare takes the uploaded WordPiece file: its pane draws the library's ids, and the
    tokens it outlines are those starting at a cut only it makes (where the library's offsets
    end and tiktoken's cl100k_base does not cut)."""
    from hf_files import wordpiece
    from tiktoken_oracle import tiktoken_encoding

    library = wordpiece()
    text = "The reprinters uncounted 1234 pairs!"  # ASCII: characters are bytes
    expected = library.encode(text)
    import_file(app, library)
    app.rerun(app.page.get_by_text("Compare it").click)
    # the button opens Compare with the uploaded file already on the left
    left = app.page.evaluate("new URLSearchParams(location.search).get('cmp_left')")
    assert left == "Imported", left
    box = app.page.locator(".st-key-compare_text textarea")
    box.fill(text)
    app.rerun(lambda: box.press("Control+Enter"))
    app.page.wait_for_selector('.st-key-cmp_spans_left .bpe-root[data-ready="true"]')
    spans = app.spans(".st-key-cmp_spans_left .bpe-scroll")
    ids = [int(re.match(r"id (\d+) ·", span["title"]).group(1)) for span in spans]
    assert ids == expected.ids
    encoding = tiktoken_encoding("cl100k_base")
    theirs, offset = set(), 0
    for token in encoding.encode(text)[:-1]:
        offset += len(encoding.decode_single_token_bytes(token))
        theirs.add(offset)
    ends = [end for _, end in expected.offsets]
    starts = [0, *ends[:-1]]  # each token starts where the one before it ended
    only_here = {end for end in ends} - theirs - {0, len(text)}
    outlined = [index for index, span in enumerate(spans) if "bpe-new" in span["cls"]]
    assert outlined == [index for index, start in enumerate(starts) if start in only_here]
    assert outlined, "the text should have cuts only WordPiece makes"
    assert "Hugging Face tokenizers" in app.main_text()
    app.screenshot(screenshots / "compare-wordpiece.png")
    app.assert_clean()


def test_a_llama3_style_files_word_starts_are_outlined(app: AppPage, screenshots: Path) -> None:
    """A byte-level file whose template adds a BOS (encoded by the library): its BOS and each
    word are outlined, a word starting at the text's first token or at a space (Ġ)."""
    from hf_files import llama3_style

    library = llama3_style()
    text = "The reprinters uncounted\n1234 pairs! 駅前"
    expected = library.encode(text)
    spans = tokenize_imported(app, library, text)
    ids = [int(re.match(r"id (\d+) ·", span["title"]).group(1)) for span in spans]
    assert ids == expected.ids
    tokens = expected.tokens
    words = sum(
        1
        for index, token in enumerate(tokens)
        if index <= 1 or token.startswith("Ġ") or tokens[index - 1] == "Ċ"
    )  # the BOS, the text's first token, a space's token, a line's first token
    starts = app.page.locator(
        ".st-key-tok_spans .bpe-scroll .bpe-piece:not(.bpe-piece-more)"
    ).count()
    assert starts == words, (starts, words, tokens)
    app.screenshot(screenshots / "tokenize-llama3-style.png")
    app.assert_clean()
