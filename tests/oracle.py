"""The textbook BPE trainer: slow, short and obviously right. The tests' reference.

It is written from the spec, not from ``bpeviz/trainer.py``, in the plainest way there is
(minbpe's ``get_stats`` / ``merge`` loop):

1. pre-tokenize the text into a list of chunks in **text order, every repetition kept**
   (``bpeviz.pretokenize.pretokenize`` does the cutting; the regex split is tested on its own);
2. each step: count every adjacent pair of every chunk into a dict filled in scan order,
   pick the winner by the tie rule, give it the next id, and merge it left to right,
   non-overlapping, in every chunk;
3. record the pair, its count, the merges done, the tied pairs and the whole text's tokens.

What it leaves out on purpose: weights, unique chunks, heaps, linked lists, incremental
counts -- everything that makes the real trainer fast is what the tests hold it against.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from hypothesis import strategies as st

from bpeviz.pretokenize import PieceKind, pretokenize
from bpeviz.trainer import MergeStep

Pair = tuple[int, int]
END_OF_WORD_ID = 256
MARKER_TEXT = b"</w>"


def get_stats(ids: list[int], counts: dict[Pair, int]) -> None:
    """Add the adjacent pairs of ``ids`` to ``counts``, overlaps included, in scan order.

    >>> counts = {}
    >>> get_stats([97, 97, 97, 98], counts)
    >>> counts
    {(97, 97): 2, (97, 98): 1}
    """
    for pair in pairwise(ids):
        counts[pair] = counts.get(pair, 0) + 1


def merge(ids: list[int], pair: Pair, new_id: int) -> list[int]:
    """Replace ``pair`` by ``new_id`` scanning left to right, never overlapping.

    >>> merge([97, 97, 97, 98], (97, 97), 256)
    [256, 97, 98]
    """
    if pair[0] not in ids:  # nothing to do (saves the loop on most chunks of a book)
        return ids
    out: list[int] = []
    i, n = 0, len(ids)
    while i < n:
        if i + 1 < n and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def rank_pairs(counts: dict[Pair, int], rule: str) -> list[Pair]:
    """Every pair, best first: by count, then by the tie rule.

    ``first`` keeps scan order among equal counts (``sorted`` is stable and the dict was
    filled in scan order), which is the order of first occurrence in the text.
    """
    if rule == "first":
        return sorted(counts, key=lambda pair: -counts[pair])
    if rule == "lexmin":
        return sorted(counts, key=lambda pair: (-counts[pair], pair))
    if rule == "lexmax":
        return sorted(counts, key=lambda pair: (-counts[pair], -pair[0], -pair[1]))
    raise ValueError(f"unknown tie rule {rule!r}")


def pick(counts: dict[Pair, int], rule: str) -> Pair:
    """The winner, computed the way the rule is usually written down (independent of ranking)."""
    if rule == "first":
        return max(counts, key=counts.get)  # type: ignore[arg-type]  # minbpe's line
    top = max(counts.values())
    tied = [pair for pair, count in counts.items() if count == top]
    return min(tied) if rule == "lexmin" else max(tied)


@dataclass(frozen=True)
class OracleStep:
    """One merge as the textbook loop saw it (``tied``: every tied pair, rule order)."""

    pair: Pair
    new_id: int
    token: bytes
    count: int
    replacements: int
    tied: tuple[Pair, ...]
    tokens_after: int


@dataclass
class OracleRun:
    """Steps, why it stopped, and snapshots of the whole text after ``k`` merges.

    ``sequences[k]``: ids of the whole text after ``k`` merges (special tokens get the ids
    after the final merges). ``pair_counts[k]``: the pair counts at that point, in rule order.
    Only steps listed in ``snapshots`` are kept when the run was asked for a few.
    """

    base: int
    steps: list[OracleStep] = field(default_factory=list)
    stop: str = ""  # "vocab", "no pairs" or "min frequency"
    sequences: dict[int, list[int]] = field(default_factory=dict)
    pair_counts: dict[int, list[tuple[Pair, int]]] = field(default_factory=dict)
    vocab: dict[int, bytes] = field(default_factory=dict)  # visible bytes ("</w>" is b"")


def oracle_train(
    text: str,
    vocab_size: int,
    *,
    pretokenizer: str = "bytes",
    tie_break: str = "first",
    special_tokens: Iterable[str] = (),
    end_of_word: bool = False,
    min_frequency: int = 1,
    snapshots: Iterable[int] | None = None,
) -> OracleRun:
    """Train the textbook way; keep snapshots at every step, or only at ``snapshots``."""
    base = 257 if end_of_word else 256
    specials = list(dict.fromkeys(s for s in special_tokens if s))
    keep = None if snapshots is None else set(snapshots)

    chunks: list[list[int]] = []  # every chunk of the text, in text order, repeats included
    layout: list[tuple[str, object]] = []  # per piece: ("chunk", index) / ("fixed", ids) / ...
    for piece in pretokenize(text, pretokenizer, special_tokens=specials):
        if piece.kind is PieceKind.CHUNK:
            layout.append(("chunk", len(chunks)))
            chunks.append(list(piece.data) + ([END_OF_WORD_ID] if end_of_word else []))
        elif piece.kind is PieceKind.FIXED:
            layout.append(("fixed", list(piece.data)))
        else:
            layout.append(("special", piece.data.decode("utf-8", errors="surrogateescape")))

    run = OracleRun(base=base)
    run.vocab = {i: bytes([i]) for i in range(256)}
    if end_of_word:
        run.vocab[END_OF_WORD_ID] = b""
    raw_sequences: dict[int, list[int | str]] = {}
    tokens: list[bytes] = [bytes([i]) for i in range(256)] + ([MARKER_TEXT] if end_of_word else [])

    while True:
        counts: dict[Pair, int] = {}
        for ids in chunks:
            get_stats(ids, counts)
        k = len(run.steps)
        if keep is None or k in keep:
            raw_sequences[k] = _whole_text(layout, chunks)
            run.pair_counts[k] = [(pair, counts[pair]) for pair in rank_pairs(counts, tie_break)]
        if base + k >= vocab_size:
            run.stop = "vocab"
            break
        if not counts:
            run.stop = "no pairs"
            break
        ranked = rank_pairs(counts, tie_break)
        top = counts[ranked[0]]
        if top < min_frequency:
            run.stop = "min frequency"
            break
        pair = pick(counts, tie_break)
        assert pair == ranked[0], "the oracle's own ranking disagrees with its winner"
        tied = [p for p in ranked if counts[p] == top]
        new_id = base + k
        before = sum(len(ids) for ids in chunks)
        chunks = [merge(ids, pair, new_id) for ids in chunks]
        tokens.append(tokens[pair[0]] + tokens[pair[1]])
        run.vocab[new_id] = run.vocab[pair[0]] + run.vocab[pair[1]]
        run.steps.append(
            OracleStep(
                pair=pair,
                new_id=new_id,
                token=tokens[new_id],
                count=top,
                replacements=before - sum(len(ids) for ids in chunks),
                tied=tuple(tied) if len(tied) > 1 else (),
                tokens_after=len(_whole_text(layout, chunks)),
            )
        )

    special_ids = {text: base + len(run.steps) + i for i, text in enumerate(specials)}
    for text_of_special, special_id in special_ids.items():
        run.vocab[special_id] = text_of_special.encode("utf-8", errors="surrogateescape")
    run.sequences = {
        k: [special_ids[t] if isinstance(t, str) else t for t in seq]
        for k, seq in raw_sequences.items()
    }
    return run


def _whole_text(layout: list[tuple[str, object]], chunks: list[list[int]]) -> list[int | str]:
    """Tokens of the whole text, in order; a special token stands as its text for now."""
    out: list[int | str] = []
    for kind, value in layout:
        if kind == "chunk":
            out.extend(chunks[value])  # type: ignore[index]
        elif kind == "fixed":
            out.extend(value)  # type: ignore[arg-type]
        else:
            out.append(value)  # type: ignore[arg-type]
    return out


# ---- shared by the test files: the modes, text strategies, and the step comparison ---------

MODES: dict[str, tuple[str, bool]] = {
    "bytes": ("bytes", False),
    "gpt2": ("gpt2", False),
    "gpt4": ("gpt4", False),
    "words": ("words", False),
    "words+eow": ("words", True),
}
SPECIAL = "<|e|>"
# ``MergeStep.tied`` keeps the winner and the runner-up; ``more_tied`` says whether a third
# pair tied too, and ``History.tied_pairs`` lists them all.
MAX_TIED_RECORDED = 2

# Pieces that make BPE interesting: repeats, overlaps, whitespace runs, multi-byte UTF-8,
# contractions and digits (regex modes), a special token and broken halves of it, and the
# literal text of the end-of-word marker.
FRAGMENTS = [
    "a", "b", "a", "b", "ab", "aa", " ", " ", "  ", "\n", "\t", "é", "日本", "語", "😀", "👍🏽",
    "'s", "'t", "12", "3", "!", "?!", SPECIAL, "<|", "|>", "</w>",
]  # fmt: skip


def stop_kind(reason: str) -> str:
    """Map the engine's sentence to the oracle's stop label."""
    if "vocab size" in reason:
        return "vocab"
    if "no pair left" in reason:
        return "no pairs"
    if "minimum frequency" in reason:
        return "min frequency"
    raise AssertionError(f"unexpected stop reason: {reason!r}")


def assert_same_steps(
    steps: Sequence[MergeStep], run: OracleRun, rule: str, stop_reason: str
) -> None:
    """The engine's ``MergeStep`` records equal the oracle's, field by field."""
    got = [(s.pair, s.count) for s in steps]
    want = [(s.pair, s.count) for s in run.steps]
    assert got == want, "merge sequence differs from the textbook loop"
    for index, (mine, theirs) in enumerate(zip(steps, run.steps, strict=True)):
        where = f"step {index + 1}"
        assert mine.step == index + 1, where
        assert mine.new_id == theirs.new_id == run.base + index, where
        assert mine.token == theirs.token, where
        assert mine.replacements == theirs.replacements, where
        assert mine.tokens_after == theirs.tokens_after, where
        assert mine.rule == rule, where
        assert mine.tied == theirs.tied[:MAX_TIED_RECORDED], where
        assert mine.more_tied == (len(theirs.tied) > MAX_TIED_RECORDED), where
    assert stop_kind(stop_reason) == run.stop, stop_reason


def training_texts(max_fragments: int = 40) -> st.SearchStrategy[str]:
    """Non-empty texts: tiny alphabets (many ties and overlaps), fragments, any Unicode."""
    return st.one_of(
        st.text(alphabet="ab ", min_size=1, max_size=80),
        st.text(alphabet="aab\n", min_size=1, max_size=80),
        st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=max_fragments).map("".join),
        st.text(min_size=1, max_size=25),
    )
