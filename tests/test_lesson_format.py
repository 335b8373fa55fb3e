"""The lesson format (``bpeviz/app/lesson/slides.py``): reading, strict checks, writing back, and
the session state a slide stands for. The bundled lesson is checked against the order issue 18
asks for."""

from __future__ import annotations

import base64
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpeviz.app.lesson.slides import (
    LINK_FORMAT,
    MAX_LESSON_BYTES,
    MAX_LINK_LESSON_CHARS,
    PAGES,
    PARAMS,
    Lesson,
    LessonError,
    Slide,
    bundled_lessons,
    lesson_from_link,
    lesson_to_link,
    parse_lesson,
    slide_state,
    to_toml,
)
from bpeviz.app.tokenize.surprises import load_surprises

MINIMAL = 'title = "Ties"\n\n[[slides]]\ntitle = "Step 2"\npage = "step"\n'


def slide_toml(view: str = "", page: str = "step", extra: str = "") -> str:
    """A one-slide lesson with this view (TOML lines under [slides.view]) and extra keys."""
    text = f'title = "L"\n[[slides]]\ntitle = "S"\npage = "{page}"\n{extra}'
    return text + (f"[slides.view]\n{view}\n" if view else "")


def test_a_minimal_lesson_reads_with_empty_view_and_notes() -> None:
    lesson = parse_lesson(MINIMAL)
    assert lesson == Lesson("Ties", (Slide("Step 2", "step"),))
    assert lesson.slides[0].query() == {}


def test_a_slide_reads_its_view_as_typed_values() -> None:
    lesson = parse_lesson(
        slide_toml(
            'sample = "aaabdaaabac"\nstep = 2\nquiz = true\ntext_when = "before"',
            extra='minutes = 4\nnotes = """\nTwo pairs tie."""\n',
        )
    )
    slide = lesson.slides[0]
    assert slide.view == {"sample": "aaabdaaabac", "step": 2, "quiz": True, "text_when": "before"}
    assert (slide.minutes, slide.notes) == (4, "Two pairs tie.")
    # as a link writes them: flags 1/0, numbers as digits
    assert slide.query() == {
        "sample": "aaabdaaabac",
        "step": "2",
        "quiz": "1",
        "text_when": "before",
    }


def test_a_compression_vocab_may_be_written_with_or_without_quotes() -> None:
    for value in ("1024", '"1024"'):
        lesson = parse_lesson(slide_toml(f"compression_vocab = {value}", page="compression"))
        assert lesson.slides[0].view == {"compression_vocab": "1024"}


def test_a_slide_may_choose_the_algorithm_and_wordpieces_rule() -> None:
    """Issue 33: a slide runs its text through WordPiece or Unigram as the sidebar would, the
    pre-tokenizer fitted to the algorithm (english suggests gpt4, which WordPiece cannot
    take), and a vocabulary smaller than the 256 bytes, which only BPE starts from."""
    lesson = parse_lesson(
        slide_toml('sample = "english"\nalgo = "wordpiece"\nwprule = "frequency"\nvocab = 40')
    )
    slide = lesson.slides[0]
    assert slide.query() == {
        "sample": "english",
        "algo": "wordpiece",
        "wprule": "frequency",
        "vocab": "40",
    }
    state, _ = slide_state(slide)
    assert (state["algo"], state["wprule"], state["pretok"], state["vocab"]) == (
        "wordpiece",
        "frequency",
        "words",
        40,
    )
    state, _ = slide_state(Slide("Back", "step", {"sample": "english"}))
    assert (state["algo"], state["pretok"]) == ("bpe", "gpt4")  # left out: BPE again
    unigram = parse_lesson(slide_toml('algo = "unigram"\npretok = "words"\neow = false'))
    assert unigram.slides[0].view == {"algo": "unigram", "pretok": "words", "eow": False}


def test_the_link_leaves_out_what_a_bound_widget_writes() -> None:
    """Streamlit refuses to set a query parameter bound to a widget: the widget, given the
    slide's value through the session state, writes it into the link itself."""
    slide = Slide("x", "tokenize", {"tok_model": "cl100k_base", "tok_text": "hi", "vocab": 300})
    assert slide.link() == {"tok_text": "hi", "vocab": "300"}


ONE_SLIDE = '[[slides]]\ntitle = "S"\npage = "step"\n'
MALFORMED = {
    "page": (slide_toml(page="home"), "page 'home' is not one of: step, tokenize"),
    "step-text": (slide_toml('step = "two"'), "step must be a whole number"),
    "step-negative": (slide_toml("step = -1"), "use a whole number from 0"),
    "step-float": (slide_toml("step = 2.5"), "step must be a whole number"),
    "view-key": (slide_toml("stepp = 2"), "unknown key 'stepp'"),
    "slide-key": (slide_toml(extra="colour = 1\n"), "unknown key 'colour'"),
    "top-key": ('author = "me"\n' + MINIMAL, "unknown key 'author' at its top"),
    "sample": (slide_toml('sample = "nope"'), "'nope', which is not one of: english"),
    "flag-type": (slide_toml("quiz = 1"), "quiz must be true or false"),
    "vocab-zero": (slide_toml("vocab = 0"), "use a whole number from 257"),
    "wrong-page": (slide_toml("step = 3", page="tokenize"), "belongs to the step page"),
    "tokenizer": (slide_toml('tok_model = "gpt5"', page="tokenize"), "'gpt5'"),
    "nested-view": (slide_toml("view = 3"), "unknown key 'view'"),
    "title-type": ("title = 3\n" + ONE_SLIDE, "title must be text"),
    "no-title": ('title = "T"\n[[slides]]\npage = "step"\n', "Slide 1 has no title"),
    "no-slides": ('title = "T"\n', "has no slides"),
    "empty-slides": ('title = "T"\nslides = []\n', "has no slides"),
    "slide-type": ('title = "T"\nslides = [1]\n', "Slide 1 must be a table"),
    "minutes": (slide_toml(extra="minutes = true\n"), "minutes must be a whole number"),
    "not-toml": ("title = 'T\n[[slides]]", "not valid TOML"),
    "not-utf8": (b"title = '\xff'", "not UTF-8"),
    "deep-nesting": ("x = " + "[" * 50_000 + "]" * 50_000, "nests its values too deeply"),
    "deep-unclosed": ("title = " + "[" * 60_000, "lesson file"),
    "too-large": (MINIMAL + "#" * MAX_LESSON_BYTES, "more than the 200,000 allowed"),
    "algo": (
        slide_toml('algo = "sentencepiece"'),
        "algo is 'sentencepiece', which is not one of: bpe, wordpiece, unigram",
    ),
    "wprule": (
        slide_toml('algo = "wordpiece"\nwprule = "likelihood"'),
        "wprule is 'likelihood', which is not one of: score, frequency",
    ),
    "wprule-without-wordpiece": (
        slide_toml('algo = "unigram"\nwprule = "score"'),
        "wprule is WordPiece's rule, and this slide's algorithm is Unigram",
    ),
    "pretok-for-wordpiece": (
        slide_toml('algo = "wordpiece"\npretok = "gpt4"'),
        "WordPiece needs words: use the pre-tokenizer 'words' or 'bert', not 'gpt4'",
    ),
    "eow-for-unigram": (slide_toml('algo = "unigram"\neow = true'), "marker is BPE's"),
    "vocab-below-bytes": (slide_toml("vocab = 30"), "vocab is 30; use a whole number from 257"),
}


@pytest.mark.parametrize(("text", "says"), list(MALFORMED.values()), ids=list(MALFORMED))
def test_a_malformed_lesson_is_refused_with_one_sentence(text: str | bytes, says: str) -> None:
    with pytest.raises(LessonError) as caught:
        parse_lesson(text)
    message = str(caught.value)
    assert says in message
    assert "\n" not in message and message.endswith(".") and "Traceback" not in message


def test_the_bundled_lesson_follows_the_order_the_issue_asks_for() -> None:
    """Issue 18: bytes; counting pairs; aaabdaaabac with its tie; the English sample with the
    quiz; bytes vs gpt4 in Two runs; compression English vs Japanese; real tokenizers on the
    Tokenize page; the surprises. Issue 28: then a recap and an exit question run as a class
    quiz. Issue 33: before the recap, one text through BPE, WordPiece and Unigram on the Step
    page. 50 minutes, for a 50-minute lecture."""
    lesson = bundled_lessons()["bpe"]
    slides = lesson.slides
    assert lesson.minutes == 50
    assert all(slide.title and slide.notes for slide in slides)

    def first(test: object) -> int:
        return next(i for i, slide in enumerate(slides) if test(slide))  # type: ignore[operator]

    order = [
        first(lambda s: s.page == "tokenize" and s.view.get("tok_model") == "UTF-8 bytes"),
        first(lambda s: s.page == "step" and s.view.get("sample") == "cat_sat"),
        first(lambda s: s.view.get("sample") == "aaabdaaabac" and s.view.get("step") == 2),
        first(lambda s: s.view.get("sample") == "english" and s.view.get("quiz") is True),
        first(
            lambda s: (
                s.page == "runs"
                and (s.view["runs_a_pretok"], s.view["runs_b_pretok"]) == ("bytes", "gpt4")
            )
        ),
        first(lambda s: s.page == "compression"),
        first(lambda s: s.page == "tokenize" and s.view.get("tok_model") == "cl100k_base"),
        first(lambda s: "surprise" in s.view),
    ]
    assert order == sorted(order)
    three = slides[-5:-2]
    assert [s.view.get("algo", "bpe") for s in three] == ["bpe", "wordpiece", "unigram"]
    assert {(s.page, s.view["sample"]) for s in three} == {("step", "low_lower")}
    assert three[1].view["wprule"] == "score"
    recap, exit_question = slides[-2:]
    assert recap.title.startswith("Recap") and recap.page == "about"
    assert exit_question.title.startswith("Exit question")
    assert exit_question.page == "step" and exit_question.view.get("quiz") is True
    # the results' buttons are in the teacher's sidebar (live_class.results_downloads), not in
    # the projected class bar the note once named
    assert "the sidebar's Class results" in " ".join(exit_question.notes.split())


def test_every_bundled_lesson_round_trips() -> None:
    for lesson in bundled_lessons().values():
        assert parse_lesson(to_toml(lesson)) == lesson


def test_a_lesson_with_every_parameter_round_trips() -> None:
    """One slide per page, each setting every parameter of its page and of the sidebar."""
    values = {"text": 'a "quoted" \\ text', "count": 300, "flag": True}
    slides = []
    for page in PAGES:
        view = {}
        for key, param in PARAMS.items():
            if param.pages and page not in param.pages:
                continue
            view[key] = param.choices()[-1] if param.choices else values[param.kind]
        # the run's settings must fit together: WordPiece's rule, words, no </w>
        view.update(algo="wordpiece", wprule="frequency", pretok="bert", eow=False)
        slides.append(Slide(f"on {page}", page, view, notes="line 1\nline 2", minutes=1))
    lesson = Lesson("every parameter", tuple(slides))
    assert parse_lesson(to_toml(lesson)) == lesson


text_strategy = st.text(st.characters(exclude_categories=("Cs",)), min_size=1, max_size=60)


@settings(max_examples=150, deadline=None)
@given(title=text_strategy, notes=st.text(st.characters(exclude_categories=("Cs",))))
def test_any_title_and_notes_round_trip(title: str, notes: str) -> None:
    if not title.strip():
        title = "t" + title
    lesson = Lesson(title, (Slide(title, "tokenize", {"tok_text": title}, notes=notes),))
    assert parse_lesson(to_toml(lesson)) == lesson


def test_a_slide_naming_a_sample_brings_that_samples_settings() -> None:
    """aaabdaaabac opens with bytes, lexmin, 259 (samples.json), as choosing it would."""
    state, dropped = slide_state(Slide("Tie", "step", {"sample": "aaabdaaabac", "step": 2}))
    assert (state["sample"], state["pretok"], state["tie"], state["vocab"]) == (
        "aaabdaaabac",
        "bytes",
        "lexmin",
        259,
    )
    assert state["step"] == 2
    assert set(dropped) == {"text_when", "quiz", "pieces"}
    # presentation mode and its Focus view stay as the presenter set them
    assert "present" not in state and "focus" not in state and "focus" not in dropped


def test_a_slide_without_settings_goes_back_to_the_default_sample() -> None:
    state, _ = slide_state(Slide("About", "about"))
    assert (state["src"], state["sample"], state["vocab"], state["pretok"]) == (
        "sample",
        "english",
        512,
        "gpt4",
    )


def test_a_surprise_brings_its_text_unless_the_slide_has_one() -> None:
    arithmetic = next(s for s in load_surprises() if s.key == "arithmetic")
    state, dropped = slide_state(Slide("x", "tokenize", {"surprise": "arithmetic"}))
    assert state["tok_text"] == arithmetic.text
    assert "tok_model" in dropped and "tok_text" not in dropped
    state, _ = slide_state(Slide("x", "tokenize", {"surprise": "arithmetic", "tok_text": "1+1"}))
    assert state["tok_text"] == "1+1"


def packed_link(data: bytes) -> str:
    """A lesson link as a hand-made one would be: zlib, base64url, the format's name."""
    return LINK_FORMAT + base64.urlsafe_b64encode(zlib.compress(data, 9)).decode().rstrip("=")


def test_a_lesson_travels_whole_in_a_link() -> None:
    lesson = bundled_lessons()["bpe"]
    link = lesson_to_link(lesson)
    assert lesson_from_link(link) == lesson
    assert len(link) <= MAX_LINK_LESSON_CHARS  # the bundled lesson fits a link
    assert set(link.removeprefix(LINK_FORMAT)) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    )  # nothing a query string must escape
    assert lesson_from_link(packed_link(MINIMAL.encode())) == parse_lesson(MINIMAL)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda link: link[:-12], "cut short"),
        (lambda link: link.removeprefix(LINK_FORMAT), "cut short"),
        (lambda link: link[:40] + ("A" if link[40] != "A" else "B") + link[41:], "cut short"),
        (lambda link: link + "A" * MAX_LINK_LESSON_CHARS, "load the lesson file instead"),
    ],
    ids=["cut", "no format", "one letter changed", "too long"],
)
def test_a_link_cut_or_changed_is_refused_with_what_to_do(change: object, says: str) -> None:
    link = lesson_to_link(bundled_lessons()["bpe"])
    with pytest.raises(LessonError, match=says):
        lesson_from_link(change(link))  # type: ignore[operator]


def test_a_small_link_cannot_unpack_a_huge_text() -> None:
    """1 MB of one letter packs into about 1,400 characters: unpacking stops past the file
    limit, and the message says how long a lesson may be."""
    link = packed_link(b"a" * 1_000_000)
    assert len(link) < MAX_LINK_LESSON_CHARS
    with pytest.raises(LessonError, match=f"more than the {MAX_LESSON_BYTES:,} allowed"):
        lesson_from_link(link)


def test_a_slide_may_compare_two_runs_of_different_algorithms() -> None:
    """The Two runs page takes runs_a_algo / runs_b_wprule (issues 32, 33): a lesson may too,
    with a WordPiece or Unigram vocabulary smaller than BPE's 257."""
    view = {"runs_a_pretok": "words", "runs_b_algo": "wordpiece", "runs_b_wprule": "frequency",
            "runs_b_pretok": "bert", "runs_b_vocab": 30}  # fmt: skip
    lesson = Lesson("three ways", (Slide("BPE and WordPiece", "runs", view),))
    assert parse_lesson(to_toml(lesson)) == lesson


def test_the_two_runs_defaults_a_slide_leaves_out_are_the_pages_own() -> None:
    """The published run fills in a page's fixed defaults (live_class.PAGE_DEFAULTS): for Two
    runs they must be the page's, or a slide's run changes name when the page draws."""
    from bpeviz.app.two_runs.state import DEFAULTS, widget_key

    for name, run in DEFAULTS.items():
        assert PARAMS[widget_key(name, "algo")].default == run.algorithm
        assert PARAMS[widget_key(name, "wprule")].default == run.score_rule
        assert PARAMS[widget_key(name, "eow")].default == run.end_of_word
