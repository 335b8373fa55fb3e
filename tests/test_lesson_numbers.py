"""Every number in the bundled lesson's speaker notes, checked against the engine (issue 28:
slide 11's note said the Japanese line "lags at first" when it leads at every vocab size).

Each slide's numbers are listed with a check that computes them from the engine (training
the slide's sample with its settings) or from UTF-8 itself; a number written in a note
without a check here fails :func:`test_every_number_in_a_note_has_a_check`, so a new
figure cannot go in unchecked. Numbers are digit strings (``1,024``, ``1.34``); those inside
names (``GPT-4``, ``cl100k_base``) are names, not figures.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

import pytest

from bpeviz.app.lesson.slides import Slide, bundled_lessons
from bpeviz.engine.history import History, train
from bpeviz.engine.samples import get_sample
from bpeviz.engine.unigram import UnigramRun, train_unigram
from bpeviz.engine.wordpiece import WordPieceRun, train_wordpiece

NUMBER = re.compile(r"(?<![\w.-])\d+(?:,\d{3})*(?:\.\d+)?(?!\w)")


@cache
def sample_run(key: str, vocab_size: int | None = None, pretokenizer: str | None = None) -> History:
    """A bundled sample trained with its own settings (or the Compression page's)."""
    sample = get_sample(key)
    settings = sample.settings
    return train(
        sample.text,
        vocab_size or settings.vocab_size,
        pretokenizer=pretokenizer or settings.pretokenizer,
        tie_break="first" if pretokenizer else settings.tie_break,
    )


def compression(key: str, vocab_size: int) -> float:
    """Bytes per token of a sample at ``vocab_size``, as the Compression page trains it
    (gpt4 pre-tokenizer, tie rule first, up to vocab 1,024)."""
    run = sample_run(key, 1024, "gpt4")
    merges = min(vocab_size - run.base, run.merge_count)
    return round(len(run.text) / run.token_count(merges), 2)


def aaab() -> History:
    return sample_run("aaabdaaabac")


def low_lower_words() -> dict[str, int]:
    """The BPE paper's words, counted by hand from the text (not by a trainer)."""
    words = get_sample("low_lower").text.split()
    return {word: words.count(word) for word in words}


def inside(letter: str) -> int:
    """How often ``letter`` occurs inside a word (not first): WordPiece's ``##`` form."""
    return sum(word[1:].count(letter) * n for word, n in low_lower_words().items())


@cache
def slide_run(title: str) -> WordPieceRun | UnigramRun:
    """The WordPiece or Unigram run a slide of the lesson shows, trained as its view says."""
    view = next(slide for slide in slides() if slide.title == title).view
    text = get_sample(str(view["sample"])).text
    if view["algo"] == "wordpiece":
        return train_wordpiece(text, int(view["vocab"]), score_rule=str(view["wprule"]))
    return train_unigram(text, int(view["vocab"]))


def wordpiece() -> WordPieceRun:
    run = slide_run("WordPiece: the pair whose parts are rare apart")
    assert isinstance(run, WordPieceRun)
    return run


def unigram() -> UnigramRun:
    run = slide_run("Unigram: start from every piece, prune")
    assert isinstance(run, UnigramRun)
    return run


Check = Callable[[], float]
# slide title -> {number as written: what it is}
CHECKS: dict[str, dict[str, Check]] = {
    "A computer stores text as bytes": {
        "256": lambda: 2**8,  # one token per byte value
        "1,000": lambda: 1000,  # the essay's characters, as asked
        "3,000": lambda: len(("猫" * 1000).encode("utf-8")),
    },
    "The bytes are numbers from 0 to 255": {
        "99": lambda: b"cat"[0],
        "97": lambda: b"cat"[1],
        "116": lambda: b"cat"[2],
        "231": lambda: "猫".encode()[0],
        "140": lambda: "猫".encode()[1],
        "171": lambda: "猫".encode()[2],
        "256": lambda: 2**8,
    },
    "Counting pairs of neighbours": {
        "0": lambda: sample_run("cat_sat").steps[0].step - 1,  # step 0: before merge 1
        "3": lambda: sample_run("cat_sat").steps[0].count,
    },
    "One merge: a new token for the winning pair": {
        "1": lambda: sample_run("cat_sat").steps[0].step,
        "256": lambda: sample_run("cat_sat").steps[0].new_id,
        "22": lambda: sample_run("cat_sat").token_count(0),
        "19": lambda: sample_run("cat_sat").token_count(1),
    },
    "Wikipedia's aaabdaaabac: overlapping pairs": {
        "4": lambda: aaab().steps[0].count,
        "2": lambda: aaab().steps[0].replacements,
    },
    "A tie, and the rule that breaks it": {
        "2": lambda: aaab().steps[1].count,  # merge 2, and the count the pairs tie at
    },
    "Three merges later: XdXac": {
        "3": lambda: aaab().merge_count,
        "259": lambda: aaab().base + aaab().merge_count,
    },
    "Your turn: guess the next merge": {
        "5": lambda: round(len(get_sample("english").text.encode("utf-8")) / 1000),  # KB
    },
    "More merges, fewer tokens: English and Japanese": {
        "1": lambda: compression("english", 256),
        "260": lambda: 260,
        "1.34": lambda: compression("japanese", 260),
        "1.09": lambda: compression("english", 260),
        "3": lambda: len("の".encode()),
        "1,024": lambda: 1024,
        "5.96": lambda: compression("japanese", 1024),
        "3.87": lambda: compression("english", 1024),
    },
    "Same words, three algorithms: BPE": {
        "5": lambda: low_lower_words()["low"],
        "2": lambda: low_lower_words()["lower"],
        "6": lambda: low_lower_words()["newest"],
        "1": lambda: low_lower_words()["widest"],
        "8": lambda: sample_run("low_lower").steps[0].count,  # w e: newest and lower
    },
    "WordPiece: the pair whose parts are rare apart": {
        "2": lambda: wordpiece().steps[1].step,  # the slide's step
        "1": lambda: max(step.score for step in wordpiece().steps[:2]),  # and each count
        "8": lambda: wordpiece().steps[0].most_frequent[1],  # type: ignore[index]
        "13": lambda: inside("w"),
        "15": lambda: inside("e"),
    },
    "Unigram: start from every piece, prune": {
        "64": lambda: unigram().seed_pieces,
        "1": lambda: unigram().rounds[0].round,  # the slide's step: 64 pieces, then 48
        "48": lambda: unigram().rounds[0].size - len(unigram().rounds[0].removed),
        "15": lambda: unigram().final.size,
        "11": lambda: len(set("".join(low_lower_words())) | {"▁"}),  # the characters and ▁
        "4": lambda: len(low_lower_words()),
    },
    "Exit question: the next merge": {
        "30": lambda: 30,  # the slide's step, checked below
    },
}


def slides() -> list[Slide]:
    return list(bundled_lessons()["bpe"].slides)


def figure(text: str) -> float:
    return float(text.replace(",", ""))


@pytest.mark.parametrize("slide", slides(), ids=lambda slide: slide.title)
def test_every_number_in_a_note_has_a_check(slide: Slide) -> None:
    written = set(NUMBER.findall(slide.notes))
    assert written == set(CHECKS.get(slide.title, {})), "a figure in the note has no check"


@pytest.mark.parametrize(
    ("title", "written", "check"),
    [
        (title, written, check)
        for title, checks in CHECKS.items()
        for written, check in checks.items()
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_every_number_in_a_note_is_the_engines(title: str, written: str, check: Check) -> None:
    assert check() == figure(written)


def test_the_japanese_line_leads_at_every_vocab_size_and_english_per_character() -> None:
    """Slide 11's note: Japanese ahead in bytes per token from the first merges to 1,024;
    per character English needs fewer tokens."""
    english, japanese = sample_run("english", 1024, "gpt4"), sample_run("japanese", 1024, "gpt4")
    for merges in range(1, min(english.merge_count, japanese.merge_count) + 1):
        ahead = len(japanese.text) / japanese.token_count(merges)
        assert ahead > len(english.text) / english.token_count(merges), merges
    top = english.merge_count
    per_char = {
        run: len(run.text.decode("utf-8")) / run.token_count(top) for run in (english, japanese)
    }
    assert per_char[english] > per_char[japanese]


def test_the_three_algorithms_first_steps_are_what_the_notes_say() -> None:
    """The words of the notes: BPE's first merge is w e; WordPiece's is w ##i (the pair BPE
    took its most frequent, not its best), once in widest; Unigram ends with the characters
    and the whole words. Token texts from the runs, against the words written in the notes."""
    bpe = sample_run("low_lower")
    assert bpe.steps[0].pair == tuple(b"we")
    first, second = wordpiece().steps[:2]
    assert [(step.left, step.right) for step in (first, second)] == [("w", "##i"), ("wi", "##d")]
    for step in (first, second):
        assert (step.count, step.left_count, step.right_count, step.score) == (1, 1, 1, 1)
    most_frequent = second.most_frequent
    assert most_frequent is not None
    assert tuple(wordpiece().vocab[i] for i in most_frequent[0]) == ("##w", "##e")
    assert {step.token for step in wordpiece().steps} >= {"low", "lower", "newe"}
    final = set(unigram().final.pieces)
    assert final == {f"▁{word}" for word in low_lower_words()} | set("lowernstid▁")
    lesson = {slide.title: slide for slide in slides()}
    assert lesson["Same words, three algorithms: BPE"].view["step"] == 1
    assert lesson["WordPiece: the pair whose parts are rare apart"].view["step"] == 2
    assert lesson["Unigram: start from every piece, prune"].view["step"] == 1


def test_the_slides_named_in_the_notes_are_the_lessons() -> None:
    lesson = {slide.title: slide for slide in slides()}
    assert lesson["Exit question: the next merge"].view["step"] == 30
    assert lesson["Counting pairs of neighbours"].view.get("quiz") is True  # the screen hides it
