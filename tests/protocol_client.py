"""A student at the protocol level: Streamlit's own WebSocket messages, as a browser sends them.

A browser on the app holds one WebSocket to ``/_stcore/stream``. It sends protobuf
``BackMsg``s (from ``streamlit.proto``): a ``rerun_script`` with the page's query string when
the page opens, and again with a widget's new value (or a button's trigger) when the student
acts. The server answers with ``ForwardMsg``s: a new session, the page's elements as deltas
(each at a path in the page's tree of blocks), changes to the URL's query string, and
``script_finished``. :class:`Student` does exactly that, with the ``websockets`` client that
Streamlit's server is built on, so a hundred students fit in one Python process on the two
cores that also run the server, where a hundred Chromium tabs do not.

What a student sees is kept as the browser keeps it: each element by its delta path,
replaced by a later run and dropped at the end of a run that did not draw it again (for a
fragment's run, only among that fragment's elements). :meth:`Student.shown` reads the Step
page's merge card from it, so a benchmark or test checks that each student sees their own
merge, not a neighbour's.

Left out on purpose: drawing (no layout, no JavaScript: the one real browser of the
benchmark measures that), the static files (HTML, JS; a browser caches them), the
link updates a browser makes by itself when a widget bound to a query parameter changes (the
URL changes the server sends are kept), and widgets this app does not use. Like the browser,
the student sends the value of every widget on the page with each rerun (its default, what
the server last set, or what the student chose): a widget left out would fall back to its
default. Like the browser too, it keeps a cache of the big elements it received and says so
with each rerun, so an element drawn again unchanged comes as a short reference.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import re
import time
from collections.abc import Coroutine
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlsplit

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.WidgetStates_pb2 import WidgetState
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

STREAM_PATH = "/_stcore/stream"
RUN_TIMEOUT_SECONDS = 120.0
_FINISHED = ForwardMsg.ScriptFinishedStatus
_RERUN_ENDED = _FINISHED.FINISHED_EARLY_FOR_RERUN  # a newer run took over; wait for that one
_CARD_TITLE = re.compile(r'<h2 class="bpe-card-title">([^<]*)</h2>')
_MERGE_TITLE = re.compile(r"Merge ([\d,]+) of ([\d,]+)")
_CHIP_ID = re.compile(r'<span class="bpe-chipid">id (\d+)</span>')
# The Step page's view, drawn in the browser (bpeviz/app/step/view.py): a component with this
# key, given {"kind": "step", "key", "payload": <JSON text>, "start": {"step", "when"}},
# reporting {"step", "when"} as its state "view".
STEP_VIEW = "step_view"
T = TypeVar("T")


def run_coroutine(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` in a thread of its own.

    Playwright's sync API keeps an event loop running in the main thread for as long as a
    browser fixture lives, and ``asyncio.run`` refuses to start under a running loop; a fresh
    thread has none, whichever tests ran before.
    """
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


@dataclass(frozen=True)
class Shown:
    """The Step page's merge card as drawn: its title and, for merge k, what it says.

    ``merge`` is ``(k, total, (left id, right id, new id))``; ``None`` on the step-0 card.
    """

    title: str
    merge: tuple[int, int, tuple[int, ...]] | None


@dataclass(frozen=True)
class Run:
    """One script run as the student lived it.

    ``seconds``: from sending the message to ``script_finished`` (the whole view is on the
    wire); ``card_seconds``: to the merge card's delta (what the student looks at first),
    ``None`` when the run drew no card. ``messages`` and ``kilobytes``: what the server sent.
    """

    seconds: float
    card_seconds: float | None
    messages: int
    kilobytes: float
    status: str


@dataclass
class _Drawn:
    kind: str
    element: Any
    fragment_id: str


@dataclass
class Student:
    """One browser's session on the app, at ``base_url`` (``http://127.0.0.1:PORT``).

    ``page`` is the page's URL path (``""`` for the Step page, ``"tokenize"``...) and
    ``query`` its query string without ``?`` (the settings and the step, as a link holds
    them); ``headers`` go with the WebSocket's opening request (a cookie, say), and
    ``upgrade_headers`` keeps the answer's. Use it as
    ``async with Student(...) as student: run = await student.open()``.
    """

    base_url: str
    page: str = ""
    query: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    drawn: dict[tuple[int, ...], _Drawn] = field(default_factory=dict)
    session_id: str = ""
    page_script_hash: str = ""
    runs: list[Run] = field(default_factory=list)
    values: dict[str, WidgetState] = field(default_factory=dict)
    upgrade_headers: dict[str, str] = field(default_factory=dict)
    cache: dict[str, tuple[ForwardMsg, int]] = field(default_factory=dict)
    max_message_age: int = 2  # runs; the server's new_session says how many
    _run_number: int = 0
    _socket: ClientConnection | None = None
    # What the run being read has brought so far (see _read_run).
    _messages: int = 0
    _bytes: int = 0
    _card: float | None = None
    _written: set[tuple[int, ...]] = field(default_factory=set)
    _started: float = 0.0

    async def __aenter__(self) -> Student:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._socket is not None:
            await self._socket.close()
            self._socket = None

    # -- what the student does --

    async def open(self, timeout: float = RUN_TIMEOUT_SECONDS) -> Run:
        """Open the page: connect, ask for the first run with the link's query string."""
        started = time.perf_counter()
        await self.open_socket(timeout)
        return await self._rerun(started=started, timeout=timeout)

    async def open_socket(self, timeout: float = RUN_TIMEOUT_SECONDS) -> None:
        """Connect the page's WebSocket (no run asked for yet)."""
        parts = urlsplit(self.base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        uri = f"{scheme}://{parts.netloc}{parts.path.rstrip('/')}{STREAM_PATH}"
        self._socket = await connect(
            uri,
            subprotocols=["streamlit"],  # type: ignore[list-item]
            origin=f"{parts.scheme}://{parts.netloc}",  # type: ignore[arg-type]  # as a page does
            additional_headers=self.headers,
            proxy=None,  # loopback: never through a proxy from the environment
            max_size=None,  # a page's spans can be several MB
            ping_interval=None,  # a browser's WebSocket sends no pings of its own
            open_timeout=timeout,
        )
        if self._socket.response is not None:  # the server's (or a proxy's) 101 answer
            self.upgrade_headers = {k.lower(): v for k, v in self._socket.response.headers.items()}

    async def open_and_type(
        self,
        key: str,
        value: Any,
        *,
        first_run_lost: bool = False,
        timeout: float = RUN_TIMEOUT_SECONDS,
    ) -> Run:
        """Open the page and type into the widget ``key`` the moment it appears, while the
        first run may still be drawing the rest of the page.

        An eager student does this on a link that opens a text box: typing asks for a rerun
        at once, and the server stops the first run (or lets it end) and starts a second.
        What the first run had queued for the browser and not yet sent is dropped when the
        second starts; on a loaded server that can be all of it after the box.
        ``first_run_lost`` keeps nothing the first run drew after the box, as such a
        browser receives it (only its ``script_finished`` still comes).
        """
        started = time.perf_counter()
        await self.open_socket(timeout)
        assert self._socket is not None
        await self._socket.send(self._rerun_message().SerializeToString())

        async def first_run() -> None:
            while not self.has_widget(key):
                await self._take(await self._next())
            self.values[self._widget(key).element.id] = _typed(self._widget(key), value)
            await self._socket.send(self._rerun_message().SerializeToString())  # type: ignore[union-attr]
            while True:  # the first run ends, or the second starts without it ending
                message = await self._next()
                kind = message.WhichOneof("type")
                if kind == "script_finished":
                    return
                if kind == "new_session":
                    await self._take(message)
                    return
                if not first_run_lost:
                    await self._take(message)

        await asyncio.wait_for(first_run(), timeout)
        return await asyncio.wait_for(self._read_run(started, ""), timeout)

    async def click(self, key: str, timeout: float = RUN_TIMEOUT_SECONDS) -> Run:
        """Press the button with this widget key (inside its fragment, as the browser does)."""
        drawn = self._widget(key, "button")
        message = self._rerun_message(fragment_id=drawn.fragment_id)
        state = message.rerun_script.widget_states.widgets.add()
        state.id = drawn.element.id
        state.trigger_value = True  # sent once: a press, not a value that stays
        return await self._send(message, timeout)

    async def set_value(self, key: str, value: Any, timeout: float = RUN_TIMEOUT_SECONDS) -> Run:
        """Change a widget: a number input, a selectbox or radio (by the option's label), a
        checkbox, a text box or a slider (a select_slider by its option's label)."""
        drawn = self._widget(key)
        state = _typed(drawn, value)
        self.values[state.id] = state
        return await self._send(self._rerun_message(fragment_id=drawn.fragment_id), timeout)

    async def set_state(
        self, key: str, name: str, value: Any, timeout: float = RUN_TIMEOUT_SECONDS
    ) -> Run:
        """Report a component's state, as its JavaScript's ``setStateValue(name, value)`` does:
        the component's whole state goes as JSON in its widget value, and the page reruns."""
        drawn = self._widget(key, "bidi_component")
        held = self.values.get(drawn.element.id)
        state = json.loads(held.json_value) if held is not None and held.json_value else {}
        state[name] = value
        self.values[drawn.element.id] = WidgetState(
            id=drawn.element.id, json_value=json.dumps(state)
        )
        return await self._send(self._rerun_message(fragment_id=drawn.fragment_id), timeout)

    async def trigger(
        self, key: str, name: str, value: Any, timeout: float = RUN_TIMEOUT_SECONDS
    ) -> Run:
        """Report a component's event, as its JavaScript's ``setTriggerValue(name, value)``
        does: sent once with this rerun (the component's ``events`` widget), not kept."""
        from streamlit.components.v2.bidi_component.main import _make_trigger_id

        drawn = self._widget(key, "bidi_component")
        message = self._rerun_message(fragment_id=drawn.fragment_id)
        state = message.rerun_script.widget_states.widgets.add()
        state.id = _make_trigger_id(drawn.element.id, "events")
        state.json_trigger_value = json.dumps([{"event": name, "value": value}])
        return await self._send(message, timeout)

    async def listen(self, heard: list[str]) -> None:
        """Read what the server sends unasked, until the socket closes: each message's type
        goes to ``heard``. A rerun nobody asked for shows up there (``script_finished``);
        a live class's student, who only follows, should hear nothing. Run it as a task
        while the student does nothing else on this socket."""
        if self._socket is None:
            raise RuntimeError("open() the page first")
        with contextlib.suppress(ConnectionClosed):
            async for data in self._socket:
                message = ForwardMsg.FromString(data)  # type: ignore[arg-type]
                heard.append(message.WhichOneof("type") or "")

    # -- what the student sees --

    def widget(self, key: str) -> Any:
        """The widget's element as last drawn (its proto: label, options, value...)."""
        return self._widget(key).element

    def has_widget(self, key: str) -> bool:
        return any(_widget_key(d) == key for d in self.drawn.values())

    def html(self) -> list[str]:
        """The bodies of every ``st.html`` element on the page, in page order."""
        return [d.element.body for _, d in sorted(self.drawn.items()) if d.kind == "html"]

    def components(self) -> list[Any]:
        """Custom components on the page (``st.components.v2``): drawn by their own JavaScript
        in the browser, from the data the server sent (``.component_name``, ``.json``)."""
        return [d.element for _, d in sorted(self.drawn.items()) if d.kind == "bidi_component"]

    def component_data(self, key: str) -> Any:
        """The data the server gave the component with this key (``None`` if not JSON)."""
        element = self._widget(key, "bidi_component").element
        kind = element.WhichOneof("data")
        if kind == "json":
            return json.loads(element.json)
        if kind == "mixed":
            return json.loads(element.mixed.json)
        return None

    def browser_step(self) -> tuple[int, int] | None:
        """``(step, merges)`` of the Step page's view drawn in the browser, if any.

        The component's data is ``{"kind": "step", "key", "payload": <JSON text>, "start":
        {"step", "when"}}``; ``payload`` holds ``merge_count``. ``start`` is where the view
        was started, and stays so while the student steps and reports; where the view
        stands after a report is what the server wrote into the link (``step=``), which
        the student keeps (:attr:`query`), as the browser keeps its URL.
        """
        if not self.has_widget(STEP_VIEW):
            return None
        data = self.component_data(STEP_VIEW) or {}
        record = data.get("payload")
        if isinstance(record, str):
            record = json.loads(record)
        merges = int((record or {}).get("merge_count", -1))
        linked = dict(parse_qsl(self.query)).get("step", "")
        if linked.isdigit():
            return int(linked), merges
        start = data.get("start") or {}
        return int(start.get("step", -1)), merges

    async def report_step(self, step: int, timeout: float = RUN_TIMEOUT_SECONDS) -> Run:
        """What the browser-drawn step view sends once the student stops at ``step``."""
        return await self.set_state(STEP_VIEW, "view", {"step": step, "when": "after"}, timeout)

    def shown(self) -> Shown | None:
        """The Step page's merge card, or ``None`` when the page shows none."""
        for body in self.html():
            title = _CARD_TITLE.search(body)
            if title is None:
                continue
            merge = _MERGE_TITLE.fullmatch(title.group(1).strip())
            if merge is None:
                return Shown(title.group(1), None)
            k, total = (int(group.replace(",", "")) for group in merge.groups())
            ids = tuple(int(value) for value in _CHIP_ID.findall(body))
            return Shown(title.group(1), (k, total, ids))
        return None

    def problems(self) -> list[str]:
        """Exception boxes and error boxes on the page (each as its text)."""
        found = []
        for _, drawn in sorted(self.drawn.items()):
            if drawn.kind == "exception":
                found.append(f"exception: {drawn.element.type}: {drawn.element.message}")
            elif drawn.kind == "alert" and drawn.element.format == drawn.element.ERROR:
                found.append(f"error: {drawn.element.body}")
        return found

    # -- the protocol --

    def _widget(self, key: str, kind: str | None = None) -> _Drawn:
        for drawn in self.drawn.values():
            if _widget_key(drawn) == key and (kind is None or drawn.kind == kind):
                return drawn
        raise LookupError(f"no {kind or 'widget'} with key {key!r} on the page")

    def _rerun_message(self, *, fragment_id: str = "") -> BackMsg:
        message = BackMsg()
        rerun = message.rerun_script
        rerun.query_string = self.query
        rerun.page_script_hash = self.page_script_hash
        rerun.page_name = self.page
        rerun.fragment_id = fragment_id
        rerun.cached_message_hashes.extend(self.cache)
        drawn_ids = {getattr(d.element, "id", None) for d in self.drawn.values()}
        for widget_id, state in self.values.items():
            if widget_id in drawn_ids:
                rerun.widget_states.widgets.add().CopyFrom(state)
        return message

    async def _send(self, message: BackMsg, timeout: float) -> Run:
        started = time.perf_counter()
        return await self._rerun(message, started=started, timeout=timeout)

    async def _rerun(
        self, message: BackMsg | None = None, *, started: float, timeout: float
    ) -> Run:
        if self._socket is None:
            raise RuntimeError("open() the page first")
        if message is None:
            message = self._rerun_message()
        await self._socket.send(message.SerializeToString())
        return await asyncio.wait_for(
            self._read_run(started, message.rerun_script.fragment_id), timeout
        )

    async def _read_run(self, started: float, fragment_id: str) -> Run:
        self._messages, self._bytes, self._card, self._written = 0, 0, None, set()
        self._started = started
        while True:
            message = await self._next()
            if message.WhichOneof("type") != "script_finished":
                await self._take(message)
                continue
            status = _FINISHED.Name(message.script_finished)
            if message.script_finished == _RERUN_ENDED:
                continue
            self._drop_stale(self._written, fragment_id)
            self._expire_cache()
            run = Run(
                time.perf_counter() - started,
                self._card,
                self._messages,
                self._bytes / 1024,
                status,
            )
            self.runs.append(run)
            return run

    async def _next(self) -> ForwardMsg:
        """The server's next message (a cached element resolved)."""
        assert self._socket is not None
        data = await self._socket.recv(decode=False)
        self._messages, self._bytes = self._messages + 1, self._bytes + len(data)
        return self._cached(ForwardMsg.FromString(data))

    async def _take(self, message: ForwardMsg) -> None:
        """What the browser does with a message other than ``script_finished``."""
        kind = message.WhichOneof("type")
        if kind == "new_session":
            self.session_id = message.new_session.initialize.session_id
            self.page_script_hash = message.new_session.page_script_hash
            self.max_message_age = message.new_session.config.max_cached_message_age
        elif kind == "page_info_changed":
            self.query = message.page_info_changed.query_string
        elif kind == "delta" and message.delta.WhichOneof("type") == "new_element":
            path = tuple(message.metadata.delta_path)
            element = message.delta.new_element
            element_kind = element.WhichOneof("type") or ""
            payload = getattr(element, element_kind) if element_kind else None
            self.drawn[path] = _Drawn(element_kind, payload, message.delta.fragment_id)
            self._take_value(element_kind, payload)
            self._written.add(path)
            if self._card is None and element_kind == "html" and "bpe-card-title" in payload.body:
                self._card = time.perf_counter() - self._started
        elif kind == "delta":
            self._written.add(tuple(message.metadata.delta_path))

    def _cached(self, message: ForwardMsg) -> ForwardMsg:
        """The browser's message cache: keep big elements, and resolve a reference to one.

        The student reports the hashes it holds with each rerun, as the browser does, and the
        server then sends a short reference instead of an element the browser already has.
        """
        if message.WhichOneof("type") == "ref_hash":
            held = self.cache.get(message.ref_hash)
            if held is None:
                raise RuntimeError(f"the server refers to a message never received: {message}")
            full = ForwardMsg()
            full.CopyFrom(held[0])
            full.metadata.CopyFrom(message.metadata)  # the element's place in this run
            self.cache[message.ref_hash] = (held[0], self._run_number)
            return full
        if message.metadata.cacheable:
            self.cache[message.hash] = (message, self._run_number)
        return message

    def _expire_cache(self) -> None:
        """After each run, forget what no run has used for ``max_message_age`` runs."""
        self._run_number += 1
        for key, (_, used) in list(self.cache.items()):
            if self._run_number - used > self.max_message_age:
                del self.cache[key]

    def _drop_stale(self, written: set[tuple[int, ...]], fragment_id: str) -> None:
        """What the browser clears when a run ends: elements that run did not draw again."""
        for path in list(self.drawn):
            if path in written:
                continue
            if not fragment_id or self.drawn[path].fragment_id == fragment_id:
                del self.drawn[path]

    def _take_value(self, kind: str, element: Any) -> None:
        """A widget drawn: keep its value as the browser does (the server's, if it set one)."""
        widget_id = getattr(element, "id", "")
        if not widget_id or (widget_id in self.values and not getattr(element, "set_value", 0)):
            return
        state = _drawn_value(kind, element)
        if state is not None:
            self.values[widget_id] = state


def _typed(drawn: _Drawn, value: Any) -> WidgetState:
    """The widget state a browser sends when the student sets this widget to ``value``."""
    state = WidgetState(id=drawn.element.id)
    if drawn.kind == "number_input":
        if drawn.element.data_type == NumberInput.INT:
            state.int_value = int(value)
        else:
            state.double_value = float(value)
    elif drawn.kind in ("selectbox", "radio"):
        options = list(drawn.element.options)
        if value not in options:
            raise ValueError(f"{_widget_key(drawn)!r} has no option {value!r}; it offers {options}")
        state.string_value = str(value)
    elif drawn.kind == "checkbox":
        state.bool_value = bool(value)
    elif drawn.kind in ("text_input", "text_area"):
        state.string_value = str(value)
    elif drawn.kind == "slider" and drawn.element.options:  # a select_slider, by label
        state.string_array_value.data[:] = [str(value)]
    elif drawn.kind == "slider":
        state.double_array_value.data[:] = [float(value)]
    else:
        raise ValueError(f"setting a {drawn.kind} is not supported here")
    return state


def _drawn_value(kind: str, element: Any) -> WidgetState | None:
    """The value a browser reports for a widget just drawn: the server's or the default."""
    state = WidgetState(id=element.id)
    set_value = bool(getattr(element, "set_value", False))
    if kind == "checkbox":
        state.bool_value = element.value if set_value else element.default
    elif kind in ("selectbox", "radio"):
        if set_value and element.HasField("raw_value"):
            state.string_value = element.raw_value
        elif element.HasField("default") and 0 <= element.default < len(element.options):
            state.string_value = element.options[element.default]
        else:
            return None  # nothing chosen
    elif kind in ("number_input", "text_input", "text_area"):
        if set_value and element.HasField("value"):
            value = element.value
        elif element.HasField("default"):
            value = element.default
        else:
            return None  # an empty box
        if kind != "number_input":
            state.string_value = value
        elif element.data_type == NumberInput.INT:
            state.int_value = int(value)
        else:
            state.double_value = value
    elif kind == "slider" and element.options:  # a select_slider: its options' labels
        chosen = (
            list(element.raw_value)
            if set_value
            else [element.options[int(i)] for i in element.default]
        )
        state.string_array_value.data[:] = chosen
    elif kind == "slider":
        state.double_array_value.data[:] = list(element.value if set_value else element.default)
    elif kind == "button_group":
        chosen = (
            list(element.raw_values)
            if set_value
            else [element.options[i].content for i in element.default]
        )
        state.string_array_value.data[:] = chosen
    else:
        return None  # buttons (a press is sent once) and widgets this app does not use
    return state


def _widget_key(drawn: _Drawn) -> str | None:
    """The key a page gave a widget: element ids read ``$$ID-<hash>-<key>``."""
    widget_id = getattr(drawn.element, "id", "")
    if not isinstance(widget_id, str) or not widget_id.startswith("$$ID-"):
        return None
    parts = widget_id.split("-", 2)
    return parts[2] if len(parts) == 3 and parts[2] != "None" else None
