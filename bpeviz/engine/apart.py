"""Run a trainer in a child Python process, so that its temporaries never enter the caller's heap.

A training run at the app's budget makes about a million and a half small objects on the way
to a result a fifth of that size. Made in a long-lived server, they leave its heap in pieces:
CPython's small-object allocator gives an arena back to the system only once every block in
it is free, and the run's result and the other sessions' objects sit scattered among the
freed ones. Twenty sessions at the budget left 202 arenas held for 64 MB of live objects.
Trained in a child that exits after the one run, the temporaries go back to the system with
the child; only the result crosses over, pickled, and is built in the caller's heap in one go.

What it deliberately leaves out: a pool of warm workers. A child starts a fresh interpreter
and imports the engine (about 0.3 s on a quiet core), so the caller decides which runs are
big enough to be worth it (:func:`bpeviz.app.frame.training` trains small ones in process).

The protocol is pickles over the child's standard input and output: the call in, then
``("progress", done, total)`` frames and one ``("result", value)`` or ``("error",
exception)``. The call's arguments come back as the caller's own objects: a result that
refers to one (every merge of a BPE run points to its corpus) is not sent a second copy.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

ProgressCallback = Callable[[int, int], None]
_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding the bpeviz package


class TrainingLost(ValueError):
    """The child process ended without a result (killed, or out of memory): said in one
    sentence like any refused run."""


class _ArgumentsByReference(pickle.Pickler):
    """Pickles the child's answer, naming the call's arguments instead of copying them."""

    def __init__(self, file: IO[bytes], arguments: tuple[Any, ...]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.argument_index = {id(argument): index for index, argument in enumerate(arguments)}
        self.arguments = arguments  # kept alive, so no other object takes one of their ids

    def persistent_id(self, obj: Any) -> int | None:
        return self.argument_index.get(id(obj))


class _ArgumentsRestored(pickle.Unpickler):
    """Reads the child's answer, putting the caller's own arguments where it names them."""

    def __init__(self, file: IO[bytes], arguments: tuple[Any, ...]) -> None:
        super().__init__(file)
        self.arguments = arguments

    def persistent_load(self, pid: Any) -> Any:
        return self.arguments[pid]


def call_apart(
    function: Callable[..., Any],
    *arguments: Any,
    progress: ProgressCallback | None = None,
    **options: Any,
) -> Any:
    """``function(*arguments, **options)`` computed in a child process, and its value.

    ``function`` must be importable by name (a module's top-level function). With
    ``progress``, the function is given a ``progress`` callback too, whose calls reach
    ``progress`` here, in the caller's thread. An exception the function raises is raised
    here (the same class and message); a child that ends without answering raises
    :class:`TrainingLost`. If anything interrupts the wait (``progress`` raising, as
    Streamlit does when a session reruns), the child is killed before this returns.
    """
    child = subprocess.Popen(
        [sys.executable, "-m", __name__],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": _search_path(os.environ.get("PYTHONPATH"))},
    )
    assert child.stdin is not None and child.stdout is not None
    try:
        with contextlib.suppress(BrokenPipeError):  # it ended first: said below, from its exit
            pickle.dump(
                (function, arguments, options, progress is not None),
                child.stdin,
                protocol=pickle.HIGHEST_PROTOCOL,
            )
            child.stdin.close()
        while True:
            try:
                kind, *value = _ArgumentsRestored(child.stdout, arguments).load()
            except (EOFError, pickle.UnpicklingError):
                raise TrainingLost(_lost_sentence(child.wait())) from None
            if kind == "progress":
                if progress is not None:
                    progress(*value)
            elif kind == "error":
                raise value[0]
            else:
                return value[0]
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
        for pipe in (child.stdin, child.stdout):
            with contextlib.suppress(BrokenPipeError):  # the call half written: child gone
                pipe.close()


def _search_path(inherited: str | None) -> str:
    """The child's ``PYTHONPATH``: this bpeviz first, then what the caller had."""
    return os.pathsep.join([_ROOT, inherited]) if inherited else _ROOT


def _lost_sentence(code: int) -> str:
    how = f"was stopped by signal {-code}" if code < 0 else f"exited with status {code}"
    return (
        f"the training process {how} before it finished (the server may be short of "
        "memory): try a shorter text or a smaller vocab size"
    )


def _serve(requests: IO[bytes], answers: IO[bytes]) -> None:
    """The child's side: read one call, answer with its progress and its value or error."""
    function, arguments, options, wants_progress = pickle.load(requests)

    def send(*frame: Any) -> None:
        _ArgumentsByReference(answers, arguments).dump(frame)  # one pickle a frame
        answers.flush()

    if wants_progress:
        options = {**options, "progress": lambda done, total: send("progress", done, total)}
    try:
        value = function(*arguments, **options)
    except Exception as error:
        try:
            pickle.dumps(error)
        except Exception:
            error = RuntimeError(f"{type(error).__name__}: {error}")
        send("error", error)
    else:
        send("result", value)


if __name__ == "__main__":
    # Answers go to a copy of standard output; anything the function prints goes to stderr.
    _answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    _serve(sys.stdin.buffer, _answers)
    _answers.close()
