"""A live class's students take turns to run their pages (``bpeviz.app.live.turns``): a
hundred reruns started by one slide no longer run all at once in one interpreter."""

from __future__ import annotations

import threading
import time

from bpeviz.app.live.turns import AT_ONCE, taking_turns


def test_no_more_than_at_once_students_run_together() -> None:
    """Eight runs started together: at most two inside at any moment, and every one ran."""
    turns = threading.BoundedSemaphore(AT_ONCE)
    inside, most, done = 0, 0, []
    lock = threading.Lock()
    ready = threading.Barrier(8)

    def page_run(number: int) -> None:
        nonlocal inside, most
        ready.wait()
        with taking_turns(turns, longest_wait=30.0):
            with lock:
                inside += 1
                most = max(most, inside)
            time.sleep(0.02)  # a run's work, for the others to overlap with if they could
            with lock:
                inside -= 1
                done.append(number)

    threads = [threading.Thread(target=page_run, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert AT_ONCE == 2 and most == 2
    assert sorted(done) == list(range(8))


def test_a_run_waits_for_its_turn_at_most_the_longest_wait_then_runs() -> None:
    """Turns held for good (a stuck run) keep no student out for longer than the bound."""
    turns = threading.BoundedSemaphore(1)
    turns.acquire()
    started = time.monotonic()
    with taking_turns(turns, longest_wait=0.1):
        waited = time.monotonic() - started
    assert 0.1 <= waited < 5
    turns.release()  # the stuck one's: the late run did not give back a turn it never had
    assert turns.acquire(blocking=False)
