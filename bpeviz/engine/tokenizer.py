"""Encode and decode with a learned BPE: merges applied in the order they were learned.

Two kinds of model exist in the wild and both are handled here:

- **merge lists** (minbpe ``.model``, GPT-2 ``merges.txt``, our own training): a pair of token
  ids merges into a new id; encoding repeatedly merges the adjacent pair learned earliest.
- **rank tables** (tiktoken's ``.tiktoken``, e.g. ``cl100k_base``): only token bytes and their
  ranks are known; encoding repeatedly joins the adjacent pair whose joined bytes have the
  lowest rank, and a chunk that is itself a token is taken whole, as tiktoken does.

Both run the same loop (:func:`_merge_parts`): a heap of (rank, position) over a linked list,
so a 2 MB paste in ``bytes`` mode costs n log n, not n × merges. Merging the lowest-ranked pair
leftmost first gives the same result as minbpe's "merge every occurrence of the best pair", since
a merge can only create pairs learned later than itself.

Decoding never raises for ids of the vocabulary: invalid UTF-8 becomes U+FFFD.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bpeviz.engine.config import unique_special_tokens
from bpeviz.engine.corpus import END_OF_WORD_ID, base_size, symbol_bytes
from bpeviz.engine.pretokenize import (
    END_OF_WORD,
    SPLIT_PATTERNS,
    PieceKind,
    check_pretokenizer,
    check_split_pattern,
    pretokenize,
    to_bytes,
)

MERGE = tuple[int, int, int]  # (left id, right id, new id)
_CACHE_LIMIT = 50_000  # distinct chunks remembered per tokenizer
_TOKEN_BYTES = 300  # a token's Python objects besides its bytes (tracemalloc, CPython 3.11)
_MARKER = to_bytes(END_OF_WORD)
# A trace keeps the token list after every merge: its cost is bytes × merges, so a piece is
# replayed only up to this size (a 40,000-letter word took minutes and gigabytes).
TRACE_MAX_BYTES = 1_000
# The largest id a browser holds exactly (JavaScript numbers; Arrow's int64 holds more):
# a file with a larger id is refused on load rather than shown wrong.
MAX_TOKEN_ID = 2**53 - 1
# Special tokens a model may have: they are split off with one regex of them all, compiled
# once per set (about 250 bytes a character: 200,000 added tokens took 14.7 s and 628 MB).
MAX_MODEL_SPECIALS = 10_000  # Tekken has 1,000, Llama 3 256
_SINGLE_BYTES = [bytes([value]) for value in range(256)]


def pretokenizer_for_pattern(pattern: str) -> tuple[str, str | None]:
    """Name a split pattern: ``("bytes", None)`` for none, ``("gpt4", None)`` for cl100k's...

    A pattern that is not a published one is kept as an override of the ``gpt4`` slot.
    """
    if not pattern:
        return "bytes", None
    for name, known in SPLIT_PATTERNS.items():
        if pattern == known:
            return name, None
    return "gpt4", pattern


@dataclass(frozen=True, slots=True)
class TraceStep:
    """One merge applied while encoding: which rank, which two tokens, and the tokens after."""

    rank: int
    left: int
    right: int
    new_id: int
    position: int  # index of the left token in the token list before the merge
    tokens_after: tuple[int, ...]


class Tokenizer:
    """A byte-level BPE tokenizer: vocabulary, merges or ranks, pre-tokenizer, specials.

    >>> tokenizer = Tokenizer.from_merges([(97, 97), (256, 97), (257, 98)])
    >>> tokenizer.encode("aaabdaaabac")
    [258, 100, 258, 97, 99]
    >>> tokenizer.decode([258, 100])
    'aaabd'
    """

    def __init__(
        self,
        *,
        byte_ids: Sequence[int] = range(256),
        merges: Sequence[MERGE] = (),
        ranks: dict[bytes, int] | None = None,
        pretokenizer: str = "bytes",
        pattern: str | None = None,
        special_tokens: dict[str, int] | None = None,
        end_of_word: bool = False,
    ) -> None:
        check_pretokenizer(pretokenizer)
        if pattern is not None:
            check_split_pattern(pattern)  # a pattern from a file must not hang the server
        if len(byte_ids) != 256:
            raise ValueError(f"a byte-level vocabulary needs all 256 bytes, got {len(byte_ids)}")
        _check_ids(byte_ids, merges, ranks, special_tokens or {})
        if len(special_tokens or {}) > MAX_MODEL_SPECIALS:
            raise ValueError(
                f"this model has {len(special_tokens or {}):,} special tokens, more than the "
                f"{MAX_MODEL_SPECIALS:,} special tokens bpeviz reads (Tekken has 1,000): "
                "it would take seconds and hundreds of MB to split text around them"
            )
        self.byte_ids: tuple[int, ...] = tuple(byte_ids)
        self.merges: tuple[MERGE, ...] = tuple(merges)
        self.ranks = ranks
        self.pretokenizer = pretokenizer
        self.pattern = pattern
        self.special_tokens: dict[str, int] = dict(special_tokens or {})
        self.end_of_word = end_of_word
        self.vocab = self._build_vocab()
        self._pair_ranks: dict[tuple[int, int], tuple[int, int]] = {
            (left, right): (rank, new) for rank, (left, right, new) in enumerate(self.merges)
        }
        self._special_by_id = {token_id: text for text, token_id in self.special_tokens.items()}
        if len(self._special_by_id) < len(self.special_tokens):
            raise ValueError("two special tokens share one id: give each its own id")
        for text, token_id in self.special_tokens.items():
            if token_id in self.vocab:
                raise ValueError(f"special token {text!r} reuses id {token_id} of the vocabulary")
        self._chunk_cache: dict[bytes, tuple[int, ...]] = {}
        self._text_bytes = self._build_text_bytes()

    # ---- construction -------------------------------------------------------------------

    @classmethod
    def from_merges(
        cls,
        pairs: Iterable[tuple[int, int]],
        *,
        pretokenizer: str = "bytes",
        pattern: str | None = None,
        special_tokens: Iterable[str] = (),
        end_of_word: bool = False,
    ) -> Tokenizer:
        """Our own numbering: bytes are 0..255, merge i makes ``base + i``, specials follow."""
        base = base_size(end_of_word)
        merges = [(left, right, base + index) for index, (left, right) in enumerate(pairs)]
        first_special = base + len(merges)
        numbered = enumerate(unique_special_tokens(special_tokens))
        specials = {text: first_special + i for i, text in numbered}
        return cls(
            merges=merges,
            pretokenizer=pretokenizer,
            pattern=pattern,
            special_tokens=specials,
            end_of_word=end_of_word,
        )

    @classmethod
    def from_ranks(
        cls,
        ranks: dict[bytes, int],
        *,
        pattern: str,
        special_tokens: dict[str, int] | None = None,
    ) -> Tokenizer:
        """A tiktoken-style model: token bytes with ranks (the rank is the id)."""
        missing = [value for value in range(256) if bytes([value]) not in ranks]
        if missing:
            raise ValueError(
                f"the rank table lacks {len(missing)} single bytes (first: {missing[0]}): "
                "a byte-level BPE needs all 256"
            )
        pretokenizer, override = pretokenizer_for_pattern(pattern)
        return cls(
            byte_ids=[ranks[bytes([value])] for value in range(256)],
            ranks=ranks,
            pretokenizer=pretokenizer,
            pattern=override,
            special_tokens=special_tokens,
        )

    def memory_bytes(self) -> int:
        """Approximate size of what the tokenizer keeps: its tokens' bytes, about 300 bytes
        of Python objects per token (the vocabulary, merges and pair ranks), and the chunks
        it remembers having encoded (a server's caches are bounded in these bytes)."""
        tokens = sum(len(token) for token in self.vocab.values())
        chunks = sum(len(chunk) + 8 * len(ids) + 120 for chunk, ids in self._chunk_cache.items())
        return tokens + _TOKEN_BYTES * (len(self.vocab) + len(self.special_tokens)) + chunks

    def truncated(self, merge_count: int) -> Tokenizer:
        """The same tokenizer with only its first ``merge_count`` merges (ids unchanged)."""
        if self.ranks is not None:
            raise ValueError("a rank table has no merge order to truncate")
        return Tokenizer(
            byte_ids=self.byte_ids,
            merges=self.merges[:merge_count],
            pretokenizer=self.pretokenizer,
            pattern=self.pattern,
            special_tokens=self.special_tokens,
            end_of_word=self.end_of_word,
        )

    def _build_vocab(self) -> dict[int, bytes]:
        """Token bytes by id, derived from the one source of truth (merges or ranks)."""
        if self.ranks is not None:
            return {rank: token for token, rank in self.ranks.items()}
        vocab = {token_id: bytes([value]) for value, token_id in enumerate(self.byte_ids)}
        if self.end_of_word:
            vocab[END_OF_WORD_ID] = symbol_bytes(END_OF_WORD_ID)
        for rank, (left, right, new) in enumerate(self.merges):
            if left not in vocab or right not in vocab:
                unknown = left if left not in vocab else right
                raise ValueError(f"merge {rank + 1} uses id {unknown}, which no earlier line makes")
            if new in vocab:
                raise ValueError(f"merge {rank + 1} makes id {new}, which already exists")
            vocab[new] = vocab[left] + vocab[right]
        return vocab

    def _build_text_bytes(self) -> dict[int, bytes]:
        """What each token contributes to decoded text: its bytes without ``</w>``.

        The marker is always a token's last symbol (it ends every word), so a token ends a
        word exactly when its right parent does.
        """
        if not self.end_of_word:
            return self.vocab
        ends_word = {END_OF_WORD_ID}
        for _left, right, new in self.merges:
            if right in ends_word:
                ends_word.add(new)
        marker = len(_MARKER)
        return {
            token_id: token[:-marker] if token_id in ends_word else token
            for token_id, token in self.vocab.items()
        }

    # ---- properties ---------------------------------------------------------------------

    @property
    def vocab_size(self) -> int:
        """Number of ids, special tokens included."""
        return len(self.vocab) + len(self.special_tokens)

    @property
    def split_pattern(self) -> str:
        """The regex pattern used to cut text ("" for ``bytes``; ``words`` cuts on spaces)."""
        if self.pattern is not None:
            return self.pattern
        return SPLIT_PATTERNS.get(self.pretokenizer, "")

    def token_bytes(self, token_id: int) -> bytes:
        """Bytes of one token as shown (``</w>`` included; a special token's text)."""
        if token_id in self.vocab:
            return self.vocab[token_id]
        if token_id in self._special_by_id:
            return to_bytes(self._special_by_id[token_id])
        raise ValueError(self._unknown_id_message(token_id))

    def is_special(self, token_id: int) -> bool:
        return token_id in self._special_by_id

    def _unknown_id_message(self, token_id: Any) -> str:
        largest = max([*self.vocab, *self._special_by_id], default=-1)
        return (
            f"id {token_id} is not in this tokenizer's vocabulary "
            f"(ids run from 0 to {largest}, {self.vocab_size:,} in all)"
        )

    # ---- encoding -----------------------------------------------------------------------

    def encode(self, text: str | bytes, *, allow_special: bool = True) -> list[int]:
        """Text to ids: pre-tokenize, then merge inside each piece in learned order.

        With ``allow_special=False``, special-token text is encoded as ordinary text.
        """
        specials = self.special_tokens if allow_special else {}
        ids: list[int] = []
        for piece in pretokenize(
            text, self.pretokenizer, special_tokens=specials, pattern=self.pattern
        ):
            if piece.kind is PieceKind.SPECIAL:
                ids.append(specials[piece.data.decode("utf-8", errors="surrogateescape")])
            elif piece.kind is PieceKind.FIXED:
                ids.extend(self.byte_ids[value] for value in piece.data)
            else:
                ids.extend(self._encode_chunk(piece.data))
        return ids

    def _encode_chunk(self, data: bytes) -> tuple[int, ...]:
        cached = self._chunk_cache.get(data)
        if cached is not None:
            return cached
        if self.ranks is not None:
            rank = self.ranks.get(data)
            if rank is not None:
                return (rank,)
            parts = _merge_parts([_SINGLE_BYTES[value] for value in data], *self._rank_rules())
            result = tuple(self.ranks[part] for part in parts)
        else:
            result = tuple(_merge_parts(self._symbols(data), *self._merge_rules()))
        if len(data) <= 256:  # long chunks (bytes mode) are rarely repeated: don't keep them
            if len(self._chunk_cache) >= _CACHE_LIMIT:
                self._chunk_cache.clear()
            self._chunk_cache[data] = result
        return result

    def _symbols(self, data: bytes) -> list[int]:
        symbols = [self.byte_ids[value] for value in data]
        if self.end_of_word:
            symbols.append(END_OF_WORD_ID)
        return symbols

    def _merge_rules(self) -> tuple[Callable[[Any, Any], int | None], Callable[[Any, Any], Any]]:
        pair_ranks = self._pair_ranks

        def rank_of(left: int, right: int) -> int | None:
            found = pair_ranks.get((left, right))
            return None if found is None else found[0]

        def join(left: int, right: int) -> int:
            return pair_ranks[(left, right)][1]

        return rank_of, join

    def _rank_rules(self) -> tuple[Callable[[Any, Any], int | None], Callable[[Any, Any], Any]]:
        ranks = self.ranks
        assert ranks is not None

        def rank_of(left: bytes, right: bytes) -> int | None:
            return ranks.get(left + right)

        def join(left: bytes, right: bytes) -> bytes:
            return left + right

        return rank_of, join

    def encode_trace(self, text: str | bytes) -> list[TraceStep]:
        """Every merge applied while encoding ``text`` (one piece: a word, say), in order.

        This is "why was this word split like this?": start from bytes, and each step names
        the merge (by rank) that fired and the tokens after it. Pre-tokenization is not
        applied: the whole text is treated as one piece. A piece longer than
        ``TRACE_MAX_BYTES`` is refused (``ValueError``): trace a part of it.
        """
        data = to_bytes(text) if isinstance(text, str) else text
        if len(data) > TRACE_MAX_BYTES:
            raise ValueError(
                f"a trace replays at most {TRACE_MAX_BYTES:,} bytes and this piece has "
                f"{len(data):,}: trace a part of it"
            )
        steps: list[TraceStep] = []
        if self.ranks is not None:
            ranks = self.ranks

            def record(rank: int, position: int, parts: list[bytes]) -> None:
                left, right = parts[position], parts[position + 1]
                tokens = [ranks[part] for part in parts]
                after = (*tokens[:position], ranks[left + right], *tokens[position + 2 :])
                steps.append(
                    TraceStep(rank, ranks[left], ranks[right], after[position], position, after)
                )

            _merge_parts([bytes([value]) for value in data], *self._rank_rules(), on_merge=record)
        else:
            pair_ranks = self._pair_ranks

            def record(rank: int, position: int, parts: list[int]) -> None:
                left, right = parts[position], parts[position + 1]
                new = pair_ranks[(left, right)][1]
                after = (*parts[:position], new, *parts[position + 2 :])
                steps.append(TraceStep(rank, left, right, new, position, after))

            _merge_parts(self._symbols(data), *self._merge_rules(), on_merge=record)
        return steps

    # ---- decoding -----------------------------------------------------------------------

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """Ids to the raw bytes they stand for (``</w>`` markers removed)."""
        pieces: list[bytes] = []
        text_bytes = self._text_bytes
        for token_id in ids:
            if token_id in text_bytes:
                pieces.append(text_bytes[token_id])
            elif token_id in self._special_by_id:
                pieces.append(to_bytes(self._special_by_id[token_id]))
            else:
                raise ValueError(self._unknown_id_message(token_id))
        return b"".join(pieces)

    def decode(self, ids: Iterable[int]) -> str:
        """Ids to text; bytes that are not valid UTF-8 become U+FFFD (never an exception)."""
        return self.decode_bytes(ids).decode("utf-8", errors="replace")


def check_id(token_id: Any, what: str) -> None:
    """Refuse an id no view can show, naming ``what`` it belongs to: not a whole number, or
    outside 0 to ``MAX_TOKEN_ID`` (the largest a browser holds exactly). Every reader's ids
    pass here, ours through :func:`_check_ids` and the ``tokenizers`` library's files'.

    >>> check_id("7", "token 'a'")
    Traceback (most recent call last):
    ValueError: token 'a' has the id '7': ids are whole numbers
    """
    if isinstance(token_id, bool) or not isinstance(token_id, int):
        raise ValueError(f"{what} has the id {token_id!r}: ids are whole numbers")
    if not 0 <= token_id <= MAX_TOKEN_ID:
        raise ValueError(
            f"id {token_id:,} of {what} is out of range: ids run from 0 to "
            f"{MAX_TOKEN_ID:,} (2^53 - 1, the largest a browser holds exactly)"
        )


def _check_ids(
    byte_ids: Sequence[int],
    merges: Sequence[MERGE],
    ranks: dict[bytes, int] | None,
    special_tokens: dict[str, int],
) -> None:
    """Refuse ids no view can show: not whole numbers from 0 to ``MAX_TOKEN_ID``, two bytes
    sharing one id, or two tokens of a rank table sharing one rank. A file can say any of
    these; the message names the id and what it belongs to."""
    named: list[tuple[Any, str]] = [
        (token_id, f"byte {value}") for value, token_id in enumerate(byte_ids)
    ]
    named += [(new, f"merge {rank + 1}") for rank, (_, _, new) in enumerate(merges)]
    named += [(token_id, f"special token {text!r}") for text, token_id in special_tokens.items()]
    if ranks is not None:
        named += [(rank, f"token {token!r}") for token, rank in ranks.items()]
    for token_id, what in named:
        check_id(token_id, what)
    owners: dict[int, int] = {}
    for value, token_id in enumerate(byte_ids):
        if token_id in owners:
            raise ValueError(
                f"bytes {owners[token_id]} and {value} both have id {token_id}: every byte "
                "needs its own id"
            )
        owners[token_id] = value
    if ranks is not None and len(set(ranks.values())) < len(ranks):
        by_rank: dict[int, bytes] = {}
        for token, rank in ranks.items():
            if rank in by_rank:
                raise ValueError(
                    f"tokens {by_rank[rank]!r} and {token!r} both have rank {rank}: every "
                    "token needs its own rank"
                )
            by_rank[rank] = token


def _merge_parts(
    parts: list[Any],
    rank_of: Callable[[Any, Any], int | None],
    join: Callable[[Any, Any], Any],
    on_merge: Callable[[int, int, list[Any]], None] | None = None,
) -> list[Any]:
    """Repeatedly join the adjacent pair of lowest rank (leftmost first); return the parts.

    ``on_merge(rank, position, current_parts)`` is called before each join, for traces.
    """
    size = len(parts)
    if size < 2:
        return parts
    tokens: list[Any] = list(parts)
    nxt = [*range(1, size), -1]
    prv = list(range(-1, size - 1))
    # pair_rank[i]: the rank of the pair that starts at i now (None: none), so a queued entry
    # is checked without joining the pair's bytes again (a rank names one pair).
    pair_rank: list[int | None] = [rank_of(tokens[i], tokens[i + 1]) for i in range(size - 1)]
    pair_rank.append(None)
    # One int per entry, rank * size + position: ints compare faster than tuples.
    heap = [rank * size + i for i, rank in enumerate(pair_rank) if rank is not None]
    heapq.heapify(heap)
    while heap:
        rank, i = divmod(heapq.heappop(heap), size)
        if pair_rank[i] != rank or tokens[i] is None:
            continue  # stale: this pair changed since it was queued
        j = nxt[i]
        if on_merge is not None:
            on_merge(rank, _index_of(nxt, i), _live(tokens, nxt))
        tokens[i] = join(tokens[i], tokens[j])
        tokens[j] = None
        pair_rank[j] = None
        k = nxt[j]
        nxt[i] = k
        found = None
        if k >= 0:
            prv[k] = i
            found = rank_of(tokens[i], tokens[k])
            if found is not None:
                heapq.heappush(heap, found * size + i)
        pair_rank[i] = found
        p = prv[i]
        if p >= 0:
            found = rank_of(tokens[p], tokens[i])
            pair_rank[p] = found
            if found is not None:
                heapq.heappush(heap, found * size + p)
    return _live(tokens, nxt)


def _live(tokens: list[Any], nxt: list[int]) -> list[Any]:
    """The current parts, in order, following the linked list from the first position."""
    result = []
    i = 0
    while i >= 0:
        result.append(tokens[i])
        i = nxt[i]
    return result


def _index_of(nxt: list[int], position: int) -> int:
    """Index of the token at buffer ``position`` among the live tokens."""
    index, i = 0, 0
    while i != position:
        i = nxt[i]
        index += 1
    return index
