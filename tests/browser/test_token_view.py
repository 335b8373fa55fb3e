"""The Tokenize page's token view in a real browser: the inspector's build tree and the
pre-tokenizer's pieces, drawn by ``bpeviz/web`` from ``bpeviz.records.tokens``.

Expected values come from the engine: ids from ``encode``, a token's tree from
``tokendata.token_parents`` (itself tested against tiktoken's educational BPE), and the
pieces from encoding each piece of the pre-tokenizer on its own (``pieces_oracle``), which
knows nothing of the page. Screenshots (``$BPEVIZ_SCREENSHOTS``): the inspector open, the
pieces shown, in presentation mode and at 800 px.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import keep_screenshot
from sample_runs import sample_history

from bpeviz import Tokenizer
from bpeviz.engine.pretokenize import pretokenize
from bpeviz.real.openai_ranks import load_encoding
from bpeviz.records.narration import pieces_sentence
from bpeviz.records.tokens import token_parents

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

TEXT = "Say hello, 駅前の小さな本屋で、子どもは 12345 times!"
ROOT = ".st-key-tok_spans .bpe-root"


def tokenizer_for(model: str) -> Tokenizer:
    return sample_history("english").tokenizer if model == "Trained here" else load_encoding(model)


def tree_ids(tokenizer: Tokenizer, token_id: int) -> list[int]:
    """Every node of a token's build tree (a byte used twice is two nodes), sorted."""
    parents = token_parents(tokenizer, [token_id])
    nodes, todo = [], [token_id]
    while todo:
        node = todo.pop()
        nodes.append(node)
        if node in parents:
            todo.extend(parents[node][:2])
    return sorted(nodes)


def pieces_oracle(tokenizer: Tokenizer, text: str) -> list[list[int]]:
    """The ids of each piece of the pre-tokenizer, each piece encoded on its own."""
    return [
        tokenizer.encode(piece.data.decode("utf-8", "surrogateescape"))
        for piece in pretokenize(
            text,
            tokenizer.pretokenizer,
            pattern=tokenizer.pattern,
            special_tokens=tokenizer.special_tokens,
        )
    ]


def shown_ids(app: AppPage) -> list[int]:
    app.page.wait_for_selector(f'{ROOT}[data-ready="true"]')
    return [
        int(i)
        for i in app.page.locator(f"{ROOT} .bpe-scroll .bpe-t").evaluate_all(
            "els => els.map(e => e.dataset.id)"
        )
    ]


def shown_pieces(app: AppPage) -> list[list[int]]:
    """The ids in each outlined piece; a piece that goes on over a line break
    (``bpe-piece-more``) is the same piece."""
    return app.page.locator(f"{ROOT} .bpe-piece").evaluate_all(
        """els => {
          const groups = [];
          for (const e of els) {
            const ids = [...e.querySelectorAll(".bpe-t")].map((t) => Number(t.dataset.id));
            if (e.classList.contains("bpe-piece-more") && groups.length) groups.at(-1).push(...ids);
            else groups.push(ids);
          }
          return groups;
        }"""
    )


@pytest.mark.parametrize("model", ["cl100k_base", "Trained here"])
def test_clicking_a_token_opens_its_build_tree(app: AppPage, model: str) -> None:
    tokenizer = tokenizer_for(model)
    app.open("tokenize", tok_model=model, tok_text=TEXT)
    ids = tokenizer.encode(TEXT)
    assert shown_ids(app) == ids
    # the longest token made by merges: a tree of a few levels
    index = max(range(len(ids)), key=lambda i: (len(tokenizer.token_bytes(ids[i])), -i))
    token_id = ids[index]
    app.page.locator(f"{ROOT} .bpe-scroll .bpe-t").nth(index).click()
    inspector = app.page.locator(f"{ROOT} .bpe-inspector")
    inspector.wait_for()
    assert f"Token id {token_id}" in inspector.inner_text()
    nodes = inspector.locator(".bpe-node[data-id]").evaluate_all(
        "els => els.map(e => Number(e.dataset.id))"
    )
    assert sorted(nodes) == tree_ids(tokenizer, token_id)
    assert len(nodes) > 3
    unit = "rank" if tokenizer.ranks is not None else "merge"
    number = token_parents(tokenizer, [token_id])[token_id][2]
    assert f"{unit} {number:,}" in inspector.inner_text().lower()
    hits = app.page.locator(f"{ROOT} .bpe-scroll .bpe-t.bpe-hit").count()
    assert hits == ids.count(token_id)
    inspector.locator(".bpe-close").click()
    assert app.page.locator(f"{ROOT} .bpe-inspector").count() == 0
    app.assert_clean()


@pytest.mark.parametrize("model", ["cl100k_base", "o200k_base", "Trained here"])
def test_show_pieces_outlines_the_pretokenizers_cuts(app: AppPage, model: str) -> None:
    """gpt4-style patterns: Japanese written without spaces is one piece (with the space
    before it) up to its 、, and
    12345 is cut 123|45."""
    tokenizer = tokenizer_for(model)
    app.open("tokenize", tok_model=model, tok_text=TEXT)
    assert app.page.locator(f"{ROOT} .bpe-piece").count() == 0
    toggle = app.page.locator(".st-key-tok_pieces").get_by_text("Show pieces")
    app.rerun(toggle.click)
    assert "tok_pieces=true" in app.page.url
    assert shown_ids(app) == tokenizer.encode(TEXT)
    pieces = shown_pieces(app)
    assert pieces == pieces_oracle(tokenizer, TEXT)
    texts = [tokenizer.decode(piece) for piece in pieces]
    assert " 駅前の小さな本屋で" in texts and "123" in texts and "45" in texts
    rule = app.page.locator(f"{ROOT} .bpe-pieces-rule")
    assert rule.is_visible() and rule.inner_text() == pieces_sentence(tokenizer.pretokenizer)
    app.assert_clean()


def test_hostile_text_stays_literal_in_pieces_and_inspector(app: AppPage) -> None:
    text = '<img src=x onerror="window.__x=1"> <script>window.__x=1</script>'
    app.open("tokenize", tok_model="cl100k_base", tok_text=text, tok_pieces="true")
    shown_ids(app)
    spans = app.page.locator(f"{ROOT} .bpe-scroll .bpe-t").all_text_contents()
    assert "".join(spans).replace("␣", " ") == text
    app.page.locator(f"{ROOT} .bpe-scroll .bpe-t").first.click()
    app.page.locator(f"{ROOT} .bpe-inspector").wait_for()
    assert app.canary() is None
    assert app.page.locator(f"{ROOT} img, {ROOT} script").count() == 0
    app.assert_clean()


@pytest.mark.parametrize(
    ("name", "params", "width"),
    [
        ("tokenize-inspector", {}, 1366),
        ("tokenize-inspector-present", {"present": "true"}, 1366),
        ("tokenize-inspector-800", {}, 800),
    ],
)
def test_screenshots_of_the_inspector_and_pieces(
    app: AppPage, screenshots: Path, name: str, params: dict[str, str], width: int
) -> None:
    app.page.set_viewport_size({"width": width, "height": 900})
    app.open("tokenize", tok_model="cl100k_base", tok_text=TEXT, tok_pieces="true", **params)
    ids = shown_ids(app)
    index = max(
        range(len(ids)), key=lambda i: len(load_encoding("cl100k_base").token_bytes(ids[i]))
    )
    app.page.locator(f"{ROOT} .bpe-scroll .bpe-t").nth(index).click()
    app.page.locator(f"{ROOT} .bpe-inspector").wait_for()
    app.page.locator(ROOT).scroll_into_view_if_needed()
    keep_screenshot(app.page, screenshots / f"{name}-screen.png")
    app.screenshot(screenshots / f"{name}.png")
    # the inspector and the text fit the width: nothing cut off on the right
    for selector in (f"{ROOT} .bpe-inspector", f"{ROOT} .bpe-scroll"):
        box = app.page.locator(selector).bounding_box()
        assert box and box["x"] + box["width"] <= width, selector
    app.assert_clean()
