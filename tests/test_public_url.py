"""The join link's address (issue 28): a public address set for students, checked; a
loopback one recognised, so that the teacher's bar can warn that no student reaches it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bpeviz.classroom.public_url import (
    ENV_NAME,
    PublicUrlError,
    checked_public_url,
    is_loopback,
    join_base,
    loopback_warning,
    public_url,
)

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "url",
    ["http://localhost:8501", "http://LOCALHOST", "http://app.localhost:1", "http://127.0.0.1:8621",
     "http://127.5.6.7", "http://[::1]:8501", "http://0.0.0.0:8501"],
)  # fmt: skip
def test_loopback_addresses_are_recognised(url: str) -> None:
    assert is_loopback(url)


@pytest.mark.parametrize(
    "url",
    ["http://192.168.1.20:8501", "https://bpe.example.org", "http://10.0.0.5", "http://[fe80::1]"],
)
def test_addresses_students_can_reach_are_not_loopback(url: str) -> None:
    assert not is_loopback(url)


def test_the_warning_names_the_host_and_what_to_set() -> None:
    words = loopback_warning("http://127.0.0.1:8621")
    assert "127.0.0.1 is this computer" in words
    assert ENV_NAME in words and "--public-url" in words


@pytest.mark.parametrize(
    ("text", "expected"),
    [(" http://192.168.1.20:8501/ ", "http://192.168.1.20:8501"),
     ("https://bpe.example.org/class/", "https://bpe.example.org/class")],
)  # fmt: skip
def test_a_public_address_is_trimmed(text: str, expected: str) -> None:
    assert checked_public_url(text) == expected


@pytest.mark.parametrize(
    "text",
    ["192.168.1.20:8501", "ftp://host", "http://", "http://h/?class=X", "http://u:p@h",
     "http://h/" + "a" * 300],
)  # fmt: skip
def test_a_public_address_that_cannot_make_a_link_is_refused_with_a_sentence(text: str) -> None:
    with pytest.raises(PublicUrlError, match=ENV_NAME):
        checked_public_url(text)


def test_the_environment_names_the_address_and_a_bad_one_falls_back(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert public_url({}) is None
    assert public_url({ENV_NAME: "http://10.1.2.3:8501/"}) == "http://10.1.2.3:8501"
    monkeypatch.setenv(ENV_NAME, "http://10.1.2.3:8501")
    assert join_base("http://127.0.0.1:8501") == "http://10.1.2.3:8501"
    monkeypatch.setenv(ENV_NAME, "10.1.2.3")  # no scheme: the app's bar says so
    assert join_base("http://127.0.0.1:8501") == "http://127.0.0.1:8501"


def test_serve_refuses_a_public_url_it_cannot_use() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "serve.py"), "--public-url", "10.1.2.3:8501"],
        capture_output=True, text=True, timeout=60, cwd=REPO,
    )  # fmt: skip
    assert done.returncode == 2
    assert "cannot serve: BPEVIZ_PUBLIC_URL must start with http://" in done.stderr
