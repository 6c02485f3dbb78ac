"""The schedule of turns owed, read by due time: what a sweep costs when many matches wait
and few are overdue, side by side with reading every waiting match and keeping the overdue.

Each store holds N matches that owe a bot's move, one in a hundred of them overdue; a sweep
asks for the overdue ones. `due` reads them from the index by due time; `marked` lists every
match that waits, as the sweeps did before the schedule had times, and filters them here.

    python -m bench schedule          (SCHEDULE_MATCHES=2000,20000 by default)
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from eventstore import EventStore, due_time, open_store
from harness.redis_server import scratch_redis
from service.waiting import BOT_WAIT, OwedTurn

COUNTS = [int(n) for n in os.environ.get("SCHEDULE_MATCHES", "2000,20000").split(",")]
OVERDUE_SHARE = 100  # one match in this many is overdue
RUNS = 15


def _fill(store: EventStore, count: int, now: float) -> None:
    """`count` matches owing a move: one in OVERDUE_SHARE due ten seconds ago, the rest
    within their pace from now. Written from 32 threads, so that SQLite's group commit
    gathers them."""
    def owe(n: int) -> None:
        due = now - 10 if n % OVERDUE_SHARE == 0 else now + 0.5 + n % 7 / 10
        store.put_meta(f"m{n:06d}", BOT_WAIT, OwedTurn(due, 10).text())

    with ThreadPoolExecutor(32) as pool:
        list(pool.map(owe, range(count)))


def _median_ms(read: Callable[[], int], expected: int) -> float:
    took = []
    for _ in range(RUNS):
        began = time.perf_counter()
        found = read()
        took.append((time.perf_counter() - began) * 1000)
        assert found == expected, (found, expected)
    return statistics.median(took)


def _measure(name: str, store: EventStore, count: int) -> None:
    now = time.time()
    _fill(store, count, now)
    overdue = len(range(0, count, OVERDUE_SHARE))

    def by_time() -> int:
        return len(store.due(BOT_WAIT, now))

    def every_one() -> int:
        return sum(1 for value in store.marked(BOT_WAIT).values() if due_time(value) <= now)

    scheduled, listed = _median_ms(by_time, overdue), _median_ms(every_one, overdue)
    print(f"  {name:7s} {count:6,d} owed, {overdue:4d} overdue: by due time "
          f"{scheduled:8.2f} ms, every waiting match {listed:8.2f} ms "
          f"({listed / scheduled:5.1f}x)")


def main() -> None:
    print(f"bench schedule: a sweep's read of the overdue turns (median of {RUNS})")
    for count in COUNTS:
        with tempfile.TemporaryDirectory(prefix="cardems-schedule-") as folder:
            store = open_store(f"sqlite:///{Path(folder) / 'events.sqlite3'}")
            try:
                _measure("sqlite", store, count)
            finally:
                store.close()
        with scratch_redis("cardems-schedule-") as (_, server):
            store = open_store(server.url)
            try:
                _measure("redis", store, count)
            finally:
                store.close()


if __name__ == "__main__":
    main()
