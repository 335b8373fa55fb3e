"""Encoding and decoding with learned merges: round trips, traces, broken UTF-8, bad ids.

Why ``encode(training text)`` equals the trainer's final segmentation, in every mode: the
encoder cuts the text with the same pre-tokenizer, then inside each chunk repeatedly merges
the lowest-ranked pair present, leftmost first. Training merged pair ``i`` everywhere, left
to right, at step ``i``; after that step no occurrence of pair ``i`` is left (greedy left to
right leaves no two unmerged neighbours forming it), and later merges only create pairs that
contain a newer id, so a pair of rank ``i`` never reappears. So at any moment of encoding,
the lowest rank present is the training step that chunk had reached, and merging it leftmost
first, repeatedly, is the same greedy pass. Whitespace (``words``) and special tokens are
taken as they are on both sides. The tests below check this for every mode and every ``k``.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import FRAGMENTS, MODES, SPECIAL, training_bytes, training_texts

from bpeviz.engine import textbook
from bpeviz.engine.history import History, train
from bpeviz.engine.tokenizer import Tokenizer

TRAINING_TEXT = (
    "the cat sat on the mat. The cats' hats don't fit!\n"
    "low lower lowest newer wider </w> a</w> 日本語 日本 😀😀 👍🏽 123 1234\n"
    f"{SPECIAL}aaabdaaabac{SPECIAL}  ab ab ab\t\tab\n"
) * 3


def trained(mode: str, *, specials: bool = True, vocab_size: int = 330) -> History:
    pretokenizer, end_of_word = MODES[mode]
    return train(
        TRAINING_TEXT,
        vocab_size + (1 if end_of_word else 0),
        pretokenizer=pretokenizer,
        end_of_word=end_of_word,
        special_tokens=[SPECIAL] if specials else [],
    )


HISTORIES = {mode: trained(mode) for mode in MODES}

any_text = st.one_of(
    st.text(max_size=60),
    st.lists(st.sampled_from(FRAGMENTS)).map("".join),
)


# ---- the textbook encoder as an independent oracle ----------------------------------------

# Special tokens that overlap: a prefix of another, one inside another, one straddling two.
OVERLAPPING_SPECIALS = [SPECIAL, f"{SPECIAL}!", "e|><|", "|e"]
# Runs of one symbol too: where equal pairs overlap, only leftmost-first is right.
UNSEEN_FRAGMENTS = [*FRAGMENTS, *OVERLAPPING_SPECIALS, "<|e", "!", "</w>", "e", "<", "aaa",
                    "aaaaa", "   ", "\t\t\t", "ababab", "日本日本日本"]  # fmt: skip
UNSEEN_MODEL_TEXT = TRAINING_TEXT + "".join(OVERLAPPING_SPECIALS) * 2


def unseen_texts() -> st.SearchStrategy[str | bytes]:
    """Text the model never saw: fragments around overlapping specials, any Unicode, or
    bytes that are not UTF-8."""
    return st.one_of(
        st.lists(st.sampled_from(UNSEEN_FRAGMENTS), max_size=40).map("".join),
        st.text(max_size=40),
        training_bytes(),
    )


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=120, deadline=None)
@given(
    text=unseen_texts(),
    merges=st.integers(0, 120),
    rule=st.sampled_from(["first", "lexmin", "lexmax"]),
    specials=st.lists(st.sampled_from(OVERLAPPING_SPECIALS), unique=True, max_size=4),
)
def test_encode_equals_the_textbook_encoder_on_text_training_never_saw(
    mode: str, text: str | bytes, merges: int, rule: str, specials: list[str]
) -> None:
    """The textbook recipe cuts specials and pieces itself and merges naively (earliest
    learned pair present, everywhere, again): our encoder gives the same ids."""
    pretokenizer, end_of_word = MODES[mode]
    base = 257 if end_of_word else 256
    history = train(
        UNSEEN_MODEL_TEXT,
        base + merges,
        pretokenizer=pretokenizer,
        tie_break=rule,
        special_tokens=specials,
        end_of_word=end_of_word,
    )
    learned = [step.pair for step in history.steps]
    expected = textbook.encode(
        text, learned, pretokenizer=pretokenizer, special_tokens=specials, end_of_word=end_of_word
    )
    assert history.tokenizer.encode(text) == expected


# ---- round trips ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=150, deadline=None)
@given(text=any_text)
def test_decode_encode_round_trip(mode: str, text: str) -> None:
    tokenizer = HISTORIES[mode].tokenizer
    assert len(tokenizer.merges) > 30  # a real model, not the bytes alone
    assert tokenizer.decode(tokenizer.encode(text)) == text
    assert tokenizer.decode(tokenizer.encode(text, allow_special=False)) == text


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=100, deadline=None)
@given(data=st.binary(max_size=40))
def test_decode_bytes_encode_round_trip_on_any_bytes(mode: str, data: bytes) -> None:
    tokenizer = HISTORIES[mode].tokenizer
    assert tokenizer.decode_bytes(tokenizer.encode(data)) == data


def test_end_of_word_model_learned_marker_tokens() -> None:
    """The round trip above means something for </w>: the model has tokens ending in it,
    and the literal text ``</w>`` in the input is not mistaken for the marker."""
    tokenizer = HISTORIES["words+eow"].tokenizer
    assert any(tokenizer.vocab[new].endswith(b"</w>") for _, _, new in tokenizer.merges)
    for text in ["</w>", "a</w>", "</w></w> x</w>", "low</w>lower"]:
        assert tokenizer.decode(tokenizer.encode(text)) == text


def test_special_tokens_encode_to_one_id_unless_disallowed() -> None:
    history = HISTORIES["gpt2"]
    tokenizer = history.tokenizer
    special_id = history.vocab_size  # the first id after the merges
    assert tokenizer.special_tokens == {SPECIAL: special_id}
    assert tokenizer.encode(f"a{SPECIAL}b").count(special_id) == 1
    assert special_id not in tokenizer.encode(f"a{SPECIAL}b", allow_special=False)


# ---- encode equals what training did -------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_encoding_the_training_text_gives_the_final_segmentation(mode: str) -> None:
    history = HISTORIES[mode]
    assert (
        history.tokenizer.encode(TRAINING_TEXT)
        == history.segmentation(len(history.steps)).ids.tolist()
    )


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=100, deadline=None)
@given(text=training_texts(), merges=st.integers(0, 30), with_special=st.booleans())
def test_tokenizer_at_every_step_encodes_the_training_text_as_the_segmentation(
    mode: str, text: str, merges: int, with_special: bool
) -> None:
    pretokenizer, end_of_word = MODES[mode]
    history = train(
        text,
        (257 if end_of_word else 256) + merges,
        pretokenizer=pretokenizer,
        end_of_word=end_of_word,
        special_tokens=[SPECIAL] if with_special else [],
    )
    for k in range(len(history.steps) + 1):
        assert history.tokenizer_at(k).encode(text) == history.segmentation(k).ids.tolist()


# ---- traces --------------------------------------------------------------------------------


def test_wikipedia_example_encodes_as_the_article_says() -> None:
    """aa -> Z (256), ab -> Y (257), ZY -> X (258): aaabdaaabac -> X d X a c."""
    tokenizer = Tokenizer.from_merges([(97, 97), (97, 98), (256, 257)])
    assert tokenizer.encode("aaabdaaabac") == [258, 100, 258, 97, 99]
    trace = tokenizer.encode_trace("aaab")
    assert [(s.rank, s.left, s.right, s.new_id, s.position) for s in trace] == [
        (0, 97, 97, 256, 0),
        (1, 97, 98, 257, 1),
        (2, 256, 257, 258, 0),
    ]
    assert [s.tokens_after for s in trace] == [(256, 97, 98), (256, 257), (258,)]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("word", ["cat", "hats", "lowest", "aaabdaaabac", "日本語", "😀😀", "xyz"])
def test_trace_replays_merges_in_rank_order_and_ends_in_encode(mode: str, word: str) -> None:
    tokenizer = HISTORIES[mode].tokenizer
    base = 257 if tokenizer.end_of_word else 256
    trace = tokenizer.encode_trace(word)
    tokens = list(word.encode()) + ([256] if tokenizer.end_of_word else [])
    ranks = []
    for step in trace:
        assert tokens[step.position : step.position + 2] == [step.left, step.right]
        assert tokenizer.merges[step.rank] == (step.left, step.right, step.new_id)
        assert step.new_id == base + step.rank
        tokens[step.position : step.position + 2] = [step.new_id]
        assert list(step.tokens_after) == tokens
        ranks.append(step.rank)
    assert ranks == sorted(ranks)
    assert tokens == tokenizer.encode(word)  # one chunk in every mode
    assert (trace[-1].tokens_after if trace else tuple(tokens)) == tuple(tokenizer.encode(word))


def test_trace_of_a_word_no_merge_touches_is_empty() -> None:
    assert HISTORIES["bytes"].tokenizer.encode_trace("qzj") == []


# ---- decoding ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ids", "text"),
    [
        ([0xFF], "\ufffd"),
        ([0xE6, 0x97], "\ufffd"),  # the first two of the three bytes of 日
        ([0x61, 0xE6, 0x97], "a\ufffd"),
        ([0xE6, 0x97, 0xA5], "日"),
        ([0x80, 0x61], "\ufffda"),
    ],
)
def test_invalid_utf8_decodes_to_replacement_characters(ids: list[int], text: str) -> None:
    assert HISTORIES["bytes"].tokenizer.decode(ids) == text


@settings(max_examples=200, deadline=None)
@given(ids=st.lists(st.integers(0, 255), max_size=20))
def test_decoding_any_byte_ids_never_raises(ids: list[int]) -> None:
    tokenizer = HISTORIES["bytes"].tokenizer
    assert tokenizer.decode(ids) == bytes(ids).decode("utf-8", errors="replace")


@pytest.mark.parametrize("mode", MODES)
def test_decoding_an_id_outside_the_vocabulary_is_a_clear_error(mode: str) -> None:
    tokenizer = HISTORIES[mode].tokenizer
    outside = tokenizer.vocab_size
    with pytest.raises(ValueError, match=f"id {outside} is not in this tokenizer's vocabulary"):
        tokenizer.decode([97, outside])
    with pytest.raises(ValueError, match="not in this tokenizer's vocabulary"):
        tokenizer.decode([-1])


def test_decoding_a_half_merged_multibyte_token_is_replacement_not_error() -> None:
    """A merge that joins the first two bytes of 日 alone is broken UTF-8: U+FFFD."""
    tokenizer = Tokenizer.from_merges([(0xE6, 0x97)])
    assert tokenizer.vocab[256] == b"\xe6\x97"
    assert tokenizer.decode([256]) == "\ufffd"
    assert tokenizer.decode([256, 0xA5]) == "日"
