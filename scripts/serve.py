"""Serve the app from several processes behind nginx: ``make serve WORKERS=N``.

One ``streamlit run`` process runs its sessions' Python on one core at a time, so a class on
a machine with more cores gets more out of N processes. Each worker (``server.py``: the app
and the live class's routes) listens on a free loopback port; nginx (the Debian package, run
as the current user, never as a system service) listens on the public address and passes
every request on, WebSocket upgrade included, with sticky sessions (see
``scripts/nginx.conf.template`` for why a cookie and not ``ip_hash``). The configuration is
generated from that template into a run directory that also holds nginx's pid, logs and temp
files, and the workers' logs.

Live classes are shared between the workers through Redis (a teacher on one worker drives
students on another: ``bpeviz/classroom/hubs/redis_hub.py``): Debian's ``redis-server``, started
first on a free loopback port with no persistence (its directory in the run directory),
named to each worker by ``BPEVIZ_REDIS_URL``, and stopped last. The class limits (wrong codes
per address, classes per address: ``--classes-per-address``) are kept there too, so N workers
allow what one does. nginx tells the workers whose request it passes on (``X-Real-IP``) beside
a secret made for this run (``X-Bpeviz-Proxy``, given to the workers as
``BPEVIZ_PROXY_SECRET``): the workers believe the header from nginx alone, never from another
program on the machine.

    .venv/bin/python scripts/serve.py --workers 2 --port 8501 [--address 0.0.0.0]

Ctrl-C stops nginx, the workers and Redis. ``start``/``stop`` are also used by
``tests/test_serve.py``.
What is left out: TLS (put the class's usual HTTPS front in front of this), restarting a
worker that dies (the script stops everything and says so), and shared caches: each worker
trains its own histories.
"""

from __future__ import annotations

import argparse
import getpass
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "scripts" / "nginx.conf.template"
STREAMLIT_CONFIG = ROOT / ".streamlit" / "config.toml"
NGINX = Path("/usr/sbin/nginx")
REDIS = Path("/usr/bin/redis-server")
START_SECONDS = 90.0
CLASSES_PER_ADDRESS = 50  # as bpeviz.classroom.codes (this script imports nothing of the app)
# Loopback requests go straight to the socket, never through a proxy set in the environment.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def open_direct(request: str | urllib.request.Request, timeout: float = 10) -> Any:
    """``urlopen`` without the environment's proxies (for the loopback addresses here)."""
    return _DIRECT.open(request, timeout=timeout)


@dataclass
class Redis:
    """The ``redis-server`` the workers share, on a loopback port."""

    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"


@dataclass
class Worker:
    """One ``streamlit run server.py`` on a loopback port."""

    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


@dataclass
class Cluster:
    """N workers behind one nginx, the Redis they share, and the run directory they write to."""

    url: str
    run_dir: Path
    nginx: subprocess.Popen[bytes] | None = None
    workers: list[Worker] = field(default_factory=list)
    redis: Redis | None = None

    def processes(self) -> list[subprocess.Popen[bytes]]:
        """Everything started: nginx, the workers, Redis (the order they stop in)."""
        processes = [self.nginx] if self.nginx else []
        processes += [worker.process for worker in self.workers]
        return processes + ([self.redis.process] if self.redis else [])

    @property
    def pids(self) -> list[int]:
        return [process.pid for process in self.processes()]


def nginx_missing_reason() -> str | None:
    """Why nginx cannot run here, or ``None`` when it can."""
    if not NGINX.exists():
        return (
            f"{NGINX} not found: install Debian's nginx (scripts/install_system_deps.sh, run by "
            "`make test` as root)"
        )
    return None


def redis_missing_reason() -> str | None:
    """Why Redis cannot run here, or ``None`` when it can."""
    if not REDIS.exists():
        return (
            f"{REDIS} not found: install Debian's redis-server (scripts/install_system_deps.sh, "
            "run by `make test` as root)"
        )
    return None


EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
PORTS_BELOW = 12_000  # how many ports under the ephemeral range free_port draws from


def free_port() -> int:
    """A loopback port no one listens on, drawn at random from just below the ephemeral range.

    Not ``bind(port 0)``: the kernel hands out the same range to every process asking for
    port 0 and to outgoing connections, so a port found free that way was taken again before
    the server bound it when tests ran in parallel. A port below the range is taken only by
    one who names it, and two draws from 12,000 rarely meet (the test server retries if so).
    """
    try:
        low = int(EPHEMERAL_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32_768  # Linux's default
    draw = random.SystemRandom()
    for _ in range(100):
        port = draw.randrange(max(1_024, low - PORTS_BELOW), low)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free loopback port below {low} in 100 draws")


def max_upload_mb() -> int:
    """Streamlit's upload cap, from the app's own config (Streamlit's default: 200 MB)."""
    with STREAMLIT_CONFIG.open("rb") as file:
        return int(tomllib.load(file).get("server", {}).get("maxUploadSize", 200))


def new_proxy_secret() -> str:
    """The secret nginx shows the workers with every request, made anew for each run."""
    return secrets.token_urlsafe(32)


def worker_environment(
    redis_url: str, proxy_secret: str, classes_per_address: int
) -> dict[str, str]:
    """A worker's environment: this one's, and where Redis is, nginx's secret, the class cap;
    and no address uvicorn takes ``X-Forwarded-For`` from (its default believes any loopback
    peer's): nginx's secret is the one way a worker learns a browser's address."""
    return {
        **os.environ,
        "FORWARDED_ALLOW_IPS": "",
        "BPEVIZ_REDIS_URL": redis_url,
        "BPEVIZ_PROXY_SECRET": proxy_secret,
        "BPEVIZ_CLASSES_PER_ADDRESS": str(classes_per_address),
    }


def write_private(path: Path, text: str) -> None:
    """Write ``path`` readable by this user alone, a file left there before included
    (``touch(mode=)`` sets the mode of a new file only)."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(descriptor, "w", encoding="utf-8") as file:
        os.fchmod(file.fileno(), 0o600)
        file.write(text)


def nginx_config(
    *, run_dir: Path, listen: str, worker_addresses: list[str], proxy_secret: str
) -> str:
    """The template with its fields filled in."""
    servers = "\n".join(f"        server {address};" for address in worker_addresses)
    # As root, nginx would hand its workers to "nobody"; keep them as the current user.
    user = f"user {getpass.getuser()};" if os.geteuid() == 0 else ""
    fields = {
        "{{USER}}": user,
        "{{RUN_DIR}}": str(run_dir),
        "{{LISTEN}}": listen,
        "{{SERVERS}}": servers,
        "{{MAX_BODY_MB}}": str(max_upload_mb() + 1),
        "{{PROXY_SECRET}}": proxy_secret,
    }
    text = TEMPLATE.read_text(encoding="utf-8")
    for placeholder, value in fields.items():
        text = text.replace(placeholder, value)
    if "{{" in text:
        raise ValueError(f"{TEMPLATE.name} has a field serve.py does not fill in")
    return text


def _answers(url: str) -> bool:
    try:
        with open_direct(url, timeout=5) as response:
            return bool(response.read().decode("utf-8", "replace").strip() == "ok")
    except (OSError, urllib.error.URLError):
        return False


def _redis_answers(port: int) -> bool:
    """Whether Redis on ``port`` answers a ``PING`` (in its protocol's inline form)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


def start_redis(run_dir: Path, deadline: float) -> Redis:
    """Start ``redis-server`` on a free loopback port, its files in ``run_dir/redis``, and wait
    until it answers. It keeps nothing on disk (no snapshots, no append-only file): classes
    live for a lesson, and a restart ends them. ``RuntimeError`` if it does not start (then
    it is stopped)."""
    reason = redis_missing_reason()
    if reason:
        raise RuntimeError(reason)
    port = free_port()
    (run_dir / "redis").mkdir(exist_ok=True)
    log = run_dir / "redis.log"
    command = [
        str(REDIS),
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--protected-mode",
        "yes",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        str(run_dir / "redis"),
        "--daemonize",
        "no",
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, cwd=run_dir, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    started = Redis(port, process, log)
    while not _redis_answers(port):
        if process.poll() is not None or time.monotonic() > deadline:
            _end(process, signal.SIGTERM)
            raise RuntimeError("redis-server did not start:\n" + _tail(log))
        time.sleep(0.05)
    return started


def _start_worker(port: int, log: Path, environment: dict[str, str]) -> Worker:
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "server.py",
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=environment,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    return Worker(port, process, log)


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def start(
    workers: int,
    *,
    port: int,
    address: str = "127.0.0.1",
    run_dir: Path | None = None,
    classes_per_address: int = CLASSES_PER_ADDRESS,
) -> Cluster:
    """Start Redis, ``workers`` app processes sharing it, and nginx in front of them; wait
    until all answer.

    Raises ``RuntimeError`` (with the log's tail) when something does not start; whatever did
    start is stopped first.
    """
    if workers < 1:
        raise ValueError("WORKERS must be at least 1")
    reason = nginx_missing_reason() or redis_missing_reason()
    if reason:
        raise RuntimeError(reason)
    run_dir = run_dir or Path(tempfile.mkdtemp(prefix="bpeviz-serve-"))
    run_dir.mkdir(parents=True, exist_ok=True)
    host = "127.0.0.1" if address in ("0.0.0.0", "") else address
    cluster = Cluster(f"http://{host}:{port}", run_dir)
    deadline = time.monotonic() + START_SECONDS
    proxy_secret = new_proxy_secret()
    try:
        cluster.redis = start_redis(run_dir, deadline)
        environment = worker_environment(cluster.redis.url, proxy_secret, classes_per_address)
        for index in range(workers):
            worker_port = free_port()
            cluster.workers.append(
                _start_worker(worker_port, run_dir / f"worker{index}.log", environment)
            )
        for worker in cluster.workers:
            while not _answers(f"http://{worker.address}/_stcore/health"):
                if worker.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"worker on {worker.address} did not start:\n" + _tail(worker.log)
                    )
                time.sleep(0.25)
        config = run_dir / "nginx.conf"
        write_private(  # it holds the secret
            config,
            nginx_config(
                run_dir=run_dir,
                listen=f"{address}:{port}",
                worker_addresses=[worker.address for worker in cluster.workers],
                proxy_secret=proxy_secret,
            ),
        )
        with (run_dir / "nginx.out").open("wb") as out:
            cluster.nginx = subprocess.Popen(
                [
                    str(NGINX),
                    "-p",
                    str(run_dir),
                    "-c",
                    str(config),
                    "-e",
                    str(run_dir / "error.log"),
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        while not _answers(f"{cluster.url}/_stcore/health"):
            if cluster.nginx.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("nginx did not start:\n" + _tail(run_dir / "error.log"))
            time.sleep(0.1)
    except BaseException:
        stop(cluster)
        raise
    return cluster


def _end(process: subprocess.Popen[bytes], how: signal.Signals) -> None:
    if process.poll() is None:
        process.send_signal(how)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def stop(cluster: Cluster) -> None:
    """Stop nginx (fast shutdown), then every worker, then Redis (the workers' last changes,
    students leaving, go to it)."""
    for process in cluster.processes():
        _end(process, signal.SIGTERM)


def main() -> int:
    sys.path.insert(0, str(ROOT))  # run as a script: bpeviz is ROOT's package
    from bpeviz.classroom.public_url import ENV_NAME as PUBLIC_URL_ENV
    from bpeviz.classroom.public_url import checked_public_url

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--port", type=int, default=8501, help="nginx's public port")
    parser.add_argument("--address", default="0.0.0.0", help="nginx's address (all by default)")
    parser.add_argument("--run-dir", type=Path, help="default: a new temporary directory")
    parser.add_argument(
        "--classes-per-address",
        type=int,
        # a string: argparse reads it with type=int, and says in one line if it is no number
        default=os.environ.get("BPEVIZ_CLASSES_PER_ADDRESS") or str(CLASSES_PER_ADDRESS),
        help="open classes started from one network address (a building behind one NAT "
        f"address; default {CLASSES_PER_ADDRESS}, or BPEVIZ_CLASSES_PER_ADDRESS)",
    )
    parser.add_argument(
        "--public-url",
        help="the address students open (join links, QR codes), e.g. http://192.168.1.20:8501; "
        f"default: ${PUBLIC_URL_ENV}, else the teacher's own address",
    )
    args = parser.parse_args()
    if args.classes_per_address < 1:
        print("cannot serve: --classes-per-address must be at least 1", file=sys.stderr)
        return 2
    if args.public_url:  # the workers read it from their environment
        try:
            os.environ[PUBLIC_URL_ENV] = checked_public_url(args.public_url)
        except ValueError as error:
            print(f"cannot serve: {error}", file=sys.stderr)
            return 2
    try:
        cluster = start(
            args.workers,
            port=args.port,
            address=args.address,
            run_dir=args.run_dir,
            classes_per_address=args.classes_per_address,
        )
    except (RuntimeError, ValueError) as error:
        print(f"cannot serve: {error}", file=sys.stderr)
        return 2
    ports = ", ".join(str(worker.port) for worker in cluster.workers)
    assert cluster.redis is not None
    print(
        f"bpeviz: {cluster.url} (nginx, {args.workers} workers on loopback ports {ports}, "
        f"Redis on {cluster.redis.port})"
    )
    print(f"config and logs: {cluster.run_dir}; Ctrl-C stops everything")
    stopping = False

    def on_signal(number: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        while not stopping:
            if any(process.poll() is not None for process in cluster.processes()):
                print("a process ended by itself; stopping (see the logs above)", file=sys.stderr)
                return 1
            time.sleep(0.5)
    finally:
        stop(cluster)
    return 0


if __name__ == "__main__":
    sys.exit(main())
