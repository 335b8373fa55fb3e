"""Which tokenizers a page can offer: the one trained here, the real ones (OpenAI's, and
Mistral's Tekken where its wheel was downloaded), and the one imported on the Export / import
page.

Option keys are short and stable, since links hold them (``?tok_model=o200k_base``). What is
left out: loading. :func:`bpeviz.app.frame.training.chosen_tokenizer` turns a key into a tokenizer.
"""

from __future__ import annotations

from bpeviz.app.frame.inert import escape_markdown, visible_bidi
from bpeviz.real.mistral_tekken import BOS, TEKKEN
from bpeviz.real.openai_models import CHAT_MODELS, MODEL_ENCODINGS, chat_format, encoding_for_model
from bpeviz.real.registry import bundled_names, bundled_summary, missing_note

TRAINED = "Trained here"
BYTES = "UTF-8 bytes"  # no merge: where every byte-level BPE starts
IMPORTED = "Imported"
MODEL = "OpenAI model"
# The model names offered first (others can be typed: dated names such as gpt-4o-2024-05-13).
MODEL_NAMES: tuple[str, ...] = tuple(
    dict.fromkeys(["gpt-4o", "gpt-4o-mini", "gpt-4", "gpt-3.5-turbo", "gpt2", *CHAT_MODELS,
                   *MODEL_ENCODINGS])
)  # fmt: skip


def tokenizer_choices(
    *, trained_size: int | None = None, imported_name: str | None = None, models: bool = False
) -> dict[str, str]:
    """Option key → caption (Markdown), in the order offered: trained, the real ones, the
    bytes alone, (with ``models``) an OpenAI model by name, imported (the menu names it:
    :func:`menu_labels`).

    >>> list(tokenizer_choices(trained_size=512))[:5]
    ['Trained here', 'cl100k_base', 'o200k_base', 'r50k_base', 'p50k_base']
    >>> tokenizer_choices(imported_name="tokenizer.json")["Imported"]
    'loaded on the Export / import page'
    """
    choices: dict[str, str] = {}
    if trained_size is not None:
        choices[TRAINED] = f"{trained_size:,} tokens, from the sidebar's text"
    for name in bundled_names():
        choices[name] = bundled_summary(name)
    choices[BYTES] = "256 tokens, one per byte: the text before any merge"
    if models:
        choices[MODEL] = "a model by name (gpt-4o, gpt-4, gpt2...): its encoding and chat tokens"
    if imported_name is not None:
        choices[IMPORTED] = "loaded on the Export / import page"
    return choices


def menu_labels(
    options: list[str], *, imported_name: str | None, markdown: bool
) -> dict[str, str]:
    """How a menu names each option: by its key, and the imported file by its file name. The
    key stays what the link holds (``?tok_model=Imported``), so a link works whatever the
    file is called. ``markdown``: a radio's labels are Markdown, so the name is made inert; a
    select box shows plain text, where only its bidirectional controls need showing.

    >>> menu_labels(["cl100k_base", "Imported"], imported_name="my_*bpe*.json", markdown=True)
    {'cl100k_base': 'cl100k_base', 'Imported': 'my\\\\_\\\\*bpe\\\\*\\\\.json'}
    >>> menu_labels(["Imported"], imported_name="my_*bpe*.json", markdown=False)["Imported"]
    'my_*bpe*.json'
    """
    labels = {option: option for option in options}
    if imported_name is not None and IMPORTED in labels:
        labels[IMPORTED] = (escape_markdown if markdown else visible_bidi)(imported_name)
    return labels


def opened_on_import() -> dict[str, dict[str, str]]:
    """The links that open Tokenize and Compare on a file just imported: by page, the query
    that chooses it (Compare: against ``cl100k_base``, or the first real one offered).

    >>> opened_on_import()["tokenize"]
    {'tok_model': 'Imported'}
    """
    real = bundled_names()
    other = "cl100k_base" if "cl100k_base" in real else next(iter(real), TRAINED)
    return {
        "tokenize": {"tok_model": IMPORTED},
        "compare": {"cmp_left": IMPORTED, "cmp_right": other},
    }


def short_name(choice: str) -> str:
    """How a comparison names a side: ``yours``, ``imported`` or the encoding's name.

    >>> short_name(TRAINED), short_name("o200k_base")
    ('yours', 'o200k_base')
    """
    return {TRAINED: "yours", IMPORTED: "imported"}.get(choice, choice)


def default_pair(options: list[str]) -> tuple[str, str]:
    """The two tokenizers Compare opens with: the first two offered (yours and cl100k_base).

    >>> default_pair(["cl100k_base", "o200k_base"])
    ('cl100k_base', 'o200k_base')
    """
    if len(options) < 2:
        raise ValueError("comparing needs at least two tokenizers to choose from")
    return options[0], options[1]


def model_summary(name: str) -> str:
    """What a model name stands for: its encoding and, for a chat model, its markup's tokens.

    >>> model_summary("gpt2")
    'gpt2 uses `r50k_base`.'
    >>> print(model_summary("gpt-4o"))  # doctest: +NORMALIZE_WHITESPACE
    gpt-4o uses `o200k_base`, with its chat markup's special tokens <|im_start|> = 200264,
    <|im_end|> = 200265, <|im_sep|> = 200266.

    Raises ``ValueError`` (saying what to use) for a name that is not an OpenAI model.
    """
    summary = f"{name} uses `{encoding_for_model(name)}`"
    chat = chat_format(name)
    if chat is None:
        return summary + "."
    tokens = ", ".join(f"{text} = {token_id}" for text, token_id in chat.special_tokens.items())
    return f"{summary}, with its chat markup's special tokens {tokens}."


def compare_notes(picked: list[str]) -> list[str]:
    """What Compare says about its choices: a tokenizer not offered here, Tekken's BOS.

    >>> compare_notes(["tekken_240911", "cl100k_base"])[-1]
    "tekken_240911's tokens are the text's own: the <s> Mistral puts before a prompt is left out."
    """
    notes = [note] if (note := missing_note()) is not None else []
    if TEKKEN in picked:
        notes.append(
            f"{TEKKEN}'s tokens are the text's own: the {BOS} Mistral puts before a prompt is "
            "left out."
        )
    return notes
