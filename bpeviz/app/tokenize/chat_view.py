"""The Tokenize page's chat view: system, user and assistant messages built into a chat
model's markup (:mod:`bpeviz.real.chat`), drawn as tokens with the markup's special tokens marked,
and what each message costs.

Why a view of its own: a chat model is billed for the markup too, so a message's count in a
chat is not the count of its text alone; this shows both the total and each message's share.
The messages travel in the link while short, as the text box does.
"""

from __future__ import annotations

import streamlit as st

from bpeviz.app.frame.inert import escape_markdown
from bpeviz.app.frame.training import named_tokenizer
from bpeviz.app.frame.widgets import columns, linked_text_area
from bpeviz.app.shared.token_view import show_tokens
from bpeviz.real.chat import REPLY, cookbook_count, encode_chat
from bpeviz.real.openai_models import CHAT_MODELS, chat_format, encoding_for_model

DEFAULT_MESSAGES = {
    "system": "You are a helpful assistant.",
    "user": "How many tokens is this message?",
    "assistant": "",
}
LABELS = {
    "system": "System message",
    "user": "User message",
    "assistant": "Assistant message (an earlier reply)",
}


def show_chat_view() -> None:
    """Draw the chat view: model, messages (an empty box is left out), the markup's tokens
    and the counts."""
    model = st.selectbox(
        "Chat model",
        list(CHAT_MODELS),
        key="tok_chat_model",
        bind="query-params",
        help="The model's encoding and its chat markup's special tokens, as tiktoken and "
        "tiktokenizer publish them.",
    )
    chat = chat_format(model)
    assert chat is not None
    encoding = encoding_for_model(model)
    ids_text = ", ".join(f"`{text}` = {token_id}" for text, token_id in chat.special_tokens.items())
    separator = "a newline" if chat.role_separator == "\n" else f"`{chat.role_separator}`"
    st.caption(
        f"{model} uses `{encoding}`; its chat markup puts {separator} after the role "
        f"({ids_text}; ids from {chat.source})."
    )
    messages = []
    for role, default in DEFAULT_MESSAGES.items():
        content = linked_text_area(LABELS[role], key=f"tok_chat_{role}", default=default, height=80)
        if content:  # an empty box is no message
            messages.append((role, content))
    try:
        tokenizer = named_tokenizer(model)
    except (RuntimeError, ValueError) as error:
        st.error(escape_markdown(f"{model} is not available: {error}"))
        return
    encoded = encode_chat(tokenizer, chat, messages)
    special = sum(tokenizer.is_special(token_id) for token_id in encoded.ids)
    counts = columns(4, key="tokenize_chat_counts", pairs=True)
    counts[0].metric("Tokens in the chat", f"{len(encoded.ids):,}")
    counts[1].metric("OpenAI's count (billed)", f"{cookbook_count(tokenizer, messages):,}")
    counts[2].metric("Markup's special tokens", f"{special:,}")
    counts[3].metric("Messages", f"{len(messages):,}")
    st.caption(
        "Two ways to count: the markup's tokens, drawn below, and OpenAI's cookbook rule (3 "
        "per message, its role and text, 3 for the reply's opening), which the cookbook checks "
        "against the prompt tokens the API reports and bills. They agree for gpt-4o and gpt-4; "
        "where they differ (gpt-3.5-turbo's newline markup), the cookbook's is billed."
    )
    st.table(
        {
            "part": [
                "reply's opening" if part.role == REPLY else part.role for part in encoded.parts
            ],
            "tokens": [part.tokens for part in encoded.parts],
        }
    )
    st.caption(
        "Dashed boxes are the markup's special tokens; a message's own text is always ordinary "
        "text, even where it spells a marker such as `<|im_end|>`. The chat ends by opening the "
        "assistant's reply, the part the model writes next."
    )
    show_tokens(tokenizer, encoded.ids, key="tok_chat_spans")
