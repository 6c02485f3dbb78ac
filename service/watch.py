"""Live subscribers learn of new events from one watcher per process, not one store query each.

Appends made by this process wake their match's subscribers at once. Appends made by other
processes (other API workers, RQ workers) are found by a single poll of every watched match's
version, one store round trip for all of them, every `POLL_SECONDS` while anyone watches.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from eventstore import EventStore, StoreError

log = logging.getLogger(__name__)

POLL_SECONDS = 0.1


class Watcher:
    """The last version seen of each watched match, and a condition to wait on for a newer one."""

    def __init__(self, store: EventStore, poll: float = POLL_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.poll = poll
        self._clock = clock
        self._lock = threading.Lock()
        self._watching: dict[str, int] = {}  # match -> how many subscribers wait on it
        self._changed: dict[str, threading.Condition] = {}  # match -> its subscribers' wake-up
        self._versions: dict[str, int] = {}  # match -> the last version seen
        self._poller: threading.Thread | None = None

    def appended(self, match_id: str, version: int) -> None:
        """This process appended up to `version`: wake the match's subscribers now."""
        with self._lock:
            self._saw(match_id, version)

    def _saw(self, match_id: str, version: int) -> None:
        if match_id in self._watching and version > self._versions.get(match_id, 0):
            self._versions[match_id] = version
            self._changed[match_id].notify_all()

    def wait(self, match_id: str, after: int, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the match to pass version `after`; True if it has
        (as far as the last poll knows: the caller reads the events themselves)."""
        deadline = self._clock() + timeout
        with self._lock:
            self._watching[match_id] = self._watching.get(match_id, 0) + 1
            changed = self._changed.setdefault(match_id, threading.Condition(self._lock))
            self._ensure_poller()
            try:
                while self._versions.get(match_id, 0) <= after:
                    left = deadline - self._clock()
                    if left <= 0:
                        return False
                    changed.wait(left)
                return True
            finally:
                self._watching[match_id] -= 1
                if not self._watching[match_id]:
                    del self._watching[match_id], self._changed[match_id]
                    self._versions.pop(match_id, None)

    def subscribers(self) -> int:
        with self._lock:
            return sum(self._watching.values())

    def _ensure_poller(self) -> None:
        if self._poller is None or not self._poller.is_alive():
            self._poller = threading.Thread(target=self._poll_forever, name="watcher",
                                            daemon=True)
            self._poller.start()

    def _poll_forever(self) -> None:
        while True:
            with self._lock:
                watched = list(self._watching)
                if not watched:
                    self._poller = None
                    return
            try:
                found = self.store.versions(watched)
            except StoreError:
                log.warning("the watcher could not read versions; trying again", exc_info=True)
                found = {}
            with self._lock:
                for match_id, version in found.items():
                    self._saw(match_id, version)
            time.sleep(self.poll)
