"""A live class in the app: ``?class=new`` starts one, ``?class=CODE`` joins it, and the
class bar (``web/live/class_bar.js``) sits above every page.

The script does four things only: it starts a class with the session's run, gives a joining
student that run (before the sidebar is drawn, so its widgets show it), keeps a following
student's settings the class's (a change of the student's own detaches them to explore), and
switches a following student's page or run when the browser asks. A run is the sidebar's
settings and the pages' (a lesson's slide sets both): when the teacher's change, the teacher's
next view names the new run, and a following student's browser asks for it (one rerun, as a page
switch). Everything else (the teacher's steps, the quiz, the counts) goes between browsers
over the class's socket (:mod:`bpeviz.classroom`), with no script rerun. The teacher's key
reaches only the teacher's browser (in the component's data, kept in its local storage),
never a link.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import streamlit as st

from bpeviz.app.frame.run_settings import KEY_SOURCE, STATE_KEYS, Message
from bpeviz.app.frame.state import KEY_HELD, KEY_PAGE_SETTINGS, KEY_STEP, KEY_UPLOADED, held_class
from bpeviz.app.lesson.prepare import prepare_lesson
from bpeviz.app.lesson.slides import PARAMS, TEXT_BOXES
from bpeviz.app.lesson.view import current_lesson, lesson_reference, referenced_lesson
from bpeviz.app.live.presenter import presenter_info
from bpeviz.app.live.projector_first import drawing
from bpeviz.app.live.results import checked_results, results_csv, results_json
from bpeviz.app.step.view import component
from bpeviz.classroom.codes import TOO_MANY, client_address, normal_code
from bpeviz.classroom.hubs.choose import current_hub
from bpeviz.classroom.hubs.common import run_id
from bpeviz.classroom.public_url import join_base_and_warning
from bpeviz.classroom.state import ENDED, MAX_TITLE_CHARS, PAGES, ClassError, View
from bpeviz.engine.readable import counted

KEY_CLASS = "class"  # the query parameter: "new", or a class's code
KEY_BAR = "class_bar"  # the class bar's component
KEY_TYPED = "class_code"  # the sidebar's box for a code read off the projector
KEY_ENDED = "_live_class_ended"  # the class ended: say so once
KEY_FOLLOW_PAGE = "_live_class_follow"  # a student took the teacher's run: go to this page
KEY_JOINER = "_live_class_joiner"  # this session's name for the limit on wrong codes
KEY_RESULTS = "_live_class_results"  # (code, questions): the teacher's class's results

# The pages' settings a class shares (the Step page's own travel in the view, no rerun).
PAGE_KEYS = tuple(key for key, param in PARAMS.items() if param.pages and "step" not in param.pages)
# Their widgets' fixed defaults (Tokenize's Input and view, Show pieces, Two runs' markers).
PAGE_DEFAULTS = {key: PARAMS[key].default for key in PAGE_KEYS if PARAMS[key].default is not None}
OWN_RUN = "own"  # the run a detached student's bar names: none of the class's
LINK_KINDS = ("text", "choice")  # a link's value is the widget's own (a flag's or count's is not)


def _run_of_session() -> dict[str, Any]:
    """The session's run as JSON data: its settings and the pages', its text when pasted or
    uploaded.

    A page's settings leave the session state while another page is shown (Streamlit drops
    the state of widgets not drawn), so the last ones seen are kept: the run does not change
    when the teacher only changes page.
    """
    state = st.session_state
    pages = state.setdefault(KEY_PAGE_SETTINGS, {})
    pages.update({key: state[key] for key in PAGE_KEYS if isinstance(state.get(key), str | int)})
    # A page not drawn yet in this session (a class started, or a teacher reloaded, on a
    # slide's link: the page runs after this) shows the link's text and choices.
    for key in PAGE_KEYS:
        if key not in pages and key in st.query_params and PARAMS[key].kind in LINK_KINDS:
            pages[key] = st.query_params[key]
    run: dict[str, Any] = {
        "state": {key: state[key] for key in STATE_KEYS if key in state},
        # A page's setting with a fixed default is in every run, its default when the session
        # holds none (a slide left it out): the run is named alike before the page drew its
        # widget and after (else every student followed each such slide twice), and a student
        # is given the default, not left with what their browser last showed.
        "pages": {**PAGE_DEFAULTS, **pages},
    }
    lesson = lesson_reference()
    if lesson is not None:  # each worker a student joins on prepares its slides too
        run["lesson"] = lesson
    stored = state.get(KEY_UPLOADED)
    if state.get(KEY_SOURCE) == "upload" and stored is not None:
        name, data = stored
        run["upload"] = [name, base64.b64encode(data).decode("ascii")]
    return run


def _settings_of(run: Mapping[str, Any]) -> dict[str, Any]:
    """The settings a run gives, by their session keys: the sidebar's and the pages'."""
    settings = {key: value for key, value in run.get("state", {}).items() if key in STATE_KEYS}
    pages = run.get("pages", {})
    settings.update({key: pages[key] for key in PAGE_KEYS if key in pages})
    return settings


def _give_run(
    run: Mapping[str, Any], replaced: Mapping[str, list[Any]] | None = None
) -> dict[str, Any]:
    """Put a class's run into this session (before the sidebar draws its widgets: a join's
    first run, or a callback); what the student's hold keeps of it (:func:`_hold_class_run`):
    the settings given, and the values they replaced, with those an earlier run given had
    replaced and the browser has not shown yet (its widgets may still send any of them)."""
    state = st.session_state
    given = _settings_of(run)
    shown = {key: [value for value in values if value != given.get(key)]
             for key, values in (replaced or {}).items()}  # fmt: skip
    for key, value in given.items():
        if key in state and state[key] != value and state[key] not in shown.get(key, []):
            shown.setdefault(key, []).append(state[key])
    for key, value in run.get("state", {}).items():
        if key in STATE_KEYS:
            state[key] = value
    pages = run.get("pages", {})
    for key in PAGE_KEYS:
        if key in pages:
            state[key] = pages[key]
            if key in TEXT_BOXES:  # the box shows this text, not the one it was seeded with
                state[f"_seeded_{key}"] = True
        else:  # the class's run leaves it to its default (slide 2's "Token ids" stays there)
            state.pop(key, None)
    upload = run.get("upload")
    if upload:
        state[KEY_UPLOADED] = (upload[0], base64.b64decode(upload[1]))
    state[KEY_STEP] = 0
    replaced = {key: values for key, values in shown.items() if values}
    return {"run": run_id(run), "given": given, "replaced": replaced, "detached": ""}


def _hold_class_run(held: dict[str, Any]) -> None:
    """Before the sidebar: a following student's settings stay the class's, and a setting the
    student changed detaches them (the class bar then says "Exploring"; Follow gives the
    class's run again).

    A value the session holds that is not the class's is one of two things. Either the
    browser sent a widget's old value in a rerun asked for before it heard the run that gave
    the class's (Streamlit takes the browser's widget values over the state): then it is
    one of the values the class's replaced, and the class's goes back. Or the student changed
    it: then the student explores. Once the browser sends the class's value (in a run after the
    one that gave it) it has heard it, and from then on any other value is the student's (one
    they had before, too).

    A page's widget is drawn again with the value its browser kept from when it was last
    drawn, unless the state was set in that run: slides 1 and 2's "UTF-8 bytes" came back on
    slide 12 over the class's ``cl100k_base``, given while another page was shown. So a
    page's setting is set again in every run that follows.
    """
    if held["role"] != "student" or held.get("detached") or "given" not in held:
        return
    if held.pop("fresh", False):  # given by this run's callback: the browser has not seen it
        return
    state = st.session_state
    replaced = held["replaced"]
    for key, value in held["given"].items():
        if key not in state:  # a page's setting while another page is shown
            continue
        if state[key] == value:
            replaced.pop(key, None)  # the browser has the class's value
            if key in PAGE_KEYS:  # and its widget shows it, not the one it had when last drawn
                state[key] = value
        elif state[key] in replaced.get(key, ()):
            state[key] = value  # the browser's old value, sent before it heard the new one
        else:
            held.update(detached=secrets.token_hex(4), replaced={})
            return


def _prepare_its_lesson(run: Mapping[str, Any]) -> None:
    """Prepare the lesson the class's run names, in this server process: behind
    ``scripts/serve.py`` a student's worker may not be the teacher's, and each worker has
    caches of its own."""
    lesson = referenced_lesson(run.get("lesson"))
    if lesson is not None:
        prepare_lesson(lesson)


def _follow_run() -> None:
    """The class bar's callback: the teacher's view names a run this student does not have
    (a new slide, a new setting); take it, and the teacher's page with it."""
    held = held_class()
    asked = getattr(st.session_state.get(KEY_BAR), "run", None)
    if held is None or held["role"] != "student" or not isinstance(asked, dict):
        return
    drawing().wait(held["code"])  # the projector's page first: it shares this core
    run = current_hub().run_of(held["code"])
    if run is None:  # the class ended: its socket says so
        return
    # given in a callback: this run's state is the class's whatever the browser sent
    held.update(_give_run(run, held.get("replaced")), fresh=True)
    _prepare_its_lesson(run)
    if asked.get("page") in PAGES:
        st.session_state[KEY_FOLLOW_PAGE] = asked["page"]


def _keep_results() -> None:
    """The class bar's callback: the teacher's browser has the class's results (a question
    revealed, or a reload): keep them for the downloads, during and after class."""
    held = held_class()
    raw = getattr(st.session_state.get(KEY_BAR), "results", None)
    if held is not None and held["role"] == "teacher":
        st.session_state[KEY_RESULTS] = (held["code"], checked_results(raw))


def results_downloads() -> None:
    """The class's results as CSV and JSON, for the teacher (kept after the class ends), in
    the sidebar: the teacher's laptop, not the projected page. Their bytes are given, not a
    callable: a deferred file is named anew in every run, so a click that met one of the
    teacher's many reruns asked for a file no longer kept and nothing downloaded; the same
    bytes keep the same name from run to run."""
    kept = st.session_state.get(KEY_RESULTS)
    if not kept or not kept[1]:
        return
    code, questions = kept
    with st.sidebar.container(horizontal=True, gap="small", key="class_results"):
        label = counted(len(questions), "question")
        st.download_button(
            f"Class results, {label} (CSV)",
            data=results_csv(questions),
            file_name=f"class_{code}_results.csv",
            mime="text/csv",
            key="class_results_csv",
            on_click="ignore",
        )
        st.download_button(
            "(JSON)",
            data=results_json(code, questions),
            file_name=f"class_{code}_results.json",
            mime="application/json",
            key="class_results_json",
            on_click="ignore",
            help="The same results as JSON: per question the pairs (or Unigram's tokens) "
            "offered, the right ones, the counts and each student's answer.",
        )


def _publish_run(held: dict[str, Any]) -> str:
    """The teacher's run, stored for the class when it changed; its name for the views."""
    run = _run_of_session()
    name = run_id(run)
    if held.get("run") != name:
        try:
            current_hub().set_run(held["code"], held["key"], run)
        except ClassError:  # the class ended: the class bar says so
            return str(held.get("run", ""))
        held["run"] = name
    return name


def _join_base() -> tuple[str, str]:
    """The address of the join link and QR code, from the teacher's own address
    (:func:`bpeviz.classroom.public_url.join_base_and_warning`), and the bar's warning."""
    parts = urlsplit(st.context.url or "")
    return join_base_and_warning(f"{parts.scheme}://{parts.netloc}" if parts.netloc else "")


def _slide_shown() -> dict[str, Any] | None:
    """The lesson's slide the teacher shows, for the students' bar: its number, the count
    and its title (as the class's view checks it, :meth:`View.check_slide`)."""
    held = current_lesson()
    if held is None:
        return None
    lesson, index = held
    title = lesson.slides[index].title[:MAX_TITLE_CHARS]
    return {"slide": index + 1, "slides": len(lesson.slides), "title": title}


def joiner() -> tuple[str, str]:
    """Who is joining, for the limit on wrong codes: the browser's address (behind our nginx,
    the one nginx saw) and this session (a random name kept in its state)."""
    address = client_address(st.context.headers, st.context.ip_address)
    session = st.session_state.setdefault(KEY_JOINER, secrets.token_hex(8))
    return address, session


def class_creator() -> str:
    """Whose classes a new class counts among (the hub's ``classes_per_address``): the
    browser's address; none for a browser on the server's own machine with no proxy between
    (``make run`` on a laptop, the tests), whose user could start servers anyway."""
    address = joiner()[0]
    return "" if address == "loopback" else address


def start_or_join() -> list[Message]:
    """Before the sidebar: act on ``?class=`` (start, join), and keep the code in the URL."""
    state = st.session_state
    raw = st.query_params.get(KEY_CLASS)
    held = held_class()
    if held:
        _hold_class_run(held)
    if raw is None:
        if held:  # a page switch dropped it: the address still names the class
            st.query_params[KEY_CLASS] = held["code"]
        return []
    if raw == "new":
        if (
            held
            and held["role"] == "teacher"
            and current_hub().is_teacher(held["code"], held["key"])
        ):
            st.query_params[KEY_CLASS] = held["code"]  # one live class per teacher's session
            return []
        try:
            run = _run_of_session()
            code, key = current_hub().create(run, View(), creator=class_creator())
        except ClassError as error:
            del st.query_params[KEY_CLASS]
            return [Message("error", str(error))]
        state[KEY_HELD] = {"code": code, "role": "teacher", "key": key, "run": run_id(run)}
        st.query_params[KEY_CLASS] = code
        lesson = current_lesson()
        if lesson is not None:  # its slides computed (again, if long ago) before they are due
            prepare_lesson(lesson[0], first=lesson[1])
        return []
    code = normal_code(raw)
    if held and held["code"] == code:
        return []
    # A right code gets in whatever others sent; only this session's own misses hold it
    # back, and a link to an ended class is told so and is no miss (codes.JoinLimit).
    hub = current_hub()
    address, session = joiner()
    if not hub.misses.session_allowed(session):
        del st.query_params[KEY_CLASS]
        return [Message("error", TOO_MANY)]
    run = hub.run_of(code) if code else None
    if run is None:
        del st.query_params[KEY_CLASS]
        if code and hub.was_given(code):
            return [Message("error", ENDED)]
        if hub.misses.miss(address, session) == TOO_MANY:
            return [Message("error", TOO_MANY)]
        return [
            Message(
                "error",
                f"There is no class with the code {raw[:16]!r}: check the code on the "
                "projector, or ask the teacher for the link.",
            )
        ]
    state[KEY_HELD] = {"code": code, "role": "student", **_give_run(run)}
    _prepare_its_lesson(run)
    return []


def _join_typed() -> None:
    """Callback of the code box: join the class whose code was typed."""
    typed = st.session_state.get(KEY_TYPED) or ""
    st.query_params[KEY_CLASS] = normal_code(typed) or typed.strip()[:16] or "?"


def class_controls() -> None:
    """The sidebar's way in: a teacher starts a class on the run on screen; a student types
    the code from the projector."""
    if held_class() is not None:
        return
    with st.sidebar.expander("Live class", icon=":material/groups:"):
        if st.button(
            "Start a live class",
            help="Students join with a code or a QR code; their screens follow yours.",
            key="start_class",
        ):
            st.query_params[KEY_CLASS] = "new"
            st.rerun()
        st.text_input(
            "Join with a class code",
            key=KEY_TYPED,
            max_chars=16,
            placeholder="e.g. K7Q M4X ABC",
            on_change=_join_typed,
        )


def class_bar(page: str, pages: Mapping[str, Any]) -> None:
    """The class bar above the page; a following student's browser asks for the teacher's
    page (``go``) or run (``run``: :func:`follow_page` switches), a teacher's reloaded
    browser shows its key (``teacher``)."""
    held = held_class()
    if held is None:
        if st.session_state.pop(KEY_ENDED, False):
            st.info("The live class has ended. Everything here is yours to explore.")
        results_downloads()  # a teacher's class that ended: its results stay
        return
    data: dict[str, Any] = {
        "kind": "class",
        "code": held["code"],
        "role": held["role"],
        "page": page,
        "teacher_checked": bool(held.get("checked")),
    }
    if held["role"] == "teacher":
        data["key"] = held["key"]
        data["run"] = _publish_run(held)
        if held.get("shown") != [data["run"], page]:  # the students follow: draw it first
            held["shown"] = [data["run"], page]
            drawing().begin(held["code"])
        data["slide"] = _slide_shown()
        data["presenter"] = presenter_info()  # told to the presenter's window (presenter.js)
        data["join"], data["warning"] = _join_base()
        kept = st.session_state.get(KEY_RESULTS)
        data["results"] = len(kept[1]) if kept and kept[0] == held["code"] else 0
    else:  # a student who changed a setting explores: their run is not the class's
        data["detached"] = held.get("detached", "")
        data["run"] = OWN_RUN if data["detached"] else held.get("run", "")
    result = component(
        data=data,
        key=KEY_BAR,
        on_teacher_change=lambda: None,
        on_go_change=lambda: None,
        on_left_change=lambda: None,
        on_run_change=_follow_run,
        on_results_change=_keep_results,
    )
    claimed = result.get("teacher") if result else None
    if held["role"] != "teacher" and isinstance(claimed, dict) and not held.get("checked"):
        key = claimed.get("key")
        held["checked"] = True
        if isinstance(key, str) and current_hub().is_teacher(held["code"], key):
            held.update(role="teacher", key=key)
        st.rerun()
    if held["role"] == "teacher":
        results_downloads()
    if result and result.get("left"):
        if result.get("left") == "ended":
            st.session_state[KEY_ENDED] = True
        del st.session_state[KEY_HELD]
        if KEY_CLASS in st.query_params:
            del st.query_params[KEY_CLASS]
        st.rerun()
    target = result.get("go") if result else None
    if held["role"] == "student" and target in PAGES and target != page and target in pages:
        drawing().wait(held["code"])
        _switch_to(pages[target], held["code"])


def follow_page(page: str, pages: Mapping[str, Any]) -> None:
    """Right after the page is known, before anything is drawn: a following student the class
    bar sends to the teacher's page (its ``run`` callback names the page, or it asks ``go``)
    switches now. Switched after the sidebar and the bars, each of a hundred students drew
    them twice for a slide on another page."""
    held = held_class()
    target = st.session_state.pop(KEY_FOLLOW_PAGE, None)
    if held is None or held["role"] != "student":
        return
    if target in PAGES and target != page and target in pages:
        _switch_to(pages[target], held["code"])


def _switch_to(page: Any, code: str) -> None:
    """Switch to the class's page with the class's code alone in the address (the pages'
    settings come back from the session): a bare switch would clear the address, which a
    widget bound to it refuses."""
    st.switch_page(page, query_params={KEY_CLASS: code})
