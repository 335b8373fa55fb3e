"""Classes shared between worker processes through a real Redis (``RedisHub``).

Two hubs on one ``redis-server`` stand for two ``make serve`` workers: what one creates or
changes, the other reads, and its sockets get the events. The server is Debian's, started
the way ``scripts/serve.py`` starts it (loopback, a free port, no persistence, its files in
a temporary directory) and stopped at the end. Without ``/usr/bin/redis-server`` these tests
skip and say why; under ``BPEVIZ_REQUIRE_BROWSER=1`` (CI) they fail instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest
import redis
from protocol_client import run_coroutine
from serve_script import load_serve
from test_live_class_refusals import REFUSED, SET_UP

from bpeviz.classroom import codes, state
from bpeviz.classroom.hubs import redis_hub
from bpeviz.classroom.hubs.common import GIVEN_S, Subscriber, end_gone_classes
from bpeviz.classroom.hubs.redis_hub import RedisHub
from bpeviz.classroom.state import IDLE_LIMIT_S, MAX_CLASSES, ClassError, ClassState, View

serve = load_serve()
RUN = {"text": "héllo wörld, 日本語 🙂", "vocab_size": 300, "pretokenizer": "gpt2"}
STEP_VIEW = {
    "page": "step", "step": 3, "when": "after", "pieces": False, "quiz": False, "run": "",
    "slide": 0, "slides": 0, "title": "",
}  # fmt: skip
ENDED_MESSAGE = {"type": "ended", "message": "This class has ended."}  # every page is told
WAIT_S = 10.0  # for an event or an expiry: a bound on waiting, never a sleep


@pytest.fixture(scope="module")
def redis_url(
    tmp_path_factory: pytest.TempPathFactory, unavailable: Callable[[str], NoReturn]
) -> Iterator[str]:
    reason = serve.redis_missing_reason()
    if reason:
        unavailable(reason)
    server = serve.start_redis(tmp_path_factory.mktemp("redis"), time.monotonic() + 30)
    try:
        yield server.url
    finally:
        server.process.terminate()
        server.process.wait(timeout=10)


@pytest.fixture
def raw(redis_url: str) -> Iterator[redis.Redis]:
    """A plain client on an empty database (each test starts with no classes)."""
    client = redis.Redis.from_url(redis_url, decode_responses=True)
    client.flushdb()
    yield client
    client.close()


@contextlib.asynccontextmanager
async def two_workers(url: str, **options: Any) -> AsyncIterator[tuple[RedisHub, RedisHub]]:
    """Two hubs on one Redis, listening as two workers' servers do."""
    first, second = RedisHub(url, **options), RedisHub(url, **options)
    await first.start()
    await second.start()
    try:
        yield first, second
    finally:
        await first.stop()
        await second.stop()


async def next_event(subscriber: Subscriber) -> Any:
    return await asyncio.wait_for(subscriber.queue.get(), WAIT_S)


def view(**changes: Any) -> dict[str, Any]:
    return {**STEP_VIEW, **changes}


def test_a_class_created_on_one_worker_is_read_on_another(redis_url: str, raw: Any) -> None:
    async def scenario() -> None:
        async with two_workers(redis_url) as (first, second):
            code, key = first.create(RUN, View(step=3))
            assert second.run_of(code) == RUN
            assert second.is_teacher(code, key)
            assert not second.is_teacher(code, key + "x")
            assert not second.is_teacher(code, "")
            read = await second.read(code)
            assert read is not None and read.code == code and read.view == View(step=3)
            other = "ABCDEF" if code != "ABCDEF" else "ABCDEG"
            assert second.run_of(other) is None
            assert await second.read(other) is None

    run_coroutine(scenario())


def test_a_teachers_view_reaches_the_sockets_of_both_workers_once(redis_url: str, raw: Any) -> None:
    """The change is made on the first worker; its own socket and the second worker's both
    get each view once, in order (a duplicate would come before the second view; each is
    read before the next is made: a view waiting is replaced by the next)."""

    async def scenario() -> None:
        async with two_workers(redis_url) as (first, second):
            code, _key = first.create(RUN, View())
            on_first, on_second = first.fanout.add(code), second.fanout.add(code)
            for step in (1, 2):
                sent = await first.change(code, lambda s, n=step: s.show(view(step=n), time.time()))
                assert [event.message["view"]["step"] for event in sent] == [step]
                for subscriber in (on_first, on_second):
                    event = await next_event(subscriber)
                    assert event.to == "all"
                    assert event.message == {"type": "view", "view": view(step=step)}
            read = await second.read(code)
            assert read is not None and read.view == View(step=2)

    run_coroutine(scenario())


def test_answer_once_holds_across_workers_under_concurrent_answers(
    redis_url: str, raw: Any
) -> None:
    """50 students join, half on each worker; then every student answers on both workers
    at once (100 answers in flight). Exactly one answer per student counts: 50 answered, the
    spread of rows i % 4 (13, 13, 12, 12), and 50 refusals; the teacher's socket on the
    other worker ends with the same counts."""
    students = [f"student-{i:04d}" for i in range(50)]

    async def scenario() -> tuple[ClassState | None, list[Any], Any, Any]:
        async with two_workers(redis_url) as (first, second):
            hubs = (first, second)
            code, _key = first.create(RUN, View())
            await asyncio.gather(
                *(hubs[i % 2].change(code, lambda s, i=i: s.join(students[i])) for i in range(50))
            )
            await first.change(code, lambda s: s.show(view(quiz=True), time.time()))
            teacher = second.fanout.add(code, teacher=True)

            async def answer(hub: RedisHub, i: int) -> Any:
                try:
                    return await hub.change(code, lambda s: s.answer(students[i], 3, i % 4))
                except ClassError as error:
                    return str(error)

            outcomes = await asyncio.gather(*(answer(hub, i) for i in range(50) for hub in hubs))
            counts: Any = None
            spread: Any = None
            while spread is None or sum(spread["spread"]) < 50:  # the last change's last event
                message = (await next_event(teacher)).message
                if message["type"] == "counts":
                    counts = message
                elif message["type"] == "spread":
                    spread = message
            return await first.read(code), outcomes, counts, spread

    read, outcomes, counts, spread = run_coroutine(scenario())
    assert read is not None and read.question is not None
    assert len(read.question.answers) == 50
    assert read.question.spread() == [13, 13, 12, 12]
    refused = [outcome for outcome in outcomes if isinstance(outcome, str)]
    assert refused == ["You have answered this question."] * 50
    assert counts == {"type": "counts", "connected": 50, "answered": 50, "question": 3}
    assert spread == {"type": "spread", "step": 3, "spread": [13, 13, 12, 12]}


def test_changes_arriving_together_each_get_their_own_outcome(redis_url: str, raw: Any) -> None:
    """Answers sent at once on one worker are written together; each sender still gets its
    own events or its own refusal, and the refused ones change nothing."""
    students = [f"student-{i:04d}" for i in range(12)]

    async def scenario() -> tuple[list[Any], ClassState | None]:
        async with two_workers(redis_url) as (first, _second):
            code, _key = first.create(RUN, View())
            for student in students:
                await first.change(code, lambda s, student=student: s.join(student))
            await first.change(code, lambda s: s.show(view(quiz=True), time.time()))

            async def answer(student: str, row: int) -> Any:
                try:
                    events = await first.change(code, lambda s: s.answer(student, 3, row))
                except ClassError as error:
                    return str(error)
                return events[0].message["answered"]

            rows = [i % 4 if i < 8 else 9 for i in range(12)]  # the last four: no such pair
            outcomes = await asyncio.gather(
                *(answer(student, row) for student, row in zip(students, rows, strict=True)),
                answer("student-stranger", 0),
            )
            return outcomes, await first.read(code)

    outcomes, read = run_coroutine(scenario())
    assert sorted(outcomes[:8]) == list(range(1, 9))  # each saw the count after its answer
    assert outcomes[8:] == ["An answer is one of the four pairs."] * 4 + ["Join the class first."]
    assert read is not None and read.question is not None
    assert read.question.spread() == [2, 2, 2, 2]


def test_a_change_cancelled_while_it_waits_is_not_made(redis_url: str, raw: Any) -> None:
    """A socket that closes while its change waits for another's write: its change is dropped,
    and the next one is made as usual."""

    async def scenario() -> tuple[ClassState | None, dict[str, Any]]:
        async with two_workers(redis_url) as (first, _second):
            code, _key = first.create(RUN, View())
            writing = asyncio.create_task(first.change(code, lambda s: s.join("student-first")))
            await asyncio.sleep(0)  # it holds the lock, writing
            waiting = asyncio.create_task(first.change(code, lambda s: s.join("student-gone")))
            await asyncio.sleep(0)  # it waits for the lock
            waiting.cancel()
            await writing
            with pytest.raises(asyncio.CancelledError):
                await waiting
            await first.change(code, lambda s: s.join("student-next"))
            return await first.read(code), first._pending

    read, pending = run_coroutine(scenario())
    assert read is not None and set(read.students) == {"student-first", "student-next"}
    assert pending == {}


def test_a_change_is_made_again_when_another_worker_wrote_first(redis_url: str, raw: Any) -> None:
    """The class is written by someone else between the change's read and its write: the
    write is refused (``WATCH``) and the change applied again to the new class, losing
    neither."""

    async def scenario() -> tuple[ClassState | None, int]:
        async with two_workers(redis_url) as (first, _second):
            code, _key = first.create(RUN, View())
            key = first.class_key(code)
            calls = 0

            def join_while_another_joins(class_state: ClassState) -> Any:
                nonlocal calls
                calls += 1
                if calls == 1:
                    other = ClassState.from_json(raw.get(key))
                    other.join("student-other")
                    raw.set(key, other.to_json(), keepttl=True)
                return class_state.join("student-mine")

            await first.change(code, join_while_another_joins)
            return await first.read(code), calls

    read, calls = run_coroutine(scenario())
    assert calls == 2
    assert read is not None and set(read.students) == {"student-other", "student-mine"}


def test_the_class_limit_counts_classes_on_every_worker(redis_url: str, raw: Any) -> None:
    """At the limit, a new class is refused on either worker with a sentence; ending one, or
    one going idle, makes room."""

    async def scenario() -> None:
        async with two_workers(redis_url) as (first, second):
            hubs = (first, second)
            codes = [hubs[i % 2].create(RUN, View())[0] for i in range(MAX_CLASSES)]
            for hub in hubs:
                with pytest.raises(ClassError, match=f"{MAX_CLASSES} classes open"):
                    hub.create(RUN, View())
            await first.change(codes[0], lambda s: s.end())
            second.create(RUN, View())
            with pytest.raises(ClassError, match="classes open"):
                first.create(RUN, View())
            long_ago = time.time() - IDLE_LIMIT_S - 1
            await second.change(codes[1], lambda s: s.show(view(), long_ago))
            first.create(RUN, View())
            assert raw.zcard(first.open_classes_key) == MAX_CLASSES

    run_coroutine(scenario())


def test_one_client_opens_at_most_a_few_classes_on_all_workers(redis_url: str, raw: Any) -> None:
    async def scenario() -> None:
        async with two_workers(redis_url, classes_per_address=3) as (first, second):
            hubs = (first, second)
            mine = [hubs[i % 2].create(RUN, View(), creator="203.0.113.7")[0] for i in range(3)]
            for hub in hubs:
                with pytest.raises(ClassError, match="from this network address"):
                    hub.create(RUN, View(), creator="203.0.113.7")
            second.create(RUN, View(), creator="198.51.100.2")
            await first.change(mine[0], lambda s: s.end())
            assert raw.hget(first.creators_key, mine[0]) is None  # ended: forgotten
            second.create(RUN, View(), creator="203.0.113.7")

    run_coroutine(scenario())


def test_an_idle_class_is_gone_on_every_worker(redis_url: str, raw: Any) -> None:
    """A class last driven more than the idle limit ago is read as ended, and its keys go."""

    async def scenario() -> None:
        async with two_workers(redis_url) as (first, second):
            code, key = first.create(RUN, View())
            long_ago = time.time() - IDLE_LIMIT_S - 1
            await first.change(code, lambda s: s.show(view(), long_ago))
            assert second.run_of(code) is None
            assert not second.is_teacher(code, key)
            assert await second.read(code) is None
            with pytest.raises(ClassError, match="ended"):
                await second.change(code, lambda s: s.join("student-late"))
            assert raw.exists(first.class_key(code), first.run_key(code)) == 0

    run_coroutine(scenario())


def test_keys_expire_after_the_idle_limit_and_a_step_moves_the_expiry(
    redis_url: str, raw: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def scenario() -> None:
        async with two_workers(redis_url) as (first, _second):
            code, _key = first.create(RUN, View())
            keys = (first.class_key(code), first.run_key(code))
            away_ms = state.TEACHER_AWAY_S * 1000  # no page of the teacher connected yet
            assert all(away_ms - 60_000 < raw.pttl(k) <= away_ms for k in keys)
            await first.change(code, lambda s: s.teacher_arrives())
            limit_ms = IDLE_LIMIT_S * 1000
            assert all(limit_ms - 60_000 < raw.pttl(k) <= limit_ms for k in keys)
            await first.change(code, lambda s: s.show(view(), time.time() + 120))
            assert all(raw.pttl(k) > limit_ms + 60_000 for k in keys)

            monkeypatch.setattr(state, "IDLE_LIMIT_S", 1.0)
            short, _key = first.create(RUN, View())
            keys = (first.class_key(short), first.run_key(short))
            assert all(0 < raw.pttl(k) <= 1000 for k in keys)
            deadline = time.monotonic() + WAIT_S
            while raw.exists(*keys) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert raw.exists(*keys) == 0
            assert first.run_of(short) is None

    run_coroutine(scenario())


def test_an_ended_class_closes_sockets_on_every_worker_and_deletes_its_keys(
    redis_url: str, raw: Any
) -> None:
    async def scenario() -> None:
        async with two_workers(redis_url) as (first, second):
            code, _key = first.create(RUN, View())
            sockets = [first.fanout.add(code), second.fanout.add(code)]
            await second.change(code, lambda s: s.end())
            for subscriber in sockets:
                assert (await next_event(subscriber)).message == ENDED_MESSAGE
                assert await next_event(subscriber) is None  # the socket closes
            assert raw.exists(first.class_key(code), first.run_key(code)) == 0
            assert raw.zscore(first.open_classes_key, code) is None
            assert first.run_of(code) is None
            with pytest.raises(ClassError, match="ended"):
                await first.change(code, lambda s: s.show(view(), time.time()))

    run_coroutine(scenario())


def test_an_expired_class_is_told_to_the_sockets_of_every_worker_as_ended(
    redis_url: str, raw: Any
) -> None:
    """Redis drops an idle class's keys by itself: each worker's sweep finds its sockets'
    class gone and tells them, as an ``ended`` event, then closes them."""

    async def scenario() -> None:
        async with two_workers(redis_url) as (first, second):
            gone, _key = first.create(RUN, View())
            kept, _key = first.create(RUN, View())
            sockets = [first.fanout.add(gone), second.fanout.add(gone)]
            still = second.fanout.add(kept)
            raw.delete(first.class_key(gone), first.run_key(gone))  # as its expiry does
            for hub in (first, second):
                await end_gone_classes(hub)
            for subscriber in sockets:
                assert (await next_event(subscriber)).message == ENDED_MESSAGE
                assert await next_event(subscriber) is None
            assert still.queue.empty()

    run_coroutine(scenario())


def test_redis_keeps_nothing_on_disk(redis_url: str, raw: Any) -> None:
    """serve.py's Redis: loopback only, no snapshots, no append-only file."""
    names = ("bind", "save", "appendonly", "protected-mode")
    config = {name: raw.config_get(name)[name] for name in names}
    assert config == {"bind": "127.0.0.1", "save": "", "appendonly": "no", "protected-mode": "yes"}
    assert not list(Path(raw.config_get("dir")["dir"]).iterdir())


def test_the_teachers_new_run_is_read_on_the_other_worker_and_expires_with_the_class(
    redis_url: str, raw: Any
) -> None:
    async def scenario() -> None:
        async with two_workers(redis_url) as (first, second):
            code, key = first.create(RUN, View())
            ttl_before = raw.pttl(first.run_key(code))
            first.set_run(code, key, {"state": {"sample": "aaabdaaabac"}})
            assert second.run_of(code) == {"state": {"sample": "aaabdaaabac"}}
            assert 0 < raw.pttl(first.run_key(code)) <= ttl_before  # its expiry kept
            with pytest.raises(ClassError, match="teacher"):
                second.set_run(code, "guess", RUN)
            await first.change(code, lambda s: s.end())
            with pytest.raises(ClassError, match="teacher of an open class"):
                second.set_run(code, key, RUN)
            assert raw.exists(first.run_key(code)) == 0

    run_coroutine(scenario())


def test_misses_and_ended_codes_are_shared_by_the_workers(redis_url: str, raw: Any) -> None:
    """A session's misses on one worker count on the other (per process, WORKERS=2 allowed
    twice as many); a class ended on one is known as ended on the other, not as a miss."""

    async def scenario() -> None:
        async with two_workers(redis_url) as (first, second):
            for hub in (first, second) * (codes.MAX_FAILED_JOINS // 2):
                assert hub.misses.miss("203.0.113.7", "guesser") == codes.NO_CLASS
            assert not first.misses.session_allowed("guesser")
            assert not second.misses.session_allowed("guesser")
            assert second.misses.session_allowed("neighbour")
            assert second.misses.addresses.count("203.0.113.7") == codes.MAX_FAILED_JOINS
            code, _key = first.create(RUN, View())
            await first.change(code, lambda s: s.end())
            assert second.was_given(code) and not second.was_given("ZZZZZZZZZ")

    run_coroutine(scenario())


@pytest.mark.parametrize("kind", sorted(REFUSED), ids=sorted(REFUSED))
def test_a_refused_message_leaves_the_class_in_redis_byte_for_byte_the_same(
    redis_url: str, raw: Any, kind: str
) -> None:
    """Each refused message (test_live_class_refusals.REFUSED: hello, answer, nick, view,
    reveal) through the Redis hub, written in one transaction with a change that is made
    (a batch with nothing made writes nothing, so that alone proves nothing): the class's
    JSON in Redis is what the made changes alone make of it."""
    holding = lambda s: s.rename("student-a", "Ann")  # noqa: E731 - holds the write lock
    made = lambda s: s.rename("student-b", "Bo")  # noqa: E731

    async def scenario() -> tuple[str, str]:
        async with two_workers(redis_url) as (first, _second):
            code, _key = first.create(RUN, View())
            for change in SET_UP:
                await first.change(code, change)
            before = raw.get(first.class_key(code))
            writing = asyncio.create_task(first.change(code, holding))
            await asyncio.sleep(0)  # it holds the lock: the next two wait, and go together
            outcomes = await asyncio.gather(
                first.change(code, made), first.change(code, REFUSED[kind]), return_exceptions=True
            )
            await writing
            assert not isinstance(outcomes[0], Exception) and isinstance(outcomes[1], ClassError)
            return before, raw.get(first.class_key(code))

    before, after = run_coroutine(scenario())
    expected = ClassState.from_json(before)
    expected.change_whole(holding)
    expected.change_whole(made)
    assert after == expected.to_json()


def test_a_moment_without_redis_is_no_refusal_and_the_next_change_goes_through(
    redis_url: str, raw: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Redis failing one write (a restart, a dropped connection) is not the class refusing
    the change: it is ClassUnavailable, which the socket answers with "try again", never a
    fatal refusal that would stop the page reconnecting; the next change is made."""
    applied = redis_hub.apply_changes
    failures = [redis.exceptions.ConnectionError("Connection reset by peer")]

    def fails_once(*args: Any) -> Any:
        if failures:
            raise failures.pop()
        return applied(*args)

    async def scenario() -> tuple[BaseException | None, ClassState | None]:
        async with two_workers(redis_url) as (first, _second):
            code, _key = first.create(RUN, View())
            monkeypatch.setattr(redis_hub, "apply_changes", fails_once)
            try:
                await first.change(code, lambda s: s.join("student-a"))
                raised = None
            except Exception as error:  # which one it is, is the test
                raised = error
            await first.change(code, lambda s: s.join("student-b"))
            return raised, await first.read(code)

    raised, read = run_coroutine(scenario())
    assert isinstance(raised, state.ClassUnavailable) and not isinstance(raised, ClassError)
    assert read is not None and set(read.students) == {"student-b"}


def test_a_new_code_is_known_as_given_in_the_same_step_that_opens_its_class(
    redis_url: str, raw: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The script that opens a class also records its code as given: a client failing
    after it (here: any later command) cannot leave an open class whose code a link to it,
    once ended, would count as a wrong guess."""

    def no_more(*_args: Any, **_kwargs: Any) -> NoReturn:
        raise redis.exceptions.ConnectionError("gone")

    hub = RedisHub(redis_url)
    try:
        monkeypatch.setattr(hub._sync, "set", no_more)
        code, _key = hub.create(RUN, View())
    finally:
        hub._sync.close()
    assert 0 < raw.ttl(f"bpeviz:given:{code}") <= GIVEN_S


def test_a_class_whose_teacher_never_came_gives_its_place_back_on_every_worker(
    redis_url: str, raw: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server full of classes whose teachers' pages never connected (a script asking for
    ?class=new): once TEACHER_AWAY_S has passed, another may start a class."""

    async def scenario() -> None:
        async with two_workers(redis_url) as (first, second):
            for _ in range(MAX_CLASSES):
                first.create(RUN, View())
            with pytest.raises(ClassError, match="classes open"):
                second.create(RUN, View())
            later = time.time() + state.TEACHER_AWAY_S + 1
            monkeypatch.setattr(time, "time", lambda: later)
            second.create(RUN, View())
            assert raw.zcard(first.open_classes_key) == 1

    run_coroutine(scenario())
