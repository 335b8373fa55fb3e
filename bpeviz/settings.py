"""The app's shared settings: what text to train on and how, checked before any training.

Everything here is plain Python (no Streamlit), so it is unit-tested directly:

- :class:`Settings`, the training settings every page shares, built from the session state
  (:func:`settings_from_state`);
- :class:`TrainingText`, the text they apply to, made from a paste (:func:`text_from_paste`)
  or an upload (:func:`text_from_upload`) with messages that say what was wrong and how to fix
  it (an empty paste, a file over the limit, a binary file, bytes that are not UTF-8);
- the link format: the state that matters lives in the URL's query parameters, and
  :func:`query_from_state` / :func:`state_from_query` convert both ways. A missing parameter
  means "what the chosen sample suggests", so a link stays short and ``?sample=ties`` alone
  opens that sample with its own settings.

What is left out: the widgets themselves (``bpeviz.ui``) and training (``bpeviz.history``).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from bpeviz.corpus import base_size
from bpeviz.pretokenize import PRETOKENIZERS
from bpeviz.readable import counted
from bpeviz.samples import DEFAULT_SAMPLE_KEY, Sample, get_sample, list_samples
from bpeviz.trainer import MAX_VOCAB_SIZE, TIE_BREAKS

SOURCES: tuple[str, ...] = ("sample", "paste", "upload")
SOURCE_LABELS: dict[str, str] = {"sample": "Sample", "paste": "Paste", "upload": "Upload"}
PRETOKENIZER_LABELS: dict[str, str] = {
    "bytes": "bytes: the whole text is one piece",
    "gpt2": "gpt2: GPT-2's split pattern",
    "gpt4": "gpt4: GPT-4's (cl100k) split pattern",
    "words": "words: split on whitespace",
}

MAX_PASTE_BYTES = 2_000_000  # 2 MB of UTF-8
MAX_UPLOAD_MB = 10
MAX_UPLOAD_BYTES = MAX_UPLOAD_MB * 1024 * 1024
MAX_LINK_TEXT_CHARS = 1_000  # a pasted text this short travels in the link

# Session-state keys; each is also the name of its query parameter.
KEY_SOURCE = "src"
KEY_SAMPLE = "sample"
KEY_VOCAB = "vocab"
KEY_PRETOKENIZER = "pretok"
KEY_TIE_BREAK = "tie"
KEY_SPECIALS = "special"
KEY_END_OF_WORD = "eow"
KEY_PASTE = "paste"
STATE_KEYS: tuple[str, ...] = (
    KEY_SOURCE,
    KEY_SAMPLE,
    KEY_VOCAB,
    KEY_PRETOKENIZER,
    KEY_TIE_BREAK,
    KEY_SPECIALS,
    KEY_END_OF_WORD,
    KEY_PASTE,
)
SUGGESTED_KEYS: tuple[str, ...] = (KEY_VOCAB, KEY_PRETOKENIZER, KEY_TIE_BREAK, KEY_END_OF_WORD)

Level = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Message:
    """Something to tell the user: ``error`` (nothing is trained), ``warning`` or ``info``."""

    level: Level
    text: str


@dataclass(frozen=True)
class Settings:
    """Training settings shared by every page (a frozen value: safe as a cache key).

    ``vocab_size`` counts the 256 bytes (and ``</w>``) plus merges; special tokens come after.
    ``end_of_word`` is only ever true with the ``words`` pre-tokenizer.
    """

    source: str = "sample"
    sample_key: str = DEFAULT_SAMPLE_KEY
    vocab_size: int = 512
    pretokenizer: str = "gpt4"
    tie_break: str = "first"
    special_tokens: tuple[str, ...] = ()
    end_of_word: bool = False

    @property
    def base_size(self) -> int:
        """Tokens before any merge: 256 bytes, plus ``</w>`` when the marker is on."""
        return base_size(self.end_of_word)

    @property
    def merges_wanted(self) -> int:
        return self.vocab_size - self.base_size

    def training_key(self) -> tuple[Any, ...]:
        """What training depends on, besides the text (the source and sample name do not)."""
        return (
            self.vocab_size,
            self.pretokenizer,
            self.tie_break,
            self.special_tokens,
            self.end_of_word,
        )

    def summary(self) -> str:
        """One line for a caption: ``vocab 512 · gpt4 · ties: first``."""
        parts = [f"vocab {self.vocab_size:,}", self.pretokenizer, f"ties: {self.tie_break}"]
        if self.end_of_word:
            parts.append("</w>")
        if self.special_tokens:
            parts.append("specials: " + " ".join(self.special_tokens))
        return " · ".join(parts)


@dataclass(frozen=True)
class TrainingText:
    """The text to train on: a name to show, the data, its language if known, and a note.

    ``data`` is ``str`` for text and ``bytes`` for an upload that is not valid UTF-8 (trained
    on its raw bytes). ``note`` says anything the user should know about how it was read.
    """

    name: str
    data: str | bytes
    language: str | None = None
    note: str | None = None
    source: str = "sample"

    @property
    def size_bytes(self) -> int:
        return (
            len(self.data.encode("utf-8", "surrogateescape"))
            if isinstance(self.data, str)
            else len(self.data)
        )


# ---- defaults and samples ---------------------------------------------------------------


def suggested_state(sample: Sample) -> dict[str, Any]:
    """The settings a sample opens with, as session-state values."""
    return {
        KEY_VOCAB: sample.settings.vocab_size,
        KEY_PRETOKENIZER: sample.settings.pretokenizer,
        KEY_TIE_BREAK: sample.settings.tie_break,
        KEY_END_OF_WORD: sample.settings.end_of_word,
    }


def default_state() -> dict[str, Any]:
    """A fresh session: the default sample with its suggested settings."""
    return {
        KEY_SOURCE: "sample",
        KEY_SAMPLE: DEFAULT_SAMPLE_KEY,
        **suggested_state(get_sample(DEFAULT_SAMPLE_KEY)),
        KEY_SPECIALS: "",
        KEY_PASTE: "",
    }


def sample_keys() -> list[str]:
    return [sample.key for sample in list_samples()]


def parse_special_tokens(raw: str) -> tuple[str, ...]:
    """Special tokens typed in one box, separated by spaces or commas; duplicates dropped.

    >>> parse_special_tokens("<|endoftext|>, <|pad|>  <|endoftext|>")
    ('<|endoftext|>', '<|pad|>')
    """
    return tuple(dict.fromkeys(part for part in re.split(r"[,\s]+", raw or "") if part))


def settings_from_state(state: Mapping[str, Any]) -> Settings:
    """Read :class:`Settings` from the session state (missing keys take the defaults).

    The ``</w>`` marker only applies to the ``words`` pre-tokenizer; elsewhere it is off.
    """
    defaults = default_state()

    def get(key: str) -> Any:
        value = state.get(key)
        return defaults[key] if value is None else value

    pretokenizer = str(get(KEY_PRETOKENIZER))
    vocab = get(KEY_VOCAB)
    return Settings(
        source=str(get(KEY_SOURCE)),
        sample_key=str(get(KEY_SAMPLE)),
        vocab_size=int(vocab) if isinstance(vocab, int | float) else defaults[KEY_VOCAB],
        pretokenizer=pretokenizer,
        tie_break=str(get(KEY_TIE_BREAK)),
        special_tokens=parse_special_tokens(str(get(KEY_SPECIALS))),
        end_of_word=bool(get(KEY_END_OF_WORD)) and pretokenizer == "words",
    )


# ---- checks -----------------------------------------------------------------------------


def check_settings(settings: Settings) -> list[Message]:
    """Problems with the settings themselves, each with how to fix it (empty list: fine)."""
    messages: list[Message] = []
    base = settings.base_size
    if settings.vocab_size < base:
        what = "256 single bytes and the </w> marker" if settings.end_of_word else "256 bytes"
        messages.append(
            Message(
                "error",
                f"Vocab size {settings.vocab_size:,} is too small: the vocabulary always holds "
                f"the {what}, so use at least {base} (then each merge adds one token).",
            )
        )
    elif settings.vocab_size > MAX_VOCAB_SIZE:
        messages.append(
            Message(
                "error",
                f"Vocab size {settings.vocab_size:,} is above the limit of {MAX_VOCAB_SIZE:,}. "
                "Choose a smaller size: training also stops by itself once no pair is left.",
            )
        )
    if settings.pretokenizer not in PRETOKENIZERS:
        messages.append(
            Message(
                "error",
                f"Unknown pre-tokenizer {settings.pretokenizer!r}: "
                f"choose one of {', '.join(PRETOKENIZERS)}.",
            )
        )
    if settings.tie_break not in TIE_BREAKS:
        messages.append(
            Message(
                "error",
                f"Unknown tie rule {settings.tie_break!r}: choose one of {', '.join(TIE_BREAKS)}.",
            )
        )
    return messages


def format_size(size: int) -> str:
    """Bytes for people: ``812 bytes``, ``4.9 KB``, ``2.1 MB`` (decimal units).

    >>> format_size(2_400_000)
    '2.4 MB'
    """
    if size < 1000:
        return f"{size:,} byte" + ("" if size == 1 else "s")
    if size < 1_000_000:
        return f"{size / 1000:.1f} KB"
    return f"{size / 1_000_000:.1f} MB"


def _too_short(text: str | bytes) -> Message | None:
    characters = len(text)
    if characters == 1:
        return Message(
            "warning",
            "The text is a single character: there is no pair of tokens to merge, so "
            "training learns nothing. Use a longer text.",
        )
    return None


def text_from_paste(text: str | None) -> tuple[TrainingText | None, list[Message]]:
    """Check a pasted text. Nothing the user typed is changed or dropped.

    Too long (over :data:`MAX_PASTE_BYTES`) or empty: no text, and an error saying what to do.
    """
    text = text or ""
    if not text:
        return None, [
            Message("error", "The text box is empty: paste or type some text to train on.")
        ]
    size = len(text.encode("utf-8", "surrogateescape"))
    if size > MAX_PASTE_BYTES:
        return None, [
            Message(
                "error",
                f"The pasted text is {format_size(size)}; pasting is limited to "
                f"{format_size(MAX_PASTE_BYTES)}. Your text is still in the box: shorten it, or "
                f"save it as a .txt file and upload it (up to {MAX_UPLOAD_MB} MB).",
            )
        ]
    messages = [m for m in [_too_short(text)] if m]
    return TrainingText("Pasted text", text, note=None, source="paste"), messages


def looks_binary(data: bytes) -> bool:
    """Whether bytes look like a binary file (an image, a zip...) rather than text.

    A NUL byte, or more than 10% control bytes other than tab, newlines, form feed and escape,
    in the first 8 KB.

    >>> looks_binary(b"hello\\nworld"), looks_binary(b"\\x89PNG\\r\\n\\x1a\\n\\x00\\x00")
    (False, True)
    """
    head = data[:8192]
    if b"\x00" in head:
        return True
    allowed = {9, 10, 11, 12, 13, 27}
    controls = sum(1 for value in head if (value < 32 and value not in allowed) or value == 127)
    return bool(head) and controls / len(head) > 0.10


def text_from_upload(name: str, data: bytes) -> tuple[TrainingText | None, list[Message]]:
    """Read an uploaded file as text to train on.

    - over :data:`MAX_UPLOAD_BYTES`, empty, or binary: no text, and an error;
    - UTF-16 with a byte-order mark (Windows "Unicode" text): decoded, and said so;
    - valid UTF-8: used as text (a UTF-8 byte-order mark is dropped, and said so);
    - anything else: trained on its raw bytes, and said so (bad bytes show as hex).
    """
    if len(data) > MAX_UPLOAD_BYTES:
        return None, [
            Message(
                "error",
                f"{name} is {format_size(len(data))}; uploads are limited to {MAX_UPLOAD_MB} MB. "
                "Upload a shorter excerpt.",
            )
        ]
    if not data:
        return None, [Message("error", f"{name} is empty: upload a file with some text in it.")]
    note = None
    text: str | bytes
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            text = data.decode("utf-16")
        except UnicodeDecodeError:
            return None, [_binary_message(name)]
        note = "decoded from UTF-16 (trained on its UTF-8 bytes)"
    elif looks_binary(data):
        return None, [_binary_message(name)]
    else:
        if data.startswith(codecs.BOM_UTF8):
            data = data[len(codecs.BOM_UTF8) :]
            note = "the UTF-8 byte-order mark at the start was dropped"
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            text = data
            note = (
                f"not valid UTF-8 (first bad byte at offset {error.start:,}): trained on its "
                "raw bytes; bytes that are not part of a character show as hex like <FF>"
            )
    if not text:
        return None, [Message("error", f"{name} is empty: upload a file with some text in it.")]
    messages = [m for m in [_too_short(text)] if m]
    if note:
        messages.append(Message("info", f"{name}: {note}."))
    return TrainingText(name, text, note=note, source="upload"), messages


def _binary_message(name: str) -> Message:
    return Message(
        "error",
        f"{name} looks like a binary file (an image, an archive, a document...), not text. "
        "Upload a plain-text file such as .txt or .md, or paste the text instead.",
    )


def outcome_messages(settings: Settings, merge_count: int, stop_reason: str) -> list[Message]:
    """After training: say so when it stopped before the vocab size asked for, and why."""
    wanted = settings.merges_wanted
    if merge_count >= wanted:
        return []
    return [
        Message(
            "info",
            f"Training stopped early: vocab size {settings.vocab_size:,} asks for "
            f"{counted(wanted, 'merge')}, and this text allowed {merge_count:,} "
            f"(vocab size {settings.base_size + merge_count:,}). Why: {stop_reason}.",
        )
    ]


# ---- links ------------------------------------------------------------------------------


def _baseline(state: Mapping[str, Any]) -> dict[str, Any]:
    """What a missing parameter means: the chosen sample's suggested settings."""
    key = state.get(KEY_SAMPLE) or DEFAULT_SAMPLE_KEY
    try:
        sample = get_sample(str(key))
    except ValueError:
        sample = get_sample(DEFAULT_SAMPLE_KEY)
    return suggested_state(sample)


def _format(value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def query_from_state(state: Mapping[str, Any]) -> dict[str, str]:
    """The query parameters for a link that reproduces these settings.

    Only what differs from the default is written: the source unless it is ``sample``, the
    sample unless it is the default one, a setting unless it is what the sample suggests,
    special tokens when there are any, and a pasted text when it is at most
    :data:`MAX_LINK_TEXT_CHARS` characters.

    >>> query_from_state({"src": "sample", "sample": "ties", "vocab": 300, "pretok": "words",
    ...                   "tie": "first", "eow": False, "special": "", "paste": ""})
    {'sample': 'ties', 'vocab': '300'}
    """
    full = {**default_state(), **{k: v for k, v in state.items() if k in STATE_KEYS}}
    params: dict[str, str] = {}
    if full[KEY_SOURCE] != "sample":
        params[KEY_SOURCE] = str(full[KEY_SOURCE])
    if full[KEY_SAMPLE] != DEFAULT_SAMPLE_KEY:
        params[KEY_SAMPLE] = str(full[KEY_SAMPLE])
    baseline = _baseline(full)
    for key in SUGGESTED_KEYS:
        value = full[key]
        if key == KEY_VOCAB and isinstance(value, float) and value.is_integer():
            value = int(value)
        if value != baseline[key]:
            params[key] = _format(value)
    specials = " ".join(parse_special_tokens(str(full[KEY_SPECIALS] or "")))
    if specials:
        params[KEY_SPECIALS] = specials
    paste = str(full[KEY_PASTE] or "")
    if full[KEY_SOURCE] == "paste" and 0 < len(paste) <= MAX_LINK_TEXT_CHARS:
        params[KEY_PASTE] = paste
    return params


def state_from_query(params: Mapping[str, str]) -> tuple[dict[str, Any], list[Message]]:
    """Session state from a link's query parameters, and warnings for values it ignored.

    The inverse of :func:`query_from_state`: ``state_from_query(query_from_state(s))`` gives
    back ``s`` (a long pasted text excepted: it never went into the link).
    """
    messages: list[Message] = []
    state = default_state()

    def ignored(key: str, why: str) -> None:
        messages.append(Message("warning", f"The link's {key}={params[key]!r} {why}; ignored."))

    source = params.get(KEY_SOURCE)
    if source is not None:
        if source in SOURCES:
            state[KEY_SOURCE] = source
        else:
            ignored(KEY_SOURCE, f"is not one of {', '.join(SOURCES)}")
    sample = params.get(KEY_SAMPLE)
    if sample is not None:
        if sample in sample_keys():
            state[KEY_SAMPLE] = sample
        else:
            ignored(KEY_SAMPLE, f"is not a bundled sample ({', '.join(sample_keys())})")
    state.update(_baseline(state))
    vocab = params.get(KEY_VOCAB)
    if vocab is not None:
        try:
            state[KEY_VOCAB] = int(vocab.replace(",", "").replace("_", ""))
        except ValueError:
            ignored(KEY_VOCAB, "is not a whole number")
    for key, choices in ((KEY_PRETOKENIZER, PRETOKENIZERS), (KEY_TIE_BREAK, TIE_BREAKS)):
        value = params.get(key)
        if value is not None:
            if value in choices:
                state[key] = value
            else:
                ignored(key, f"is not one of {', '.join(choices)}")
    eow = params.get(KEY_END_OF_WORD)
    if eow is not None:
        if eow.lower() in ("1", "true", "0", "false"):
            state[KEY_END_OF_WORD] = eow.lower() in ("1", "true")
        else:
            ignored(KEY_END_OF_WORD, "is not 1 or 0")
    if params.get(KEY_SPECIALS):
        state[KEY_SPECIALS] = " ".join(parse_special_tokens(params[KEY_SPECIALS]))
    if params.get(KEY_PASTE):
        state[KEY_PASTE] = params[KEY_PASTE]
    return state, messages
