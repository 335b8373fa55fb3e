"""WordPiece training and encoding, against hand-worked steps, the textbook recipe and the
``tokenizers`` library (its WordPieceTrainer, its pre-tokenizers, its WordPiece model)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tokenizers import Tokenizer, models, pre_tokenizers, trainers

from bpeviz.engine import wordpiece, wordpiece_textbook
from bpeviz.engine.wordpiece import UNK, split_words, train_wordpiece
from bpeviz.engine.wordpiece_encode import WordPieceEncoder, words_cut_differently
from bpeviz.formats.hf_models import read_tokenizer_json
from bpeviz.formats.hf_wordpiece import to_hf_wordpiece_json

# The Hugging Face course's corpus (LLM course, chapter 6, "WordPiece tokenization").
COURSE = "hug " * 10 + "pug " * 5 + "pun " * 12 + "bun " * 4 + "hugs " * 5
LIBRARY_PRETOKENIZERS = {
    "words": pre_tokenizers.WhitespaceSplit,
    "bert": pre_tokenizers.BertPreTokenizer,
}


def test_course_corpus_by_score_worked_by_hand() -> None:
    """The first steps on the course's corpus, worked by hand with the ``first`` tie rule.

    Start: h ##u ##g (10), p ##u ##g (5), p ##u ##n (12), b ##u ##n (4), h ##u ##g ##s (5).
    Token counts: h 15, ##u 36, ##g 20, p 17, ##n 16, b 4, ##s 5.

    Step 1. (h,##u) 15/(15*36) = 1/36, (##u,##g) 20/(36*20) = 1/36, (p,##u) 17/(17*36) = 1/36,
    (##u,##n) 16/(36*16) = 1/36, (b,##u) 4/(4*36) = 1/36, (##g,##s) 5/(20*5) = 1/20.
    (##g,##s) wins alone with 1/20 although (##u,##g) is four times as frequent (20).

    Step 2. ##g is now 15 and ##gs 5: (h,##u) 1/36, (##u,##g) 15/(36*15) = 1/36, (p,##u) 1/36,
    (##u,##n) 1/36, (b,##u) 1/36, (##u,##gs) 5/(36*5) = 1/36: a six-way tie, and (h,##u)
    occurs first in the text, so hu (the course agrees).

    Step 3. hu 15, ##g 15, ##gs 5, p 17, ##u 21 (pug, pun, bun), ##n 16, b 4:
    (hu,##g) 10/(15*15) = 2/45, (p,##u) 17/(17*21) = 1/21, (##u,##g) 5/(21*15) = 1/63,
    (##u,##n) 16/(21*16) = 1/21, (b,##u) 4/(4*21) = 1/21, (hu,##gs) 5/(15*5) = 1/15.
    (hu,##gs) wins alone. The course's text says (hu,##g) and (hu,##gs) share the best score,
    1/15, and merges hug here: it is wrong, since (hu,##g) is 10/(15*15) = 2/45, not 1/15
    (huggingface/course#500). hug comes next, at step 4, once hugs has taken five hu's:

    Step 4. hu 10: (hu,##g) 10/(10*15) = 1/15, (p,##u) 1/21, (##u,##g) 1/63, (##u,##n) 1/21,
    (b,##u) 1/21: hug.
    Step 5. ##g 5: (p,##u) 17/(17*21), (##u,##g) 5/(21*5), (##u,##n) 16/(21*16), (b,##u)
    4/(4*21), all 1/21; (p,##u) occurs first (in pug): pu.
    Step 6. pu 17, ##u 4: (pu,##g) 5/(17*5) = 1/17, (pu,##n) 12/(17*16) = 3/68,
    (b,##u) 4/(4*4) = 1/4, (##u,##n) 4/(4*16) = 1/16: bu.
    Step 7. (bu,##n) 4/(4*16) = 1/16 beats 1/17 and 3/68: bun.
    Step 8. ##n 12: (pu,##g) 5/(17*5) = 1/17 ties (pu,##n) 12/(17*12) = 1/17; pug is first.
    Step 9. pu 12: (pu,##n) 12/(12*12) = 1/12: pun. Every word is one token: training stops.
    """
    run = train_wordpiece(COURSE, 100, score_rule="score", tie_break="first")
    worked = [
        # merge, count, count(a), count(b), score, tied pairs recorded (at most 4), more tied
        (("##g", "##s"), 5, 20, 5, Fraction(1, 20), 0, False),
        (("h", "##u"), 15, 15, 36, Fraction(1, 36), 4, True),
        (("hu", "##gs"), 5, 15, 5, Fraction(1, 15), 0, False),
        (("hu", "##g"), 10, 10, 15, Fraction(1, 15), 0, False),
        (("p", "##u"), 17, 17, 21, Fraction(1, 21), 4, False),
        (("b", "##u"), 4, 4, 4, Fraction(1, 4), 0, False),
        (("bu", "##n"), 4, 4, 16, Fraction(1, 16), 0, False),
        (("pu", "##g"), 5, 17, 5, Fraction(1, 17), 2, False),
        (("pu", "##n"), 12, 12, 12, Fraction(1, 12), 0, False),
    ]
    got = [
        ((s.left, s.right), s.count, s.left_count, s.right_count, s.score, len(s.tied), s.more_tied)
        for s in run.steps
    ]
    assert got == worked
    assert [s.token for s in run.steps] == [
        "##gs", "hu", "hugs", "hug", "pu", "bu", "bun", "pug", "pun"
    ]  # fmt: skip
    assert "no pair left" in run.stop_reason
    first = run.steps[0]
    assert first.score_decimal == pytest.approx(0.05)
    # The most frequent pair is shown beside the winner when it differs: (##u,##g), 20 times.
    assert first.most_frequent is not None
    pair, count = first.most_frequent
    assert (run.vocab[pair[0]], run.vocab[pair[1]], count) == ("##u", "##g", 20)
    # The score table before step 3, best first (1/21 ties in text order: pug, pun, bun):
    # the course's supposed tie partner (hu,##g) is fifth, at 2/45.
    table = train_wordpiece(COURSE, 100, top_pairs=6).pair_tables[2]
    assert [(run.vocab[r.left], run.vocab[r.right], r.score) for r in table] == [
        ("hu", "##gs", Fraction(1, 15)),
        ("p", "##u", Fraction(1, 21)),
        ("##u", "##n", Fraction(1, 21)),
        ("b", "##u", Fraction(1, 21)),
        ("hu", "##g", Fraction(2, 45)),
        ("##u", "##g", Fraction(1, 63)),
    ]


def test_course_corpus_by_frequency_merges_u_and_g_first() -> None:
    """The library's rule, BPE by count: ##u + ##g occurs 20 times (hug 10, pug 5, hugs 5),
    more than (##u,##n) 16 (pun 12 + bun 4); then (##u,##n) 16, then (h,##ug) 15."""
    run = train_wordpiece(COURSE, 100, score_rule="frequency")
    first = run.steps[0]
    assert (first.left, first.right, first.token, first.count) == ("##u", "##g", "##ug", 20)
    assert [s.token for s in run.steps[:3]] == ["##ug", "##un", "hug"]
    assert [s.count for s in run.steps[:3]] == [20, 16, 15]


def test_first_vocabulary_is_the_libraries_layout() -> None:
    """[UNK], every character plain in code point order, then the ## forms (checked against
    the library's vocabulary on the same corpus, ## forms compared as a set: it numbers them
    in its hash map's order)."""
    run = train_wordpiece(COURSE, 1)
    assert run.vocab == ("[UNK]", "b", "g", "h", "n", "p", "s", "u", "##g", "##n", "##s", "##u")
    assert run.steps == () and "no merges" in run.stop_reason
    library = _library_vocab(COURSE, 1, "words")
    assert library[:8] == list(run.vocab[:8]) and set(library) == set(run.vocab)


def test_merge_that_makes_an_existing_token_adds_no_entry() -> None:
    """The word "##u" starts as # ###  ##u ('#', then '#' and 'u' marked with ##). By count,
    ('#', '###') merges first (twice, as ('###', '##u')) and makes '##'; then ('##', '##u')
    makes '##u', already the continuation of u: the id is reused, the vocabulary stays put,
    and training goes on (the library does the same: same vocabulary)."""
    text = "##u ##u hu"
    run = train_wordpiece(text, 12, score_rule="frequency", tie_break="lexmin")
    assert [(s.left, s.right, s.token, s.existed) for s in run.steps[:2]] == [
        ("#", "###", "##", False),
        ("##", "##u", "##u", True),
    ]
    assert run.steps[1].new_id == run.vocab.index("##u")
    library = _library_vocab(text, 12, "words")
    again = train_wordpiece(
        text, 12, score_rule="frequency", tie_break="lexmin", continuation_order=library
    )
    assert list(again.vocab) == library


@pytest.mark.parametrize(
    ("text", "pretokenizer", "words"),
    [
        ("Don't stop!", "words", ["Don't", "stop!"]),
        ("Don't stop!", "bert", ["Don", "'", "t", "stop", "!"]),
        ("a$b\u3000c—d", "bert", ["a", "$", "b", "c", "—", "d"]),
        (" \t\n", "words", []),
    ],
    ids=["words", "bert", "bert-symbols-and-ideographic-space", "only-space"],
)
def test_split_words_matches_the_library(text: str, pretokenizer: str, words: list[str]) -> None:
    assert split_words(text, pretokenizer) == words
    library = LIBRARY_PRETOKENIZERS[pretokenizer]().pre_tokenize_str(text)
    assert [word for word, _ in library] == words


def test_encoding_is_greedy_longest_match_with_a_trace() -> None:
    """With hug, ##s, h, ##u, ##g: "hugs" is hug + ##s (the longest match at 0 is hug);
    "ugh" has no entry "u..." at 0 in a vocabulary without plain u: the whole word is [UNK]."""
    encoder = WordPieceEncoder(["[UNK]", "h", "##u", "##g", "##s", "hug"])
    trace = encoder.trace_word("hugs")
    assert [(m.position, m.token) for m in trace.matches] == [(0, "hug"), (3, "##s")]
    unknown = encoder.trace_word("hugu" + "x")
    assert unknown.tokens == ("[UNK]",) and unknown.matches[-1].token is None
    assert encoder.tokens("ugh hug") == ["[UNK]", "hug"]
    assert encoder.trace_word("h" * 101).tokens == ("[UNK]",)  # past 100 characters


def test_words_cut_differently_from_training() -> None:
    """aug (10), hug (3), hu (4): a ##u ##g, h ##u ##g, h ##u. By count (##u,##g) 13 beats
    (a,##u) 10 and (h,##u) 7: ##ug; then (a,##ug) 10: aug; then (h,##u) 4 beats (h,##ug) 3: hu.
    Training leaves hug as h ##ug; the longest match at 0 is hu (there is no hug), then ##g."""
    text = "aug " * 10 + "hug " * 3 + "hu " * 4
    run = train_wordpiece(text, 10, score_rule="frequency")
    assert [s.token for s in run.steps] == ["##ug", "aug", "hu"]
    (difference,) = words_cut_differently(run)
    assert (difference.word, difference.count, difference.trained, difference.encoded) == (
        "hug",
        3,
        ("h", "##ug"),
        ("hu", "##g"),
    )


def test_export_is_read_by_the_library_and_the_existing_reader() -> None:
    run = train_wordpiece(COURSE + " gun!", 16, pretokenizer="bert")
    text = to_hf_wordpiece_json(run)
    library = Tokenizer.from_str(text)
    sample = "hugs pun, bun! gun [UNK]x zzz"
    ours = WordPieceEncoder.from_run(run)
    assert library.encode(sample).ids == ours.encode(sample)
    assert library.encode(sample).tokens == ours.tokens(sample)
    imported = read_tokenizer_json(text.encode())
    assert imported.encode(sample) == ours.encode(sample)


# ---- property tests --------------------------------------------------------------------------

WORD = st.text(alphabet="abcdeé#", min_size=1, max_size=7)
TEXTS = st.lists(WORD, min_size=1, max_size=30).map(" ".join)
BERT_TEXTS = st.lists(
    st.text(alphabet="abcd!,'$ ", min_size=1, max_size=8), min_size=1, max_size=20
).map(" ".join)


def _library_vocab(
    text: str, vocab_size: int, pretokenizer: str, order: object = None
) -> list[str]:
    """The library's WordPieceTrainer's vocabulary in id order (``[UNK]`` as its special)."""
    tokenizer = Tokenizer(models.WordPiece(unk_token=UNK))
    tokenizer.pre_tokenizer = LIBRARY_PRETOKENIZERS[pretokenizer]()
    trainer = trainers.WordPieceTrainer(
        vocab_size=vocab_size, special_tokens=[UNK], show_progress=False
    )
    tokenizer.train_from_iterator([text], trainer=trainer)
    vocab = tokenizer.get_vocab()
    return sorted(vocab, key=vocab.__getitem__)


@settings(max_examples=150, deadline=None)
@given(
    text=st.one_of(TEXTS.map(lambda t: (t, "words")), BERT_TEXTS.map(lambda t: (t, "bert"))),
    vocab_size=st.integers(1, 60),
)
def test_frequency_rule_is_the_libraries_wordpiece_trainer(
    text: tuple[str, str], vocab_size: int
) -> None:
    """Same vocabulary, id for id, given the library's order of ## symbols (it numbers them
    in its hash map's order, which changes from run to run)."""
    body, pretokenizer = text
    if not split_words(body, pretokenizer):
        return
    library = _library_vocab(body, vocab_size, pretokenizer)
    run = train_wordpiece(
        body,
        vocab_size,
        pretokenizer=pretokenizer,
        score_rule="frequency",
        tie_break="lexmin",
        continuation_order=library,
    )
    assert list(run.vocab) == library


@settings(max_examples=300, deadline=None)
@given(
    text=TEXTS,
    vocab_size=st.integers(1, 50),
    score_rule=st.sampled_from(["score", "frequency"]),
    tie_break=st.sampled_from(["first", "lexmin", "lexmax"]),
    slack=st.sampled_from([wordpiece.SLACK, 2, 3]),
)
def test_fast_trainer_equals_the_textbook(
    text: str, vocab_size: int, score_rule: str, tie_break: str, slack: int
) -> None:
    """With the score rule's floors far below the counts too (``SLACK`` 2: half of each
    count), so that small texts queue scores that are only upper bounds, as a megabyte's
    frequent tokens do."""
    with mock.patch.object(wordpiece, "SLACK", slack):
        run = train_wordpiece(text, vocab_size, score_rule=score_rule, tie_break=tie_break)
    vocab, steps = wordpiece_textbook.train(
        text, vocab_size, score_rule=score_rule, tie_break=tie_break
    )
    assert list(run.vocab) == vocab
    assert [((s.left, s.right), s.token, s.count, s.score) for s in run.steps] == [
        (s.pair, s.token, s.count, s.score) for s in steps
    ]
    for fast, slow in zip(run.steps, steps, strict=True):
        ids = run.vocab_ids()
        assert [(run.vocab[a], run.vocab[b]) for a, b in fast.tied] == list(slow.tied[:4])
        assert fast.more_tied == (len(slow.tied) > 4)
        assert (fast.left, fast.right) == slow.pair and ids[fast.token] == fast.new_id
        shown = fast.most_frequent
        named = (
            None if shown is None else ((run.vocab[shown[0][0]], run.vocab[shown[0][1]]), shown[1])
        )
        assert named == slow.most_frequent


@settings(max_examples=150, deadline=None)
@given(
    text=st.lists(st.text(alphabet="abé#", min_size=1, max_size=9), min_size=1, max_size=40).map(
        " ".join
    ),
    vocab_size=st.integers(1, 50),
    score_rule=st.sampled_from(["score", "frequency"]),
    tie_break=st.sampled_from(["first", "lexmin", "lexmax"]),
)
def test_merges_done_by_numpy_equal_the_textbook(
    text: str, vocab_size: int, score_rule: str, tie_break: str
) -> None:
    """A big text's frequent pairs are merged by numpy, all occurrences at once; here every
    pair is (``VECTOR_FROM`` 1), on words of few letters so that ``abab`` runs, where merges
    touch, come up often. The steps and the final cuts are the textbook's and the
    one-by-one path's."""
    with mock.patch.object(wordpiece, "VECTOR_FROM", 1):
        run = train_wordpiece(text, vocab_size, score_rule=score_rule, tie_break=tie_break)
    vocab, steps = wordpiece_textbook.train(
        text, vocab_size, score_rule=score_rule, tie_break=tie_break
    )
    assert list(run.vocab) == vocab
    assert [((s.left, s.right), s.token, s.count, s.score) for s in run.steps] == [
        (s.pair, s.token, s.count, s.score) for s in steps
    ]
    assert [[(run.vocab[a], run.vocab[b]) for a, b in s.tied] for s in run.steps] == [
        list(s.tied[:4]) for s in steps
    ]
    one_by_one = train_wordpiece(text, vocab_size, score_rule=score_rule, tie_break=tie_break)
    assert run.segmentations == one_by_one.segmentations
    assert [s.tokens_after for s in run.steps] == [s.tokens_after for s in one_by_one.steps]


@settings(max_examples=100, deadline=None)
@given(
    text=TEXTS,
    vocab_size=st.integers(1, 40),
    score_rule=st.sampled_from(["score", "frequency"]),
    tie_break=st.sampled_from(["first", "lexmin", "lexmax"]),
)
def test_pair_tables_are_the_textbooks_ranking(
    text: str, vocab_size: int, score_rule: str, tie_break: str
) -> None:
    """The head of the pair table before each merge, as the step view's score table shows
    it: the textbook's full ranking, cut to the same length, row for row."""
    run = train_wordpiece(text, vocab_size, score_rule=score_rule, tie_break=tie_break, top_pairs=5)
    tables: list[list[tuple[tuple[str, str], int]]] = []
    wordpiece_textbook.train(
        text, vocab_size, score_rule=score_rule, tie_break=tie_break, tables=tables
    )
    assert len(run.pair_tables) == len(tables) == len(run.steps) + 1
    for fast, slow in zip(run.pair_tables, tables, strict=True):
        rows = [((run.vocab[row.left], run.vocab[row.right]), row.count) for row in fast]
        assert rows == slow[:5]


@settings(max_examples=100, deadline=None)
@given(
    text=st.one_of(TEXTS.map(lambda t: (t, "words")), BERT_TEXTS.map(lambda t: (t, "bert"))),
    vocab_size=st.integers(1, 40),
    score_rule=st.sampled_from(["score", "frequency"]),
    other=st.text(alphabet="abcdeéxy#!,' ", max_size=40),
)
def test_encoding_matches_the_library_on_the_exported_file(
    text: tuple[str, str], vocab_size: int, score_rule: str, other: str
) -> None:
    body, pretokenizer = text
    if not split_words(body, pretokenizer):
        return
    run = train_wordpiece(body, vocab_size, pretokenizer=pretokenizer, score_rule=score_rule)
    library = Tokenizer.from_str(to_hf_wordpiece_json(run))
    ours = WordPieceEncoder.from_run(run)
    for sample in (body, other, body + " [UNK]" + other):
        assert library.encode(sample).ids == ours.encode(sample)


@pytest.mark.parametrize("pretokenizer", ["words", "bert"])
def test_frequency_rule_is_the_libraries_on_a_real_text(pretokenizer: str) -> None:
    """The bundled English sample (5 KB) to 500 tokens: the library's vocabulary id for id (the
    same held on all of Tiny Shakespeare at 4,096 when measured)."""
    text = (Path(__file__).parents[1] / "sample_texts" / "english.txt").read_text("utf-8")
    library = _library_vocab(text, 500, pretokenizer)
    run = train_wordpiece(
        text,
        500,
        pretokenizer=pretokenizer,
        score_rule="frequency",
        tie_break="lexmin",
        continuation_order=library,
    )
    assert len(library) == 500 and list(run.vocab) == library
