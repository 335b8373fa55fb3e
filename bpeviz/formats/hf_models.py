"""Any Hugging Face ``tokenizer.json``, encoded by the ``tokenizers`` library itself.

bpeviz's own reader (:mod:`bpeviz.formats.hf_json`) takes byte-level BPE only, because only
there are the trace and the build tree ours to show. What it refuses by name (WordPiece,
Unigram and WordLevel models, normalizers, ``byte_fallback``, post-processors that add tokens
such as Llama 3's ``<|begin_of_text|>``, ``add_prefix_space``, ...) is handed to
``tokenizers``, the library these files are written for, so the ids are exactly its ids:
:class:`LibraryTokenizer` wraps it and says so. Its offsets give each token's span of the
text, and its token strings say where a word starts: WordPiece marks a continuation with
``##``, SentencePiece a word start with ``▁`` and a byte-level file with a space (``Ġ``).

For comparing with other tokenizers, :meth:`LibraryTokenizer.byte_spans` turns the offsets
into byte spans that tile the text: what the model drops (WordPiece's spaces) goes with the
next token, as GPT's leading spaces do, and tokens that share one character (byte_fallback's
``<0xE3>``, byte-level pieces of a character) get one byte each.

Left out: the trace and the build tree (the library does not expose how a token was built),
and files that ``tokenizers`` cannot read either, which get our reader's message.

Checked as our own readers check: ids are whole numbers from 0 to ``MAX_TOKEN_ID``, one per
token (the library takes a file whose 256 bytes all have id 0), at most ``MAX_TOKENS``. And
bounded as our own reader is: every regex the library would run (a Split's in the
pre-tokenizer, a Replace's in the normalizer or decoder, at any depth of Sequences) gets the
same worst-case probe on load (:func:`bpeviz.engine.pretokenize.check_split_pattern`) and is refused
by name when it fails it. A panic of the library (Oniguruma giving up on a pattern that
backtracks on this text; pyo3 raises it as a ``BaseException``) becomes one ``ValueError``,
and the library is given at most ``MAX_TEXT_CHARS`` characters at once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from bpeviz.engine.pretokenize import check_split_pattern
from bpeviz.engine.tokenizer import Tokenizer, check_id
from bpeviz.formats.common import preview
from bpeviz.formats.gpt2 import bytes_to_unicode
from bpeviz.formats.hf_json import MAX_TOKENS, NotByteLevelBPE, from_hf_json, from_onig

ENGINE = "Hugging Face tokenizers"
MAX_TEXT_CHARS = 1_000_000  # encoded by the library at once (a million took it 18 s, 370 MB)
_BYTE_TOKEN = re.compile(r"<0x[0-9A-F]{2}>")  # SentencePiece's byte_fallback tokens
_CHAR_TO_BYTE = {char: byte for byte, char in bytes_to_unicode().items()}
# The parts of a tokenizer.json whose steps can hold a regex the library runs.
_PATTERN_PARTS = {
    "pre_tokenizer": "pre-tokenizer",
    "normalizer": "normalizer",
    "decoder": "decoder",
}
_Result = TypeVar("_Result")


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
        self.word_start = "▁" if _uses(document, "Metaspace", "\\u2581") else ""
        self.byte_level = _uses(document, "ByteLevel")
        self.vocab_size = int(library.get_vocab_size(with_added_tokens=True))

    def encode(self, text: str | bytes, *, allow_special: bool = True) -> list[int]:
        """Ids exactly as ``tokenizers`` gives them, the file's template tokens included."""
        del allow_special  # added tokens are the file's business
        return list(self._encoding(text).ids)

    def pieces(self, text: str) -> list[LibraryPiece]:
        """Each token with the text its offsets cover and whether a word starts there."""
        encoding = self._encoding(text)
        pieces: list[LibraryPiece] = []
        previous_end = -1
        for token_id, token, (start, end), special in zip(
            encoding.ids,
            encoding.tokens,
            encoding.offsets,
            encoding.special_tokens_mask,
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
                    starts_word=self._starts_word(
                        token,
                        bool(special),
                        start,
                        previous_end,
                        None if not pieces or pieces[-1].special else pieces[-1].token,
                    ),
                )
            )
            previous_end = max(previous_end, end)
        return pieces

    def byte_spans(self, text: str) -> list[tuple[int, int]]:
        """Each token's byte span ``[start, end)``; the spans tile the UTF-8 text.

        A token ends where its offsets end (in bytes) and starts where the one before it
        ended, so a gap the model drops goes with the next token and a token the template
        added (offsets ``(0, 0)``) covers nothing. Tokens that share one character's offsets
        are split by the bytes they stand for when those add up to the character (byte
        tokens; a ``▁`` the pre-tokenizer put before the word covers nothing); otherwise they
        all end with the character. The last token runs to the end of the text.
        """
        encoding = self._encoding(text)
        tokens = encoding.tokens  # each read of the property builds the whole list anew
        byte_at = [0]
        for char in text:
            byte_at.append(byte_at[-1] + len(char.encode("utf-8", "surrogateescape")))
        offsets = [(byte_at[start], byte_at[end]) for start, end in encoding.offsets]
        ends = [end for _, end in offsets]
        index = 0
        while index < len(offsets):  # runs of tokens with the same, non-empty offsets
            run_end = index + 1
            while run_end < len(offsets) and offsets[run_end] == offsets[index]:
                run_end += 1
            start, end = offsets[index]
            sizes = [self._byte_length(token) for token in tokens[index:run_end]]
            if run_end - index > 1 and start < end and sum(sizes) == end - start:
                for position, size in enumerate(sizes, start=index):
                    start += size
                    ends[position] = start
            index = run_end
        spans = []
        previous = 0
        for end in ends:
            end = max(end, previous)
            spans.append((previous, end))
            previous = end
        if spans:
            spans[-1] = (spans[-1][0], byte_at[-1])
        return spans

    def _byte_length(self, token: str) -> int:
        """How many of the text's bytes a token stands for, if it is a byte token (``<0xE3>``,
        or GPT-2's byte characters in a byte-level file); 0 for any other token."""
        if _BYTE_TOKEN.fullmatch(token):
            return 1
        if self.byte_level and all(char in _CHAR_TO_BYTE for char in token):
            return len(token)
        return 0

    def _starts_word(
        self, token: str, special: bool, start: int, previous_end: int, previous: str | None
    ) -> bool:
        """Whether a word starts at ``token`` (``previous``: the token before it, ``None`` at
        the text's start or after a special token), by the model's own mark: WordPiece's
        ``##`` continues a word, SentencePiece's ``▁`` and a byte-level space (``Ġ``) start
        one. A byte-level text has no other mark, so its first token and the first after a line
        break or tab start a word too. Other models: a gap in the offsets (a dropped space).
        """
        if special:
            return True
        if self.continuation:
            return not token.startswith(self.continuation)
        if self.word_start:
            return token.startswith(self.word_start)
        if self.byte_level:
            shown = self.shown_bytes(token)
            if previous is None or shown.startswith(b" "):
                return True
            before = self.shown_bytes(previous)[-1:]  # a line break or tab, not a space
            return before.isspace() and before != b" " and not shown[:1].isspace()
        return start != previous_end

    def shown_bytes(self, token: str) -> bytes:
        """What a token stands for, as bytes to draw: ``##ing`` -> ``ing`` (a continuation),
        ``▁the`` -> `` the`` (the word mark is the space before a word), ``<0xE3>`` -> byte
        E3, GPT-2's byte characters (``Ġ``) -> their bytes.

        >>> from tokenizers import Tokenizer as Library, models
        >>> document = {"model": {"type": "WordPiece"}}
        >>> wordpiece = LibraryTokenizer(document, Library(models.WordPiece()), "")
        >>> wordpiece.shown_bytes("##ing"), wordpiece.shown_bytes("<0xE3>")
        (b'ing', b'\\xe3')
        """
        if _BYTE_TOKEN.fullmatch(token):
            return bytes([int(token[3:5], 16)])
        if self.continuation and token.startswith(self.continuation):
            token = token[len(self.continuation) :]
        if self.word_start:
            token = token.replace(self.word_start, " ")
        if self.byte_level and all(char in _CHAR_TO_BYTE for char in token):
            return bytes(_CHAR_TO_BYTE[char] for char in token)
        return token.encode("utf-8")

    def decode_bytes(self, ids: list[int]) -> bytes:
        """The text ``tokenizers`` decodes the ids to, special tokens kept, as UTF-8."""
        text = _unpanicked(
            "decode these ids", lambda: self.library.decode(list(ids), skip_special_tokens=False)
        )
        return str(text).encode("utf-8")

    def decode(self, ids: list[int]) -> str:
        return self.decode_bytes(ids).decode("utf-8")

    def _encoding(self, text: str | bytes) -> Any:
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        if len(text) > MAX_TEXT_CHARS:
            raise ValueError(
                f"the text is {len(text):,} characters long, and {ENGINE} encodes at most "
                f"{MAX_TEXT_CHARS:,} characters here: encode it in parts"
            )
        return _unpanicked("tokenize this text", lambda: self.library.encode(text))

    @property
    def refused_feature(self) -> str:
        """What our reader refused, from its message: ``"a WordPiece model (not BPE)"``."""
        return self.refused.split(", which bpeviz", 1)[0].removeprefix(
            "this tokenizer.json uses "
        )

    @property
    def summary(self) -> str:
        """``"a WordPiece model, 200 tokens, encoded by Hugging Face tokenizers"``."""
        return f"a {self.model_type} model, {self.vocab_size:,} tokens, encoded by {ENGINE}"


def _uses(document: dict[str, Any], *names: str) -> bool:
    """Whether the pre-tokenizer, normalizer or decoder names one of ``names`` (a step's
    type, or an escaped string such as ``\\u2581``, SentencePiece's ``▁``)."""
    text = json.dumps(
        [document.get("pre_tokenizer"), document.get("normalizer"), document.get("decoder")]
    )
    return any(f'"{name}"' in text for name in names)


def _unpanicked(
    what: str,
    call: Callable[[], _Result],
    advice: str = "a pattern of the file may backtrack too much on it, so try a shorter or "
    "different text",
) -> _Result:
    """``call()``; a panic of the library (a ``BaseException`` from pyo3, which would pass
    every ``except Exception`` up to the page) or one of its own errors (a plain
    ``Exception``, e.g. a model with no unknown token meeting one) becomes one ``ValueError``
    saying ``what`` failed, and ``advice``."""
    try:
        return call()
    except BaseException as error:
        # pyo3's panic is not importable by name; the library's errors are exactly Exception
        if type(error).__name__ != "PanicException" and type(error) is not Exception:
            raise
        reason = (str(error).strip().splitlines() or ["no reason given"])[0]
        if type(error) is Exception:  # the file, not the text: the library said what is wrong
            advice = "check that the file is a complete tokenizer.json"
        raise ValueError(
            f"Hugging Face tokenizers could not {what} (it stopped: {reason}): {advice}"
        ) from None


def _regexes(component: Any) -> Iterator[tuple[str, str]]:
    """Each regex a step of ``component`` holds (``{"pattern": {"Regex": ...}}``), with the
    step's type, however deep Sequences nest it."""
    waiting = [component]
    while waiting:
        item = waiting.pop()
        if isinstance(item, list):
            waiting.extend(reversed(item))
        elif isinstance(item, dict):
            pattern = item.get("pattern")
            if isinstance(pattern, dict) and isinstance(pattern.get("Regex"), str):
                yield str(item.get("type", "step")), pattern["Regex"]
            waiting.extend(reversed(list(item.values())))


def check_library_patterns(document: dict[str, Any]) -> None:
    """Probe every regex the library would run, as our own reader probes a split pattern;
    a ``ValueError`` names the first that fails (where it sits, the pattern, why)."""
    for part, name in _PATTERN_PARTS.items():
        for step, pattern in _regexes(document.get(part)):
            check_split_pattern(from_onig(pattern), what=f"{name} {step} pattern")


def _vocabulary(model: Any) -> list[tuple[str, Any]]:
    """The model's tokens and their ids: a ``{token: id}`` object (BPE, WordPiece,
    WordLevel), or Unigram's list of ``[token, score]``, whose ids are their places."""
    vocab = model.get("vocab") if isinstance(model, dict) else None
    if isinstance(vocab, dict):
        return list(vocab.items())
    if isinstance(vocab, list):
        return [
            (str(entry[0]) if isinstance(entry, list) and entry else "?", index)
            for index, entry in enumerate(vocab)
        ]
    return []


def check_library_ids(document: dict[str, Any]) -> None:
    """Raise a ``ValueError`` naming the first id that is not a whole number from 0 to
    ``MAX_TOKEN_ID``, or that two tokens share (an added token may repeat its own entry in the
    vocabulary, as BERT's ``[CLS]`` does), or when there are over ``MAX_TOKENS`` tokens."""
    tokens = _vocabulary(document.get("model"))
    added = document.get("added_tokens")
    for entry in added if isinstance(added, list) else []:
        if isinstance(entry, dict):
            tokens.append((str(entry.get("content")), entry.get("id")))
    if len(tokens) > MAX_TOKENS:
        raise ValueError(f"the tokenizer.json has {len(tokens):,} tokens; at most {MAX_TOKENS:,}")
    owners: dict[int, str] = {}
    for token, token_id in tokens:
        check_id(token_id, f"token {preview(token)}")
        if owners.setdefault(token_id, token) != token:
            raise ValueError(
                f"the tokenizer.json gives the id {token_id} to both "
                f"{preview(owners[token_id])} and {preview(token)}: every token needs its "
                "own id"
            )


def read_tokenizer_json(data: str | bytes) -> Tokenizer | LibraryTokenizer:
    """Our own tokenizer for a byte-level BPE ``tokenizer.json``; for what our reader refuses
    by name, the ``tokenizers`` library's; a file neither can read gets our reader's message.
    """
    try:
        return from_hf_json(data)
    except NotByteLevelBPE as refusal:  # well-formed and at most MAX_JSON_BYTES: parsed
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        document = json.loads(text)
        check_library_ids(document)
        check_library_patterns(document)
        try:
            from tokenizers import Tokenizer as Library

            library = _unpanicked(  # a model setting it does not check can panic it
                "build its model", lambda: Library.from_str(text), "check the model's settings"
            )
        except Exception as error:  # the library's own errors are plain Exceptions
            raise ValueError(
                f"{refusal}; Hugging Face tokenizers cannot read it either ({error}): check "
                "that it is a complete tokenizer.json"
            ) from None
        return LibraryTokenizer(document, library, str(refusal))
