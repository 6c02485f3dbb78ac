"""Group commit: the writes of every thread of a process, gathered into one transaction.

A caller queues its write and waits. The first caller to find no commit under way leads: it
takes everything queued, runs each write in a savepoint of one transaction, commits once (one
fsync for the lot), then wakes each caller with its own result and hands the lead to the
first caller still waiting, which takes what gathered meanwhile. A write that fails (a stale
expected version) fails alone; a commit that fails fails every write of its batch. No caller
is acknowledged before its commit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

Step = Callable[[Any], Any]  # a write on the batch's connection; returns the caller's result


class Write:
    """A queued write. Its caller sleeps on `_asleep`, a lock held from the start that only
    the wake releases: a lock is the cheapest hand-off between threads (an Event builds a
    Condition and a second lock for every wait), and 16 threads hand off 16 times a batch."""

    __slots__ = ("_asleep", "error", "lead", "result", "step")

    def __init__(self, step: Step) -> None:
        self.step = step
        self._asleep = threading.Lock()
        self._asleep.acquire()
        self.lead = False  # woken to lead the next batch, not with a result
        self.result: Any = None
        self.error: BaseException | None = None

    def sleep(self) -> None:
        self._asleep.acquire()  # until wake() releases it

    def wake(self) -> None:
        self._asleep.release()


class GroupCommit:
    """`commit(batch)` runs the writes of a batch in one transaction (see SqliteStore)."""

    def __init__(self, commit: Callable[[list[Write]], None]) -> None:
        self._commit = commit
        self._lock = threading.Lock()
        self._queue: list[Write] = []
        self._leading = False
        self.batches = 0  # transactions committed, for the tests and the benchmarks
        self.writes = 0

    def run(self, step: Step) -> Any:
        write = Write(step)
        with self._lock:
            self._queue.append(write)
            lead = not self._leading
            self._leading = True
        if not lead:
            write.sleep()
            if not write.lead:
                return _outcome(write)
            write.lead = False
        self._lead(write)
        return _outcome(write)

    def _lead(self, own: Write) -> None:
        """Commits everything queued (our own write with it), then passes the lead on."""
        with self._lock:
            batch, self._queue = self._queue, []
        try:
            self._commit(batch)
        except BaseException as exc:  # the whole batch fails with its commit
            for write in batch:
                write.result, write.error = None, write.error or exc
        self.batches += 1
        self.writes += len(batch)
        for write in batch:
            if write is not own:
                write.wake()
        with self._lock:
            if not self._queue:
                self._leading = False
                return
            following = self._queue[0]
        following.lead = True  # it takes what gathered meanwhile, itself included
        following.wake()


def _outcome(write: Write) -> Any:
    if write.error is not None:
        raise write.error
    return write.result
