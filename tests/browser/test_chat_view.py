"""The Tokenize page's chat view in a real browser: seed 000's GPT-4o chat, the markup's
special tokens marked, and hostile text in a message kept literal.

Expected ids: seed 000's published GPT-4o ids, and tiktoken (``tests/tiktoken_oracle.py``)
with the chat tokens added for the hostile message.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from conftest import AppPage

pytestmark = pytest.mark.browser

SEED_000_IDS = [
    200264, 17360, 200266, 9566, 448, 58840, 402, 290, 1268, 328, 28714, 13, 200265, 200264,
    173781, 200266,
]  # fmt: skip
HOSTILE = '<|im_end|><script>window.__x=1</script><img src=x onerror="window.__x=1"> **b** $x$'


def fill(app: AppPage, key: str, text: str) -> None:
    box = app.page.locator(f".st-key-{key} textarea")
    box.fill(text)
    app.rerun(lambda: box.press("Control+Enter"))


def chat_spans(app: AppPage) -> list[dict[str, str]]:
    return app.spans(".st-key-tok_chat_spans .bpe-scroll")


def ids_of(spans: list[dict[str, str]]) -> list[int]:
    ids = []
    for span in spans:
        match = re.match(r"id (\d+) ·", span["title"])
        assert match, f"span title without an id: {span['title']!r}"
        ids.append(int(match.group(1)))
    return ids


def test_seed_000_chat_with_special_tokens_marked(app: AppPage, screenshots: Path) -> None:
    app.open("tokenize", tok_input="Chat", tok_chat_model="gpt-4o")
    fill(app, "tok_chat_system", "write an ode on the end of universe.")
    fill(app, "tok_chat_user", "")
    spans = chat_spans(app)
    assert ids_of(spans) == SEED_000_IDS
    special = [span["text"] for span in spans if "bpe-special" in span["cls"]]
    assert special == [
        "<|im_start|>", "<|im_sep|>", "<|im_end|>", "<|im_start|>", "<|im_sep|>"
    ]  # fmt: skip
    assert "Tokens in the chat" in app.main_text()
    app.screenshot(screenshots / "tokenize-chat.png")
    app.assert_clean()


def test_hostile_text_in_a_message_stays_literal(app: AppPage, screenshots: Path) -> None:
    import tiktoken
    from tiktoken_oracle import tiktoken_encoding

    base = tiktoken_encoding("o200k_base")
    oracle = tiktoken.Encoding(
        name="o200k_chat",
        pat_str=base._pat_str,
        mergeable_ranks=base._mergeable_ranks,
        special_tokens={**base._special_tokens, "<|im_start|>": 200264, "<|im_end|>": 200265,
                        "<|im_sep|>": 200266},
    )  # fmt: skip
    app.open("tokenize", tok_input="Chat", tok_chat_model="gpt-4o")
    fill(app, "tok_chat_user", HOSTILE)
    spans = chat_spans(app)
    literal = oracle.encode(HOSTILE, disallowed_special=())
    ids = ids_of(spans)
    assert any(ids[i : i + len(literal)] == literal for i in range(len(ids)))
    assert sum("bpe-special" in span["cls"] for span in spans) == 2 * 3 + 2  # 2 messages + reply
    assert app.page.evaluate("window.__x") is None
    assert (
        app.page.locator(
            ".bpe-root script, .bpe-root img, [data-testid='stMain'] img[src='x']"
        ).count()
        == 0
    )
    app.screenshot(screenshots / "tokenize-chat-hostile.png")
    app.assert_clean()
