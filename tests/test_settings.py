"""Tests for the settings, text input and link format: clear messages, texts, round trips."""

from __future__ import annotations

import codecs

import pytest

from bpeviz.app.frame.links import MAX_LINK_TEXT_CHARS, query_from_state, state_from_query
from bpeviz.app.frame.run_settings import (
    KEY_END_OF_WORD,
    KEY_PASTE,
    KEY_PRETOKENIZER,
    KEY_SAMPLE,
    KEY_SOURCE,
    KEY_SPECIALS,
    KEY_TIE_BREAK,
    KEY_VOCAB,
    Settings,
    check_settings,
    default_state,
    outcome_messages,
    parse_special_tokens,
    settings_from_state,
    suggested_state,
)
from bpeviz.app.frame.text_input import (
    MAX_PASTE_BYTES,
    MAX_UPLOAD_BYTES,
    format_size,
    looks_binary,
    text_from_paste,
    text_from_upload,
)
from bpeviz.engine.config import MAX_VOCAB_SIZE
from bpeviz.engine.history import train
from bpeviz.engine.samples import DEFAULT_SAMPLE_KEY, get_sample, list_samples


def levels(messages) -> list[str]:
    return [message.level for message in messages]


# ---- vocab size ---------------------------------------------------------------------------


@pytest.mark.parametrize("vocab_size", [0, 100, 255], ids=["zero", "100", "255"])
def test_vocab_below_256_is_an_error_saying_the_minimum(vocab_size: int) -> None:
    messages = check_settings(Settings(vocab_size=vocab_size))
    assert levels(messages) == ["error"]
    assert "at least 256" in messages[0].text
    assert f"{vocab_size:,}" in messages[0].text


def test_vocab_minimum_is_257_with_the_end_of_word_marker() -> None:
    messages = check_settings(Settings(vocab_size=256, pretokenizer="words", end_of_word=True))
    assert levels(messages) == ["error"]
    assert "at least 257" in messages[0].text
    assert "</w>" in messages[0].text
    assert check_settings(Settings(vocab_size=257, pretokenizer="words", end_of_word=True)) == []


def test_vocab_above_the_limit_is_an_error_naming_the_limit() -> None:
    messages = check_settings(Settings(vocab_size=MAX_VOCAB_SIZE + 1))
    assert levels(messages) == ["error"]
    assert f"{MAX_VOCAB_SIZE:,}" in messages[0].text


@pytest.mark.parametrize("vocab_size", [256, 512, MAX_VOCAB_SIZE])
def test_vocab_within_bounds_is_fine(vocab_size: int) -> None:
    assert check_settings(Settings(vocab_size=vocab_size)) == []


def test_unknown_pretokenizer_and_tie_rule_are_errors_listing_the_choices() -> None:
    messages = check_settings(Settings(pretokenizer="spaces", tie_break="random"))
    assert levels(messages) == ["error", "error"]
    assert "gpt4" in messages[0].text and "lexmin" in messages[1].text


def test_training_that_stops_early_says_how_far_it_got_and_why() -> None:
    history = train("abab", 1000)
    settings = Settings(vocab_size=1000, pretokenizer="bytes")
    messages = outcome_messages(settings, history.merge_count, history.stop_reason)
    assert levels(messages) == ["info"]
    assert f"{history.merge_count:,}" in messages[0].text
    assert "744" in messages[0].text  # 1000 - 256 merges asked for
    assert history.stop_reason in messages[0].text


def test_training_that_reaches_the_vocab_size_says_nothing() -> None:
    history = train("aaabdaaabac", 259)
    assert outcome_messages(Settings(vocab_size=259), history.merge_count, "done") == []


# ---- pasted text --------------------------------------------------------------------------


def test_empty_paste_is_an_error() -> None:
    text, messages = text_from_paste("")
    assert text is None
    assert levels(messages) == ["error"]
    assert text_from_paste(None)[0] is None


def test_one_character_trains_with_a_warning() -> None:
    text, messages = text_from_paste("a")
    assert text is not None and text.data == "a"
    assert levels(messages) == ["warning"]
    assert "single character" in messages[0].text


def test_paste_over_the_limit_is_refused_and_says_the_text_is_kept() -> None:
    text, messages = text_from_paste("a" * (MAX_PASTE_BYTES + 1))
    assert text is None
    assert levels(messages) == ["error"]
    assert "2.0 MB" in messages[0].text and "still in the box" in messages[0].text


def test_paste_limit_counts_utf8_bytes_not_characters() -> None:
    japanese = "駅" * (MAX_PASTE_BYTES // 3 + 1)  # fewer characters than the limit
    assert len(japanese) < MAX_PASTE_BYTES
    assert text_from_paste(japanese)[0] is None
    assert text_from_paste("a" * MAX_PASTE_BYTES)[0] is not None


def test_normal_paste_is_kept_exactly() -> None:
    original = "  héllo <b>&\n\tworld  "
    text, messages = text_from_paste(original)
    assert text is not None and text.data == original and messages == []


# ---- uploads ------------------------------------------------------------------------------


def test_upload_over_the_limit_is_refused() -> None:
    text, messages = text_from_upload("big.txt", b"a" * (MAX_UPLOAD_BYTES + 1))
    assert text is None
    assert levels(messages) == ["error"]
    assert "10 MB" in messages[0].text and "big.txt" in messages[0].text


def test_the_upload_limit_is_the_uploaders_decimal_megabytes() -> None:
    """Streamlit's uploader counts 10 MB as 10,000,000 bytes; the app's own check allowed
    10 MiB, so a 10.4 MB file passed one check and failed the other, with two messages."""
    text, messages = text_from_upload("big.txt", b"a" * 10_400_000)
    assert text is None
    assert [m.text for m in messages] == [
        "big.txt is 10.4 MB; uploads are limited to 10 MB. Upload a shorter excerpt."
    ]
    text, _ = text_from_upload("fits.txt", b"a" * 10_000_000)
    assert text is not None


def test_empty_upload_is_refused() -> None:
    text, messages = text_from_upload("empty.txt", b"")
    assert text is None
    assert levels(messages) == ["error"]


@pytest.mark.parametrize(
    "data",
    [b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", b"PK\x03\x04\x14\x00\x00\x00", bytes(range(32)) * 8],
    ids=["png", "zip", "control-bytes"],
)
def test_binary_upload_is_refused_and_says_so(data: bytes) -> None:
    text, messages = text_from_upload("photo.png", data)
    assert text is None
    assert levels(messages) == ["error"]
    assert "binary" in messages[0].text


def test_invalid_utf8_upload_trains_on_its_bytes_and_says_so() -> None:
    data = b"caf\xe9 au lait, caf\xe9 noir"  # Latin-1
    text, messages = text_from_upload("latin1.txt", data)
    assert text is not None and text.data == data
    assert levels(messages) == ["info"]
    assert "not valid UTF-8" in messages[0].text
    assert "offset 3" in messages[0].text


def test_utf8_upload_becomes_text_and_a_bom_is_dropped_with_a_note() -> None:
    text, messages = text_from_upload("ja.txt", "駅前の本屋".encode())
    assert text is not None and text.data == "駅前の本屋" and messages == []
    text, messages = text_from_upload("bom.txt", codecs.BOM_UTF8 + b"hello")
    assert text is not None and text.data == "hello"
    assert levels(messages) == ["info"]


def test_utf16_upload_is_decoded_and_said_so() -> None:
    data = "héllo wörld".encode("utf-16")  # with a byte-order mark, full of NUL bytes
    text, messages = text_from_upload("windows.txt", data)
    assert text is not None and text.data == "héllo wörld"
    assert "UTF-16" in messages[0].text


def test_one_character_upload_warns() -> None:
    assert levels(text_from_upload("a.txt", b"a")[1]) == ["warning"]


def test_looks_binary() -> None:
    assert not looks_binary("plain text, with\ttabs\r\nand ünïcödé".encode())
    assert looks_binary(b"abc\x00def")
    assert not looks_binary(b"")


# ---- state and links ----------------------------------------------------------------------


def test_settings_from_an_empty_state_are_the_default_samples_suggestions() -> None:
    settings = settings_from_state({})
    sample = get_sample(DEFAULT_SAMPLE_KEY)
    assert settings.sample_key == DEFAULT_SAMPLE_KEY
    assert settings.vocab_size == sample.settings.vocab_size
    assert settings.pretokenizer == sample.settings.pretokenizer


def test_end_of_word_only_applies_to_the_words_pretokenizer() -> None:
    state = {**default_state(), KEY_END_OF_WORD: True, KEY_PRETOKENIZER: "gpt4"}
    assert settings_from_state(state).end_of_word is False
    state[KEY_PRETOKENIZER] = "words"
    assert settings_from_state(state).end_of_word is True
    assert settings_from_state(state).base_size == 257


def test_special_tokens_are_split_on_spaces_and_commas_without_duplicates() -> None:
    assert parse_special_tokens("<|a|>,<|b|>  <|a|>\n<|c|>") == ("<|a|>", "<|b|>", "<|c|>")
    assert parse_special_tokens("") == ()
    state = {**default_state(), KEY_SPECIALS: "<|endoftext|>, <|pad|>"}
    assert settings_from_state(state).special_tokens == ("<|endoftext|>", "<|pad|>")


def test_default_state_has_an_empty_link() -> None:
    assert query_from_state(default_state()) == {}
    assert state_from_query({}) == (default_state(), [])


@pytest.mark.parametrize("sample", list_samples(), ids=lambda sample: sample.key)
def test_a_sample_with_its_suggested_settings_is_just_its_name(sample) -> None:
    state = {**default_state(), KEY_SAMPLE: sample.key, **suggested_state(sample)}
    params = query_from_state(state)
    expected = {} if sample.key == DEFAULT_SAMPLE_KEY else {KEY_SAMPLE: sample.key}
    assert params == expected
    assert state_from_query(params) == (state, [])


def test_changed_settings_round_trip_through_the_link() -> None:
    state = {
        **default_state(),
        KEY_SOURCE: "paste",
        KEY_SAMPLE: "ties",
        KEY_VOCAB: 300,
        KEY_PRETOKENIZER: "words",
        KEY_TIE_BREAK: "lexmax",
        KEY_END_OF_WORD: True,
        KEY_SPECIALS: "<|endoftext|> <|pad|>",
        KEY_PASTE: "the cat & the <hat>",
    }
    params = query_from_state(state)
    assert params == {
        "src": "paste",
        "sample": "ties",
        "vocab": "300",
        "tie": "lexmax",
        "eow": "1",
        "special": "<|endoftext|> <|pad|>",
        "paste": "the cat & the <hat>",
    }
    assert state_from_query(params) == (state, [])


def test_a_long_paste_is_left_out_of_the_link() -> None:
    state = {**default_state(), KEY_SOURCE: "paste", KEY_PASTE: "x" * (MAX_LINK_TEXT_CHARS + 1)}
    assert KEY_PASTE not in query_from_state(state)
    state[KEY_PASTE] = "x" * MAX_LINK_TEXT_CHARS
    assert query_from_state(state)[KEY_PASTE] == state[KEY_PASTE]


def test_a_paste_is_not_in_the_link_while_a_sample_is_shown() -> None:
    state = {**default_state(), KEY_PASTE: "kept for later"}
    assert query_from_state(state) == {}


def test_a_sample_name_alone_brings_its_suggested_settings() -> None:
    state, messages = state_from_query({"sample": "aaabdaaabac"})
    assert messages == []
    assert (state[KEY_VOCAB], state[KEY_PRETOKENIZER], state[KEY_TIE_BREAK]) == (
        259,
        "bytes",
        "lexmin",
    )


def test_bad_link_values_are_ignored_with_a_warning_each() -> None:
    params = {
        "src": "ftp",
        "sample": "nope",
        "vocab": "lots",
        "pretok": "spaces",
        "tie": "coin",
        "eow": "maybe",
    }
    state, messages = state_from_query(params)
    assert state == default_state()
    assert levels(messages) == ["warning"] * 6
    assert all("ignored" in message.text for message in messages)


@pytest.mark.parametrize("vocab", ["-1", "0", "1", "255", "256"])
def test_a_link_vocab_below_257_is_ignored_and_named_as_written(vocab: str) -> None:
    """The vocab size boxes start at 257, the 256 bytes and one merge ("vocab size 1" was
    taken, then failed); a link below it is named as written and ignored."""
    state, messages = state_from_query({"vocab": vocab})
    assert state == default_state()
    why = "is not a whole number of at least 257" if vocab == "-1" else (
        "is below 257, the 256 bytes and one merge"
    )
    assert [m.text for m in messages] == [f"The link's vocab={vocab!r} {why}; ignored."]


def test_a_link_vocab_of_257_is_taken() -> None:
    state, messages = state_from_query({"vocab": "257"})
    assert state[KEY_VOCAB] == 257 and messages == []


def test_out_of_range_vocab_from_a_link_is_kept_so_the_page_can_explain_it() -> None:
    state, messages = state_from_query({"vocab": str(MAX_VOCAB_SIZE + 1)})
    assert state[KEY_VOCAB] == MAX_VOCAB_SIZE + 1 and messages == []
    assert levels(check_settings(settings_from_state(state))) == ["error"]


def test_format_size() -> None:
    assert [format_size(n) for n in (1, 999, 1000, 2_000_000)] == [
        "1 byte",
        "999 bytes",
        "1.0 KB",
        "2.0 MB",
    ]
