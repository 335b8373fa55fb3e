"""Chat markup: how a list of system / user / assistant messages becomes the one text a chat
model reads, and how many tokens each message costs in it.

A chat model never sees messages, only text in which special tokens frame each message
(``<|im_start|>user<|im_sep|>Hi<|im_end|>``). Those tokens are the first reason token counts
differ between tools, so :func:`encode_chat` keeps them apart from the messages' own text:
the markup's special tokens are encoded as special tokens, while a message's content is always
encoded as ordinary text, even where it spells ``<|im_end|>`` (as the chat APIs do: a user
cannot close a message by typing its marker).

The two formats are the ones tiktokenizer builds for OpenAI's chat models (its
``ChatGPTEditor``): gpt-3.5-turbo separates the role from the content, and the messages from
each other, with a newline; gpt-4 and gpt-4o put ``<|im_sep|>`` after the role and nothing
between messages. Either way the text ends with the start of the assistant's reply, which is
what the model is asked to continue.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bpeviz.engine.tokenizer import Tokenizer

IM_START, IM_END, IM_SEP = "<|im_start|>", "<|im_end|>", "<|im_sep|>"
ROLES = ("system", "user", "assistant")
REPLY = "reply"  # the label of the part that opens the assistant's reply


@dataclass(frozen=True)
class ChatFormat:
    """One model family's chat markup and the ids of its special tokens."""

    name: str
    role_separator: str  # between a message's role and its content
    message_separator: str  # between two messages (and before the reply's opening)
    special_tokens: dict[str, int] = field(hash=False)
    source: str  # where the ids were published


@dataclass(frozen=True)
class ChatPart:
    """One message (or the reply's opening) in the encoded chat: its tokens' index range."""

    role: str
    content: str
    start: int  # index of its first token in ChatEncoding.ids
    end: int  # one past its last token

    @property
    def tokens(self) -> int:
        return self.end - self.start


@dataclass(frozen=True)
class ChatEncoding:
    """A chat built into the model's markup: the text, its ids and each part's share."""

    text: str
    ids: list[int]
    parts: list[ChatPart]


def encode_chat(
    tokenizer: Tokenizer, chat_format: ChatFormat, messages: Sequence[tuple[str, str]]
) -> ChatEncoding:
    """Build ``(role, content)`` messages into ``chat_format``'s markup and encode it.

    Only the markup's own special tokens count as special; content is ordinary text. With no
    special-token text in the contents, the ids are those of the whole markup text encoded
    with special tokens allowed (special tokens end every pre-tokenizer piece, so encoding
    the parts one by one changes nothing).

    >>> from bpeviz.engine.tokenizer import Tokenizer
    >>> plain = ChatFormat("plain", ":", "", {IM_START: 256, IM_END: 257}, "a doctest")
    >>> bytes_only = Tokenizer.from_merges([], special_tokens=[IM_START, IM_END])
    >>> chat = encode_chat(bytes_only, plain, [("user", "hi")])
    >>> chat.text
    '<|im_start|>user:hi<|im_end|><|im_start|>assistant:'
    >>> chat.ids[:9]
    [256, 117, 115, 101, 114, 58, 104, 105, 257]
    >>> [(part.role, part.tokens) for part in chat.parts]
    [('user', 9), ('reply', 11)]
    """
    missing = [text for text in (IM_START, IM_END) if text not in tokenizer.special_tokens]
    if missing:
        raise ValueError(
            f"this tokenizer lacks the chat markup's special token {missing[0]!r}: choose a "
            "chat model's tokenizer"
        )
    ids: list[int] = []
    parts: list[ChatPart] = []
    text: list[str] = []

    def add(pieces: Sequence[tuple[str, bool]], role: str, content: str) -> None:
        start = len(ids)
        ordinary = ""
        for piece, special in pieces:
            text.append(piece)
            if special:
                ids.extend(tokenizer.encode(ordinary, allow_special=False))
                ordinary = ""
                ids.append(tokenizer.special_tokens[piece])
            else:
                ordinary += piece
        ids.extend(tokenizer.encode(ordinary, allow_special=False))
        parts.append(ChatPart(role, content, start, len(ids)))

    separator = chat_format.message_separator
    role_separator = _pieces(chat_format.role_separator, tokenizer)
    for index, (role, content) in enumerate(messages):
        if role not in ROLES:
            raise ValueError(f"unknown chat role {role!r}: use one of {', '.join(ROLES)}")
        lead = [(separator, False)] if index and separator else []
        pieces = [*lead, (IM_START, True), (role, False), *role_separator]
        add([*pieces, (content, False), (IM_END, True)], role, content)
    lead = [(separator, False)] if messages and separator else []
    add([*lead, (IM_START, True), ("assistant", False), *role_separator], REPLY, "")
    return ChatEncoding("".join(text), ids, parts)


COOKBOOK_PER_MESSAGE = 3  # <|im_start|>, the role's end, <|im_end|>
COOKBOOK_REPLY = 3  # the reply's opening, <|im_start|>assistant<|im_sep|>


def cookbook_count(tokenizer: Tokenizer, messages: Sequence[tuple[str, str]]) -> int:
    """A chat's prompt tokens by OpenAI's cookbook rule ("How to count tokens with tiktoken",
    for gpt-3.5-turbo-0613 and later, gpt-4, gpt-4o): 3 per message, its role and content
    encoded as text, and 3 for the reply's opening. The cookbook checks this against the
    prompt tokens the API reports, which is what it bills.

    >>> cookbook_count(Tokenizer(), [("user", "hi")])  # bytes only: 4 + 2 + 3 + 3
    12
    """
    return COOKBOOK_REPLY + sum(
        COOKBOOK_PER_MESSAGE
        + len(tokenizer.encode(role, allow_special=False))
        + len(tokenizer.encode(content, allow_special=False))
        for role, content in messages
    )


def _pieces(separator: str, tokenizer: Tokenizer) -> list[tuple[str, bool]]:
    """A separator as one piece, special when it is one of the tokenizer's special tokens."""
    return [(separator, separator in tokenizer.special_tokens)] if separator else []
