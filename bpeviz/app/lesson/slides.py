"""A guided lesson: an ordered list of slides, each a view of the app with a title and notes.

A slide's view is the query parameters a link to that view carries (``page`` plus
``sample``, ``vocab``, ``step``, ``tok_model``...), so showing a slide is opening a link, and
a teacher who knows the app's links already knows the format. A lesson is a small TOML file::

    title = "BPE in ten minutes"

    [[slides]]
    title = "Wikipedia's example"
    page = "step"                 # step, tokenize, compression, compare, runs, export, about
    minutes = 5                   # optional: the time planned for it
    notes = "What to say (only the presenter sees it)."
    view = { sample = "aaabdaaabac", step = 1 }

:func:`parse_lesson` reads one strictly: an unknown key, page or sample, a step that is not a
whole number, a value of the wrong type or a file over :data:`MAX_LESSON_BYTES` is refused
with one sentence saying what to fix (:class:`LessonError`), never half-read. :func:`to_toml`
writes a lesson back in the same format (``parse_lesson(to_toml(x)) == x``).

Plain Python (no Streamlit), next to the link format it reuses (:mod:`bpeviz.app.frame.links`):
the parameters' names and values are the app's, so this lives in the app layer, which the
engine never imports. What is left out: showing a slide (:mod:`bpeviz.app.lesson.view`).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import tomllib
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

from bpeviz.app.compression.curves import VOCAB_CHOICES
from bpeviz.app.frame import run_settings
from bpeviz.app.shared.choices import BYTES, TRAINED
from bpeviz.app.tokenize.surprises import load_surprises
from bpeviz.engine.algorithms import ALGORITHM_REGISTRY, ALGORITHMS, algorithm_problems
from bpeviz.engine.config import MAX_VOCAB_SIZE
from bpeviz.engine.tie_rules import TIE_BREAKS
from bpeviz.engine.wordpiece import SCORE_RULES
from bpeviz.real.registry import bundled_names

MAX_LESSON_BYTES = 200_000  # a 45-minute lesson is about 15 KB
MAX_SLIDES = 200
MAX_TITLE_CHARS = 200
MAX_NOTES_CHARS = 10_000
MAX_TEXT_CHARS = 20_000  # a text a slide pastes or tokenizes
MAX_MINUTES = 600
# A lesson in a link: its TOML, compressed, base64url, behind the format's name. Links over
# about 8 KB are refused by common servers (nginx's default request line), so a longer lesson
# stays in the session only; the bundled 20-slide lesson takes about 5,200 characters.
LINK_FORMAT = "z1."
MAX_LINK_LESSON_CHARS = 6_000
LESSONS_DIR: Path = Path(__file__).resolve().parents[2] / "lessons"

# A slide's page, by the name a lesson uses, and the script st.navigation runs for it.
PAGES: dict[str, str] = {
    "step": "app_pages/step.py",
    "tokenize": "app_pages/tokenize.py",
    "compression": "app_pages/compression.py",
    "compare": "app_pages/compare.py",
    "runs": "app_pages/two_runs.py",
    "export": "app_pages/export.py",
    "about": "app_pages/about.py",
}
SIDEBAR = ()  # the sidebar's settings and presentation mode apply on every page

Kind = Literal["text", "count", "flag", "choice"]


@dataclass(frozen=True)
class Param:
    """One query parameter a slide may set: its kind, the pages it belongs to (none: every
    page), its choices (a function: samples are read from disk), the range of a count, and
    whether a widget bound to the link (``bind="query-params"``) writes it there itself."""

    kind: Kind
    pages: tuple[str, ...] = SIDEBAR
    choices: Callable[[], Sequence[str]] | None = None
    low: int = 0
    high: int = MAX_VOCAB_SIZE
    bound: bool = False
    default: Value | None = None  # the page widget's own fixed default, where it has one


def _runs(field_name: str, param: Param) -> dict[str, Param]:
    return {f"runs_{run}_{field_name}": param for run in ("a", "b")}


def _tokenizers() -> list[str]:
    return [TRAINED, *bundled_names(), BYTES]


def _pretokenizers() -> tuple[str, ...]:
    """Every algorithm's pre-tokenizers: BPE's, and WordPiece's ``bert``."""
    every = (name for info in ALGORITHM_REGISTRY.values() for name in info.pretokenizers)
    return tuple(dict.fromkeys(every))


def _vocab_choices() -> list[str]:
    return [str(size) for size in VOCAB_CHOICES]


# Every parameter a slide's view may hold: the link's names (see bpeviz.app.frame.links and the
# pages' widget keys), so a slide's view is a link's query.
PARAMS: dict[str, Param] = {
    run_settings.KEY_ALGORITHM: Param("choice", choices=lambda: ALGORITHMS),
    run_settings.KEY_SCORE_RULE: Param("choice", choices=lambda: SCORE_RULES),
    run_settings.KEY_SOURCE: Param("choice", choices=lambda: ("sample", "paste")),
    run_settings.KEY_SAMPLE: Param("choice", choices=run_settings.sample_keys),
    run_settings.KEY_VOCAB: Param("count"),  # its least (BPE: 257) checked with the algorithm
    run_settings.KEY_PRETOKENIZER: Param("choice", choices=_pretokenizers),
    run_settings.KEY_TIE_BREAK: Param("choice", choices=lambda: TIE_BREAKS),
    run_settings.KEY_END_OF_WORD: Param("flag"),
    run_settings.KEY_SPECIALS: Param("text"),
    run_settings.KEY_PASTE: Param("text"),
    "present": Param("flag", bound=True),
    "step": Param("count", pages=("step",)),
    "text_when": Param("choice", pages=("step",), choices=lambda: ("before", "after")),
    "quiz": Param("flag", pages=("step",)),
    "pieces": Param("flag", pages=("step",)),
    "focus": Param("flag", pages=("step",), bound=True),  # presentation mode's Focus view
    "tok_input": Param(
        "choice", pages=("tokenize",), choices=lambda: ("Text", "Chat"), bound=True, default="Text"
    ),
    "tok_text": Param("text", pages=("tokenize",)),
    "tok_model": Param("choice", pages=("tokenize",), choices=_tokenizers, bound=True),
    "tok_view": Param(
        "choice",
        pages=("tokenize",),
        choices=lambda: ("Text", "Token ids"),
        bound=True,
        default="Text",
    ),
    "tok_pieces": Param("flag", pages=("tokenize",), bound=True, default=False),
    "surprise": Param(
        "choice", pages=("tokenize",), choices=lambda: [s.key for s in load_surprises()]
    ),
    "compression_vocab": Param(
        "choice", pages=("compression",), choices=_vocab_choices, bound=True
    ),
    "cmp_left": Param("choice", pages=("compare",), choices=_tokenizers, bound=True),
    "cmp_right": Param("choice", pages=("compare",), choices=_tokenizers, bound=True),
    "compare_text": Param("text", pages=("compare",)),
    # the page's own defaults for both runs (two_runs.state.DEFAULTS: BPE; WordPiece by score)
    **_runs("algo", Param("choice", ("runs",), lambda: ALGORITHMS, bound=True, default="bpe")),
    **_runs(
        "wprule", Param("choice", ("runs",), lambda: SCORE_RULES, bound=True, default="score")
    ),
    **_runs("pretok", Param("choice", ("runs",), _pretokenizers, bound=True)),
    **_runs("tie", Param("choice", ("runs",), lambda: TIE_BREAKS, bound=True)),
    # WordPiece's and Unigram's vocabularies may be tiny; BPE's least (257) the page says
    **_runs("vocab", Param("count", ("runs",), low=1, bound=True)),
    **_runs("eow", Param("flag", ("runs",), bound=True, default=False)),
    "runs_step": Param("count", ("runs",), bound=True),
}
Value = str | int | bool
# The presenter's own choices: a slide that does not name them leaves them as they are.
PRESENTERS = ("present", "focus")
LESSON_KEYS = ("title", "slides")
SLIDE_KEYS = ("title", "page", "minutes", "notes", "view")


class LessonError(ValueError):
    """A lesson file that cannot be used; the message is one sentence saying what to fix."""


@dataclass(frozen=True)
class Slide:
    """One view of the app: the page, the link's parameters, a title and speaker notes."""

    title: str
    page: str
    view: Mapping[str, Value] = field(default_factory=dict)
    notes: str = ""
    minutes: int = 0

    def link(self) -> dict[str, str]:
        """The query parameters to open the slide's page with: those no widget writes into
        the link itself (Streamlit refuses to set a bound one; it follows its widget)."""
        return {key: value for key, value in self.query().items() if not PARAMS[key].bound}

    def query(self) -> dict[str, str]:
        """The view as a link's query parameters (flags as ``1``/``0``, as links write them).

        >>> Slide("Ties", "step", {"sample": "aaabdaaabac", "step": 2, "quiz": True}).query()
        {'sample': 'aaabdaaabac', 'step': '2', 'quiz': '1'}
        """
        return {
            key: ("1" if value else "0") if isinstance(value, bool) else str(value)
            for key, value in self.view.items()
        }


@dataclass(frozen=True)
class Lesson:
    """A titled, ordered list of slides (at least one)."""

    title: str
    slides: tuple[Slide, ...]

    @property
    def minutes(self) -> int:
        """The time planned for the whole lesson (the slides' minutes added up)."""
        return sum(slide.minutes for slide in self.slides)


def _string(value: Any, where: str, *, limit: int, required: bool = True) -> str:
    if not isinstance(value, str):
        raise LessonError(f'{where} must be text in quotes; write it as "...".')
    if required and not value.strip():
        raise LessonError(f"{where} is empty; give it some text.")
    if len(value) > limit:
        raise LessonError(f"{where} is longer than {limit:,} characters; shorten it.")
    return value


def _count(value: Any, where: str, *, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise LessonError(f"{where} must be a whole number without quotes, such as 3.")
    if not low <= value <= high:
        raise LessonError(f"{where} is {value}; use a whole number from {low:,} to {high:,}.")
    return value


def _view_value(key: str, value: Any, where: str) -> Value:
    param = PARAMS[key]
    if param.kind == "flag":
        if not isinstance(value, bool):
            raise LessonError(f"{where} must be true or false (without quotes).")
        return value
    if param.kind == "count":
        return _count(value, where, low=param.low, high=param.high)
    if param.kind == "choice" and isinstance(value, int) and not isinstance(value, bool):
        value = str(value)  # compression_vocab = 1024 reads as well as "1024"
    text = _string(value, where, limit=MAX_TEXT_CHARS, required=param.kind == "choice")
    if param.choices is not None and text not in param.choices():
        choices = ", ".join(param.choices())
        raise LessonError(f"{where} is {text!r}, which is not one of: {choices}.")
    return text


def _view(raw: Any, page: str, where: str) -> dict[str, Value]:
    if not isinstance(raw, dict):
        raise LessonError(f"{where}'s view must be a table, such as view = {{ step = 2 }}.")
    view: dict[str, Value] = {}
    for key, value in raw.items():
        param = PARAMS.get(key)
        if param is None:
            known = ", ".join(PARAMS)
            raise LessonError(f"{where}'s view has the unknown key {key!r}; use one of: {known}.")
        if param.pages and page not in param.pages:
            raise LessonError(
                f"{where}'s view sets {key!r}, which belongs to the {param.pages[0]} page, "
                f"not to {page!r}; remove it or change the page."
            )
        view[key] = _view_value(key, value, f"{where}'s {key}")
    _check_algorithm(view, where)
    return view


def _check_algorithm(view: Mapping[str, Value], where: str) -> None:
    """Refuse the settings the sidebar would not run together with the slide's algorithm
    (BPE unless it names one), rather than change them quietly as a link's are changed."""
    info = ALGORITHM_REGISTRY[str(view.get(run_settings.KEY_ALGORITHM, "bpe"))]
    if run_settings.KEY_SCORE_RULE in view and info.name != "wordpiece":
        raise LessonError(
            f"{where}'s wprule is WordPiece's rule, and this slide's algorithm is {info.title}; "
            'remove it or set algo = "wordpiece".'
        )
    if run_settings.KEY_PRETOKENIZER in view:
        problems = algorithm_problems(info.name, str(view[run_settings.KEY_PRETOKENIZER]))
        if problems:
            raise LessonError(
                f"{where}'s pretok does not fit its algorithm ({problems[0].rstrip('.')})."
            )
    if view.get(run_settings.KEY_END_OF_WORD) is True and info.name != "bpe":
        raise LessonError(
            f"{where}'s eow is on, and the </w> end-of-word marker is BPE's, not "
            f"{info.title}'s; remove it."
        )
    if run_settings.KEY_VOCAB in view:
        low = run_settings.min_vocab(info.name)
        _count(view[run_settings.KEY_VOCAB], f"{where}'s vocab", low=low, high=MAX_VOCAB_SIZE)


def _slide(raw: Any, number: int) -> Slide:
    where = f"Slide {number}"
    if not isinstance(raw, dict):
        raise LessonError(f"{where} must be a table: write it under a [[slides]] line.")
    unknown = [key for key in raw if key not in SLIDE_KEYS]
    if unknown:
        raise LessonError(
            f"{where} has the unknown key {unknown[0]!r}; a slide may have only "
            f"{', '.join(SLIDE_KEYS)}."
        )
    for key in ("title", "page"):
        if key not in raw:
            raise LessonError(f'{where} has no {key}; add one, such as {key} = "...".')
    title = _string(raw["title"], f"{where}'s title", limit=MAX_TITLE_CHARS)
    where = f"Slide {number} ({title})"
    page = _string(raw["page"], f"{where}'s page", limit=MAX_TITLE_CHARS)
    if page not in PAGES:
        raise LessonError(f"{where}'s page {page!r} is not one of: {', '.join(PAGES)}.")
    return Slide(
        title=title,
        page=page,
        view=_view(raw.get("view", {}), page, where),
        notes=_string(raw.get("notes", ""), f"{where}'s notes", limit=MAX_NOTES_CHARS,
                      required=False),
        minutes=_count(raw.get("minutes", 0), f"{where}'s minutes", low=0, high=MAX_MINUTES),
    )  # fmt: skip


def parse_lesson(data: bytes | str) -> Lesson:
    """Read a lesson file (TOML); :class:`LessonError` with one sentence when it is unusable.

    >>> lesson = parse_lesson('title = "T"\\n[[slides]]\\ntitle = "S"\\npage = "about"\\n')
    >>> lesson.title, lesson.slides[0].page
    ('T', 'about')
    >>> parse_lesson('title = "T"\\n[[slides]]\\ntitle = "S"\\npage = "home"\\n')
    Traceback (most recent call last):
    bpeviz.app.lesson.slides.LessonError: Slide 1 (S)'s page 'home' is not one of: step, tokenize, \
compression, compare, runs, export, about.
    """
    size = len(data.encode("utf-8") if isinstance(data, str) else data)
    if size > MAX_LESSON_BYTES:
        raise LessonError(
            f"The lesson file is {size:,} bytes, more than the {MAX_LESSON_BYTES:,} allowed; "
            "split it into shorter lessons."
        )
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise LessonError("The lesson file is not UTF-8 text; save it as UTF-8.") from None
    try:
        raw = tomllib.loads(data)
    except tomllib.TOMLDecodeError as error:
        raise LessonError(
            f"The lesson file is not valid TOML ({error}); fix that line and load it again."
        ) from None
    except RecursionError:
        raise LessonError(
            "The lesson file nests its values too deeply; a slide needs only one table."
        ) from None
    unknown = [key for key in raw if key not in LESSON_KEYS]
    if unknown:
        raise LessonError(
            f"The lesson has the unknown key {unknown[0]!r} at its top; only title and "
            "[[slides]] belong there."
        )
    if "title" not in raw:
        raise LessonError('The lesson has no title; add a first line such as title = "BPE".')
    title = _string(raw["title"], "The lesson's title", limit=MAX_TITLE_CHARS)
    slides = raw.get("slides")
    if not isinstance(slides, list) or not slides:
        raise LessonError("The lesson has no slides; add at least one [[slides]] table.")
    if len(slides) > MAX_SLIDES:
        raise LessonError(
            f"The lesson has {len(slides):,} slides, more than {MAX_SLIDES}; split it in two."
        )
    return Lesson(title, tuple(_slide(raw_slide, n) for n, raw_slide in enumerate(slides, 1)))


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def _unicode_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _toml_string(text: str) -> str:
    """A TOML string holding ``text`` exactly: a multi-line one when it has line breaks.

    >>> print(_toml_string('say "hi"\\n\\\\ back'))
    \"\"\"
    say \\"hi\\"
    \\\\ back\"\"\"
    >>> _toml_string("tab\\there\\x7f")
    '"tab\\\\there\\\\u007f"'
    """
    if "\n" not in text:
        return _CONTROL.sub(_unicode_escape, json.dumps(text, ensure_ascii=False))
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "\\r")
    return f'"""\n{_CONTROL.sub(_unicode_escape, escaped)}"""'


def _toml_value(value: Value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return _toml_string(value)


def to_toml(lesson: Lesson) -> str:
    """The lesson as a TOML file :func:`parse_lesson` reads back to the same lesson."""
    lines = [f"title = {_toml_string(lesson.title)}"]
    for slide in lesson.slides:
        lines += ["", "[[slides]]", f"title = {_toml_string(slide.title)}"]
        lines.append(f"page = {_toml_string(slide.page)}")
        if slide.minutes:
            lines.append(f"minutes = {slide.minutes}")
        if slide.notes:
            lines.append(f"notes = {_toml_string(slide.notes)}")
        if slide.view:
            lines.append("[slides.view]")
            lines += [f"{key} = {_toml_value(value)}" for key, value in slide.view.items()]
    return "\n".join(lines) + "\n"


def lesson_to_link(lesson: Lesson) -> str:
    """The lesson as one query value, so a link holds a teacher's own lesson whole.

    >>> lesson = parse_lesson('title = "T"\\n[[slides]]\\ntitle = "S"\\npage = "about"\\n')
    >>> text = lesson_to_link(lesson)
    >>> text.startswith(LINK_FORMAT), lesson_from_link(text) == lesson
    (True, True)
    """
    packed = zlib.compress(to_toml(lesson).encode("utf-8"), 9)
    return LINK_FORMAT + base64.urlsafe_b64encode(packed).decode("ascii").rstrip("=")


def lesson_from_link(text: str) -> Lesson:
    """The lesson a link holds (:func:`lesson_to_link`); :class:`LessonError` if the link was
    cut, changed or is too long. Unpacking stops at :data:`MAX_LESSON_BYTES`: a small link
    cannot make the server unpack a huge text."""
    broken = LessonError(
        "The link's lesson is cut short or changed; copy the whole link again, or load the "
        "lesson file."
    )
    if len(text) > MAX_LINK_LESSON_CHARS:
        raise LessonError(
            f"The link's lesson is {len(text):,} characters, more than the "
            f"{MAX_LINK_LESSON_CHARS:,} a link may hold; load the lesson file instead."
        )
    if not text.startswith(LINK_FORMAT):
        raise broken
    body = text.removeprefix(LINK_FORMAT)
    try:
        packed = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        unpacker = zlib.decompressobj()
        data = unpacker.decompress(packed, MAX_LESSON_BYTES + 1)
    except (binascii.Error, ValueError, zlib.error):
        raise broken from None
    if len(data) > MAX_LESSON_BYTES:
        return parse_lesson(data)  # says how long it is, and what to do
    if not unpacker.eof or unpacker.unused_data:
        raise broken
    return parse_lesson(data)


@cache
def bundled_lessons() -> dict[str, Lesson]:
    """The lessons shipped in ``bpeviz/lessons/``, by file name (``bpe``: ``?lesson=bpe``)."""
    return {
        path.stem: parse_lesson(path.read_bytes()) for path in sorted(LESSONS_DIR.glob("*.toml"))
    }


TEXT_BOXES = ("tok_text", "compare_text")  # linked text areas: seeded once per session


def slide_state(slide: Slide) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The session state that shows ``slide``, and the keys to drop so that what the slide
    leaves out takes its default (every parameter of its page it does not name).

    The sidebar's settings are read as a link's (:func:`bpeviz.app.frame.links.state_from_query`):
    a slide naming only ``sample = "aaabdaaabac"`` gets that sample's own settings. A
    surprise without a text of its own brings its text, as choosing it in the menu does.

    >>> state, dropped = slide_state(Slide("Ties", "step", {"sample": "aaabdaaabac", "step": 2}))
    >>> state["sample"], state["vocab"], state["tie"], state["step"], "quiz" in dropped
    ('aaabdaaabac', 259, 'lexmin', 2, True)
    """
    from bpeviz.app.frame.links import state_from_query

    sidebar = {key: value for key, value in slide.query().items() if not PARAMS[key].pages}
    state: dict[str, Any] = dict(state_from_query(sidebar)[0])
    if "present" in slide.view:  # else presentation mode stays as the presenter set it
        state["present"] = slide.view["present"]
    for key, value in slide.view.items():
        if PARAMS[key].pages:
            state[key] = int(value) if key == "compression_vocab" else value
    surprise = slide.view.get("surprise")
    if surprise and "tok_text" not in slide.view:
        state["tok_text"] = next(s.text for s in load_surprises() if s.key == surprise)
    dropped = tuple(
        key
        for key, param in PARAMS.items()
        if slide.page in param.pages and key not in state and key not in PRESENTERS
    )
    return state, dropped
