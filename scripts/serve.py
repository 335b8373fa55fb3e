"""Serve the app from several processes behind nginx: ``make serve WORKERS=N``.

One ``streamlit run`` process runs its sessions' Python on one core at a time, so a class on
a machine with more cores gets more out of N processes. Each worker listens on a free
loopback port; nginx (the Debian package, run as the current user, never as a system
service) listens on the public address and passes every request on, WebSocket upgrade
included, with sticky sessions (see ``scripts/nginx.conf.template`` for why a cookie and not
``ip_hash``). The configuration is generated from that template into a run directory that
also holds nginx's pid, logs and temp files, and the workers' logs.

    .venv/bin/python scripts/serve.py --workers 2 --port 8501 [--address 0.0.0.0]

Ctrl-C stops nginx and the workers. ``start``/``stop`` are also used by ``tests/test_serve.py``.
What is left out: TLS (put the class's usual HTTPS front in front of this), restarting a
worker that dies (the script stops everything and says so), and shared caches: each worker
trains its own histories.
"""

from __future__ import annotations

import argparse
import getpass
import os
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
START_SECONDS = 90.0
# Loopback requests go straight to the socket, never through a proxy set in the environment.
_DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def open_direct(request: str | urllib.request.Request, timeout: float = 10) -> Any:
    """``urlopen`` without the environment's proxies (for the loopback addresses here)."""
    return _DIRECT.open(request, timeout=timeout)


@dataclass
class Worker:
    """One ``streamlit run app.py`` on a loopback port."""

    port: int
    process: subprocess.Popen[bytes]
    log: Path

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"


@dataclass
class Cluster:
    """N workers behind one nginx, and the run directory they write to."""

    url: str
    run_dir: Path
    nginx: subprocess.Popen[bytes] | None = None
    workers: list[Worker] = field(default_factory=list)

    @property
    def pids(self) -> list[int]:
        processes = [w.process for w in self.workers] + ([self.nginx] if self.nginx else [])
        return [process.pid for process in processes]


def nginx_missing_reason() -> str | None:
    """Why nginx cannot run here, or ``None`` when it can."""
    if not NGINX.exists():
        return (
            f"{NGINX} not found: install Debian's nginx (scripts/install_system_deps.sh, run by "
            "`make test` as root)"
        )
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def max_upload_mb() -> int:
    """Streamlit's upload cap, from the app's own config (Streamlit's default: 200 MB)."""
    with STREAMLIT_CONFIG.open("rb") as file:
        return int(tomllib.load(file).get("server", {}).get("maxUploadSize", 200))


def nginx_config(*, run_dir: Path, listen: str, worker_addresses: list[str]) -> str:
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


def _start_worker(port: int, log: Path) -> Worker:
    command = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.headless",
        "true",
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
        )
    return Worker(port, process, log)


def _tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def start(
    workers: int, *, port: int, address: str = "127.0.0.1", run_dir: Path | None = None
) -> Cluster:
    """Start ``workers`` app processes and nginx in front of them; wait until all answer.

    Raises ``RuntimeError`` (with the log's tail) when something does not start; whatever did
    start is stopped first.
    """
    if workers < 1:
        raise ValueError("WORKERS must be at least 1")
    reason = nginx_missing_reason()
    if reason:
        raise RuntimeError(reason)
    run_dir = run_dir or Path(tempfile.mkdtemp(prefix="bpeviz-serve-"))
    run_dir.mkdir(parents=True, exist_ok=True)
    host = "127.0.0.1" if address in ("0.0.0.0", "") else address
    cluster = Cluster(f"http://{host}:{port}", run_dir)
    try:
        for index in range(workers):
            worker_port = free_port()
            cluster.workers.append(_start_worker(worker_port, run_dir / f"worker{index}.log"))
        deadline = time.monotonic() + START_SECONDS
        for worker in cluster.workers:
            while not _answers(f"http://{worker.address}/_stcore/health"):
                if worker.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"worker on {worker.address} did not start:\n" + _tail(worker.log)
                    )
                time.sleep(0.25)
        config = run_dir / "nginx.conf"
        config.write_text(
            nginx_config(
                run_dir=run_dir,
                listen=f"{address}:{port}",
                worker_addresses=[worker.address for worker in cluster.workers],
            ),
            encoding="utf-8",
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
    """Stop nginx (fast shutdown), then every worker."""
    if cluster.nginx is not None:
        _end(cluster.nginx, signal.SIGTERM)
    for worker in cluster.workers:
        _end(worker.process, signal.SIGTERM)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--port", type=int, default=8501, help="nginx's public port")
    parser.add_argument("--address", default="0.0.0.0", help="nginx's address (all by default)")
    parser.add_argument("--run-dir", type=Path, help="default: a new temporary directory")
    args = parser.parse_args()
    try:
        cluster = start(args.workers, port=args.port, address=args.address, run_dir=args.run_dir)
    except (RuntimeError, ValueError) as error:
        print(f"cannot serve: {error}", file=sys.stderr)
        return 2
    ports = ", ".join(str(worker.port) for worker in cluster.workers)
    print(f"bpeviz: {cluster.url} (nginx, {args.workers} workers on loopback ports {ports})")
    print(f"config and logs: {cluster.run_dir}; Ctrl-C stops everything")
    stopping = False

    def on_signal(number: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    try:
        while not stopping:
            ended = [w for w in cluster.workers if w.process.poll() is not None]
            if ended or (cluster.nginx and cluster.nginx.poll() is not None):
                print("a process ended by itself; stopping (see the logs above)", file=sys.stderr)
                return 1
            time.sleep(0.5)
    finally:
        stop(cluster)
    return 0


if __name__ == "__main__":
    sys.exit(main())
