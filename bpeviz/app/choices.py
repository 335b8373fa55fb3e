"""Which tokenizers a page can offer: the one trained here, the real OpenAI ones, and the one
imported on the Export / import page.

Option keys are short and stable, since links hold them (``?tok_model=o200k_base``). What is
left out: loading. :func:`bpeviz.app.training.chosen_tokenizer` turns a key into a tokenizer.
"""

from __future__ import annotations

from bpeviz.openai_ranks import REAL_ENCODINGS

TRAINED = "Trained here"
IMPORTED = "Imported"


def tokenizer_choices(
    *, trained_size: int | None = None, imported_name: str | None = None
) -> dict[str, str]:
    """Option key → caption, in the order offered: trained, the real ones, imported.

    >>> list(tokenizer_choices(trained_size=512))
    ['Trained here', 'cl100k_base', 'o200k_base', 'r50k_base', 'p50k_base']
    >>> tokenizer_choices(imported_name="tokenizer.json")["Imported"]
    'tokenizer.json, loaded on the Export / import page'
    """
    choices: dict[str, str] = {}
    if trained_size is not None:
        choices[TRAINED] = f"{trained_size:,} tokens, from the sidebar's text"
    for name, encoding in REAL_ENCODINGS.items():
        choices[name] = encoding.summary
    if imported_name is not None:
        choices[IMPORTED] = f"{imported_name}, loaded on the Export / import page"
    return choices


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
