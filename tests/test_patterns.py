"""Split patterns from files cannot hang the server (issue 17): a pattern that is not a
published one is compiled and run on a worst-case probe text with a time limit when a model
is loaded, and refused by name with the reason; a malformed one is refused with a message.

The catastrophic pattern is the one the issue's adversarial pass used: on a text with no NUL
byte, ``(?:[\\s\\S]|[\\s\\S])*`` tries 2^n ways before giving up at each position.
"""

from __future__ import annotations

import importlib
import json

import pytest
from hf_helpers import split_json

from bpeviz.engine.pretokenize import GPT4_SPLIT_PATTERN, check_split_pattern, pretokenize_text
from bpeviz.engine.tokenizer import Tokenizer
from bpeviz.formats import load_model_file
from bpeviz.formats.hf_json import from_hf_json
from bpeviz.formats.minbpe import from_minbpe_model
from bpeviz.formats.tiktoken import to_tiktoken

pretokenize = importlib.import_module("bpeviz.engine.pretokenize")  # the package exports a function
CATASTROPHIC = r"(?:[\s\S]|[\s\S])*\x00|."
MALFORMED = r"(?:\p{L}+"


def test_a_catastrophic_pattern_is_refused_by_name_with_the_reason() -> None:
    with pytest.raises(ValueError, match=r"backtracks.*could hang") as raised:
        check_split_pattern(CATASTROPHIC)
    assert "(?:[\\s\\S]|[\\s\\S])*" in str(raised.value)


def test_a_malformed_pattern_is_refused_with_a_message() -> None:
    with pytest.raises(ValueError, match=r"not a valid regular expression"):
        check_split_pattern(MALFORMED)


def test_published_and_ordinary_patterns_pass() -> None:
    check_split_pattern(GPT4_SPLIT_PATTERN)
    check_split_pattern(r"\w+|\s+|[^\w\s]+")


@pytest.mark.parametrize("pattern", [CATASTROPHIC, MALFORMED], ids=["catastrophic", "malformed"])
def test_every_reader_refuses_the_pattern_on_load(pattern: str) -> None:
    minbpe = f"minbpe v1\n{pattern}\n0\n97 97\n".encode()
    with pytest.raises(ValueError, match="split pattern"):
        from_minbpe_model(minbpe)
    with pytest.raises(ValueError, match="split pattern"):
        load_model_file("evil.model", minbpe)
    with pytest.raises(ValueError, match="split pattern"):
        from_hf_json(split_json(pattern))
    with pytest.raises(ValueError, match="split pattern"):
        Tokenizer.from_merges([], pretokenizer="gpt4", pattern=pattern)
    ranks = {bytes([value]): value for value in range(256)}
    with pytest.raises(ValueError, match="split pattern"):
        Tokenizer.from_ranks(ranks, pattern=pattern)
    assert to_tiktoken(Tokenizer.from_ranks(ranks, pattern=GPT4_SPLIT_PATTERN))


def test_a_pattern_slow_on_a_long_text_stops_with_a_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The probe cannot foresee every text: a run is limited too (here to almost nothing)."""
    monkeypatch.setattr(pretokenize, "run_seconds", lambda size: 1e-9)
    with pytest.raises(ValueError, match="split pattern took longer than"):
        pretokenize_text("word " * 200_000, "gpt4", pattern=r"\w+|\s+")


def test_the_checked_patterns_are_remembered_in_a_bounded_cache() -> None:
    for index in range(pretokenize.MAX_COMPILED_PATTERNS + 10):
        check_split_pattern(rf"\w+|\s+|x{{{index}}}")
    assert pretokenize._verdict.cache_info().currsize <= pretokenize.MAX_COMPILED_PATTERNS


def test_a_tokenizer_json_with_a_malformed_split_is_refused_on_load() -> None:
    """Issue 17: it loaded, then Tokenize and Compare showed a traceback."""
    document = json.loads(split_json(r"\w+|\s+"))
    document["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "[a-"
    with pytest.raises(ValueError, match="not a valid regular expression"):
        from_hf_json(json.dumps(document))
