"""Tests for bpeviz.records.tokens: the record the browser draws any list of tokens from.

Expected values are worked by hand (Wikipedia's ``aaabdaaabac`` with the lexmin tie rule:
``aa`` = 256, ``ab`` = 257, ``aaab`` = 256 + 257 = 258), or checked against an independent
encoder: a rank-table token's parents against tiktoken's own educational BPE
(``tiktoken._educational.bpe_encode``) run on the token's bytes with only the lower ranks,
and piece starts against encoding each piece of the pre-tokenizer on its own.
"""

from __future__ import annotations

import json

import pytest
from tiktoken._educational import bpe_encode

from bpeviz import train
from bpeviz.engine.pretokenize import pretokenize
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.real.openai_ranks import load_encoding
from bpeviz.records.schema import SCHEMA, VOCAB_FIELDS, Kind, named
from bpeviz.records.tokens import (
    piece_starts,
    rank_parents,
    token_entry,
    token_parents,
    tokens_data,
)


@pytest.fixture(scope="module")
def cl100k() -> Tokenizer:
    return load_encoding("cl100k_base")


def test_a_merge_lists_parents_go_down_to_single_bytes() -> None:
    tokenizer = train("aaabdaaabac", 259, tie_break="lexmin").tokenizer
    assert token_parents(tokenizer, [258, 100]) == {
        258: (256, 257, 3),
        256: (97, 97, 1),
        257: (97, 98, 2),
    }
    data = tokens_data(tokenizer, tokenizer.encode("aaabdaaabac"))
    assert data["ids"] == [258, 100, 258, 97, 99]
    assert data["parents"] == {"256": [97, 97, 1], "257": [97, 98, 2], "258": [256, 257, 3]}
    assert data["unit"] == "merge" and data["schema"] == SCHEMA
    # every id drawn and every ancestor has an entry, and nothing else
    assert set(data["vocab"]) == {"258", "256", "257", "97", "98", "99", "100"}


def test_entries_say_end_of_word_special_and_broken_bytes() -> None:
    tokenizer = Tokenizer.from_merges([(108, 111)], end_of_word=True, special_tokens=["<|e|>"])
    low = tokenizer.encode("lo")
    assert low[-1] == 256  # the </w> marker
    marker = named(VOCAB_FIELDS, token_entry(tokenizer, 256))
    assert marker["kind"] == Kind.END_OF_WORD and marker["label"] == ""
    special = tokenizer.special_tokens["<|e|>"]
    assert token_entry(tokenizer, special) == [
        "<|e|>",
        f"id {special} · special token",
        2,
        "",
        0,
        b"<|e|>".hex(),
    ]
    assert token_entry(tokenizer, 0xE9) == [
        ["", "<E9>"],
        "id 233 · bytes E9 · a single byte",
        0,
        "e9",
        0,
        "e9",
    ]
    newline = named(VOCAB_FIELDS, token_entry(tokenizer, 10))
    assert newline["newlines"] == 1  # a newline breaks the line after it


def test_a_rank_replay_splits_a_token_into_the_last_two_parts() -> None:
    ranks = {bytes([value]): value for value in range(256)}
    ranks |= {b"ab": 256, b"bc": 257, b"abc": 258, b"bcd": 259}
    assert rank_parents(ranks, b"abc") == (b"ab", b"c")  # ab (256) joins before bc (257)
    assert rank_parents(ranks, b"bcd") == (b"bc", b"d")
    assert rank_parents(ranks, b"a") is None


def test_cl100k_hello_is_built_by_the_rank_replay(cl100k: Tokenizer) -> None:
    """“ hello” (24748) = “ h” + “ello”, “ello” = “el” + “lo”: each node is the two parts
    tiktoken's educational encoder leaves when given only the ranks below the node's own."""
    (hello,) = cl100k.encode(" hello")
    parents = token_parents(cl100k, [hello])
    assert [cl100k.token_bytes(i) for i in parents[hello][:2]] == [b" h", b"ello"]
    assert set(parents) == {hello, *[i for i in parents if len(cl100k.token_bytes(i)) > 1]}
    assert cl100k.ranks is not None
    for token_id, (left, right, number) in parents.items():
        assert number == token_id  # a rank table's number is the rank
        data = cl100k.token_bytes(token_id)
        assert cl100k.token_bytes(left) + cl100k.token_bytes(right) == data
        lower = {part: rank for part, rank in cl100k.ranks.items() if rank < token_id}
        assert bpe_encode(lower, data, visualise=None) == [left, right]
    data = tokens_data(cl100k, [hello])
    assert data["unit"] == "rank"
    title = named(VOCAB_FIELDS, data["vocab"][str(hello)])["title"]
    assert title == f"id {hello} · bytes 20 68 65 6C 6C 6F · rank {hello}"
    single = {i for i in map(int, data["vocab"]) if len(cl100k.token_bytes(i)) == 1}
    assert {cl100k.token_bytes(i) for i in single} == {bytes([b]) for b in b" helo"}


def test_a_tree_reaches_single_bytes_for_every_token_of_a_long_text(cl100k: Tokenizer) -> None:
    text = "Tokenizers 🙂 駅前の本屋で 12345\n<|endoftext|>"
    data = tokens_data(cl100k, cl100k.encode(text))
    for token_id, (left, right, _) in data["parents"].items():
        assert str(left) in data["vocab"] and str(right) in data["vocab"], token_id
    for key in data["vocab"]:
        token_id = int(key)
        if key not in data["parents"] and not cl100k.is_special(token_id):
            assert len(cl100k.token_bytes(token_id)) == 1
    json.dumps(data)  # plain JSON for the component


def pieces_oracle(tokenizer: Tokenizer, text: str) -> list[int]:
    """Token indices of piece starts, from encoding each piece on its own."""
    starts, index = [], 0
    for piece in pretokenize(
        text,
        tokenizer.pretokenizer,
        pattern=tokenizer.pattern,
        special_tokens=tokenizer.special_tokens,
    ):
        starts.append(index)
        index += len(tokenizer.encode(piece.data.decode("utf-8", "surrogateescape")))
    return starts


@pytest.mark.parametrize(
    "text",
    ["駅前の小さな本屋で、子ども 12345", "Hello world, it's 2026!\n\n  ok", "", "<|endoftext|>a"],
    ids=["japanese-digits", "english", "empty", "special"],
)
def test_piece_starts_are_the_pretokenizers_cuts(cl100k: Tokenizer, text: str) -> None:
    ids = cl100k.encode(text)
    assert piece_starts(cl100k, text, ids) == pieces_oracle(cl100k, text)


def test_japanese_stays_one_piece_and_digits_go_in_threes(cl100k: Tokenizer) -> None:
    """gpt4's pattern: a run of letters is one piece (``、`` starts the next one), digits
    are cut 123|45, and the space before them is a piece of its own."""
    text = "駅前の小さな本屋で、子ども 12345"
    ids = cl100k.encode(text)
    starts = piece_starts(cl100k, text, ids)
    pieces = [
        cl100k.decode(ids[start:end])
        for start, end in zip(starts, [*starts[1:], len(ids)], strict=True)
    ]
    assert pieces == ["駅前の小さな本屋で", "、子ども", " ", "123", "45"]
    data = tokens_data(cl100k, ids, pieces=starts)
    assert data["pieces"] == starts and "Japanese" in data["pieces_rule"]


def test_words_whitespace_bytes_are_pieces_of_their_own() -> None:
    tokenizer = Tokenizer.from_merges([(97, 98)], pretokenizer="words")
    ids = tokenizer.encode("ab  ab")
    assert ids == [256, 32, 32, 256]
    assert piece_starts(tokenizer, "ab  ab", ids) == [0, 1, 2, 3]


def test_the_bytes_pretokenizer_has_one_piece() -> None:
    tokenizer = Tokenizer.from_merges([(97, 32)])
    ids = tokenizer.encode("a a b")
    assert piece_starts(tokenizer, "a a b", ids) == [0]
    assert "whole text is one piece" in tokens_data(tokenizer, ids, pieces=[0])["pieces_rule"]


def test_options_are_passed_and_checked() -> None:
    tokenizer = Tokenizer.from_merges([])
    data = tokens_data(
        tokenizer, [97, 98], marks=["new", ""], show="ids", group=False, inspect=False, scroll=False
    )
    assert (data["marks"], data["show"], data["group"], data["inspect"], data["scroll"]) == (
        ["new", ""],
        "ids",
        False,
        False,
        False,
    )
    assert data["pieces"] is None and data["pieces_rule"] == ""
    with pytest.raises(ValueError, match="show must be"):
        tokens_data(tokenizer, [97], show="bytes")
    with pytest.raises(ValueError, match="marks must be"):
        tokens_data(tokenizer, [97], marks=["", ""])
    with pytest.raises(ValueError, match="marks must be"):
        tokens_data(tokenizer, [97], marks=["bold"])
