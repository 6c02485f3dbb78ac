"""Ready bot moves held until their due time, on one timer thread, while whoever made them
goes on to other turns.

A paced bot's move is chosen at once and recorded at its due time (its pace after the event it
answers), so that its timing tells nothing of its cards. Holding the move in the thread that
chose it kept that thread, or a whole RQ worker, asleep for the pace: one worker made a few
moves a second. Here a move waits in a heap instead, and one thread hands each to its
`deliver` when it falls due. A process killed with moves in hand loses no turn: the turn is
still marked as owed in the store, and the next sweep has it made again.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class Deliveries:
    """Calls each callback at its time, in order of time, on a thread of its own."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._heap: list[tuple[float, int, Callable[[], object]]] = []
        self._order = itertools.count()  # equal times keep the order they came in
        self._changed = threading.Condition()
        self._closed = False
        self._draining = False  # closing: no new move, the held ones delivered at their time
        self._thread: threading.Thread | None = None

    def at(self, due: float, deliver: Callable[[], object]) -> None:
        """Call `deliver` once `due` (seconds since the epoch) has come."""
        with self._changed:
            if self._closed or self._draining:
                return
            heapq.heappush(self._heap, (due, next(self._order), deliver))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="bot-deliveries",
                                                daemon=True)
                self._thread.start()
            self._changed.notify()

    def held(self) -> int:
        """Moves waiting for their time."""
        with self._changed:
            return len(self._heap)

    def close(self, drain: float = 0.0) -> None:
        """Take no more moves, deliver those due within `drain` seconds at their time, and
        return once they are delivered. A paced move is due within its pace (a second at
        most), so a graceful stop given that long loses none; a move due later is dropped,
        and made again by whoever sweeps next."""
        with self._changed:
            last = self._clock() + drain
            self._draining = True
            self._heap = [held for held in self._heap if held[0] <= last]
            heapq.heapify(self._heap)
            self._changed.notify()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(drain + 5.0)  # a delivery is a store write: bounded, never endless
        with self._changed:
            self._closed = True
            self._heap.clear()
            self._changed.notify()

    def _next(self) -> Callable[[], object] | None:
        with self._changed:
            while not self._closed:
                if self._heap:
                    wait = self._heap[0][0] - self._clock()
                    if wait <= 0:
                        return heapq.heappop(self._heap)[2]
                    self._changed.wait(wait)
                elif self._draining:
                    return None  # every move due before the stop is delivered
                else:
                    self._changed.wait()
            return None

    def _run(self) -> None:
        while (deliver := self._next()) is not None:
            try:
                deliver()
            except Exception:
                log.exception("a held bot move could not be delivered")
