"""Texts too long for a link, kept by the server so that a reload does not lose them.

A link holds a typed text of up to :data:`~bpeviz.app.frame.links.MAX_LINK_TEXT_CHARS`
characters. A longer one travels as a reference instead (``paste_ref=<digest>``), and the
text itself stays here, in the memory of the app process that served it: a reload of the
tab, or the link opened in another tab of the same browser (nginx keeps a browser on one
process), finds it again.

Bounded: at most :data:`MAX_STORE_BYTES` of text in all, the least recently used texts
dropped first, so a crowd pasting megabytes cannot grow the server without end. A text is
keyed by its digest, so a text kept twice is held once. What is lost: every text when the
server restarts, and the oldest when the store is full; the page then says so and asks for
the text again.

Plain Python (no Streamlit), so it is unit-tested directly; the app holds one
:class:`TextStore` for the process (:func:`bpeviz.app.frame.state.text_store`).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

MAX_STORE_BYTES = 64_000_000  # of UTF-8: 32 pastes of the 2 MB limit
REF_SUFFIX = "_ref"  # the link's parameter for a long text in box KEY is KEY_ref


def text_ref(text: str) -> str:
    """The reference a link holds for ``text``: 32 hex digits of its BLAKE2b digest.

    >>> len(text_ref("aaabdaaabac")), text_ref("aaab") == text_ref("aaab") != text_ref("aaac")
    (32, True)
    """
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


class TextStore:
    """Texts by reference, least recently used dropped first beyond ``max_bytes``.

    >>> store = TextStore(max_bytes=10)
    >>> ref = store.put("abcdef")
    >>> store.get(ref)
    'abcdef'
    >>> _ = store.put("ghijkl")  # 12 bytes in all: "abcdef" goes
    >>> store.get(ref) is None
    True
    """

    def __init__(self, max_bytes: int = MAX_STORE_BYTES) -> None:
        self.max_bytes = max_bytes
        self._texts: OrderedDict[str, str] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()  # script runs of many sessions share the store

    def put(self, text: str) -> str:
        """Keep ``text`` (a text larger than the whole store is not kept); its reference."""
        ref = text_ref(text)
        size = len(text.encode("utf-8", "surrogatepass"))
        with self._lock:
            if ref in self._texts:
                self._texts.move_to_end(ref)
                return ref
            if size > self.max_bytes:
                return ref
            self._texts[ref] = text
            self._bytes += size
            while self._bytes > self.max_bytes:
                _, dropped = self._texts.popitem(last=False)
                self._bytes -= len(dropped.encode("utf-8", "surrogatepass"))
        return ref

    def get(self, ref: str) -> str | None:
        """The text kept under ``ref``, or ``None`` when it was never kept or was dropped."""
        with self._lock:
            text = self._texts.get(ref)
            if text is not None:
                self._texts.move_to_end(ref)
            return text

    @property
    def size_bytes(self) -> int:
        """The UTF-8 size of every text kept (what the bound applies to)."""
        return self._bytes
