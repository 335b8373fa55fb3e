"""The command line's files: read only what cannot hang, write only what cannot clobber.

Reading takes a regular file, or standard input when the name is ``-``; a FIFO, a device or a
directory is refused with a sentence (opening a FIFO waits for a writer forever, ``/dev/zero``
never ends). At most ``max_bytes`` are read, one more to tell.

Writing checks every target before anything is written: it must not exist (unless ``force``),
must not be an input (``train book.vocab --out book``), and when it exists must be a regular
file or a symbolic link (a FIFO waits for a reader forever; ``/dev/full`` is a device). The
text goes to a temporary file beside the target, which is then renamed into place: a target is
never half-written, and a symbolic link there is replaced, never followed. Without ``force``
the rename is a hard link, which fails if the name appeared meanwhile.

What is left out: the commands themselves (:mod:`bpeviz.cli`).
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

STDIN = "-"


class CliError(Exception):
    """Bad input: the message is shown as is, and the exit status is 2."""


def kind_of(mode: int) -> str | None:
    """What a file that is not a regular file is, in words (``None`` for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"


def read_input(path: str, what: str, *, max_bytes: int) -> bytes:
    """The bytes of a regular file, or of standard input for ``-``, at most ``max_bytes``.

    The file is opened without blocking and checked once open (no race with a swap), so a
    FIFO is refused instead of waited on.
    """
    if path == STDIN:
        return _bounded(sys.stdin.buffer.read(max_bytes + 1), "standard input", max_bytes)
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as error:
        reason = error.strerror or str(error)
        raise CliError(f"cannot read the {what} {path!r}: {reason.lower()}") from None
    kind = kind_of(os.fstat(descriptor).st_mode)
    if kind is not None:
        os.close(descriptor)
        raise CliError(
            f"cannot read the {what}: {path!r} is {kind}, not a regular file (give a file, "
            "or '-' for standard input)"
        )
    os.set_blocking(descriptor, True)
    with os.fdopen(descriptor, "rb") as file:
        return _bounded(file.read(max_bytes + 1), f"the {what} {path!r}", max_bytes)


def _bounded(data: bytes, subject: str, max_bytes: int) -> bytes:
    if len(data) > max_bytes:
        raise CliError(
            f"{subject} is too large: at most {max_bytes // 2**20} MiB is read, so use a "
            "smaller file"
        )
    return data


def check_prefix(prefix: str) -> None:
    """``--out PREFIX`` names files to make (``PREFIX.model``): a device or a directory there
    is a mistake (``--out /dev/full`` made ``/dev/full.model``)."""
    try:
        kind = kind_of(os.stat(prefix).st_mode)
    except OSError:
        return
    if kind is not None:
        raise CliError(f"--out {prefix!r} is {kind}, not a file name prefix: give a name such "
                       "as 'out/book' for out/book.model")  # fmt: skip


def check_targets(targets: Iterable[Path], inputs: Iterable[str], *, force: bool) -> None:
    """Refuse, before anything is written, a target that is an input, is not a regular file,
    or exists without ``force``."""
    read = {_identity(path) for path in inputs if path != STDIN} - {None}
    for target in targets:
        try:
            link = os.lstat(target)
        except FileNotFoundError:
            continue
        except OSError as error:
            reason = error.strerror or str(error)
            raise CliError(f"cannot write {str(target)!r}: {reason.lower()}") from None
        if _identity(str(target)) in read:
            raise CliError(f"{str(target)!r} is the input: choose another --out, so that it is "
                           "not overwritten")  # fmt: skip
        kind = None if stat.S_ISLNK(link.st_mode) else kind_of(link.st_mode)
        if kind is not None:
            raise CliError(f"{str(target)!r} is {kind}, not a regular file: --out writes "
                           "regular files only")  # fmt: skip
        if not force:
            raise CliError(f"{str(target)!r} already exists: pass --force to replace it")


def _identity(path: str) -> tuple[int, int] | None:
    """The device and inode a path leads to (following links), or ``None``."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def write_text(path: Path, text: str, *, force: bool) -> Path:
    """Write ``text`` (UTF-8) to a temporary file beside ``path``, then rename it into place;
    without ``force`` the name must still be free then (a hard link, which never replaces)."""
    folder = path.parent
    try:
        descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:
        reason = error.strerror or str(error)
        raise CliError(f"cannot write {str(path)!r}: {reason.lower()}") from None
    try:
        os.fchmod(descriptor, 0o666 & ~_umask())  # as open() would make it, not mkstemp's 0600
        with os.fdopen(descriptor, "w", encoding="utf-8", newline="") as file:
            file.write(text)
        if force:
            os.replace(temporary, path)
        else:
            _link(temporary, path)
    except FileExistsError:
        raise CliError(f"{str(path)!r} already exists: pass --force to replace it") from None
    except OSError as error:
        reason = error.strerror or str(error)
        raise CliError(f"cannot write {str(path)!r}: {reason.lower()}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    return path


def _link(temporary: str, path: Path) -> None:
    """Give the temporary file its name only if that name is free. Where hard links are not
    supported (some network and FAT file systems) a rename after a last look does it."""
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise
    except OSError:
        if os.path.lexists(path):
            raise FileExistsError(path) from None
        os.replace(temporary, path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
