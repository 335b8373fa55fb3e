"""The text to train on, from a paste or an upload, with messages that say what was wrong and
how to fix it (an empty paste, a file over the limit, a binary file, bytes that are not
UTF-8). Bad input loses nothing and never raises.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from bpeviz.app.frame.run_settings import Message

MAX_PASTE_BYTES = 2_000_000  # 2 MB of UTF-8
MAX_BOX_CHARS = 200_000  # of a Tokenize or Compare box, tokenized (the box keeps them all)
# Texts and model files alike; the server refuses more (.streamlit/config.toml).
MAX_UPLOAD_MB = 10
MAX_UPLOAD_BYTES = MAX_UPLOAD_MB * 1_000_000  # decimal, as the uploader counts them


@dataclass(frozen=True)
class TrainingText:
    """The text to train on: a name to show, the data, and where it came from.

    ``data`` is ``str`` for text and ``bytes`` for an upload that is not valid UTF-8 (trained
    on its raw bytes); the messages that come with it say how it was read.
    """

    name: str
    data: str | bytes
    source: str = "sample"


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
    return TrainingText("Pasted text", text, source="paste"), messages


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
    return TrainingText(name, text, source="upload"), messages


def _binary_message(name: str) -> Message:
    return Message(
        "error",
        f"{name} looks like a binary file (an image, an archive, a document...), not text. "
        "Upload a plain-text file such as .txt or .md, or paste the text instead.",
    )
