"""Who computes bot turns: pools of threads in the serving process, the embedded default (a
`service.bot_turns.Dispatcher`)."""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

BotTurn = Callable[[str, int, int], object]
# match, round, pause between decisions, and where each decision's judging runs
Analyse = Callable[[str, int, Callable[[], None], Callable[[Callable[[], Any]], Any]], object]
Turn = tuple[str, int, int]  # match, seat, version


class Closing(Exception):
    """The dispatcher is closing: the analysis under way stops (the sweep of the next start
    hands its round on again)."""


def off_the_loop(work: Callable[[], Any]) -> Any:
    """Runs `work`, long and CPU-bound, where it cannot hold up the process's other green
    threads. Served by gevent, everything here is a green thread on one loop: the work goes
    to a real thread of gevent's pool, and the loop serves requests and bot turns meanwhile
    (they share the interpreter, a few milliseconds at a time). Anywhere else, here."""
    if "gevent" in sys.modules:
        from gevent import get_hub, monkey

        if monkey.is_module_patched("threading"):
            return get_hub().threadpool.apply(work)
    return work()


def job_id(match_id: str, seat: int, version: int) -> str:
    """One id per turn, so a turn enqueued twice runs once."""
    return f"bot_{match_id}_{seat}_{version}"


class TurnQueue:
    """Pending turns, the matches taking turns: one turn of each match, round and round, so
    that no match waits behind another's whole backlog."""

    def __init__(self) -> None:
        self._matches: OrderedDict[str, deque[Turn]] = OrderedDict()

    def put(self, turn: Turn) -> None:
        self._matches.setdefault(turn[0], deque()).append(turn)

    def take(self) -> Turn | None:
        if not self._matches:
            return None
        match_id, turns = self._matches.popitem(last=False)
        turn = turns.popleft()
        if turns:
            self._matches[match_id] = turns  # to the back of the line
        return turn

    def size(self) -> int:
        return sum(len(turns) for turns in self._matches.values())

    def clear(self) -> list[Turn]:
        left = [turn for turns in self._matches.values() for turn in turns]
        self._matches.clear()
        return left


class InlineDispatcher:
    """Runs bot turns beside the API, off the request thread. A turn that a person waits on
    goes to a pool of its own, so that no number of matches of bots alone delays it; each
    pool takes its matches in turn."""

    name = "inline"

    def __init__(self, run: BotTurn, threads: int = 2, analyse: Analyse | None = None) -> None:
        self._run = run
        self._analyse = analyse
        self._rounds: deque[tuple[str, int]] = deque()  # analyses queued, oldest first
        self._queues = {True: TurnQueue(), False: TurnQueue()}  # urgent or not
        self._pending: set[str] = set()  # queued or running
        self._lock = threading.Lock()
        self._ready = {urgent: threading.Condition(self._lock) for urgent in (True, False)}
        self._idle = threading.Condition(self._lock)
        self._round_ready = threading.Condition(self._lock)
        self._closed = False
        self._threads = [threading.Thread(target=self._work, args=(urgent,), daemon=True,
                                          name=f"bot-{'person' if urgent else 'bots'}-{i}")
                         for urgent in (True, False) for i in range(threads)]
        if analyse is not None:
            self._threads.append(threading.Thread(target=self._analyse_rounds, daemon=True,
                                                  name="analysis"))
        for thread in self._threads:
            thread.start()

    def enqueue(self, match_id: str, seat: int, version: int, urgent: bool = False,
                attempt: int = 0) -> None:
        """Queue a turn once, whatever its attempt (a turn handed on again by a sweep is not
        queued again while this process has it queued or running); `urgent` when a person
        waits on it."""
        key = job_id(match_id, seat, version)
        with self._lock:
            if key in self._pending or self._closed:
                return
            self._pending.add(key)
            self._queues[urgent].put((match_id, seat, version))
            self._ready[urgent].notify()

    def _work(self, urgent: bool) -> None:
        queue, ready = self._queues[urgent], self._ready[urgent]
        while True:
            with self._lock:
                while (turn := None if self._closed else queue.take()) is None:
                    if self._closed:
                        return
                    ready.wait()
            try:
                self._run(*turn)
            except Exception:
                log.exception("bot turn %s failed", job_id(*turn))
            finally:
                with self._lock:
                    self._pending.discard(job_id(*turn))
                    self._idle.notify_all()

    def analyse(self, match_id: str, number: int) -> None:
        """Queue one round's analysis once: its thread computes it while no bot turn waits."""
        with self._lock:
            if (match_id, number) in self._rounds or self._closed:
                return
            self._rounds.append((match_id, number))
            self._round_ready.notify()

    def _analyse_rounds(self) -> None:
        assert self._analyse is not None
        while True:
            with self._lock:
                while not self._rounds:
                    if self._closed:
                        return
                    self._round_ready.wait()
                match_id, number = self._rounds[0]
            try:
                self._analyse(match_id, number, self._bots_first, off_the_loop)
            except Closing:
                return
            except Exception:
                log.exception("the analysis of %s round %s failed", match_id, number)
            with self._lock:
                self._rounds.popleft()

    def _bots_first(self) -> None:
        """Between two decisions of an analysis: wait while any bot turn is queued or being
        thought over here. Bot turns go first; the analysis takes the time left."""
        time.sleep(0)  # a green thread gives the loop its turn, whatever waits
        with self._lock:
            self._idle.wait_for(lambda: not self._pending or self._closed)
            if self._closed:
                raise Closing

    def waiting(self) -> dict[str, int]:
        """Turns queued and not yet begun, by queue (this process's)."""
        with self._lock:
            return {"person" if urgent else "bots": queue.size()
                    for urgent, queue in self._queues.items()}

    def pending(self) -> int:
        """Turns queued or running in this process."""
        with self._lock:
            return len(self._pending)

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until no bot turn is pending (for tests and orderly shutdown)."""
        with self._lock:
            return self._idle.wait_for(lambda: not self._pending, timeout)

    def close(self) -> None:
        """Stop taking turns and wait for those running; those queued and not begun are left
        to the sweeper of the next start (the store marks every match that waits on a bot)."""
        with self._lock:
            self._closed = True
            for urgent, queue in self._queues.items():
                for turn in queue.clear():
                    self._pending.discard(job_id(*turn))
                self._ready[urgent].notify_all()
            self._idle.notify_all()
            self._round_ready.notify_all()
        for thread in self._threads:
            thread.join(timeout=30)
