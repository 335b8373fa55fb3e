"""Glue for the Export page: download payloads, the merge history as CSV, uploads read back.

The file formats themselves live in :mod:`bpeviz.formats`; this module only decides which
files a download offers, names them, and turns an upload into a tokenizer or a message that
says what is wrong with it (never a traceback). It imports no Streamlit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import pandas as pd

from bpeviz.engine.corpus import BYTE_COUNT
from bpeviz.engine.pretokenize import GPT4_SPLIT_PATTERN, PRETOKENIZER_REGISTRY
from bpeviz.engine.readable import readable
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats import is_hf_json, load_model_file
from bpeviz.formats.gpt2 import from_gpt2_files, to_gpt2_files
from bpeviz.formats.hf_json import to_hf_json
from bpeviz.formats.hf_models import LibraryTokenizer, read_tokenizer_json
from bpeviz.formats.minbpe import to_minbpe_model, to_minbpe_vocab
from bpeviz.formats.tiktoken import from_tiktoken, to_tiktoken


def first_tokens_frame(
    tokenizer: Tokenizer, *, start: int = BYTE_COUNT, limit: int = 50
) -> pd.DataFrame:
    """The first ``limit`` tokens from id ``start`` on (by default the first learned ones).

    Rank tables (``.tiktoken``) number their single bytes by rank, so for them every id from
    ``start`` is shown whatever its length.

    >>> first_tokens_frame(Tokenizer.from_merges([(97, 97)])).values.tolist()
    [[256, 'aa', 2]]
    """
    ids = sorted(token_id for token_id in tokenizer.vocab if token_id >= start)[:limit]
    rows = [
        (token_id, readable(tokenizer.vocab[token_id]), len(tokenizer.vocab[token_id]))
        for token_id in ids
    ]
    return pd.DataFrame(rows, columns=["id", "token", "bytes"])


@dataclass(frozen=True)
class ModelSummary:
    """What an uploaded model is: enough to tell a student what they just loaded."""

    kind: str
    vocab_size: int
    merges: int
    pattern: str
    special_tokens: dict[str, int] = field(default_factory=dict)

    def frame(self) -> pd.DataFrame:
        """:meth:`as_rows` as a two-column table (``property``, ``value``) for the page."""
        return pd.DataFrame(self.as_rows(), columns=["property", "value"])

    def as_rows(self) -> list[tuple[str, str]]:
        specials = ", ".join(
            f"{text} = {token_id}" for text, token_id in self.special_tokens.items()
        )
        return [
            ("kind", self.kind),
            ("vocab size", f"{self.vocab_size:,}"),
            ("merges", f"{self.merges:,}"),
            ("split pattern", pattern_description(self.pattern)),
            ("special tokens", specials or "(none)"),
        ]


def pattern_description(pattern: str) -> str:
    """A split pattern named when it is a published one, shown in full otherwise.

    >>> pattern_description("")
    '(none: the whole text is one piece)'
    >>> from bpeviz.engine.pretokenize import GPT2_SPLIT_PATTERN
    >>> pattern_description(GPT2_SPLIT_PATTERN)[:22]
    "GPT-2's pattern: '(?:["
    """
    if not pattern:
        return f"({PRETOKENIZER_REGISTRY['bytes'].label})"
    for info in PRETOKENIZER_REGISTRY.values():
        if info.pattern == pattern:
            return f"{info.label}: {pattern}"
    return pattern


def summarize(tokenizer: Tokenizer, kind: str) -> ModelSummary:
    """Kind, size, merge count, split pattern and special tokens of a tokenizer.

    >>> summarize(Tokenizer.from_merges([(97, 97)]), "minbpe .model").merges
    1
    """
    merges = len(tokenizer.merges) if tokenizer.ranks is None else len(tokenizer.vocab) - BYTE_COUNT
    return ModelSummary(
        kind=kind,
        vocab_size=tokenizer.vocab_size,
        merges=merges,
        pattern=tokenizer.split_pattern,
        special_tokens=dict(tokenizer.special_tokens),
    )


@dataclass(frozen=True)
class Download:
    """One file to offer for download."""

    label: str
    file_name: str
    data: bytes
    mime: str


@dataclass(frozen=True)
class FormatExport:
    """The files of one format, or why this model cannot be written in it."""

    title: str
    files: tuple[Download, ...] = ()
    error: str | None = None


def _utf8(text: str) -> bytes:
    return text.encode("utf-8")


def export_formats(tokenizer: Tokenizer, *, stem: str = "bpeviz") -> list[FormatExport]:
    """The model in every format :mod:`bpeviz.formats` writes, each checked on its own.

    A format that cannot hold this model (``</w>`` markers, the ``words`` pre-tokenizer in a
    ``.model``, two tokens with the same bytes...) comes back with ``error`` set to the
    reason :mod:`bpeviz.formats` gives, and no files; the others are unaffected.

    >>> [item.title for item in export_formats(Tokenizer.from_merges([(97, 97)]))][2:]
    ['tiktoken .tiktoken', 'Hugging Face tokenizer.json']
    """
    makers = (
        ("minbpe .model + .vocab", _minbpe_files),
        ("GPT-2 vocab.json + merges.txt", _gpt2_files),
        ("tiktoken .tiktoken", _tiktoken_files),
        ("Hugging Face tokenizer.json", _hf_json_files),
    )
    results = []
    for title, make in makers:
        try:
            results.append(FormatExport(title, files=make(tokenizer, stem)))
        except ValueError as error:
            results.append(FormatExport(title, error=str(error)))
    return results


def _minbpe_files(tokenizer: Tokenizer, stem: str) -> tuple[Download, ...]:
    model = to_minbpe_model(tokenizer)
    return (
        Download(".model", f"{stem}.model", _utf8(model), "text/plain"),
        Download(
            ".vocab (for reading)",
            f"{stem}.vocab",
            _utf8(to_minbpe_vocab(tokenizer)),
            "text/plain",
        ),
    )


def _gpt2_files(tokenizer: Tokenizer, stem: str) -> tuple[Download, ...]:
    vocab_json, merges_txt = to_gpt2_files(tokenizer)
    return (
        Download("vocab.json", f"{stem}-vocab.json", _utf8(vocab_json), "application/json"),
        Download("merges.txt", f"{stem}-merges.txt", _utf8(merges_txt), "text/plain"),
    )


def _tiktoken_files(tokenizer: Tokenizer, stem: str) -> tuple[Download, ...]:
    ranks = to_tiktoken(tokenizer)
    return (Download(".tiktoken", f"{stem}.tiktoken", _utf8(ranks), "text/plain"),)


def _hf_json_files(tokenizer: Tokenizer, stem: str) -> tuple[Download, ...]:
    document = to_hf_json(tokenizer)
    return (
        Download(
            "tokenizer.json", f"{stem}-tokenizer.json", _utf8(document), "application/json"
        ),
    )


def file_stem(name: str, vocab_size: int) -> str:
    """A safe download name from a text name and the vocabulary size.

    >>> file_stem("The Printer: 1st draft!", 512)
    'bpeviz-the-printer-1st-draft-512'
    """
    slug = _slug(name)
    return f"bpeviz-{slug}-{vocab_size}" if slug else f"bpeviz-{vocab_size}"


def page_file_name(name: str, merge_count: int) -> str:
    """The exported page's download name: the text and how many merges it steps through
    (it was ``…-512-steps.html`` for 256 merges: the vocab size read as a step count).

    >>> page_file_name("English sample", 256)
    'bpeviz-english-sample-256-merges.html'
    """
    slug = _slug(name)
    return f"bpeviz-{slug + '-' if slug else ''}{merge_count}-merges.html"


def _slug(name: str) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", name.lower()))[:40].strip("-")


# The split patterns a rank table or GPT-2 files may be read with (they store none).
PATTERN_CHOICES: dict[str, str] = {
    name: PRETOKENIZER_REGISTRY[name].pattern for name in ("gpt4", "gpt2", "bytes")
}


def pattern_label(name: str) -> str:
    """How the pattern menu shows a key of :data:`PATTERN_CHOICES` (a module's function, not a
    page's: Streamlit keeps a menu's ``format_func``, and a page's would hold its globals).

    >>> pattern_label("gpt2")
    "GPT-2's pattern"
    """
    return PRETOKENIZER_REGISTRY[name].label
UPLOAD_TYPES: tuple[str, ...] = ("model", "tiktoken", "json", "txt", "vocab")


@dataclass(frozen=True)
class LoadedModel:
    """A tokenizer read from uploaded files, with what it was read from."""

    tokenizer: Tokenizer | LibraryTokenizer
    kind: str
    source: str  # the file names, for the page to show

    @cached_property
    def summary(self) -> ModelSummary:
        """Counted once: a model of 200,000 tokens is summarised on every rerun otherwise."""
        if isinstance(self.tokenizer, LibraryTokenizer):
            raise ValueError("a file the tokenizers library encodes has no merge summary")
        return summarize(self.tokenizer, self.kind)


def load_upload(files: Sequence[tuple[str, bytes]], *, pattern: str = "gpt4") -> LoadedModel:
    """Read uploaded model files; a bad upload raises ``ValueError`` with a message for people.

    ``files`` are ``(name, contents)``: one ``.model``, ``.tiktoken`` or Hugging Face
    ``tokenizer.json`` file (which stores its own split pattern), or the pair
    ``vocab.json`` + ``merges.txt``. ``pattern`` (a key of :data:`PATTERN_CHOICES`) is the split
    pattern for the formats that do not store one (GPT-2 files and ``.tiktoken``).

    >>> loaded = load_upload([("toy.model", b"minbpe v1\\n\\n0\\n97 97\\n")])
    >>> loaded.kind, loaded.tokenizer.encode("aaa")
    ('minbpe .model', [256, 97])
    >>> load_upload([("toy.model", b"minbpe v1\\n\\n0\\n97 x\\n")])
    Traceback (most recent call last):
    ...
    ValueError: toy.model: line 4 of the .model file: expected two ids 'idx1 idx2', got '97 x'
    """
    if pattern not in PATTERN_CHOICES:
        raise ValueError(
            f"unknown split pattern {pattern!r}: choose one of {', '.join(PATTERN_CHOICES)}"
        )
    if not files:
        raise ValueError(
            "no file uploaded: choose a .model, .tiktoken or tokenizer.json file, or "
            "vocab.json + merges.txt"
        )
    names = ", ".join(name for name, _ in files)
    try:
        tokenizer, kind = _read_upload(list(files), PATTERN_CHOICES[pattern])
    except ValueError as error:
        raise ValueError(f"{names}: {error}") from None
    except Exception as error:  # a reader bug must still reach the person as a message
        raise ValueError(f"{names}: could not be read ({type(error).__name__}: {error})") from None
    return LoadedModel(tokenizer=tokenizer, kind=kind, source=names)


def _read_upload(
    files: list[tuple[str, bytes]], pattern: str
) -> tuple[Tokenizer | LibraryTokenizer, str]:
    if len(files) == 2:
        by_kind = {_gpt2_role(name): data for name, data in files}
        if set(by_kind) != {"vocab", "merges"}:
            raise ValueError(
                "two files make a model only as a GPT-2 pair: one vocab.json (.json) and one "
                "merges.txt (.txt)"
            )
        tokenizer = from_gpt2_files(by_kind["vocab"], by_kind["merges"], pattern=pattern)
        return tokenizer, "GPT-2 vocab.json + merges.txt"
    if len(files) > 2:
        raise ValueError(
            f"{len(files)} files uploaded: upload one .model or .tiktoken file, or the two GPT-2 "
            "files vocab.json + merges.txt"
        )
    ((name, data),) = files
    lower = name.lower()
    if lower.endswith(".tiktoken"):
        return from_tiktoken(data, pattern=pattern), "tiktoken .tiktoken"
    if lower.endswith(".txt") and not lower.endswith("merges.txt"):
        raise ValueError(
            "a .txt file is read only as GPT-2's merges.txt, together with its vocab.json: "
            "upload both"
        )
    if is_hf_json(name, data):
        read = read_tokenizer_json(data)
        if isinstance(read, LibraryTokenizer):  # not byte-level BPE: the library encodes it
            return read, f"Hugging Face tokenizer.json ({read.summary})"
        return read, "Hugging Face tokenizer.json"
    tokenizer = load_model_file(name, data)
    kind = "tiktoken .tiktoken" if tokenizer.ranks is not None else "minbpe .model"
    if tokenizer.ranks is not None and pattern != GPT4_SPLIT_PATTERN:
        tokenizer = from_tiktoken(data, pattern=pattern)
    return tokenizer, kind


def _gpt2_role(name: str) -> str:
    lower = name.lower()
    if lower.endswith(".json"):
        return "vocab"
    if lower.endswith(".txt"):
        return "merges"
    return "other"
