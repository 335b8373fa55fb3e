"""Any Hugging Face ``tokenizer.json``, encoded by the ``tokenizers`` library itself.

bpeviz's own reader (:mod:`bpeviz.formats.hf_json`) takes byte-level BPE only, because only
there are the trace and the build tree ours to show. What it refuses by name (WordPiece,
Unigram and WordLevel models, normalizers, ``byte_fallback``, post-processors that add tokens
such as Llama 3's ``<|begin_of_text|>``, ``add_prefix_space``, ...) is handed to
``tokenizers``, the library these files are written for, so the ids are exactly its ids:
:class:`LibraryTokenizer` wraps it and says so. Its offsets give each token's span of the
text, and its token strings say where a word starts: WordPiece marks a continuation with
``##`` and SentencePiece a word start with ``▁``.

Left out: the trace and the build tree (the library does not expose how a token was built),
and files that ``tokenizers`` cannot read either, which get our reader's message.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from bpeviz.formats.hf_json import NotByteLevelBPE, from_hf_json
from bpeviz.tokenizer import Tokenizer

ENGINE = "Hugging Face tokenizers"
_BYTE_TOKEN = re.compile(r"<0x[0-9A-F]{2}>")  # SentencePiece's byte_fallback tokens


@dataclass(frozen=True)
class LibraryPiece:
    """One token as the library encodes it: id, its string, the text it covers."""

    token_id: int
    token: str  # the model's own string: "##ing", "▁the", "<0xE3>", "[CLS]"
    text: str  # the part of the text its offsets cover ("" for a token the template added)
    special: bool  # a special token (added by the template, or an added special token)
    starts_word: bool  # a word (or a special token) starts here


class LibraryTokenizer:
    """A ``tokenizer.json`` that ``tokenizers`` encodes (our reader refused it, by name)."""

    def __init__(self, document: dict[str, Any], library: Any, refused: str) -> None:
        self.library = library
        self.refused = refused  # why bpeviz's own reader does not take it
        model = document.get("model", {})
        self.model_type = str(model.get("type") or type(library.model).__name__)
        self.continuation = model.get("continuing_subword_prefix") or (
            "##" if self.model_type == "WordPiece" else ""
        )
        self.word_start = "▁" if _uses_metaspace(document) else ""
        self.vocab_size = int(library.get_vocab_size(with_added_tokens=True))

    def encode(self, text: str | bytes, *, allow_special: bool = True) -> list[int]:
        """Ids exactly as ``tokenizers`` gives them, the file's template tokens included."""
        del allow_special  # added tokens are the file's business
        return list(self._encoding(text).ids)

    def pieces(self, text: str) -> list[LibraryPiece]:
        """Each token with the text its offsets cover and whether a word starts there."""
        encoding = self._encoding(text)
        pieces = []
        previous_end = -1
        for token_id, token, (start, end), special in zip(
            encoding.ids, encoding.tokens, encoding.offsets, encoding.special_tokens_mask,
            strict=True,
        ):
            covered = text[start:end] if not special else ""
            if _BYTE_TOKEN.fullmatch(token) and start < previous_end:
                covered = ""  # a later byte of a character the previous token covered
            pieces.append(
                LibraryPiece(
                    token_id=token_id,
                    token=token,
                    text=covered,
                    special=bool(special),
                    starts_word=self._starts_word(token, bool(special), start, previous_end),
                )
            )
            previous_end = max(previous_end, end)
        return pieces

    def _starts_word(self, token: str, special: bool, start: int, previous_end: int) -> bool:
        if special:
            return True
        if self.continuation:
            return not token.startswith(self.continuation)
        if self.word_start:
            return token.startswith(self.word_start)
        return start != previous_end  # other models: a gap in the text is a boundary

    def decode_bytes(self, ids: list[int]) -> bytes:
        """The text ``tokenizers`` decodes the ids to, special tokens kept, as UTF-8."""
        return str(self.library.decode(list(ids), skip_special_tokens=False)).encode("utf-8")

    def decode(self, ids: list[int]) -> str:
        return self.decode_bytes(ids).decode("utf-8")

    def _encoding(self, text: str | bytes) -> Any:
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        return self.library.encode(text)

    @property
    def summary(self) -> str:
        """``"a WordPiece model, 200 tokens, encoded by Hugging Face tokenizers"``."""
        return f"a {self.model_type} model, {self.vocab_size:,} tokens, encoded by {ENGINE}"


def _uses_metaspace(document: dict[str, Any]) -> bool:
    """Whether SentencePiece's ``▁`` marks word starts (a Metaspace step, or ``▁`` tokens)."""
    text = json.dumps(
        [document.get("pre_tokenizer"), document.get("normalizer"), document.get("decoder")]
    )
    return '"Metaspace"' in text or '"\\u2581"' in text


def read_tokenizer_json(data: str | bytes) -> Tokenizer | LibraryTokenizer:
    """Our own tokenizer for a byte-level BPE ``tokenizer.json``; for what our reader refuses
    by name, the ``tokenizers`` library's; a file neither can read gets our reader's message.
    """
    try:
        return from_hf_json(data)
    except NotByteLevelBPE as refusal:  # well-formed and at most MAX_JSON_BYTES: parsed
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        try:
            from tokenizers import Tokenizer as Library

            library = Library.from_str(text)
        except Exception as error:  # the library's own errors are plain Exceptions
            raise ValueError(
                f"{refusal}; Hugging Face tokenizers cannot read it either ({error}): check "
                "that it is a complete tokenizer.json"
            ) from None
        return LibraryTokenizer(json.loads(text), library, str(refusal))
