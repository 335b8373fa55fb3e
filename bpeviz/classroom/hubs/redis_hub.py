"""Classes in Redis, so that several worker processes serve one class (``make serve``).

Each class is two keys: its :class:`~bpeviz.classroom.state.ClassState` as JSON (changed by
every join, answer and step) and its run as JSON (large, written when the teacher's run
changes). Both expire when the class becomes idle
(:meth:`~bpeviz.classroom.state.ClassState.idle_at`: the expiry moves with the class's last
activity and its teacher's coming and going), and a sorted set of open classes by that time
bounds how many are open (:data:`~bpeviz.classroom.state.MAX_CLASSES`).

A change is an optimistic transaction (``WATCH`` the class, read it, apply the change in
Python, write it back in ``MULTI``; again if another worker wrote first), and its events are
published in the same transaction on the class's channel; changes that arrive together in one
worker (a class's answers) share one transaction. Every worker listens to all the
channels (one pattern subscription per process) and hands each event to its own sockets of
the class: a teacher on worker 1 reaches students on worker 2, and a worker's own sockets get
its changes the same way, once.

Left out: persistence (Redis runs with none; a restart ends every class) and replaying events
a worker missed while its connection to Redis was down (the listener subscribes again when
Redis is back, and its sockets catch up with the teacher's next view).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from typing import Any

import redis
import redis.asyncio as aioredis
from redis.exceptions import RedisError, WatchError

from bpeviz.classroom.codes import (
    FAILED_JOIN_WINDOW_S,
    MAX_FAILED_JOINS,
    MAX_FAILED_JOINS_PER_ADDRESS,
    JoinLimit,
)
from bpeviz.classroom.codes import classes_per_address as default_classes_per_address
from bpeviz.classroom.hubs.common import (
    GIVEN_S,
    Change,
    Fanout,
    client_full,
    new_class,
    server_full,
)
from bpeviz.classroom.state import (
    MAX_CLASSES,
    ClassError,
    ClassGone,
    ClassState,
    ClassUnavailable,
    Event,
    View,
)

log = logging.getLogger(__name__)
Pending = tuple[Change, asyncio.Future[list[Event]]]  # a change waiting for its write
RECONNECT_S = 1.0  # the listener's pause before it reads again after losing Redis

# Count the open classes (after forgetting the idle ones), and those its client started, and
# add one if there is room, in one step: two workers starting the last class at once cannot
# both get it.
# KEYS: open classes (sorted set: code by when it becomes idle, ClassState.idle_at), the class,
# its run, who started each open class (hash: code -> client address), the code's "given" mark.
# ARGV: now (seconds), the limit, code, state JSON, run JSON, expiry (ms), when it becomes idle,
# the client ('' : not counted), the limit per client, how long a code stays given (seconds).
_CREATE = """
for _, gone in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])) do
  redis.call('HDEL', KEYS[4], gone)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
if ARGV[8] ~= '' then
  local mine = 0
  for _, open in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    if redis.call('HGET', KEYS[4], open) == ARGV[8] then mine = mine + 1 end
  end
  if mine >= tonumber(ARGV[9]) then return -2 end
end
if redis.call('EXISTS', KEYS[2]) == 1 then return -1 end
redis.call('SET', KEYS[2], ARGV[4], 'PXAT', ARGV[6])
redis.call('SET', KEYS[3], ARGV[5], 'PXAT', ARGV[6])
redis.call('ZADD', KEYS[1], ARGV[7], ARGV[3])
if ARGV[8] ~= '' then redis.call('HSET', KEYS[4], ARGV[3], ARGV[8]) end
redis.call('SET', KEYS[5], '1', 'EX', ARGV[10])
return 1
"""


class RedisWindow:
    """Failures per name in a sliding window, in Redis: every worker counts the same misses
    (per process, ``make serve WORKERS=N`` allowed N times as many). A sorted set per name,
    of failure times, that expires with its window.

    A failure is added and the window trimmed in one transaction; Redis down, nothing is
    counted and nothing refused (a class's right codes never depend on it)."""

    def __init__(self, client: redis.Redis, prefix: str, limit: int, window_s: float) -> None:
        self.client = client
        self.prefix = prefix
        self.limit = limit
        self.window_s = window_s

    def _key(self, who: str) -> str:
        return f"{self.prefix}{who[:80]}"

    def count(self, who: str, now: float | None = None) -> int:
        now = time.time() if now is None else now
        try:
            return int(self.client.zcount(self._key(who), f"({now - self.window_s}", "+inf"))
        except RedisError as error:
            log.warning("could not read the misses of %s: %s", who, error)
            return 0

    def fail(self, who: str, now: float | None = None) -> None:
        now = time.time() if now is None else now
        key = self._key(who)
        try:
            with self.client.pipeline(transaction=True) as pipe:
                pipe.zadd(key, {f"{now!r}:{uuid.uuid4().hex[:8]}": now})
                pipe.zremrangebyscore(key, "-inf", now - self.window_s)
                pipe.zremrangebyrank(key, 0, -(2 * self.limit) - 1)  # bounded, past the limit
                pipe.expire(key, int(self.window_s) + 1)
                pipe.execute()
        except RedisError as error:
            log.warning("could not count a miss of %s: %s", who, error)


def apply_changes(state: ClassState | None, changes: list[Change]) -> list[list[Event] | Exception]:
    """Each change applied in turn to ``state`` (changed in place): its events, or the error
    it raised (the others still apply; an ended class takes no more).

    >>> from bpeviz.classroom.state import ClassState
    >>> state = ClassState("ABCDEF", "digest", last_active=0.0)
    >>> outcomes = apply_changes(state, [lambda s: s.rename("nobody", "Ada"), lambda s: s.end(),
    ...                                  lambda s: s.join("student-1")])
    >>> [o if isinstance(o, Exception) else [e.message["type"] for e in o] for o in outcomes]
    [ClassError('Join the class first.'), ['ended'], ClassGone('This class has ended.')]
    """
    outcomes: list[list[Event] | Exception] = []
    for change in changes:
        if state is None or state.ended:
            outcomes.append(ClassGone())
            continue
        try:
            outcomes.append(state.change_whole(change))
        except Exception as error:  # its caller gets it, as from an unshared class (and the
            # class is as before it: the batch's other changes are written without it)
            outcomes.append(error)
    return outcomes


def expiry_ms(state: ClassState) -> int:
    """When the class's keys go (Unix time, ms): when it becomes idle, as :meth:`ClassState.idle`
    says."""
    return int(state.idle_at() * 1000)


def events_json(events: list[Event]) -> str:
    return json.dumps([{"to": event.to, "message": event.message} for event in events])


def events_from_json(text: str) -> list[Event]:
    return [Event(item["to"], item["message"]) for item in json.loads(text)]


class RedisHub:
    """Classes in Redis at ``url``, their events passed between workers by pub/sub.

    The script's thread uses the plain methods (a thread-safe blocking client); the sockets
    use the ``async`` ones, on the server's event loop, where :meth:`start` runs the listener.
    """

    def __init__(
        self, url: str, *, prefix: str = "bpeviz:", classes_per_address: int | None = None
    ) -> None:
        self.fanout = Fanout()
        self.prefix = prefix
        self.classes_per_address = classes_per_address or default_classes_per_address()
        self._sync = redis.Redis.from_url(url, decode_responses=True)
        self.misses = JoinLimit(
            sessions=RedisWindow(
                self._sync, f"{prefix}misses:session:", MAX_FAILED_JOINS, FAILED_JOIN_WINDOW_S
            ),
            addresses=RedisWindow(
                self._sync,
                f"{prefix}misses:address:",
                MAX_FAILED_JOINS_PER_ADDRESS,
                FAILED_JOIN_WINDOW_S,
            ),
        )
        self._async = aioredis.Redis.from_url(url, decode_responses=True)
        self._create = self._sync.register_script(_CREATE)
        self._lock = asyncio.Lock()  # one write at a time here: WATCH retries only across workers
        self._pending: dict[str, list[Pending]] = {}  # by class: changes for the next write
        self._listener: asyncio.Task[None] | None = None
        self._pubsub: Any = None

    # ---- keys --------------------------------------------------------------------------

    def class_key(self, code: str) -> str:
        return f"{self.prefix}class:{code}"

    def run_key(self, code: str) -> str:
        return f"{self.prefix}run:{code}"

    def given_key(self, code: str) -> str:
        return f"{self.prefix}given:{code}"

    def channel(self, code: str) -> str:
        return f"{self.prefix}events:{code}"

    @property
    def open_classes_key(self) -> str:
        return f"{self.prefix}classes"

    @property
    def creators_key(self) -> str:
        return f"{self.prefix}creators"

    @staticmethod
    def _open(text: str | None) -> ClassState | None:
        if text is None:
            return None
        state = ClassState.from_json(text)
        return None if state.idle(time.time()) else state

    # ---- the script's thread -----------------------------------------------------------

    def create(self, run: dict[str, Any], view: View, creator: str = "") -> tuple[str, str]:
        run_text = json.dumps(run, separators=(",", ":"))
        while True:
            state, key = new_class(view, lambda code: bool(self._sync.exists(self.given_key(code))))
            code = state.code
            created = self._create(
                keys=[
                    self.open_classes_key,
                    self.class_key(code),
                    self.run_key(code),
                    self.creators_key,
                    self.given_key(code),
                ],
                args=[
                    repr(state.last_active),  # now: classes idle before it are gone
                    MAX_CLASSES,
                    code,
                    state.to_json(),
                    run_text,
                    expiry_ms(state),
                    repr(state.idle_at()),
                    creator,
                    self.classes_per_address,
                    int(GIVEN_S),
                ],
            )
            if created == 1:
                return code, key
            if created == 0:
                raise server_full()
            if created == -2:
                raise client_full(self.classes_per_address)
            # -1: another worker took this code a moment ago; draw another

    def run_of(self, code: str) -> dict[str, Any] | None:
        state_text, run_text = self._sync.mget([self.class_key(code), self.run_key(code)])
        if self._open(state_text) is None or run_text is None:
            return None
        run: dict[str, Any] = json.loads(run_text)
        return run

    def set_run(self, code: str, key: str, run: dict[str, Any]) -> None:
        if not self.is_teacher(code, key):
            raise ClassError("Only the teacher of an open class can change its run.")
        # keepttl: the run expires with its class; xx: never brings back an ended class's run
        self._sync.set(
            self.run_key(code), json.dumps(run, separators=(",", ":")), xx=True, keepttl=True
        )

    def is_teacher(self, code: str, key: str) -> bool:
        state = self._open(self._sync.get(self.class_key(code)))
        return state is not None and state.is_teacher(key)

    def was_given(self, code: str) -> bool:
        try:
            return bool(self._sync.exists(self.given_key(code)))
        except RedisError as error:
            raise ClassUnavailable() from error

    # ---- the sockets (the server's event loop) -----------------------------------------

    async def read(self, code: str) -> ClassState | None:
        try:
            return self._open(await self._async.get(self.class_key(code)))
        except RedisError as error:  # a socket's page tries again (routes)
            raise ClassUnavailable() from error

    async def change(self, code: str, change: Change) -> list[Event]:
        """Apply ``change`` to the class in Redis and publish its events, in one transaction.

        Changes to a class that arrive while this process writes one wait, then go together
        in the next transaction (a class's answers, arriving at once: one read, one write and
        one message for all of them), each with its own events or its own error. The events
        reach this process's sockets through the listener, as another worker's do (never
        sent here directly: they would arrive twice)."""
        done: asyncio.Future[list[Event]] = asyncio.get_running_loop().create_future()
        entry = (change, done)
        self._pending.setdefault(code, []).append(entry)
        try:
            async with self._lock:
                if not done.done():  # no one took it with theirs: write the waiting ones
                    # shielded: a socket closing mid-write leaves the others' outcomes set
                    await asyncio.shield(self._commit(code, self._pending.pop(code)))
        except asyncio.CancelledError:
            waiting = self._pending.get(code, [])
            if entry in waiting:
                waiting.remove(entry)
                if not waiting:
                    del self._pending[code]
            raise
        return done.result()

    async def _commit(self, code: str, batch: list[Pending]) -> None:
        """Apply ``batch``'s changes in order to the class, write it back and publish their
        events; again from a fresh read if another worker wrote first (``WATCH``). Sets
        each change's outcome."""
        key = self.class_key(code)
        outcomes: list[list[Event] | Exception]
        try:
            async with self._async.pipeline(transaction=True) as pipe:
                while True:
                    try:
                        await pipe.watch(key)
                        state = self._open(await pipe.get(key))
                        outcomes = apply_changes(state, [change for change, _done in batch])
                        if state is None or all(isinstance(o, Exception) for o in outcomes):
                            break  # nothing changed: nothing to write
                        events = [e for o in outcomes if not isinstance(o, Exception) for e in o]
                        pipe.multi()
                        if state.ended:
                            pipe.delete(key, self.run_key(code))
                            pipe.zrem(self.open_classes_key, code)
                            pipe.hdel(self.creators_key, code)
                        else:
                            expires = expiry_ms(state)
                            pipe.set(key, state.to_json(), pxat=expires)
                            pipe.pexpireat(self.run_key(code), expires)
                            pipe.zadd(self.open_classes_key, {code: state.idle_at()})
                        if events:
                            pipe.publish(self.channel(code), events_json(events))
                        await pipe.execute()
                        break
                    except WatchError:  # another worker changed the class first
                        continue
        except RedisError as error:  # Redis is down, say: no change in the batch was made
            log.warning("could not change class %s: %s", code, error)
            outcomes = [ClassUnavailable() for _ in batch]
        except Exception as error:  # a fault here: every caller gets it, none waits forever
            log.exception("could not change class %s", code)
            outcomes = [error] * len(batch)
        for (_change, done), outcome in zip(batch, outcomes, strict=True):
            if isinstance(outcome, Exception):
                done.set_exception(outcome)
            else:
                done.set_result(outcome)

    def _deliver(self, channel: str, data: str) -> None:
        code = channel.removeprefix(self.channel(""))
        try:
            events = events_from_json(data)
        except (ValueError, KeyError, TypeError):
            log.warning("ignored a malformed event on %s", channel)
            return
        self.fanout.send(code, events)
        if any(event.message.get("type") == "ended" for event in events):
            self.fanout.close(code)

    async def _listen(self, pubsub: Any) -> None:
        while True:
            try:
                message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=None)
            except RedisError as error:
                log.warning("lost Redis (%s); reading again in %s s", error, RECONNECT_S)
                await asyncio.sleep(RECONNECT_S)
                continue
            if message is not None and message["type"] == "pmessage":
                self._deliver(message["channel"], message["data"])

    async def start(self) -> None:
        """Subscribe to every class's channel, then listen in a task until :meth:`stop`."""
        pubsub = self._async.pubsub()
        await pubsub.psubscribe(self.channel("*"))
        self._listener = asyncio.create_task(self._listen(pubsub))
        self._pubsub = pubsub

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
            self._listener = None
            await self._pubsub.aclose()
        await self._async.aclose()
        self._sync.close()
