"""Who computes bot turns: a small pool in the serving process, the embedded default (a
`service.bot_turns.Dispatcher`)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

log = logging.getLogger(__name__)

BotTurn = Callable[[str, int, int], object]


def job_id(match_id: str, seat: int, version: int) -> str:
    """One id per turn, so a turn enqueued twice runs once."""
    return f"bot_{match_id}_{seat}_{version}"


class InlineDispatcher:
    """Runs bot turns on a small thread pool beside the API, off the request thread."""

    name = "inline"

    def __init__(self, run: BotTurn, threads: int = 2) -> None:
        self._run = run
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="bot")
        self._pending: set[str] = set()
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)

    def enqueue(self, match_id: str, seat: int, version: int) -> None:
        key = job_id(match_id, seat, version)
        with self._lock:
            if key in self._pending:
                return
            self._pending.add(key)
        future = self._pool.submit(self._run, match_id, seat, version)
        future.add_done_callback(lambda f: self._done(key, f))

    def _done(self, key: str, future: Future[object]) -> None:
        error = future.exception()
        if error is not None:
            log.error("bot turn %s failed", key, exc_info=error)
        with self._lock:
            self._pending.discard(key)
            self._idle.notify_all()

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until no bot turn is pending (for tests and orderly shutdown)."""
        with self._lock:
            return self._idle.wait_for(lambda: not self._pending, timeout)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
