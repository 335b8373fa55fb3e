"""OpenAI model names: which encoding each model uses and, for the chat models, their chat
markup's special tokens.

The names and their encodings are tiktoken's ``encoding_for_model`` table
(``tiktoken/model.py``: ``MODEL_TO_ENCODING`` for exact names, ``MODEL_PREFIX_TO_ENCODING``
for dated versions such as ``gpt-4o-2024-05-13``), kept to the encodings bpeviz ships; a name
whose encoding it does not ship (``o200k_harmony``, ``p50k_edit``) is refused by name.
tiktoken's ``gpt2`` encoding is ``r50k_base`` under another name (same ranks, pattern and
special token), so ``gpt2`` maps there.

The chat markup's ids come from tiktokenizer (``src/models/tokenizer.ts``), which adds
``<|im_start|>``, ``<|im_end|>`` and ``<|im_sep|>`` as 100264-100266 to ``cl100k_base`` for
gpt-3.5-turbo and gpt-4, and as 200264-200266 to ``o200k_base`` for gpt-4o; tiktoken's README
gives the same 100264 and 100265 for ``<|im_start|>`` and ``<|im_end|>``, and the gpt-4o ids are
the ones in the seed document's GPT-4o example (200264, 200266, 200265). Models whose chat
markup was not published that way (o1, gpt-4.1, gpt-5, ...) get their encoding only.
"""

from __future__ import annotations

from functools import lru_cache

from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.real.chat import IM_END, IM_SEP, IM_START, ChatFormat
from bpeviz.real.openai_ranks import REAL_ENCODING_NAMES, load_encoding

TIKTOKENIZER = "tiktokenizer's src/models/tokenizer.ts (dqbd/tiktokenizer)"

CHATML_NEWLINE = ChatFormat(
    name="ChatML, newline after the role",
    role_separator="\n",
    message_separator="\n",
    special_tokens={IM_START: 100264, IM_END: 100265, IM_SEP: 100266},
    source=TIKTOKENIZER,
)
CHATML_SEP_CL100K = ChatFormat(
    name="ChatML, <|im_sep|> after the role",
    role_separator=IM_SEP,
    message_separator="",
    special_tokens={IM_START: 100264, IM_END: 100265, IM_SEP: 100266},
    source=TIKTOKENIZER,
)
CHATML_SEP_O200K = ChatFormat(
    name="ChatML, <|im_sep|> after the role",
    role_separator=IM_SEP,
    message_separator="",
    special_tokens={IM_START: 200264, IM_END: 200265, IM_SEP: 200266},
    source=TIKTOKENIZER,
)

# tiktoken's exact names (left out: p50k_edit's edit models, listed in UNSHIPPED below).
MODEL_ENCODINGS: dict[str, str] = {
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o4-mini": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4o": "o200k_base",
    "gpt-4": "cl100k_base",
    "gpt-3.5-turbo": "cl100k_base",
    "gpt-3.5": "cl100k_base",
    "gpt-35-turbo": "cl100k_base",
    "davinci-002": "cl100k_base",
    "babbage-002": "cl100k_base",
    "text-embedding-ada-002": "cl100k_base",
    "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
    "text-davinci-003": "p50k_base",
    "text-davinci-002": "p50k_base",
    "text-davinci-001": "r50k_base",
    "text-curie-001": "r50k_base",
    "text-babbage-001": "r50k_base",
    "text-ada-001": "r50k_base",
    "davinci": "r50k_base",
    "curie": "r50k_base",
    "babbage": "r50k_base",
    "ada": "r50k_base",
    "code-davinci-002": "p50k_base",
    "code-davinci-001": "p50k_base",
    "code-cushman-002": "p50k_base",
    "code-cushman-001": "p50k_base",
    "davinci-codex": "p50k_base",
    "cushman-codex": "p50k_base",
    "text-similarity-davinci-001": "r50k_base",
    "text-similarity-curie-001": "r50k_base",
    "text-similarity-babbage-001": "r50k_base",
    "text-similarity-ada-001": "r50k_base",
    "text-search-davinci-doc-001": "r50k_base",
    "text-search-curie-doc-001": "r50k_base",
    "text-search-babbage-doc-001": "r50k_base",
    "text-search-ada-doc-001": "r50k_base",
    "code-search-babbage-code-001": "r50k_base",
    "code-search-ada-code-001": "r50k_base",
    "gpt2": "r50k_base",
    "gpt-2": "r50k_base",
}
# tiktoken's prefixes, in its order (the first that matches wins).
MODEL_PREFIXES: tuple[tuple[str, str], ...] = (
    ("o1-", "o200k_base"),
    ("o3-", "o200k_base"),
    ("o4-mini-", "o200k_base"),
    ("gpt-5", "o200k_base"),
    ("gpt-4.5-", "o200k_base"),
    ("gpt-4.1-", "o200k_base"),
    ("chatgpt-4o-", "o200k_base"),
    ("gpt-4o-", "o200k_base"),
    ("gpt-4-", "cl100k_base"),
    ("gpt-3.5-turbo-", "cl100k_base"),
    ("gpt-35-turbo-", "cl100k_base"),
    ("gpt-oss-", "o200k_harmony"),
    ("ft:gpt-4o", "o200k_base"),
    ("ft:gpt-4", "cl100k_base"),
    ("ft:gpt-3.5-turbo", "cl100k_base"),
    ("ft:davinci-002", "cl100k_base"),
    ("ft:babbage-002", "cl100k_base"),
)
UNSHIPPED: dict[str, str] = {
    "text-davinci-edit-001": "p50k_edit",
    "code-davinci-edit-001": "p50k_edit",
}

# Chat markup by name (exact) or prefix, as tiktokenizer builds it: gpt-3.5-turbo's own
# newline form, gpt-4's and gpt-4o's <|im_sep|> form (dated versions included).
CHAT_MODELS: dict[str, ChatFormat] = {  # the first, a current model, is the chat view's default
    "gpt-4o": CHATML_SEP_O200K,
    "gpt-4o-mini": CHATML_SEP_O200K,
    "gpt-4": CHATML_SEP_CL100K,
    "gpt-4-32k": CHATML_SEP_CL100K,
    "gpt-3.5-turbo": CHATML_NEWLINE,
    "gpt-35-turbo": CHATML_NEWLINE,
}
_CHAT_PREFIXES = (
    ("gpt-3.5-turbo-", CHATML_NEWLINE),
    ("gpt-35-turbo-", CHATML_NEWLINE),
    ("gpt-4o-", CHATML_SEP_O200K),
    ("chatgpt-4o-", CHATML_SEP_O200K),
    ("gpt-4-", CHATML_SEP_CL100K),
)


def encoding_for_model(name: str) -> str:
    """The encoding a model name (or an encoding name) stands for, as tiktoken maps it.

    >>> encoding_for_model("gpt-4o"), encoding_for_model("gpt-4-0613"), encoding_for_model("gpt2")
    ('o200k_base', 'cl100k_base', 'r50k_base')
    """
    if name in REAL_ENCODING_NAMES:
        return name
    if name in MODEL_ENCODINGS:
        return MODEL_ENCODINGS[name]
    encoding = UNSHIPPED.get(name) or next(
        (encoding for prefix, encoding in MODEL_PREFIXES if name.startswith(prefix)), None
    )
    if encoding is None:
        raise ValueError(
            f"unknown encoding or model {name!r}: use an encoding "
            f"({', '.join(REAL_ENCODING_NAMES)}) or an OpenAI model name such as gpt-4o, gpt-4, "
            "gpt-3.5-turbo or gpt2"
        )
    if encoding not in REAL_ENCODING_NAMES:
        raise ValueError(
            f"{name} uses the {encoding} encoding, which bpeviz does not ship: use an encoding "
            f"({', '.join(REAL_ENCODING_NAMES)}) or another model"
        )
    return encoding


def chat_format(name: str) -> ChatFormat | None:
    """The model's chat markup, or ``None`` when none was published for it.

    >>> chat_format("gpt-4o-2024-05-13").special_tokens["<|im_start|>"]
    200264
    >>> chat_format("o200k_base") is None
    True
    """
    if name in CHAT_MODELS:
        return CHAT_MODELS[name]
    return next((chat for prefix, chat in _CHAT_PREFIXES if name.startswith(prefix)), None)


def load_named(name: str) -> Tokenizer:
    """The tokenizer for an encoding or a model name: a chat model's encoding with its chat
    markup's special tokens added (the ranks are shared with the encoding, not copied).

    >>> load_named("gpt-4o").encode("<|im_start|>system<|im_sep|>")  # seed 000's ids
    [200264, 17360, 200266]
    """
    encoding = encoding_for_model(name)
    chat = chat_format(name)
    if chat is None:
        return load_encoding(encoding)
    return _with_chat_tokens(encoding, tuple(sorted(chat.special_tokens.items())))


@lru_cache(maxsize=4)  # one per encoding and chat tokens: gpt-4o and gpt-4o-mini share one
def _with_chat_tokens(encoding: str, chat_tokens: tuple[tuple[str, int], ...]) -> Tokenizer:
    base = load_encoding(encoding)
    assert base.ranks is not None
    return Tokenizer.from_ranks(
        base.ranks,
        pattern=base.split_pattern,
        special_tokens={**base.special_tokens, **dict(chat_tokens)},
    )


def model_names() -> list[str]:
    """Every exact model name offered, chat models first."""
    return [*CHAT_MODELS, *(name for name in MODEL_ENCODINGS if name not in CHAT_MODELS)]
