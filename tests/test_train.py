"""The trainer is exact: hand-worked and published examples, and the textbook loop as oracle.

Every expected number here comes from counting by hand (the counts are written in the
docstrings), from a published walk-through, from Hugging Face ``tokenizers`` run live, or
from the textbook recipe ``bpeviz/engine/textbook.py`` -- never from the engine's own output.
"""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracle import (
    MAX_TIED_RECORDED,
    MODES,
    SPECIAL,
    assert_same_steps,
    training_bytes,
    training_texts,
)

from bpeviz.engine import textbook
from bpeviz.engine.history import History, PairTable, train
from bpeviz.engine.tie_rules import TIE_BREAKS


def pair_counts(table: PairTable) -> dict[tuple[int, int], int]:
    """A pair table as ``{pair: count}``, to compare with counts worked out by hand."""
    return dict(zip(table.pairs(), table.counts.tolist(), strict=True))


REPO = Path(__file__).resolve().parents[1]
EOW = "</w>"


def pieces(history: History) -> list[tuple[str, str]]:
    """Each merge as the two token texts it joined (``</w>`` shown as such)."""
    vocab = history.tokenizer.vocab
    return [(vocab[a].decode(), vocab[b].decode()) for a, b in (s.pair for s in history.steps)]


def assert_tied(history: History, step: int, expected: list[tuple[int, int]]) -> None:
    """All tied pairs of merge ``step`` (1-based) in rule order; the record keeps a prefix."""
    record = history.steps[step - 1]
    assert history.tied_pairs(step) == expected
    assert record.tied == tuple(expected[:MAX_TIED_RECORDED])
    assert record.more_tied == (len(expected) > MAX_TIED_RECORDED)


def b(text: str) -> tuple[int, ...]:
    """Byte ids of a short ASCII text: ``b("ab") == (97, 98)``."""
    return tuple(text.encode())


# ---- golden examples ----------------------------------------------------------------------


def test_wikipedia_aaabdaaabac_first_rule() -> None:
    """Wikipedia, "Byte pair encoding": ``aaabdaaabac``, counted by hand.

    Step 1: (a,a) occurs 4 times (twice, overlapping, in each ``aaa``), merged twice:
    ``aa a b d aa a b a c`` = 9 tokens. Step 2: (aa,a) and (a,b) tie at 2; (aa,a) occurs
    first -> ``aaa b d aaa b a c`` = 7. Step 3: (aaa,b) = 2 -> ``aaab d aaab a c`` = 5.
    """
    history = train("aaabdaaabac", 259)
    steps = history.steps
    assert [s.pair for s in steps] == [(97, 97), (256, 97), (257, 98)]
    assert [s.token for s in steps] == [b"aa", b"aaa", b"aaab"]
    assert [s.count for s in steps] == [4, 2, 2]
    assert [s.replacements for s in steps] == [2, 2, 2]
    assert [history.token_count(k) for k in range(4)] == [11, 9, 7, 5]
    assert_tied(history, 2, [(256, 97), (97, 98)])
    assert_tied(history, 1, [])


def test_wikipedia_aaabdaaabac_lexmin_matches_the_article() -> None:
    """Wikipedia's walk-through replaces aa -> Z, then ab -> Y, then ZY -> X.

    The article's step 2 is a tie between (aa,a) and (a,b) (2 each); it takes ``ab``, which
    is what the smallest-ids rule does: (97,98) < (256,97). Then (aa,ab) occurs twice.
    Tokens 11 -> 9 -> 7 -> 5, as with ``first``.
    """
    history = train("aaabdaaabac", 259, tie_break="lexmin")
    assert [s.pair for s in history.steps] == [(97, 97), (97, 98), (256, 257)]
    assert [s.token for s in history.steps] == [b"aa", b"ab", b"aaab"]
    assert [s.tokens_after for s in history.steps] == [9, 7, 5]
    assert_tied(history, 2, [(97, 98), (256, 97)])
    assert history.segmentation(3).ids.tolist() == [258, 100, 258, 97, 99]


def test_cat_sat_first_merge_is_at() -> None:
    """``the cat sat on the mat``: (a,t) occurs 3 times (cat, sat, mat); every other pair
    at most twice (t h, h e, e _, t _). 22 bytes -> 19 tokens."""
    history = train("the cat sat on the mat", 257)
    (step,) = history.steps
    assert step.pair == b("at") and step.count == 3 and step.replacements == 3
    assert step.tied == ()
    assert history.token_count(0) == 22 and step.tokens_after == 19


def test_cat_in_the_hat_lexmax() -> None:
    """``the cat in the hat``, largest ids win ties. By hand:

    step 1: (t,h) (h,e) (e,_) (a,t) all occur twice; largest is (116,104) ``th`` -> 256.
    step 2: (th,e) (e,_) (a,t) twice each; largest (256,101) ``the`` -> 257.
    step 3: (the,_) and (a,t) twice; largest (257,32) ``the_`` -> 258.
    """
    history = train("the cat in the hat", 259, tie_break="lexmax")
    assert [(s.pair, s.new_id) for s in history.steps] == [
        ((116, 104), 256),
        ((256, 101), 257),
        ((257, 32), 258),
    ]
    assert_tied(history, 1, [b("th"), b("he"), b("e "), b("at")])
    assert [s.count for s in history.steps] == [2, 2, 2]


LOW_LOWER = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"])


def test_low_lower_words_first_pair_table() -> None:
    """Hugging Face NLP course / Sennrich corpus with widest x1, whitespace words, by hand:

    low x5: lo 5, ow 5; lower x2: lo, ow, we, er 2; newest x6: ne, ew, we, es, st 6;
    widest x1: wi, id, de, es, st 1. Totals below; (w,e) = 2 + 6 = 8 is merged first.
    """
    history = train(LOW_LOWER, 300, pretokenizer="words")
    expected = {
        "lo": 7, "ow": 7, "we": 8, "er": 2, "ne": 6, "ew": 6,
        "es": 7, "st": 7, "wi": 1, "id": 1, "de": 1,
    }  # fmt: skip
    assert pair_counts(history.pair_table(0)) == {b(k): v for k, v in expected.items()}
    assert history.steps[0].pair == b("we") and history.steps[0].count == 8
    assert history.token_count(0) == len(LOW_LOWER)  # words and spaces, every byte a token


EAT_MERGES = [
    ("a", "t"), ("e", "at"), ("e", "n"), ("i", "n"),
    ("eat", "s"), ("eat", "en"), ("eat", "in"), ("eatin", "g"),
]  # fmt: skip


def test_eat_words_lexmin_by_hand() -> None:
    """``eat eats eating eaten``, smallest ids win, by hand:

    1: (e,a) and (a,t) both 4 -> (97,116) ``at``.  2: (e,at) 4 -> ``eat``.
    3: all pairs occur once: (eat,s) (eat,i) (i,n) (n,g) (eat,e) (e,n); smallest (101,110) e+n.
    4: (105,110) i+n.  5..8: pairs with ``eat`` (257) on the left, by right id: s (115),
    en (258), in (259); then (eatin,g).
    """
    history = train("eat eats eating eaten", 264, pretokenizer="words", tie_break="lexmin")
    assert pieces(history) == EAT_MERGES
    assert [s.count for s in history.steps] == [4, 4, 1, 1, 1, 1, 1, 1]


def test_eat_matches_hugging_face_bpe_trainer() -> None:
    """The same 8 merges from Hugging Face ``tokenizers``, run live.

    Its trainer breaks ties by the smallest pair of ids, numbers the alphabet in code-point
    order (as bytes are) and new tokens in creation order: the same rule as ``lexmin``.
    ``WhitespaceSplit`` drops the spaces, which are never merged in ``words`` mode anyway.
    """
    import tokenizers

    text = "eat eats eating eaten"
    alphabet = sorted(set(text) - {" "})  # a e g i n s t
    model = tokenizers.Tokenizer(tokenizers.models.BPE())
    model.pre_tokenizer = tokenizers.pre_tokenizers.WhitespaceSplit()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=len(alphabet) + len(EAT_MERGES), special_tokens=[], show_progress=False
    )
    model.train_from_iterator([text], trainer=trainer)
    merges = json.loads(model.to_str())["model"]["merges"]
    hf = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in merges]
    ours = pieces(train(text, 264, pretokenizer="words", tie_break="lexmin"))
    assert hf == EAT_MERGES
    assert ours == EAT_MERGES


SENNRICH = " ".join(["low"] * 5 + ["lower"] * 2 + ["newest"] * 6 + ["widest"] * 3)


def test_sennrich_algorithm_1_with_end_of_word_marker() -> None:
    """Sennrich, Haddow & Birch (2016), Algorithm 1's vocabulary:
    ``{'l o w </w>': 5, 'l o w e r </w>': 2, 'n e w e s t </w>': 6, 'w i d e s t </w>': 3}``.

    Counted by hand: lo 7, ow 7, w</w> 5, we 8, er 2, r</w> 2, ne 6, ew 6, es 9, st 9,
    t</w> 9, wi 3, id 3, de 3. So the first merges are es, est, est</w> (9 each; es and st
    and t</w> tie, es occurs first), then lo, low (7), ne, new, newest</w> (6), low</w> (5),
    wi, wid, widest</w> (3), lowe, lower, lower</w> (2). Every word is then one token.

    The paper's Figure 1 (``r · -> r·``, ``l o -> lo``, ``lo w -> low``, ``e r· -> er·``)
    is learned from a *different* dictionary, {low, lowest, newer, wider}: see the next test.
    Tokens: 95 symbols (markers included) + 15 spaces = 110, down to 16 words + 15 spaces.
    """
    history = train(SENNRICH, 1000, pretokenizer="words", end_of_word=True)
    assert pieces(history) == [
        ("e", "s"), ("es", "t"), ("est", EOW), ("l", "o"), ("lo", "w"),
        ("n", "e"), ("ne", "w"), ("new", "est</w>"), ("low", EOW),
        ("w", "i"), ("wi", "d"), ("wid", "est</w>"), ("low", "e"), ("lowe", "r"),
        ("lower", EOW),
    ]  # fmt: skip
    assert [s.count for s in history.steps] == [9, 9, 9, 7, 7, 6, 6, 6, 5, 3, 3, 3, 2, 2, 2]
    tie_sizes = [len(history.tied_pairs(step)) for step in range(1, 16)]
    assert tie_sizes == [3, 2, 0, 2, 0, 3, 2, 0, 0, 3, 2, 0, 3, 2, 0]
    assert_tied(history, 1, [b("es"), b("st"), (116, 256)])
    assert_tied(history, 6, [b("ne"), b("ew"), (119, 259)])  # 259 = est</w>
    assert history.token_count(0) == 110
    assert [s.tokens_after for s in history.steps] == [
        101, 92, 83, 76, 69, 63, 57, 51, 46, 43, 40, 37, 35, 33, 31,
    ]  # fmt: skip
    assert history.steps[0].new_id == 257  # 0..255 bytes, 256 the marker
    assert "no pair left" in history.stop_reason


def test_sennrich_figure_1_is_a_tie_none_of_our_rules_breaks_that_way() -> None:
    """Figure 1 of the paper: merges ``r </w>``, ``l o``, ``lo w``, ``e r</w>`` learned from
    {low, lowest, newer, wider}. By hand, (l,o) (o,w) (w,e) (e,r) (r,</w>) all occur twice:
    a five-way tie the paper broke by Python 2 dict order. Ours: ``first`` takes (l,o),
    ``lexmin`` (e,r) = (101,114), ``lexmax`` (w,e) = (119,101); r</w> is among the tied.
    """
    text = "low lowest newer wider"
    tied = {b("lo"), b("ow"), b("we"), b("er"), (114, 256)}
    picks = {}
    for rule in TIE_BREAKS:
        history = train(text, 258, pretokenizer="words", end_of_word=True, tie_break=rule)
        assert history.steps[0].count == 2
        assert set(history.tied_pairs(1)) == tied and len(history.tied_pairs(1)) == 5
        picks[rule] = history.steps[0].pair
    assert picks == {"first": b("lo"), "lexmin": b("er"), "lexmax": b("we")}


def test_first_rule_looks_at_the_current_sequence_not_the_original_text() -> None:
    """``aaaababab``: (a,a) 3 and (a,b) 3 tie, (a,a) first -> ``aa aa b a b a b``.

    Now (b,a) and (a,b) tie at 2. In the original text ``ab`` comes first (bytes 3-4), but
    that ``a`` is inside ``aa`` now: in the current sequence (b,a) comes first, and minbpe's
    ``max(stats, key=stats.get)`` takes it -> ``aa aa ba ba b``.
    """
    history = train("aaaababab", 258)
    assert [s.pair for s in history.steps] == [b("aa"), b("ba")]
    assert_tied(history, 2, [b("ba"), b("ab")])
    assert [s.tokens_after for s in history.steps] == [7, 5]


# ---- overlaps ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "merges", "counts", "replacements", "tokens"),
    [
        # (a,a) 3 overlapping, merged twice -> aa aa; then (aa,aa) once.
        ("aaaa", [b("aa"), (256, 256)], [3, 1], [2, 1], [2, 1]),
        # (a,a) 4 -> aa aa a; (aa,aa) and (aa,a) tie at 1, the first wins; then (aaaa,a).
        ("aaaaa", [b("aa"), (256, 256), (257, 97)], [4, 1, 1], [2, 1, 1], [3, 2, 1]),
        # (a,b) 3 -> ab ab _ ab; (ab,ab) (ab,_) (_,ab) tie at 1, (ab,ab) first.
        (
            "abab ab",
            [b("ab"), (256, 256), (257, 32), (258, 256)],
            [3, 1, 1, 1],
            [3, 1, 1, 1],
            [4, 3, 2, 1],
        ),
        # While (a,b) is replaced, (ab,a) appears then disappears twice over: only (ab,ab) is
        # left, twice. Then ab ab ab -> abab ab -> ababab.
        ("ababab", [b("ab"), (256, 256), (257, 256)], [3, 2, 1], [3, 1, 1], [3, 2, 1]),
        # (a,b) and (b,a) tie at 3, (a,b) first -> ab ab ab a: (ab,a) is made and unmade
        # twice, made a third time and kept. (ab,ab) 2 overlapping -> abab ab a; then the
        # tie (abab,ab) / (ab,a) goes to the first; then (ababab,a).
        (
            "abababa",
            [b("ab"), (256, 256), (257, 256), (258, 97)],
            [3, 2, 1, 1],
            [3, 1, 1, 1],
            [4, 3, 2, 1],
        ),
    ],
    ids=["aaaa", "aaaaa", "abab_ab", "ababab", "abababa"],
)
def test_overlapping_pairs(
    text: str, merges: list, counts: list, replacements: list, tokens: list
) -> None:
    history = train(text, 1000)
    assert [s.pair for s in history.steps] == merges
    assert [s.count for s in history.steps] == counts
    assert [s.replacements for s in history.steps] == replacements
    assert [s.tokens_after for s in history.steps] == tokens
    assert "no pair left" in history.stop_reason


def test_ababab_pair_counts_after_the_first_merge() -> None:
    """(ab,a) is created and destroyed inside the same merge: it must not linger at 0
    (``ababab``), nor be lost when it is created again and kept (``abababa``)."""
    assert pair_counts(train("ababab", 1000).pair_table(1)) == {(256, 256): 2}
    assert pair_counts(train("abababa", 1000).pair_table(1)) == {(256, 256): 2, (256, 97): 1}


def test_overlaps_are_weighted_by_repeated_words() -> None:
    """``aaa aaa aaa`` in words mode: (a,a) counts 2 per word x 3 = 6, merged 3 times; then
    (aa,a) 3. Spaces are tokens that never merge: 11 -> 8 -> 5."""
    history = train("aaa aaa aaa", 1000, pretokenizer="words")
    assert [(s.pair, s.count, s.replacements) for s in history.steps] == [
        (b("aa"), 6, 3),
        ((256, 97), 3, 3),
    ]
    assert [s.tokens_after for s in history.steps] == [8, 5]


# ---- chunks, whitespace and special tokens -------------------------------------------------


def test_regex_chunks_are_never_crossed() -> None:
    """``ab ab`` in gpt2 mode is chunks ``ab`` and `` ab``: (a,b) 2 -> ab, then (_,ab) 1; no
    token ever holds ``b`` followed by a space. In bytes mode the whole text becomes one."""
    gpt2 = train("ab ab", 1000, pretokenizer="gpt2")
    assert [s.token for s in gpt2.steps] == [b"ab", b" ab"]
    assert "no pair left" in gpt2.stop_reason
    whole = train("ab ab", 1000)
    assert whole.steps[-1].token == b"ab ab"


def test_words_mode_never_merges_whitespace() -> None:
    """``aa  aa``: only (a,a) exists (2); after it: aa _ _ aa = 4 tokens, nothing left."""
    history = train("aa  aa", 1000, pretokenizer="words")
    assert [(s.pair, s.count) for s in history.steps] == [(b("aa"), 2)]
    assert history.steps[0].tokens_after == 4
    assert "no pair left" in history.stop_reason


def test_special_tokens_are_never_split_or_merged() -> None:
    """``ab<|e|>ab``: (a,b) 2, nothing counted across the special token; 5 tokens -> 3.
    The special token gets the first id after the merges (256 + 1 merge = 257)."""
    history = train(f"ab{SPECIAL}ab", 1000, special_tokens=[SPECIAL])
    assert [(s.pair, s.count) for s in history.steps] == [(b("ab"), 2)]
    assert [history.token_count(k) for k in range(2)] == [5, 3]
    assert history.segmentation(1).ids.tolist() == [256, 257, 256]
    assert history.tokenizer.special_tokens == {SPECIAL: 257}


# ---- ties ----------------------------------------------------------------------------------


def test_tied_pairs_are_capped_in_rule_order() -> None:
    """61 distinct characters in a row: 60 pairs, each once. ``first`` keeps text order,
    ``lexmin``/``lexmax`` id order; the first ``MAX_TIED_RECORDED`` are recorded."""
    letters = [chr(c) for c in range(0x21, 0x21 + 61)]  # '!' .. ']' in increasing order
    text = "".join(reversed(letters))  # so text order and id order disagree
    pairs = [(ord(x), ord(y)) for x, y in pairwise(text)]
    expected = {"first": pairs, "lexmin": sorted(pairs), "lexmax": sorted(pairs, reverse=True)}
    for rule in TIE_BREAKS:
        history = train(text, 257, tie_break=rule)
        assert history.steps[0].pair == expected[rule][0]
        assert_tied(history, 1, expected[rule])


@pytest.mark.parametrize("extra", [0, 1])
def test_more_tied_is_set_only_past_the_cap(extra: int) -> None:
    """``MAX_TIED_RECORDED + extra`` pairs, each once (distinct letters in a row)."""
    text = "".join(chr(0x41 + i) for i in range(MAX_TIED_RECORDED + extra + 1))
    step = train(text, 257).steps[0]
    assert len(step.tied) == MAX_TIED_RECORDED
    assert step.more_tied == bool(extra)


# ---- stopping and bad input ----------------------------------------------------------------


def test_two_bytes_stop_after_one_merge_with_no_pair_left() -> None:
    history = train("ab", 1000)
    assert len(history.steps) == 1
    assert "no pair left" in history.stop_reason


def test_one_character_text_has_no_merges_and_says_why() -> None:
    history = train("a", 1000)
    assert history.steps == ()
    assert "no pair left" in history.stop_reason
    assert history.token_count(0) == 1


def test_vocab_size_stop_says_so() -> None:
    history = train("aaabdaaabac", 257)
    assert len(history.steps) == 1
    assert "vocab size" in history.stop_reason and "257" in history.stop_reason


def test_base_vocab_size_means_no_merges() -> None:
    assert train("aaaa", 256).steps == ()


def test_min_frequency_stop() -> None:
    """``ab ab ac``: (a,b) (b,_) (_,a) tie at 2 -> ab; then (ab,_) 2 -> ab_; then every pair
    occurs once, below 2: stop after 2 merges."""
    history = train("ab ab ac", 1000, min_frequency=2)
    assert [(s.token, s.count) for s in history.steps] == [(b"ab", 2), (b"ab ", 2)]
    assert "minimum frequency" in history.stop_reason and "2" in history.stop_reason


def test_empty_text_is_an_error() -> None:
    with pytest.raises(ValueError, match="empty"):
        train("", 300)


def test_text_of_only_a_special_token_trains_nothing() -> None:
    history = train(SPECIAL, 300, special_tokens=[SPECIAL])
    assert history.steps == () and history.token_count(0) == 1


@pytest.mark.parametrize(("end_of_word", "minimum"), [(False, 256), (True, 257)])
def test_vocab_below_the_base_is_an_error_naming_the_minimum(
    end_of_word: bool, minimum: int
) -> None:
    with pytest.raises(ValueError, match=f"at least {minimum}"):
        train("abc", minimum - 1, pretokenizer="words", end_of_word=end_of_word)


def test_unknown_pretokenizer_lists_the_choices() -> None:
    with pytest.raises(ValueError, match="bytes, gpt2, gpt4, words"):
        train("abc", 300, pretokenizer="sentencepiece")


def test_unknown_tie_rule_lists_the_choices() -> None:
    with pytest.raises(ValueError, match="first, lexmin, lexmax"):
        train("abc", 300, tie_break="random")


# ---- the textbook loop as oracle -----------------------------------------------------------


@pytest.mark.parametrize("rule", TIE_BREAKS)
@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=300, deadline=None)
@given(
    text=training_texts(),
    merges=st.integers(0, 40),
    with_special=st.booleans(),
    min_frequency=st.sampled_from([1, 1, 1, 2, 3]),
)
def test_trainer_equals_the_textbook_loop(
    mode: str, rule: str, text: str, merges: int, with_special: bool, min_frequency: int
) -> None:
    pretokenizer, end_of_word = MODES[mode]
    base = 257 if end_of_word else 256
    options = {
        "pretokenizer": pretokenizer,
        "tie_break": rule,
        "special_tokens": [SPECIAL] if with_special else [],
        "end_of_word": end_of_word,
        "min_frequency": min_frequency,
    }
    history = train(text, base + merges, **options)
    run = textbook.train(text, base + merges, snapshots=(), **options)
    assert_same_steps(history.steps, run, rule, history.stop_reason)


@pytest.mark.parametrize("mode", MODES)
@settings(max_examples=60, deadline=None)
@given(
    data=training_bytes(),
    merges=st.integers(0, 30),
    rule=st.sampled_from(TIE_BREAKS),
    with_special=st.booleans(),
)
def test_training_on_bytes_that_are_not_utf8_equals_the_textbook_loop(
    mode: str, data: bytes, merges: int, rule: str, with_special: bool
) -> None:
    """Uploads are bytes: broken UTF-8 trains byte by byte, exactly as the recipe does, and
    every byte comes back."""
    pretokenizer, end_of_word = MODES[mode]
    base = 257 if end_of_word else 256
    options = {
        "pretokenizer": pretokenizer,
        "tie_break": rule,
        "special_tokens": [SPECIAL] if with_special else [],
        "end_of_word": end_of_word,
    }
    history = train(data, base + merges, **options)
    run = textbook.train(data, base + merges, snapshots=(0, len(history.steps)), **options)
    assert_same_steps(history.steps, run, rule, history.stop_reason)
    for k in run.sequences:
        assert history.segmentation(k).ids.tolist() == run.sequences[k]
    assert history.tokenizer.decode_bytes(history.tokenizer.encode(data)) == data


# ---- Hugging Face's trainer at scale -------------------------------------------------------


def byte_order_symbols(text: str) -> str:
    """The text for Hugging Face, each byte of every non-space character as ``chr(0x100 + b)``.

    Its ``BpeTrainer`` numbers the alphabet in code-point order and breaks ties by the
    smallest pair of ids, so with these symbols its ids sort as our byte ids do and its tie
    rule is exactly ``lexmin``. (GPT-2's byte-level alphabet moves bytes 0-32, 127-160 and 173
    past U+00FF, which reorders them: see the next test.) Whitespace stays as it is, for
    ``WhitespaceSplit`` to cut at.
    """
    return "".join(
        char if char.isspace() else "".join(chr(0x100 + b) for b in char.encode()) for char in text
    )


def hugging_face_merges(text: str, vocab_size: int, byte_level: bool) -> list[tuple[bytes, bytes]]:
    """Merges learned by Hugging Face's ``BpeTrainer`` on whitespace words, as byte strings."""
    from tokenizers import Tokenizer as HFTokenizer
    from tokenizers import models, pre_tokenizers, trainers

    from bpeviz.formats.gpt2 import bytes_to_unicode

    model = HFTokenizer(models.BPE())
    if byte_level:
        model.pre_tokenizer = pre_tokenizers.Sequence(
            [
                pre_tokenizers.WhitespaceSplit(),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
            ]
        )
        alphabet = pre_tokenizers.ByteLevel.alphabet()
        byte_of = {char: byte for byte, char in bytes_to_unicode().items()}
    else:
        model.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
        alphabet = [chr(0x100 + b) for b in range(256)]
        byte_of = {chr(0x100 + b): b for b in range(256)}
        text = byte_order_symbols(text)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, min_frequency=0, show_progress=False, initial_alphabet=alphabet
    )
    model.train_from_iterator([text], trainer=trainer)
    merges = json.loads(model.to_str())["model"]["merges"]
    pairs = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in merges]
    return [(bytes(map(byte_of.get, a)), bytes(map(byte_of.get, b))) for a, b in pairs]


def merged_bytes(history: History) -> list[tuple[bytes, bytes]]:
    vocab = history.tokenizer.vocab
    return [(vocab[a], vocab[b]) for a, b in (step.pair for step in history.steps)]


@pytest.mark.parametrize("sample", ["english", "japanese"])
def test_words_lexmin_equals_hugging_face_bpe_trainer_at_scale(sample: str) -> None:
    """Up to 1,000 merges on a bundled sample, every one equal to Hugging Face's, in order.

    English runs out of pairs after 998 merges (every word is one token): both stop there.
    """
    text = (REPO / "sample_texts" / f"{sample}.txt").read_text(encoding="utf-8")
    history = train(text, 256 + 1000, pretokenizer="words", tie_break="lexmin")
    theirs = hugging_face_merges(text, 256 + 1000, byte_level=False)
    assert len(history.steps) >= 998
    assert merged_bytes(history) == theirs


def test_gpt2_byte_alphabet_only_reorders_ties() -> None:
    """With GPT-2's alphabet, Hugging Face numbers byte 0x8b after 0xa7 (0x8b is drawn as
    U+0151): Japanese merges agree until the first tie between such bytes, and there both
    pairs are tied in our record. This is why the test above gives it byte-ordered symbols."""
    text = (REPO / "sample_texts" / "japanese.txt").read_text(encoding="utf-8")
    history = train(text, 256 + 300, pretokenizer="words", tie_break="lexmin")
    ours = merged_bytes(history)
    theirs = hugging_face_merges(text, 256 + 300, byte_level=True)
    first = next(i for i, (mine, hf) in enumerate(zip(ours, theirs, strict=True)) if mine != hf)
    assert first > 10
    vocab = history.tokenizer.vocab
    tied = [(vocab[a], vocab[b]) for a, b in history.tied_pairs(first + 1)]
    assert ours[first] == tied[0] and theirs[first] in tied


# ---- real text at vocab 512 ----------------------------------------------------------------


def _real_text(name: str, request: pytest.FixtureRequest) -> tuple[str, list[str]]:
    """32 KB of Tiny Shakespeare (the ``shakespeare_text`` fixture), or the two bundled samples
    joined by a special token."""
    if name == "shakespeare":
        return request.getfixturevalue("shakespeare_text")[: 32 * 1024], []
    english = (REPO / "sample_texts" / "english.txt").read_text(encoding="utf-8")
    japanese = (REPO / "sample_texts" / "japanese.txt").read_text(encoding="utf-8")
    return english + "<|endoftext|>" + japanese, ["<|endoftext|>"]


# The oracle takes seconds per run on 32 KB: every mode with ``first``, two with the others
# (the bundled samples run the full grid).
SHAKESPEARE_TIE_CASES = {("bytes", "lexmin"), ("words", "lexmax")}
REAL_CASES = [
    pytest.param(name, mode, rule, id=f"{name}-{mode}-{rule}")
    for name in ("samples", "shakespeare")
    for mode in MODES
    for rule in TIE_BREAKS
    if name == "samples" or rule == "first" or (mode, rule) in SHAKESPEARE_TIE_CASES
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "mode", "rule"), REAL_CASES)
def test_real_text_at_vocab_512_equals_the_textbook_loop(
    name: str, mode: str, rule: str, request: pytest.FixtureRequest
) -> None:
    """32 KB of Tiny Shakespeare, and the two bundled samples joined by a special token."""
    text, specials = _real_text(name, request)
    assert len(text.encode()) >= (30 * 1024 if name == "shakespeare" else 10_000)
    pretokenizer, end_of_word = MODES[mode]
    options = {
        "pretokenizer": pretokenizer,
        "tie_break": rule,
        "special_tokens": specials,
        "end_of_word": end_of_word,
    }
    checked = (0, 1, 100, 255, 256)
    history = train(text, 512, **options)
    run = textbook.train(text, 512, snapshots=checked, **options)
    assert_same_steps(history.steps, run, rule, history.stop_reason)
    assert len(history.steps) == 512 - run.base
    for k in sorted(run.pair_counts):
        table = history.pair_table(k)
        assert list(zip(table.pairs(), table.counts.tolist(), strict=True)) == run.pair_counts[k]
        assert history.segmentation(k).ids.tolist() == run.sequences[k]


def test_max_tied_recorded_sets_how_many_tied_pairs_a_step_keeps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``abcd`` by hand: ab, bc and cd occur once each, all tied for merge 1 (rule first)."""
    from bpeviz.engine import trainer
    monkeypatch.setattr(trainer, "MAX_TIED_RECORDED", 3)
    step = train("abcd", 257).steps[0]
    assert [tuple(pair) for pair in step.tied] == [(97, 98), (98, 99), (99, 100)]
    assert not step.more_tied
    monkeypatch.setattr(trainer, "MAX_TIED_RECORDED", 2)
    step = train("abcd", 257).steps[0]
    assert [tuple(pair) for pair in step.tied] == [(97, 98), (98, 99)]
    assert step.more_tied
