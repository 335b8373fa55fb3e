"""tiktoken's own encodings of the real OpenAI tokenizers, for tests, with no network.

tiktoken's loaders download, so each ``tiktoken.Encoding`` is built here from tiktoken's
published recipe (``tiktoken_ext.openai_public``: name, pattern, special tokens, expected hash)
with its ranks read by tiktoken's ``load_tiktoken_bpe`` from the file the registry package
ships (gunzipped into a temporary folder first where it is a ``.gz``). Only the file's location
comes from bpeviz.

GPT-2's ranks ship as GPT-2's ``encoder.json`` + ``vocab.bpe``: tiktoken's own
``data_gym_to_mergeable_bpe_ranks`` (its ``gpt2`` recipe, with the hashes it publishes for
those two files) reads them, and ``p50k_base`` adds its 24 runs of spaces. The ranks are then
written out in the ``.tiktoken`` format and read back by ``load_tiktoken_bpe`` with
the published hash of ``r50k_base.tiktoken`` / ``p50k_base.tiktoken``: tiktoken itself checks
that they are the published files.
"""

from __future__ import annotations

import atexit
import base64
import functools
import gzip
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
import tiktoken
import tiktoken.load
from tiktoken_ext import openai_public

from bpeviz.real.openai_ranks import ranks_path

_ORACLES: dict[str, tiktoken.Encoding] = {}


def tiktoken_encoding(name: str) -> tiktoken.Encoding:
    """tiktoken's own encoding for ``name``, from its published recipe and the shipped file."""
    if name not in _ORACLES:
        _ORACLES[name] = _build_oracle(name)
    return _ORACLES[name]


def _gpt2_ranks_file(name: str, encoder_json: Path) -> Path:
    """A ``.tiktoken`` file of GPT-2's ranks (plus p50k's space runs), made by tiktoken."""
    hashes: dict[str, str] = {}
    with pytest.MonkeyPatch.context() as patch:  # what tiktoken's gpt2 recipe passes
        patch.setattr(
            openai_public, "data_gym_to_mergeable_bpe_ranks", lambda **kw: hashes.update(kw) or {}
        )
        openai_public.gpt2()
    vocab_bpe = encoder_json.with_name("vocab.bpe")
    for path, key in ((vocab_bpe, "vocab_bpe_hash"), (encoder_json, "encoder_json_hash")):
        assert tiktoken.load.check_hash(path.read_bytes(), hashes[key]), path
    ranks = tiktoken.load.data_gym_to_mergeable_bpe_ranks(str(vocab_bpe), str(encoder_json))
    if name == "p50k_base":
        ranks.update({b" " * length: 50255 + length for length in range(2, 26)})
    folder = Path(tempfile.mkdtemp(prefix="bpeviz-oracle-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    plain = folder / f"{name}.tiktoken"
    plain.write_bytes(  # the .tiktoken format (tiktoken's dump_tiktoken_bpe needs blobfile)
        b"".join(
            base64.b64encode(token) + b" %d\n" % rank
            for token, rank in sorted(ranks.items(), key=lambda item: item[1])
        )
    )
    return plain


def _build_oracle(name: str) -> tiktoken.Encoding:
    path = ranks_path(name)
    plain = path
    if path.name == "encoder.json":
        plain = _gpt2_ranks_file(name, path)
    elif path.suffix == ".gz":
        folder = Path(tempfile.mkdtemp(prefix="bpeviz-oracle-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        plain = folder / path.stem
        plain.write_bytes(gzip.decompress(path.read_bytes()))

    def load_local(_url: str, expected_hash: str | None = None) -> dict[bytes, int]:
        # tiktoken checks the hash only when it downloads, so check it here
        assert expected_hash and tiktoken.load.check_hash(plain.read_bytes(), expected_hash)
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


@functools.cache
def chat_oracle(model: str) -> tiktoken.Encoding:
    """tiktoken's encoding for ``model``'s encoding, with its chat tokens added (their ids
    as bpeviz.real.openai_models states them, from the published tokenizers)."""
    from bpeviz.real.openai_models import chat_format, encoding_for_model

    base = tiktoken_encoding(encoding_for_model(model))
    return tiktoken.Encoding(
        name=f"{base.name}_chat",
        pat_str=base._pat_str,
        mergeable_ranks=base._mergeable_ranks,
        special_tokens={**base._special_tokens, **chat_format(model).special_tokens},
    )
