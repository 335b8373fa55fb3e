"""The Special tokens box is bounded (issue 29): 20,000 tokens made a 248,920-character
address that nginx and the server refuse, and 100,000 cost 7 s of regex compiling and about
50 MB kept per set. The box takes at most ``MAX_SPECIAL_TOKENS`` tokens and
``MAX_SPECIALS_CHARS`` characters and says so; each set is compiled once, in a cache bounded
by the characters of the sets it keeps.
"""

from __future__ import annotations

import pytest
from apptest_support import new_app, plain, run

from bpeviz.app.frame.links import query_from_state, state_from_query
from bpeviz.app.frame.run_settings import (
    KEY_SPECIALS,
    MAX_SPECIAL_TOKENS,
    MAX_SPECIALS_CHARS,
    Settings,
    check_settings,
    default_state,
)
from bpeviz.engine.pretokenize import (
    SPECIALS_CACHE_CHARS,
    forget_special_sets,
    special_sets_kept,
    split_specials,
)
from bpeviz.engine.tokenizer import MAX_MODEL_SPECIALS, Tokenizer

MANY = " ".join(f"<|t{index}|>" for index in range(20_000))  # the 20,000 tokens


def errors_for(specials: tuple[str, ...]) -> str:
    return " ".join(m.text for m in check_settings(Settings(special_tokens=specials)))


def test_the_box_takes_at_most_so_many_tokens_and_says_so() -> None:
    tokens = tuple(f"<|{index}|>" for index in range(MAX_SPECIAL_TOKENS + 1))
    assert errors_for(tokens[:-1]) == ""
    message = errors_for(tokens)
    assert f"{MAX_SPECIAL_TOKENS + 1} special tokens" in message
    assert f"at most {MAX_SPECIAL_TOKENS}" in message


def test_the_box_takes_at_most_so_many_characters_and_says_so() -> None:
    half = MAX_SPECIALS_CHARS // 2
    assert errors_for(("a" * (half - 1), "b" * (half - 1))) == ""  # with the space between
    assert f"{MAX_SPECIALS_CHARS:,} characters" in errors_for(("a" * half, "b" * half))


def test_a_link_with_too_many_special_tokens_is_ignored_with_a_warning() -> None:
    """Kept, the 248,920 characters would be written back into every address of the
    session."""
    state, messages = state_from_query({KEY_SPECIALS: MANY})
    assert state[KEY_SPECIALS] == ""
    assert any(f"at most {MAX_SPECIAL_TOKENS}" in m.text for m in messages)
    assert KEY_SPECIALS not in query_from_state({**default_state(), KEY_SPECIALS: MANY})


def test_compiled_special_token_sets_are_kept_within_a_bound() -> None:
    """Ten sets of 1,000 tokens (12,000 characters each, 120,000 in all): past the bound,
    the least recently used go (``lru_cache(32)`` kept all ten, 3 MB each); one set is
    compiled once however often it splits."""
    forget_special_sets()
    try:
        for number in range(10):
            tokens = [f"<|s{number}.{index:04}|>" for index in range(1_000)]
            for _ in range(2):
                parts = split_specials(f"a{tokens[7]}b", tokens)
                assert parts == [("a", False), (tokens[7], True), ("b", False)]
            assert special_sets_kept() <= SPECIALS_CACHE_CHARS
        assert special_sets_kept() > SPECIALS_CACHE_CHARS - 12_000  # the newest are kept
    finally:
        forget_special_sets()


def test_a_model_with_too_many_special_tokens_is_refused_in_a_sentence() -> None:
    """A 9.8 MB tokenizer.json with 200,000 added tokens took 14.7 s and 628 MB to encode
    with (one regex of them all); Tekken, with 1,000, is far below the limit."""
    many = {f"<|x{index}|>": 256 + index for index in range(MAX_MODEL_SPECIALS + 1)}
    with pytest.raises(ValueError, match=f"more than the {MAX_MODEL_SPECIALS:,} special"):
        Tokenizer(special_tokens=many)
    del many[f"<|x{MAX_MODEL_SPECIALS}|>"]
    assert len(Tokenizer(special_tokens=many).special_tokens) == MAX_MODEL_SPECIALS


def test_the_page_says_when_the_box_holds_too_many_and_trains_nothing() -> None:
    at = run(new_app())
    typed = " ".join(f"<|{index}|>" for index in range(MAX_SPECIAL_TOKENS + 1))
    at = run(at.text_input(key=KEY_SPECIALS).input(typed))
    errors = " ".join(plain(error.value) for error in at.error)
    assert f"The Special tokens box holds {MAX_SPECIAL_TOKENS + 1} special tokens" in errors
    assert at.text_input(key=KEY_SPECIALS).value == typed  # nothing typed is lost
