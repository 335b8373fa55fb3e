"""tiktoken's own encodings of the real OpenAI tokenizers, for tests, with no network.

tiktoken's loaders download, so each ``tiktoken.Encoding`` is built here from tiktoken's
published recipe (``tiktoken_ext.openai_public``: name, pattern, special tokens, expected hash)
with its ranks read by tiktoken's ``load_tiktoken_bpe`` from the file the registry package
ships (gunzipped into a temporary folder first where it is a ``.gz``). Only the file's location
comes from bpeviz.
"""

from __future__ import annotations

import atexit
import gzip
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import tiktoken
import tiktoken.load
from tiktoken_ext import openai_public

from bpeviz.openai_ranks import ranks_path

_ORACLES: dict[str, tiktoken.Encoding] = {}


def tiktoken_encoding(name: str) -> tiktoken.Encoding:
    """tiktoken's own encoding for ``name``, from its published recipe and the shipped file."""
    if name not in _ORACLES:
        _ORACLES[name] = _build_oracle(name)
    return _ORACLES[name]


def _build_oracle(name: str) -> tiktoken.Encoding:
    path = ranks_path(name)
    plain = path
    if path.suffix == ".gz":
        folder = Path(tempfile.mkdtemp(prefix="bpeviz-oracle-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        plain = folder / path.stem
        plain.write_bytes(gzip.decompress(path.read_bytes()))

    def load_local(_url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        return tiktoken.load.load_tiktoken_bpe(str(plain), expected_hash=expected_hash)

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIKTOKEN_CACHE_DIR", "")  # no cache writes
        patch.setattr(openai_public, "load_tiktoken_bpe", load_local)
        recipe = getattr(openai_public, name)()
    return tiktoken.Encoding(
        name=recipe["name"],
        pat_str=recipe["pat_str"],
        mergeable_ranks=recipe["mergeable_ranks"],
        special_tokens=recipe["special_tokens"],
    )


def published(name: str) -> dict[str, Any]:
    """tiktoken's published recipe for ``name``, without loading its ranks."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(openai_public, "load_tiktoken_bpe", lambda *_a, **_k: {})
        return getattr(openai_public, name)()



