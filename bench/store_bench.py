"""Event store figures: appends per second and latency on each backend, beside redis-benchmark's
XADD on the same server; SQLite shared by the threads, then by the green threads, of one
process; and the cost of reading and folding a long match."""

from __future__ import annotations

import json
import multiprocessing
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

from domain.evolve import fold
from eventstore import NewEvent, open_store
from harness.redis_server import scratch_redis
from service import decode

SPAWN = multiprocessing.get_context("spawn")
EventFlag = Any  # a spawn context's Event: its class is made at run time
EVENT = {"seat": 2, "card": "QS", "bot": "heuristic/1"}


def _client(url: str, stream: str, count: int, queue: multiprocessing.Queue,
            go: EventFlag) -> None:
    store = open_store(url)
    store.version(stream)  # connect before the clock starts
    latencies = []
    go.wait()
    for version in range(count):
        start = time.perf_counter()
        store.append(stream, [NewEvent("CardPlayed", EVENT, "2026-12-02T12:00:00.000Z")],
                     version)
        latencies.append(time.perf_counter() - start)
    finished = time.time()
    store.close()
    queue.put((latencies, finished))


def appends(url: str, clients: int, count: int) -> dict[str, float]:
    """`clients` processes, each appending `count` single events to its own stream."""
    queue: multiprocessing.Queue = SPAWN.Queue()
    go = SPAWN.Event()
    procs = [SPAWN.Process(target=_client, args=(url, f"bench-{clients}-{c}", count, queue, go))
             for c in range(clients)]
    for p in procs:
        p.start()
    time.sleep(2.0 + 0.2 * clients)  # every client started and connected
    start = time.time()
    go.set()
    results = [queue.get() for _ in procs]
    latencies = [x for lat, _ in results for x in lat]
    elapsed = max(end for _, end in results) - start
    for p in procs:
        p.join()
    latencies.sort()
    return {"appends/s": len(latencies) / elapsed,
            "p50 ms": 1000 * statistics.median(latencies),
            "p99 ms": 1000 * latencies[int(len(latencies) * 0.99) - 1],
            "max ms": 1000 * latencies[-1]}


def appends_in_threads(url: str, threads: int, count: int) -> dict[str, float]:
    """`threads` threads of one process sharing one store, each appending `count` single
    events to its own stream: a threaded server's case (`cardems serve --dev`), where the
    appends of threads waiting at once share a commit."""
    import threading

    store = open_store(url)
    latencies: list[float] = []
    go = threading.Barrier(threads + 1)

    def client(c: int) -> None:
        stream = f"bench-threads-{threads}-{c}"
        store.version(stream)
        go.wait()
        mine = []
        for version in range(count):
            start = time.perf_counter()
            store.append(stream, [NewEvent("CardPlayed", EVENT, "2026-12-02T12:00:00.000Z")],
                         version)
            mine.append(time.perf_counter() - start)
        latencies.extend(mine)

    workers = [threading.Thread(target=client, args=(c,)) for c in range(threads)]
    for w in workers:
        w.start()
    go.wait()
    start, used = time.perf_counter(), _cpu()
    for w in workers:
        w.join()
    elapsed, used = time.perf_counter() - start, _cpu() - used
    store.close()
    latencies.sort()
    return {"appends/s": len(latencies) / elapsed,
            "p50 ms": 1000 * statistics.median(latencies),
            "p99 ms": 1000 * latencies[int(len(latencies) * 0.99) - 1],
            "cpu µs": 1e6 * used / len(latencies)}


def appends_in_green_threads(url: str, green_threads: int, count: int) -> dict[str, float]:
    """The same from green threads of one gevent process (the serving process's case), in a
    process of its own (bench/store_green.py)."""
    output = subprocess.run([sys.executable, "-m", "bench.store_green", url, str(green_threads),
                             str(count)], capture_output=True, text=True, check=True).stdout
    figures: dict[str, float] = json.loads(output)
    return figures


def _cpu() -> float:
    """This process's processor time so far, user and system, every thread."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def redis_benchmark_xadd(port: int, clients: int, requests: int) -> float:
    """XADD operations per second as redis-benchmark measures them on the same server."""
    output = subprocess.run(
        ["redis-benchmark", "-p", str(port), "-c", str(clients), "-n", str(requests), "--csv",
         "XADD", "bench-xadd", "*", "type", "CardPlayed", "data", "x" * 60],
        capture_output=True, text=True, check=True).stdout
    row = [line for line in output.splitlines() if line.startswith('"XADD')][-1]
    return float(row.split('","')[1])


def read_and_fold(url: str, events: list, repeat: int = 20) -> float:
    from domain.codec import event_type, to_data

    store = open_store(url)
    new = [NewEvent(event_type(e), to_data(e), "2026-12-02T12:00:00.000Z") for e in events]
    store.append("long-match", new, 0)
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fold(decode(e) for e in store.read("long-match"))
        best = min(best, time.perf_counter() - start)
    store.close()
    return best


def long_match(min_events: int = 1200) -> list:
    from random import Random

    from domain.bots.autoplay import play_out
    from domain.bots.levels import policy_named
    from domain.commands import CreateMatch, Secret
    from domain.events import SeatSpec
    from domain.rules import Rules

    rng = Random(12)
    command = CreateMatch("long", tuple(SeatSpec(f"b{i}", "heuristic") for i in range(4)),
                          Rules(end_score=250), "", Secret(rng.randbytes(32)), "t")
    events = play_out(command, [policy_named("heuristic")] * 4, rng)[1]
    assert len(events) >= min_events
    return events[:min_events]


def run() -> None:
    with scratch_redis("cardems-bench-") as (folder, redis):
        print("store: appends of one event with an expected version (fsync on every append)")
        sqlite_url = f"sqlite:///{folder / 'bench.sqlite3'}"
        for clients, count in ((1, 2000), (16, 300)):
            ours_redis = appends(redis.url, clients, count)
            xadd = redis_benchmark_xadd(redis.port, clients, clients * count)
            ours_sqlite = appends(sqlite_url, clients, count)
            for name, fig in (("sqlite", ours_sqlite), ("redis", ours_redis)):
                print(f"  {name:6s} {clients:2d} clients  {fig['appends/s']:9,.0f} appends/s"
                      f"  p50 {fig['p50 ms']:6.2f} ms  p99 {fig['p99 ms']:6.2f} ms"
                      f"  max {fig['max ms']:7.2f} ms")
            print(f"  redis-benchmark XADD {clients:2d} clients {xadd:9,.0f} ops/s;"
                  f" our redis appends / XADD = {ours_redis['appends/s'] / xadd:.2f}")
        print("store: SQLite, threads of one process sharing a store (a threaded server's case);"
              " one transaction per append against group commit")
        figures = {}
        for commit in ("each", "group"):
            for threads, count in ((1, 1000), (16, 200)):
                url = f"sqlite:///{folder / f'threads-{commit}.sqlite3'}?commit={commit}"
                fig = figures[commit, threads] = appends_in_threads(url, threads, count)
                print(f"  commit={commit:5s} {threads:2d} threads {fig['appends/s']:9,.0f}"
                      f" appends/s  p50 {fig['p50 ms']:6.2f} ms  p99 {fig['p99 ms']:6.2f} ms"
                      f"  processor {fig['cpu µs']:4.0f} µs an append")
        for commit in ("each", "group"):
            ratio = figures[commit, 16]["p99 ms"] / figures[commit, 1]["p99 ms"]
            rate = figures[commit, 16]["appends/s"] / figures[commit, 1]["appends/s"]
            print(f"  commit={commit}: 16 threads / 1: p99 x{ratio:.1f}, appends/s x{rate:.1f}")
        print("store: SQLite, green threads of one gevent process (the server's case), each"
              " yielding after its append; latency is a round, from one append's end to the next")
        green = {}
        for threads, count in ((1, 1000), (16, 200)):
            url = f"sqlite:///{folder / 'green.sqlite3'}"
            fig = green[threads] = appends_in_green_threads(url, threads, count)
            print(f"  {threads:2d} green threads {fig['appends/s']:9,.0f} appends/s"
                  f"  p50 {fig['p50 ms']:6.2f} ms  p99 {fig['p99 ms']:6.2f} ms"
                  f"  {fig['batch']:5.2f} appends a commit")
        print(f"  16 green threads / 1: p99 x{green[16]['p99 ms'] / green[1]['p99 ms']:.1f},"
              f" appends/s x{green[16]['appends/s'] / green[1]['appends/s']:.1f}")
        events = long_match()
        for name, url in (("sqlite", sqlite_url), ("redis", redis.url)):
            seconds = read_and_fold(url, events)
            print(f"  read and fold a {len(events)}-event match from {name}: "
                  f"{seconds * 1000:.1f} ms ({len(events) / seconds:,.0f} events/s)")


def main() -> None:
    run()


if __name__ == "__main__":
    main()
