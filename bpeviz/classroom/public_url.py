"""The address students open: the join link and its QR code are built from it.

A teacher who opens the app as ``localhost`` (as the quick start says) sees the app at a
loopback address that no student's phone can reach. ``BPEVIZ_PUBLIC_URL`` (or
``scripts/serve.py --public-url``) names the address students use instead, e.g.
``http://192.168.1.20:8501``; without it the link is the teacher's own address, and when
that is a loopback one the teacher's bar says so in words (:func:`loopback_warning`).
"""

from __future__ import annotations

import ipaddress
import os
from urllib.parse import urlsplit

ENV_NAME = "BPEVIZ_PUBLIC_URL"
MAX_URL_CHARS = 200


class PublicUrlError(ValueError):
    """A public address that cannot make a join link; the message says how to write one."""


def checked_public_url(text: str) -> str:
    """``text`` as the base of join links: http(s), a host, no query or fragment, no
    trailing slash.

    >>> checked_public_url(" https://bpe.example.org/ ")
    'https://bpe.example.org'
    """
    url = text.strip()
    parts = urlsplit(url)
    example = "e.g. http://192.168.1.20:8501"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PublicUrlError(f"{ENV_NAME} must start with http:// or https://, {example}.")
    if len(url) > MAX_URL_CHARS or parts.query or parts.fragment or parts.username:
        raise PublicUrlError(
            f"{ENV_NAME} is a plain address of {MAX_URL_CHARS} characters at most, with no "
            f"query, fragment or password, {example}."
        )
    return url.rstrip("/")


def public_url(environ: dict[str, str] | None = None) -> str | None:
    """The address set for students (:data:`ENV_NAME`), checked; ``None`` when unset."""
    text = (os.environ if environ is None else environ).get(ENV_NAME, "")
    return checked_public_url(text) if text.strip() else None


def join_base(own: str) -> str:
    """The base of join links: the public address when set and well written, else ``own``
    (the address the teacher's browser used; the teacher's bar says what is wrong)."""
    return join_base_and_warning(own)[0]


def join_base_and_warning(own: str) -> tuple[str, str]:
    """:func:`join_base`, and what the teacher's bar warns about it: a loopback address no
    student reaches, or a public address set wrong (then ``own`` is used)."""
    try:
        base = public_url() or own
    except PublicUrlError as error:
        return own, str(error)
    return base, loopback_warning(base) if base and is_loopback(base) else ""


def is_loopback(url: str) -> bool:
    """Whether ``url`` points at the machine it is opened on (no student can reach it).

    >>> [is_loopback(u) for u in ("http://localhost:8501", "http://127.0.0.1", "http://[::1]:1")]
    [True, True, True]
    >>> is_loopback("http://192.168.1.20:8501"), is_loopback("https://bpe.example.org")
    (False, False)
    """
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_unspecified


def loopback_warning(url: str) -> str:
    """What the teacher's bar says when the join link is ``url``, a loopback address."""
    host = urlsplit(url).hostname or url
    return (
        f"Students cannot open this link: {host} is this computer. Start the app with "
        f"{ENV_NAME} set to the address students reach (e.g. http://192.168.1.20:8501), "
        "or scripts/serve.py --public-url with it."
    )
