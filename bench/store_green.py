"""Appends from green threads of one gevent process sharing a store: the serving process's
case (gunicorn's gevent workers). Run by `bench store` as its own process, because gevent
must patch the standard library before anything else imports it:

    python -m bench.store_green URL GREEN_THREADS COUNT    (prints its figures as JSON)

Each green thread appends single events to its own stream and yields after each, as a
request does when it writes its reply. The latency is a round's: from the end of a green
thread's append to the end of its next one, the wait for the other green threads included
(a green thread's append alone never waits: nothing else runs while it commits).
"""

from gevent import monkey

monkey.patch_all()

import json  # noqa: E402 - after the patching, as in the server
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import gevent  # noqa: E402

from eventstore import NewEvent, open_store  # noqa: E402
from eventstore.sqlite import SqliteStore  # noqa: E402

EVENT = {"seat": 2, "card": "QS", "bot": "heuristic/1"}


def appends(url: str, green_threads: int, count: int) -> dict[str, float]:
    store = open_store(url)
    assert isinstance(store, SqliteStore), "group commit is SQLite's"
    rounds: list[float] = []

    def client(c: int) -> None:
        stream = f"bench-green-{green_threads}-{c}"
        store.version(stream)
        gevent.sleep(0)  # every green thread connected before the first append
        last = time.perf_counter()
        for version in range(count):
            store.append(stream, [NewEvent("CardPlayed", EVENT, "2026-12-02T12:00:00.000Z")],
                         version)
            now = time.perf_counter()
            rounds.append(now - last)
            last = now
            gevent.sleep(0)  # the reply is written

    start = time.perf_counter()
    gevent.joinall([gevent.spawn(client, c) for c in range(green_threads)], raise_error=True)
    elapsed = time.perf_counter() - start
    group = store.group
    assert group is not None, "the store groups its commits"
    store.close()
    rounds.sort()
    return {"appends/s": len(rounds) / elapsed,
            "p50 ms": 1000 * statistics.median(rounds),
            "p99 ms": 1000 * rounds[int(len(rounds) * 0.99) - 1],
            "batch": group.writes / group.batches}


if __name__ == "__main__":
    url, green_threads, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    print(json.dumps(appends(url, green_threads, count)))
