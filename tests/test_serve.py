"""``make serve``: two app workers behind nginx on loopback, with students at the protocol level.

Starts the cluster of ``scripts/serve.py`` (Redis, 2 ``streamlit run server.py`` workers
sharing it, nginx on a free loopback port, its config generated from
``scripts/nginx.conf.template``) and checks what a class relies on:

- sticky sessions: a browser's first request gets the sticky cookie, and every later request
  carrying it (the page again, the WebSocket) reaches the same worker; Streamlit keeps a
  session in the memory of one process, so a request at another worker would lose it;
- the WebSocket upgrade passes through nginx: students open the Step page at their own step
  and click "Next" through the proxy, and each sees their own merge (the engine's);
- both workers get sessions;
- a live class spans the workers: a teacher whose browser sticks to one worker drives a
  student who sticks to the other (the class socket through nginx, the events through Redis),
  and the student's answer is counted on the teacher's socket.

Needs Debian's nginx and redis-server (``scripts/install_system_deps.sh``): skipped, saying
why, without them,
and failed instead when ``BPEVIZ_REQUIRE_BROWSER=1`` (CI), where a skip would hide a
missing install step.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import urllib.request
from collections.abc import Callable, Iterator
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any, NoReturn

import pytest
import redis
from protocol_client import Student, run_coroutine
from serve_script import load_serve
from websockets.asyncio.client import connect

from bpeviz import History, train
from bpeviz.classroom import codes
from bpeviz.classroom.hubs.redis_hub import RedisHub
from bpeviz.classroom.routes import SOCKET_PATH
from bpeviz.classroom.state import View
from bpeviz.engine.samples import DEFAULT_SAMPLE_KEY, get_sample

COOKIE = "bpeviz_worker"
WORKER_HEADER = "x-bpeviz-worker"
CLASS_WAIT_S = 10.0  # for one class message: a bound, not a pause
MAX_STUDENTS = 24  # until both workers are seen: each lands at random (odds 2**-23 of one)
VOCAB_FROM = 300  # student k opens vocab 300 + k at step k: every view differs


serve = load_serve()
pytestmark = [pytest.mark.serve, pytest.mark.serial]  # Redis, nginx and two app workers


def require_nginx(unavailable: Callable[[str], NoReturn]) -> None:
    """Skip without nginx or Redis; fail instead in CI (``tests/conftest.py``)."""
    reason = serve.nginx_missing_reason() or serve.redis_missing_reason()
    if reason is not None:
        unavailable(reason)


@pytest.fixture(scope="module")
def cluster(
    tmp_path_factory: pytest.TempPathFactory, unavailable: Callable[[str], NoReturn]
) -> Iterator[Any]:
    require_nginx(unavailable)
    started = serve.start(
        2, port=serve.free_port(), address="127.0.0.1", run_dir=tmp_path_factory.mktemp("serve")
    )
    try:
        yield started
    finally:
        serve.stop(started)


def default_history(vocab_size: int) -> History:
    """The default sample at this vocab size, trained by the engine with its other settings."""
    sample = get_sample(DEFAULT_SAMPLE_KEY)
    return train(
        sample.text,
        vocab_size,
        pretokenizer=sample.settings.pretokenizer,
        tie_break=sample.settings.tie_break,
    )


def get_page(url: str, cookie: str | None = None) -> tuple[str | None, str]:
    """GET the app's page like a browser: (the sticky cookie it was given, the worker)."""
    request = urllib.request.Request(
        url, headers={"Cookie": f"{COOKIE}={cookie}"} if cookie else {}
    )
    with serve.open_direct(request, timeout=30) as response:
        assert response.status == 200
        assert "<html" in response.read(4096).decode("utf-8", "replace").lower()
        given = SimpleCookie()
        for header in response.headers.get_all("Set-Cookie") or []:
            given.load(header)
        value = given[COOKIE].value if COOKIE in given else None
        return value, response.headers[WORKER_HEADER]


def download_labels(student: Student) -> list[str]:
    """The labels of the download buttons on the student's page, in page order."""
    drawn = sorted(student.drawn.items())
    return [one.element.label for _, one in drawn if one.kind == "download_button"]


def test_generated_config_is_valid_nginx(
    tmp_path: Path, unavailable: Callable[[str], NoReturn]
) -> None:
    """The template, filled in, names every worker and passes ``nginx -t``."""
    config = serve.nginx_config(
        run_dir=tmp_path,
        listen="127.0.0.1:1",
        worker_addresses=["127.0.0.1:2", "127.0.0.1:3"],
        proxy_secret="s3cret-of-this-run",
    )
    assert "{{" not in config
    assert "server 127.0.0.1:2;" in config and "server 127.0.0.1:3;" in config
    # the workers believe X-Real-IP only beside this run's secret, which nginx alone sends
    assert "proxy_set_header X-Bpeviz-Proxy s3cret-of-this-run;" in config
    require_nginx(unavailable)
    (tmp_path / "nginx.conf").write_text(config)
    checked = subprocess.run(
        [
            str(serve.NGINX),
            "-t",
            "-p",
            str(tmp_path),
            "-c",
            str(tmp_path / "nginx.conf"),
            "-e",
            str(tmp_path / "error.log"),
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert checked.returncode == 0, checked.stderr


def test_without_redis_serve_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unavailable: Callable[[str], NoReturn]
) -> None:
    require_nginx(unavailable)
    monkeypatch.setattr(serve, "REDIS", tmp_path / "redis-server")
    with pytest.raises(RuntimeError, match=r"redis-server not found: install .*system_deps"):
        serve.start(2, port=serve.free_port(), run_dir=tmp_path)
    assert list(tmp_path.iterdir()) == [], "nothing was started"


def test_a_worker_that_fails_to_start_stops_redis_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, unavailable: Callable[[str], NoReturn]
) -> None:
    require_nginx(unavailable)
    started: list[Any] = []

    def start_redis(run_dir: Path, deadline: float) -> Any:
        started.append(serve_start_redis(run_dir, deadline))
        return started[-1]

    def no_worker(*_args: Any) -> Any:
        raise RuntimeError("this worker cannot start")

    serve_start_redis = serve.start_redis
    monkeypatch.setattr(serve, "start_redis", start_redis)
    monkeypatch.setattr(serve, "_start_worker", no_worker)
    with pytest.raises(RuntimeError, match="this worker cannot start"):
        serve.start(2, port=serve.free_port(), run_dir=tmp_path)
    assert len(started) == 1
    assert started[0].process.poll() is not None, "Redis was stopped"


def test_a_browser_sticks_to_one_worker(cluster: Any) -> None:
    """Page, page again and WebSocket, with the cookie from the first answer: one worker."""
    for _ in range(4):
        cookie, worker = get_page(cluster.url)
        assert cookie, "the first answer sets the sticky cookie"
        again, worker_again = get_page(cluster.url, cookie)
        assert again is None, "a browser that has the cookie is not given a new one"
        assert worker_again == worker

        async def connect(cookie: str = cookie) -> tuple[str, list[str]]:
            async with Student(cluster.url, headers={"Cookie": f"{COOKIE}={cookie}"}) as student:
                await student.open()
                return student.upgrade_headers[WORKER_HEADER], student.problems()

        socket_worker, problems = run_coroutine(connect())
        assert socket_worker == worker
        assert problems == []


def test_students_through_nginx_see_their_own_view_on_both_workers(cluster: Any) -> None:
    """Each student opens their own link (their own vocab size and step) through nginx.

    What each one is shown must be theirs: the settings line names their vocab size, and the
    merge card (while the server draws it) shows their merge as the engine trains it, also
    after a click on "Next", which travels over the proxied WebSocket.
    """
    workers = {worker.address for worker in cluster.workers}

    async def student(k: int) -> tuple[str, list[str]]:
        vocab = VOCAB_FROM + k
        history = default_history(vocab)
        cookie, page_worker = get_page(cluster.url)
        headers = {"Cookie": f"{COOKIE}={cookie}"}
        wrong: list[str] = []

        def check(one: Student, step: int) -> None:
            if not any(f"· vocab {vocab:,} ·" in body for body in one.html()):
                wrong.append(f"student {k}: no 'vocab {vocab}' in the settings line")
            shown, in_browser = one.shown(), one.browser_step()
            if shown is None and in_browser is not None:  # drawn in the browser, from this
                if in_browser != (step, history.merge_count):
                    wrong.append(f"student {k}: step view given {in_browser} at step {step}")
                # What the server made of the step itself, not the step sent back: the
                # downloads of this session name it, with the engine's count of its pairs.
                pairs = len(history.pair_table(step - 1))
                want = [
                    f"Download all {pairs:,} pairs before merge {step} (CSV)",
                    "Download merge 1 (CSV)" if step == 1 else f"Download merges 1–{step} (CSV)",
                ]
                if download_labels(one) != want:
                    wrong.append(f"student {k} at step {step}: downloads {download_labels(one)}")
                return
            want = history.steps[step - 1]
            if shown is None or shown.merge != (
                step,
                history.merge_count,
                (*want.pair, want.new_id),
            ):
                wrong.append(f"student {k} at step {step}: sees {shown}")

        async with Student(cluster.url, query=f"vocab={vocab}&step={k}", headers=headers) as one:
            await one.open()
            check(one, k)
            if one.has_widget("step_next"):
                await one.click("step_next")
            else:  # Next is drawn in the browser, which reports where the student stopped
                await one.report_step(k + 1)
            check(one, k + 1)
            wrong += one.problems()
            if one.upgrade_headers[WORKER_HEADER] != page_worker:
                wrong.append(f"student {k}: page and WebSocket at different workers")
            return page_worker, wrong

    async def classroom() -> list[tuple[str, list[str]]]:
        results: list[tuple[str, list[str]]] = []
        k = 1
        while k <= MAX_STUDENTS and ({w for w, _ in results} != workers or len(results) < 6):
            batch = range(k, k + 3)  # three at a time, interleaved on the two workers
            results += await asyncio.gather(*(student(step) for step in batch))
            k += 3
        return results

    results = run_coroutine(classroom())
    assert [problem for _, problems in results for problem in problems] == []
    assert {worker for worker, _ in results} == workers, "both workers get sessions"


async def class_message(socket: Any, kind: str, **fields: Any) -> dict[str, Any]:
    """The next message of type ``kind`` (with these fields) on a class socket, skipping
    others (counts of joins, say) and waiting at most :data:`CLASS_WAIT_S`."""
    async with asyncio.timeout(CLASS_WAIT_S):
        while True:
            message = json.loads(await socket.recv())
            assert message["type"] != "error", message
            if message["type"] == kind and fields.items() <= message.items():
                return dict(message)


def test_a_teacher_on_one_worker_drives_a_student_on_the_other(cluster: Any) -> None:
    """Two browsers with sticky cookies of different workers open the class socket through
    nginx. The class is created in serve.py's Redis as the teacher's page creates it
    (``RedisHub.create``); the teacher's view reaches the student on the other worker, and
    the student's answer reaches the teacher's counts and spread."""
    cookies: dict[str, str] = {}
    for _ in range(MAX_STUDENTS):
        cookie, worker = get_page(cluster.url)
        assert cookie
        cookies.setdefault(worker, cookie)
        if len(cookies) == 2:
            break
    assert len(cookies) == 2, "both workers give out sticky cookies"
    (teacher_worker, teacher_cookie), (student_worker, student_cookie) = cookies.items()
    hub = RedisHub(cluster.redis.url)
    code, key = hub.create({"sample": DEFAULT_SAMPLE_KEY, "vocab_size": 300}, View())
    run_coroutine(hub.stop())
    # the teacher's view, naming the run it is of as the teacher's page does
    quiz = {"page": "step", "step": 5, "when": "after", "pieces": False, "quiz": True,
            "run": "0123456789abcdef"}  # fmt: skip
    socket_url = cluster.url.replace("http://", "ws://") + SOCKET_PATH

    def browser(cookie: str) -> Any:
        return connect(socket_url, additional_headers={"Cookie": f"{COOKIE}={cookie}"}, proxy=None)

    async def lesson() -> tuple[dict[str, Any], ...]:
        async with browser(teacher_cookie) as teacher, browser(student_cookie) as student:
            assert teacher.response.headers[WORKER_HEADER] == teacher_worker
            assert student.response.headers[WORKER_HEADER] == student_worker
            hello = {"type": "hello", "code": code}
            await teacher.send(json.dumps({**hello, "role": "teacher", "key": key}))
            await class_message(teacher, "welcome", role="teacher")
            await student.send(json.dumps({**hello, "role": "student", "id": "student-0001"}))
            await class_message(student, "welcome", role="student")
            joined = await class_message(teacher, "counts", connected=1)
            await teacher.send(json.dumps({"type": "view", "view": quiz}))
            followed = await class_message(student, "view")
            await class_message(student, "counts", question=5)
            await student.send(json.dumps({"type": "answer", "step": 5, "row": 2}))
            counted = await class_message(teacher, "counts", answered=1)
            spread = await class_message(teacher, "spread")
            return joined, followed, counted, spread

    joined, followed, counted, spread = run_coroutine(lesson())
    assert joined == {"type": "counts", "connected": 1, "answered": 0, "question": None}
    # the student hears the view whole: no lesson is running, so no slide and no title
    assert followed == {"type": "view", "view": {**quiz, "slide": 0, "slides": 0, "title": ""}}
    assert counted == {"type": "counts", "connected": 1, "answered": 1, "question": 5}
    assert spread == {"type": "spread", "step": 5, "spread": [0, 0, 1, 0]}


def test_the_workers_get_the_proxy_secret_and_the_class_cap(tmp_path: Path) -> None:
    """What ``start`` hands each worker: the secret nginx sends (a fresh one per run, never
    empty) and ``--classes-per-address``."""
    first, second = serve.worker_environment("redis://x", "one", 7), serve.new_proxy_secret()
    assert first["BPEVIZ_PROXY_SECRET"] == "one" and first["BPEVIZ_CLASSES_PER_ADDRESS"] == "7"
    assert first["FORWARDED_ALLOW_IPS"] == ""  # uvicorn believes X-Forwarded-For from no one
    assert len(second) >= 32 and second != serve.new_proxy_secret()
    assert serve.CLASSES_PER_ADDRESS == codes.CLASSES_PER_ADDRESS  # one default, said twice


def test_x_real_ip_counts_from_nginx_only_never_from_another_local_program(
    cluster: Any,
) -> None:
    """A wrong code through nginx counts against the address nginx saw (127.0.0.1 here); one
    sent straight to a worker by a local program claiming X-Real-IP (or X-Forwarded-For,
    which uvicorn believes from loopback by default) counts against the machine
    ("loopback"), never against the address it claims (Redis holds the counts)."""
    raw = redis.Redis.from_url(cluster.redis.url, decode_responses=True)
    claimed = "203.0.113.99"
    through_nginx = cluster.url.replace("http://", "ws://") + SOCKET_PATH
    straight = f"ws://{cluster.workers[0].address}{SOCKET_PATH}"

    async def wrong_code(url: str) -> dict[str, Any]:
        headers = {"X-Real-IP": claimed, "X-Forwarded-For": claimed, "X-Bpeviz-Proxy": "a guess"}
        async with connect(url, additional_headers=headers, proxy=None) as socket:
            hello = {"type": "hello", "role": "student", "id": "guesser-0001", "code": "Z" * 9}
            await socket.send(json.dumps(hello))
            return dict(json.loads(await asyncio.wait_for(socket.recv(), CLASS_WAIT_S)))

    try:
        before = {
            who: raw.zcard(f"bpeviz:misses:address:{who}") for who in ("127.0.0.1", "loopback")
        }
        for url in (through_nginx, straight):
            assert run_coroutine(wrong_code(url))["type"] == "error"
        after = {
            who: raw.zcard(f"bpeviz:misses:address:{who}") for who in ("127.0.0.1", "loopback")
        }
        assert after == {"127.0.0.1": before["127.0.0.1"] + 1, "loopback": before["loopback"] + 1}
        assert raw.zcard(f"bpeviz:misses:address:{claimed}") == 0
    finally:
        raw.close()


def test_nginx_config_is_private_even_where_one_was_left_readable(tmp_path: Path) -> None:
    """A --run-dir used before may hold an nginx.conf readable by all; the new one, which
    holds the proxy's secret, is readable by this user alone."""
    config = tmp_path / "nginx.conf"
    config.write_text("old", encoding="utf-8")
    config.chmod(0o644)
    serve.write_private(config, "new secret")
    assert config.read_text(encoding="utf-8") == "new secret"
    assert config.stat().st_mode & 0o777 == 0o600


def test_a_bad_class_cap_in_the_environment_is_one_sentence(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("BPEVIZ_CLASSES_PER_ADDRESS", "lots")
    monkeypatch.setattr("sys.argv", ["serve.py"])
    with pytest.raises(SystemExit) as exited:
        serve.main()
    said = capsys.readouterr().err
    assert exited.value.code == 2 and "'lots'" in said and "Traceback" not in said
