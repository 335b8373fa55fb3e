"""Readers refuse what is wrong (issue 17): duplicate or negative ids, one byte claimed twice,
ids no browser (JavaScript holds integers exactly up to 2^53) or Arrow (2^63) can hold, JSON
objects naming a key twice, and numbers too long to read, with messages that speak to users.
"""

from __future__ import annotations

import base64
import json

import pytest
from hf_helpers import split_json

from bpeviz.engine.tokenizer import MAX_TOKEN_ID, Tokenizer
from bpeviz.formats.gpt2 import from_gpt2_files
from bpeviz.formats.hf_json import from_hf_json
from bpeviz.formats.minbpe import from_minbpe_model
from bpeviz.formats.tiktoken import from_tiktoken

HUGE = 2**63
BEYOND_JS = 2**53 + 1
ONE_BYTES = "".join(f"{base64.b64encode(bytes([b])).decode()} {b}\n" for b in range(256))


def hf_document() -> dict:
    return json.loads(split_json(r"\w+|\s+"))


def test_all_256_bytes_at_id_0_are_refused() -> None:
    document = hf_document()
    vocab = document["model"]["vocab"]
    for token in vocab:
        vocab[token] = 0
    with pytest.raises(ValueError, match="both have id 0"):
        from_hf_json(json.dumps(document))
    with pytest.raises(ValueError, match="both have id 0"):
        Tokenizer(byte_ids=[0] * 256)


@pytest.mark.parametrize("token_id", [-7, BEYOND_JS, HUGE], ids=["negative", "js", "arrow"])
def test_an_added_token_with_an_id_out_of_range_is_refused(token_id: int) -> None:
    document = hf_document()
    document["added_tokens"] = [{"id": token_id, "content": "<|x|>", "special": True}]
    with pytest.raises(ValueError, match=r"id .* of special token '<\|x\|>'.*0 to 9,007,"):
        from_hf_json(json.dumps(document))


@pytest.mark.parametrize("token_id", [BEYOND_JS, HUGE], ids=["js", "arrow"])
def test_ids_no_browser_can_hold_are_refused_in_every_format(token_id: int) -> None:
    with pytest.raises(ValueError, match="0 to 9,007,199,254,740,991"):
        from_minbpe_model(f"minbpe v1\n\n1\n<|x|> {token_id}\n".encode())
    with pytest.raises(ValueError, match="0 to 9,007,199,254,740,991"):
        from_tiktoken(ONE_BYTES + f"aGk= {token_id}\n")
    vocab = json.loads(_gpt2_vocab())
    vocab["<|endoftext|>"] = token_id
    with pytest.raises(ValueError, match="0 to 9,007,199,254,740,991"):
        from_gpt2_files(json.dumps(vocab), "")
    assert MAX_TOKEN_ID == 2**53 - 1


def test_a_rank_used_twice_is_refused() -> None:
    ranks = {bytes([b]): b for b in range(256)} | {b"hi": 7}
    with pytest.raises(ValueError, match="both have rank 7"):
        Tokenizer.from_ranks(ranks, pattern="")


@pytest.mark.parametrize("digits", [5_000, 100_000])
def test_a_number_too_long_to_read_gets_a_message_for_people(digits: int) -> None:
    number = "9" * digits
    cases = [
        lambda: from_minbpe_model(f"minbpe v1\n\n1\n<|x|> {number}\n"),
        lambda: from_tiktoken(ONE_BYTES + f"aGk= {number}\n"),
        lambda: from_gpt2_files('{"a": ' + number + "}", ""),
        lambda: from_hf_json('{"model": {"vocab": {"a": ' + number + "}}}"),
    ]
    for case in cases:
        with pytest.raises(ValueError) as raised:
            case()
        assert "sys." not in str(raised.value) and "int_max_str_digits" not in str(raised.value)


def test_a_json_key_given_twice_is_refused() -> None:
    """vocab.json naming one token twice (two ids for one token's bytes): JSON keeps the last
    silently, so the reader must look."""
    text = _gpt2_vocab()
    doubled = text.rstrip()[:-1] + ', "!": 300}'
    with pytest.raises(ValueError, match="names '!' twice"):
        from_gpt2_files(doubled, "")


def _gpt2_vocab() -> str:
    from bpeviz.formats.gpt2 import to_gpt2_files

    return to_gpt2_files(Tokenizer.from_merges([]))[0]


@pytest.mark.parametrize(
    ("part", "value"),
    [
        ("pre_tokenizer", {"type": "Sequence", "pretokenizers": 1}),
        ("post_processor", {"type": "Sequence", "processors": 5}),
    ],
    ids=["pretokenizers", "processors"],
)
def test_a_sequence_that_is_not_a_list_is_refused(part: str, value: object) -> None:
    """Found by tests/test_reader_fuzz.py: a TypeError before."""
    document = hf_document()
    document[part] = value
    with pytest.raises(ValueError, match="list"):
        from_hf_json(json.dumps(document))
