"""Mistral's Tekken tokenizer (``tekken_240911.json``), read out of the mistral-common wheel
that set-up downloads into the virtual environment.

mistral-common ships the file, but installing it would pull pydantic and friends and a numpy
older than ours, to read one JSON file. So ``make`` only downloads the wheel (pinned by its
SHA-256, ``requirements-tekken.txt``) into ``<venv>/share/bpeviz/``, and this module reads the
file straight out of it with :mod:`zipfile` (a wheel is a zip), after checking the wheel's
SHA-256 again. mistral-common is never installed nor imported.

Where the wheel is absent, Tekken is simply not offered: :func:`tekken_available` says so and
:data:`MISSING_NOTE` is the line a page or the CLI shows instead.

Mistral puts its BOS ``<s>`` (id 1) in front of every prompt: :func:`prompt_text` adds its
text, so it is encoded, drawn and counted as the special token it is, as a chat model's
``<|im_start|>`` is ("Hello world" is ``[1, 22177, 4304]``).
"""

from __future__ import annotations

import hashlib
import io
import sys
import zipfile
from functools import lru_cache
from pathlib import Path

from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats.tekken import from_tekken
from bpeviz.real.openai_ranks import RanksUnavailable

TEKKEN = "tekken_240911"  # what links and the CLI call it: the file's name
WHEEL = "mistral_common-1.13.1-py3-none-any.whl"
# PyPI's published SHA-256 of the wheel (the one requirements-tekken.txt pins).
WHEEL_SHA256 = "98b4d0755b8d90bf4691fa8f1b70cb3b4a8cd4dc1653c4ed08ef3d1c7d2c29af"
MEMBER = "mistral_common/data/tekken_240911.json"
BOS = "<s>"
# mistral-common's v3 multimodal Tekken (``MistralTokenizer.v3(is_tekken=True, is_mm=True)``)
SUMMARY = "Mistral's Tekken (Pixtral 12B), 131,072 tokens"
MISSING_NOTE = (
    f"{TEKKEN} (Mistral's Tekken) is not offered: its file comes in the mistral-common wheel, "
    "which `make tekken` (or `make run`) downloads into .venv/share/bpeviz."
)
# What the Tokenize page says above Tekken's tokens.
BOS_NOTE = (
    f"Mistral puts {BOS} (id 1, its BOS) before every prompt, so it comes first here, marked "
    "as a special token, and is counted. Typed in the text, <s>, [INST], [/INST] ... are read "
    "as the special tokens they spell."
)


class TekkenUnavailable(RanksUnavailable):
    """The wheel that holds Tekken's file is missing or damaged."""


def wheel_path() -> Path:
    """Where set-up puts the wheel: ``share/bpeviz`` in this Python's environment."""
    return Path(sys.prefix) / "share" / "bpeviz" / WHEEL


def tekken_available() -> bool:
    """Whether the wheel was downloaded (it is checked when read)."""
    return wheel_path().is_file()


def read_tekken_json() -> bytes:
    """``tekken_240911.json`` out of the wheel, whose SHA-256 is checked first."""
    path = wheel_path()
    redo = f"delete it and run `make tekken` to download it again ({path})"
    try:
        wheel = path.read_bytes()
    except OSError:
        raise TekkenUnavailable(MISSING_NOTE) from None
    digest = hashlib.sha256(wheel).hexdigest()
    if digest != WHEEL_SHA256:
        raise TekkenUnavailable(
            f"the mistral-common wheel is damaged (SHA-256 {digest[:12]}…, expected "
            f"{WHEEL_SHA256[:12]}…): {redo}"
        )
    try:
        with zipfile.ZipFile(io.BytesIO(wheel)) as archive:  # the bytes just checked
            return archive.read(MEMBER)
    except (zipfile.BadZipFile, KeyError) as error:
        raise TekkenUnavailable(f"cannot read {MEMBER} ({error}): {redo}") from None


@lru_cache(maxsize=1)
def load_tekken() -> Tokenizer:
    """Tekken as our own tokenizer, read once per process (about half a second): encoding
    ``prompt_text("Hello world")`` gives ``[1, 22177, 4304]``."""
    return from_tekken(read_tekken_json())


def prompt_text(text: str | bytes) -> str | bytes:
    """The text as Mistral encodes a prompt: its BOS in front.

    >>> prompt_text("Hello world"), prompt_text(b"hi")
    ('<s>Hello world', b'<s>hi')
    """
    return BOS.encode() + text if isinstance(text, bytes) else BOS + text
