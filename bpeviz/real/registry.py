"""Every real tokenizer offered by name, on every page and in the CLI: OpenAI's encodings
(their files come with registry packages, :mod:`bpeviz.real.openai_ranks`) and Mistral's Tekken
(when set-up downloaded its wheel, :mod:`bpeviz.real.mistral_tekken`).

Pages and the CLI ask this module, never the two registries, so a tokenizer added here is
offered everywhere at once. What differs between them stays here too: Tekken's prompts start
with its BOS.
"""

from __future__ import annotations

from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.real import mistral_tekken
from bpeviz.real.openai_models import load_named
from bpeviz.real.openai_ranks import REAL_ENCODING_NAMES, REAL_ENCODINGS


def bundled_names() -> tuple[str, ...]:
    """The names offered, OpenAI's first; Tekken only when its wheel is there."""
    tekken = (mistral_tekken.TEKKEN,) if mistral_tekken.tekken_available() else ()
    return (*REAL_ENCODING_NAMES, *tekken)


def bundled_summary(name: str) -> str:
    """``"GPT-4's tokenizer, 100,256 tokens"``: what a page's caption says about it."""
    if name == mistral_tekken.TEKKEN:
        return mistral_tekken.SUMMARY
    return REAL_ENCODINGS[name].summary


def load_bundled(name: str) -> Tokenizer:
    """The tokenizer called ``name``: Tekken, an OpenAI encoding or an OpenAI model name
    (with its chat tokens). Cached per process by the loaders.

    Raises ``RanksUnavailable`` (saying what to run or install) when its file is missing,
    ``ValueError`` for a name that is none of these.
    """
    if name == mistral_tekken.TEKKEN:
        return mistral_tekken.load_tekken()
    return load_named(name)


def prompt_text(name: str, text: str | bytes) -> str | bytes:
    """The text as the model would be given it: Tekken's BOS in front, others as they are.

    >>> prompt_text("tekken_240911", "hi"), prompt_text("cl100k_base", "hi")
    ('<s>hi', 'hi')
    """
    return mistral_tekken.prompt_text(text) if name == mistral_tekken.TEKKEN else text


def missing_note() -> str | None:
    """The line shown where a tokenizer would be offered but its file is missing."""
    return None if mistral_tekken.tekken_available() else mistral_tekken.MISSING_NOTE
