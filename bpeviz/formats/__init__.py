"""Read and write real BPE model files: minbpe, GPT-2, tiktoken and Hugging Face's
``tokenizer.json``, one module per family (:mod:`~bpeviz.formats.minbpe`,
:mod:`~bpeviz.formats.gpt2`, :mod:`~bpeviz.formats.tiktoken`, :mod:`~bpeviz.formats.hf_json`),
with what they share in :mod:`~bpeviz.formats.common`.

Every format has pure functions on file contents (``to_*`` returns ``str``, ``from_*`` takes
``str`` or ``bytes``); the caller opens the files (the CLI, the app's download and upload).
:func:`load_model_file` picks the reader for an uploaded file.

Reading never trusts the file: anything malformed raises ``ValueError`` naming the file, the
line and what was expected. Writing refuses what a format cannot hold instead of approximating
it: the ``</w>`` end-of-word marker, the ``words`` pre-tokenizer in a ``.model``, ids a format
cannot number, and two tokens with the same bytes where tokens are keyed by their bytes.
"""

from __future__ import annotations

from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats.hf_json import from_hf_json
from bpeviz.formats.minbpe import MINBPE_HEADER, from_minbpe_model
from bpeviz.formats.tiktoken import TIKTOKEN_LINE, from_tiktoken


def load_model_file(name: str, data: bytes) -> Tokenizer:
    """Read one uploaded model file: a minbpe ``.model``, a tiktoken ``.tiktoken`` or a
    Hugging Face ``tokenizer.json``.

    The format comes from the file name, or from the content when the name says nothing.
    GPT-2 files come in pairs: read them with :func:`from_gpt2_files`.
    """
    lower = name.lower()
    if lower.endswith(".model"):
        return from_minbpe_model(data)
    if lower.endswith(".tiktoken"):
        return from_tiktoken(data)
    if lower.endswith(".vocab"):
        raise ValueError(
            f"{name!r} is minbpe's human-readable .vocab listing, which cannot be read back "
            "(it is lossy): load the .model file saved next to it"
        )
    if is_hf_json(name, data):
        return from_hf_json(data)
    if lower.endswith(("vocab.json", "merges.txt")):
        raise ValueError(
            f"{name!r} is half of a GPT-2 tokenizer: load vocab.json and merges.txt together "
            "(bpeviz.formats.gpt2.from_gpt2_files)"
        )
    if data.startswith(MINBPE_HEADER.encode()):
        return from_minbpe_model(data)
    if TIKTOKEN_LINE.match(data):
        return from_tiktoken(data)
    raise ValueError(
        f"cannot tell what kind of model {name!r} is: load a minbpe .model file (its first line "
        f"is {MINBPE_HEADER!r}), a tiktoken .tiktoken file (lines 'base64_token rank') or a "
        "Hugging Face tokenizer.json"
    )


def is_hf_json(name: str, data: bytes) -> bool:
    """Whether an upload is read as a Hugging Face ``tokenizer.json``: a ``.json`` name other
    than GPT-2's ``vocab.json``, or a file of another name that starts as a JSON object."""
    lower = name.lower()
    if lower.endswith(".json"):
        return not lower.endswith("vocab.json")
    if lower.endswith((".model", ".tiktoken", ".vocab", ".txt")):
        return False
    return data.lstrip()[:1] == b"{"
