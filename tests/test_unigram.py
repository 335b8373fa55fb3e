"""Unigram: the scriptable model against the Hugging Face course's example worked by hand,
the lattice functions against brute-force enumeration, and the fast trainer against the
slow textbook recipe."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpeviz import UnigramModel
from bpeviz.engine.unigram import (
    SPACE,
    byte_pieces,
    count_words,
    seed_vocabulary,
    split_words,
    train_unigram,
)
from bpeviz.engine.unigram_lattice import (
    all_segmentations,
    best_path,
    forward_backward,
    sample_counts,
    sample_segmentation,
    viterbi_table,
)
from bpeviz.engine.unigram_textbook import textbook_unigram

# The Hugging Face course's corpus (LLM course, chapter 6, "Unigram tokenization") and its
# seed: every strict substring of a word, with how often it occurs in the corpus.
WORDS = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
SEED = {
    "h": 15, "u": 36, "g": 20, "hu": 15, "ug": 20, "p": 17, "pu": 17, "n": 16, "un": 16,
    "b": 4, "bu": 4, "s": 5, "hug": 15, "gs": 5, "ugs": 5,
}  # fmt: skip
TOTAL = 210


def p(*pieces: str) -> Fraction:
    """The exact probability of a segmentation under the course's seed."""
    result = Fraction(1)
    for piece in pieces:
        result *= Fraction(SEED[piece], TOTAL)
    return result


def test_course_seed_adds_up_to_210() -> None:
    assert sum(SEED.values()) == TOTAL
    # h: hug 10 + hugs 5; u: in every word, 10+5+12+4+5; g: hug, pug, hugs 10+5+5
    assert (SEED["h"], SEED["u"], SEED["g"]) == (15, 36, 20)


def test_course_viterbi_segmentations_and_probabilities_worked_by_hand() -> None:
    """Each word's segmentations, by hand (P(x) = frequency / 210):

    hug:  [hug] 15/210 = 1/14, beats [hu g] and [h ug] (15*20/210^2 = 1/147) and [h u g].
    pug:  [p ug] = [pu g] = 17*20/210^2 = 17/2205, above [p u g] = 17*36*20/210^3. The
          course prints P([p u g]) = 5/210 x 36/210 x 20/210 = 0.000389: P(p) is 17/210, not
          5/210, so it is 0.00132 (huggingface/course#277 and its repeats).
    pun:  [p un] = [pu n] = 17*16/210^2 = 68/11025.
    bun:  [b un] = [bu n] = 4*16/210^2 = 16/11025.
    hugs: [hug s] = [h ugs] = [hu gs] = 15*5/210^2 = 1/588.
    Equal probabilities are exactly equal floats too (the same two logs added), and the tie
    goes to the earliest start of the last piece, as in SentencePiece and ``tokenizers``:
    [p ug], [p un], [b un], [h ugs].
    """
    assert p("p", "u", "g") == Fraction(17 * 36 * 20, 210**3) != Fraction(5 * 36 * 20, 210**3)
    assert float(p("p", "u", "g")) == pytest.approx(0.0013217, abs=1e-7)
    assert p("p", "ug") == p("pu", "g") and p("hug", "s") == p("h", "ugs") == p("hu", "gs")
    expected = {
        "hug": (["hug"], p("hug")),
        "pug": (["p", "ug"], p("p", "ug")),
        "pun": (["p", "un"], p("p", "un")),
        "bun": (["b", "un"], p("b", "un")),
        "hugs": (["h", "ugs"], p("h", "ugs")),
    }
    assert (p("hug"), p("p", "ug"), p("hugs" [:3], "s")) == (
        Fraction(1, 14), Fraction(17, 2205), Fraction(1, 588),
    )  # fmt: skip
    model = UnigramModel(SEED)
    for word, (pieces, probability) in expected.items():
        got_pieces, got_probability = model.viterbi(word)
        assert got_pieces == pieces, word
        assert got_probability == pytest.approx(float(probability), rel=1e-12), word


def test_course_loss_worked_by_hand() -> None:
    """loss = sum of count x -ln P(best): 10 ln 14 + 5 ln(2205/17) + 12 ln(11025/68)
    + 4 ln(11025/16) + 5 ln 588 = 169.8028...

    The course's code gives position 0 of every word a score of 1 instead of 0 (a -log
    probability of 1, not of certainty), so each word's score is 1 too high and its printed
    losses are too high by the number of words (36 here: 205.80)."""
    by_hand = (
        10 * math.log(14) + 5 * math.log(2205 / 17) + 12 * math.log(11025 / 68)
        + 4 * math.log(11025 / 16) + 5 * math.log(588)
    )  # fmt: skip
    assert by_hand == pytest.approx(169.80284, abs=1e-5)
    assert UnigramModel(SEED).loss(WORDS) == pytest.approx(by_hand, rel=1e-12)


def test_course_removal_losses_worked_by_hand() -> None:
    """Removing a token without renormalising the others:

    hug: hug's best becomes [hu g] = [h ug] = 1/147 (hugs keeps [h ugs]); the loss grows by
    10 x (ln 14... ) = 10 x ln((1/14) / (1/147)) = 10 ln 10.5 = 23.5138.
    ug, un, ugs: each best path using them has an equally probable twin ([pu g], [pu n],
    [bu n], [hug s]): 0. hu, pu, bu, gs are in no best path: 0."""
    model = UnigramModel(SEED)
    assert model.removal_loss("hug", WORDS) == pytest.approx(10 * math.log(10.5), rel=1e-12)
    for token in ("ug", "un", "ugs", "hu", "pu", "bu", "gs"):
        assert model.removal_loss(token, WORDS) == pytest.approx(0.0, abs=1e-12), token


def test_removal_does_not_renormalise() -> None:
    model = UnigramModel(SEED)
    without = model.without("hug")
    assert without.probabilities["u"] == model.probabilities["u"] == 36 / 210
    assert "hug" not in without.log_probs


def test_model_refuses_bad_frequencies() -> None:
    with pytest.raises(ValueError, match="positive frequency"):
        UnigramModel({"a": 0})
    with pytest.raises(ValueError, match="at least one piece"):
        UnigramModel({})


def test_unknown_characters_fall_back_to_bytes() -> None:
    """語 is not in the vocabulary: its three UTF-8 bytes, scored once as an unknown
    character (the lowest log probability minus 10, as SentencePiece and tokenizers)."""
    model = UnigramModel({"h": 1, "u": 3})
    pieces, probability = model.viterbi("h語u")
    assert pieces == ["h", "<0xE8>", "<0xAA>", "<0x9E>", "u"]
    assert probability == pytest.approx(0.25 * math.exp(math.log(0.25) - 10) * 0.75)
    assert byte_pieces("é") == ["<0xC3>", "<0xA9>"]


def test_words_carry_the_space_mark() -> None:
    assert split_words(" Hug\ta  pug\n") == [f"{SPACE}Hug", f"{SPACE}a", f"{SPACE}pug"]
    assert count_words("a b a") == {"▁a": 2, "▁b": 1}


# ---- one word's lattice, against brute force ----------------------------------------------

pieces_strategy = st.dictionaries(
    st.text(alphabet="ab", min_size=1, max_size=3), st.integers(1, 20), min_size=1
).map(lambda found: {**found, "a": found.get("a", 1), "b": found.get("b", 1)})


def brute_force(word: str, vocab: dict[str, float]) -> list[tuple[list[str], float]]:
    """Every way to cut ``word`` into pieces of ``vocab`` (by trying every cut), with its
    probability, from the frequencies directly."""
    total = sum(vocab.values())
    found = []
    for mask in range(2 ** max(len(word) - 1, 0)):
        cuts = [0, *(i + 1 for i in range(len(word) - 1) if mask >> i & 1), len(word)]
        pieces = [word[a:b] for a, b in itertools.pairwise(cuts)]
        if all(piece in vocab for piece in pieces):
            found.append((pieces, math.prod(vocab[piece] / total for piece in pieces)))
    return found


@settings(max_examples=200, deadline=None)
@given(vocab=pieces_strategy, word=st.text(alphabet="ab", min_size=1, max_size=7))
def test_forward_backward_matches_enumerating_every_segmentation(
    vocab: dict[str, int], word: str
) -> None:
    log_probs = UnigramModel(vocab).log_probs
    every = brute_force(word, vocab)
    total = sum(probability for _, probability in every)
    log_total, counts = forward_backward(word, log_probs)
    assert math.exp(log_total) == pytest.approx(total, rel=1e-9)
    expected: Counter[str] = Counter()
    for pieces, probability in every:
        for piece in pieces:
            expected[piece] += probability / total
    assert set(counts) == set(expected)
    for piece, share in expected.items():
        assert counts[piece] == pytest.approx(share, rel=1e-9, abs=1e-12)
    listed = all_segmentations(word, log_probs)
    assert sorted(map(tuple, (pieces for pieces, _ in listed))) == sorted(
        tuple(pieces) for pieces, _ in every
    )


@settings(max_examples=200, deadline=None)
@given(vocab=pieces_strategy, word=st.text(alphabet="ab", min_size=1, max_size=7))
def test_viterbi_is_the_most_probable_segmentation(vocab: dict[str, int], word: str) -> None:
    model = UnigramModel(vocab)
    best = max(probability for _, probability in brute_force(word, vocab))
    pieces, probability = model.viterbi(word)
    assert probability == pytest.approx(best, rel=1e-9)
    assert "".join(pieces) == word


def test_viterbi_table_position_by_position() -> None:
    """hugs under the course's seed: best ending at 1 is h (15/210), at 2 hu (15/210), at 3
    hug (15/210), at 4 [h ugs] (15*5/210^2; [hug s] and [hu gs] tie and start later)."""
    cells = viterbi_table("hugs", UnigramModel(SEED).log_probs)
    assert [(cell.piece, cell.start) for cell in cells[1:]] == [
        ("h", 0), ("hu", 0), ("hug", 0), ("ugs", 1),
    ]  # fmt: skip
    assert math.exp(cells[4].score) == pytest.approx(float(p("h", "ugs")))
    assert best_path(cells) == ["h", "ugs"]


def test_sampling_follows_the_probabilities() -> None:
    """Temperature 1 draws [hug] with P 1/14 / P(hug) of all, and so on; near 0 it is Viterbi."""
    log_probs = UnigramModel(SEED).log_probs
    every = all_segmentations("hug", log_probs)
    total = sum(probability for _, probability in every)
    rng = random.Random(7)
    draws = Counter(tuple(sample_segmentation("hug", log_probs, rng=rng)) for _ in range(20000))
    for pieces, probability in every:
        assert draws[tuple(pieces)] / 20000 == pytest.approx(probability / total, abs=0.01)
    cold = {tuple(sample_segmentation("hug", log_probs, temperature=0.01, rng=rng))
            for _ in range(200)}  # fmt: skip
    assert cold == {("hug",)}
    with pytest.raises(ValueError, match="above 0"):
        sample_segmentation("hug", log_probs, temperature=0)


def test_high_temperature_flattens_the_counts() -> None:
    """At temperature 1, [hug] (1/14) comes up most, 10.5 times as often as [h ug] (1/147);
    at a high temperature every segmentation of hug (4: hug, hu g, h ug, h u g) about alike."""
    log_probs = UnigramModel(SEED).log_probs
    counted = dict(sample_counts("hug", log_probs, 4000, temperature=1000, rng=random.Random(3)))
    assert len(counted) == 4 and sum(counted.values()) == 4000
    assert all(abs(count / 4000 - 0.25) < 0.03 for count in counted.values())
    cold = sample_counts("hug", log_probs, 50, temperature=1.0, rng=random.Random(3))
    assert cold[0][0] == ("hug",)


# ---- training ------------------------------------------------------------------------------


def test_seed_is_every_substring_with_its_frequency() -> None:
    seed = seed_vocabulary({"▁hug": 2, "▁pug": 1}, max_piece_length=3)
    assert seed["ug"] == 3 and seed["▁hu"] == 2 and seed["u"] == 3 and "▁hug" not in seed
    cut = seed_vocabulary({"▁hug": 2, "▁pug": 1}, max_piece_length=3, seed_size=2)
    # of the longer pieces the two most frequent (ug 3; then 2: ▁h, hu, ug... shorter first,
    # then code point order: hu before ▁h), every character kept
    assert [piece for piece in cut if len(piece) > 1] == ["hu", "ug"]
    assert {"▁", "h", "u", "g", "p"} <= set(cut)


def test_rounds_shrink_by_the_factor_and_keep_characters() -> None:
    text = "the cat sat on the mat with the hat " * 3 + "a bat and a rat ate the fat"
    run = train_unigram(text, 40)
    sizes = [round_.size for round_ in run.rounds]
    for before, after in itertools.pairwise(sizes):
        assert after == max(40, math.floor(before * 0.75))
    assert sizes[-1] == 40 and run.stop_reason == "reached the vocab size (40)"
    characters = set("".join(split_words(text)))
    assert characters <= set(run.final.pieces)
    for round_, following in zip(run.rounds, run.rounds[1:], strict=False):
        assert len(round_.removed) == round_.size - following.size
        assert not set(round_.removed) & set(following.pieces)
        assert all(len(piece) > 1 for piece in round_.removed)
        single = np.array([len(piece) == 1 for piece in round_.pieces])
        assert np.isnan(round_.removal_losses[single]).all()
        assert (round_.removal_losses[~single] >= -1e-9).all()
    assert sum(run.final.probabilities) == pytest.approx(1.0)


def test_only_characters_left_stops_the_run() -> None:
    run = train_unigram("ab ba", 1)
    assert set(run.final.pieces) == {"▁", "a", "b"}
    assert "only single characters are left" in run.stop_reason


@pytest.mark.parametrize(
    ("settings_", "message"),
    [
        ({"vocab_size": 0}, "Vocab size must be a whole number"),
        ({"shrinking_factor": 1.0}, "shrinking factor must lie between 0 and 1"),
        ({"em_iterations": 0}, "EM needs at least 1 iteration"),
    ],
    ids=["vocab", "shrink", "em"],
)
def test_bad_settings_say_how_to_fix_them(settings_: dict[str, float], message: str) -> None:
    arguments = {"vocab_size": 10, **settings_}
    vocab_size = arguments.pop("vocab_size")
    with pytest.raises(ValueError, match=message):
        train_unigram("a b", vocab_size, **arguments)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no words"):
        train_unigram(" \n", 10)


def assert_same_rounds(text: str, vocab_size: int, **options: int | float) -> None:
    fast = train_unigram(text, vocab_size, **options).rounds  # type: ignore[arg-type]
    slow = textbook_unigram(text, vocab_size, **options)  # type: ignore[arg-type]
    assert len(fast) == len(slow)
    for ours, recipe in zip(fast, slow, strict=True):
        assert ours.removed == recipe.removed
        assert set(ours.pieces) == set(recipe.probabilities)
        assert ours.loss == pytest.approx(recipe.loss, rel=1e-9, abs=1e-9)
        assert [step.likelihood_loss for step in ours.em] == pytest.approx(
            recipe.likelihood_losses, rel=1e-9
        )
        for piece, probability, removal in zip(
            ours.pieces, ours.probabilities, ours.removal_losses, strict=True
        ):
            assert probability == pytest.approx(recipe.probabilities[piece], rel=1e-6, abs=1e-300)
            if len(piece) > 1:
                assert removal == pytest.approx(recipe.removal_losses[piece], rel=1e-9, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    text=st.text(alphabet="ab c", min_size=1, max_size=40).filter(lambda t: t.split()),
    vocab_size=st.integers(1, 25),
    max_length=st.integers(1, 5),
    em_iterations=st.integers(1, 3),
)
def test_fast_trainer_equals_the_textbook(
    text: str, vocab_size: int, max_length: int, em_iterations: int
) -> None:
    assert_same_rounds(text, vocab_size, max_piece_length=max_length, em_iterations=em_iterations)


def test_fast_trainer_equals_the_textbook_on_a_sample() -> None:
    text = "the cat sat on the mat with the hat; a bat and a rat ate the fat cat's hat"
    assert_same_rounds(text, 30)
    assert_same_rounds(text, 30, seed_size=20, shrinking_factor=0.5)


def test_trained_model_cuts_the_text_as_training_ended() -> None:
    run = train_unigram("hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5, 12)
    model = run.model()
    assert set(model.log_probs) == set(run.final.pieces)
    assert model.loss(run.word_counts()) == pytest.approx(run.final.loss, rel=1e-12)
