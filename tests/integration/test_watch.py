"""One watcher per process wakes the live streams: at once for this process's appends, by one
poll for everyone else's, and it rides out a store that does not answer."""

from __future__ import annotations

import threading
import time

from eventstore import NewEvent, open_store
from harness.http import free_port, wait_until
from service.watch import Watcher


def event() -> list[NewEvent]:
    return [NewEvent("Thing", {"n": 1}, "2026-12-03T12:00:00Z")]


def waiting(watcher: Watcher, match_id: str, after: int, timeout: float):
    """Start a wait on its own thread; the result list fills when it returns."""
    result: list[bool] = []
    thread = threading.Thread(target=lambda: result.append(
        watcher.wait(match_id, after, timeout)))
    thread.start()
    wait_until(lambda: watcher.subscribers() > 0 or not thread.is_alive(), 10, every=0.001)
    return thread, result


def test_a_wait_ends_at_once_on_an_append_of_this_process(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'e.sqlite3'}")
    watcher = Watcher(store, poll=60.0)  # no poll will come: only the notice can wake it
    thread, result = waiting(watcher, "m", 0, timeout=30)
    store.append("m", event(), 0)
    watcher.appended("m", 1)
    thread.join(10)
    assert result == [True] and watcher.subscribers() == 0
    store.close()


def test_a_wait_sees_an_append_made_elsewhere_by_polling(tmp_path):
    path = f"sqlite:///{tmp_path / 'e.sqlite3'}"
    store, elsewhere = open_store(path), open_store(path)
    watcher = Watcher(store, poll=0.01)
    thread, result = waiting(watcher, "m", 0, timeout=30)
    elsewhere.append("m", event(), 0)  # another process's store: no notice to the watcher
    thread.join(10)
    assert result == [True]
    assert watcher.wait("m", 1, timeout=0.05) is False, "nothing past version 1 yet"
    store.close()
    elsewhere.close()


def test_a_store_that_does_not_answer_leaves_waits_to_time_out():
    store = open_store(f"redis://127.0.0.1:{free_port()}/0")  # nothing listens there
    watcher = Watcher(store, poll=0.01)
    started = time.monotonic()
    assert watcher.wait("m", 0, timeout=0.3) is False
    assert time.monotonic() - started >= 0.3
    store.close()
