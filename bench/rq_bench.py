"""Bots on RQ against bots inline under load: matches of one person and three heuristic bots
played at once, each person answering as soon as it is its turn; the figure is the time from
a person's play until it is the person's turn again (three bot plays), side by side in one
run. The store is Redis in both; RQ's queue is on a Redis of its own, with two workers.

    python -m bench rq          (RQ_SECONDS=15 per configuration by default)
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time

from bench.bots_bench import act, wait_for_person
from harness.http import ROOT, Server, call
from harness.redis_server import scratch_redis

SECONDS = float(os.environ.get("RQ_SECONDS", "15"))
SEATS = [{"name": "Ann"}, *({"name": f"b{i}", "bot": "heuristic"} for i in range(3))]


def _person(base: str, until: float, samples: list[float]) -> None:
    """Plays matches as their one person until `until`, timing each reply of the bots."""
    while time.time() < until:
        match = call(base, "POST", "/v1/matches", {"seats": SEATS}).body
        token, path = match["tokens"]["0"], f"/v1/matches/{match['id']}"
        view = match
        while time.time() < until:
            view = wait_for_person(base, path, token, every=0.003)
            if view["status"] == "finished":
                break
            began = time.perf_counter()
            act(base, path, token, view)
            waited = wait_for_person(base, path, token, every=0.003)
            if view["status"] == "playing" and waited["status"] == "playing":
                samples.append(time.perf_counter() - began)


def _commands(url: str) -> int:
    """Commands the Redis at `url` has run so far."""
    import redis

    stats = redis.Redis.from_url(url).info("commandstats")
    return sum(int(v["calls"]) for v in stats.values())


def measure(base: str, matches: int) -> tuple[float, float, int]:
    samples: list[float] = []
    until = time.time() + SECONDS
    people = [threading.Thread(target=_person, args=(base, until, samples))
              for _ in range(matches)]
    for person in people:
        person.start()
    for person in people:
        person.join()
    samples.sort()
    return (1000 * statistics.median(samples), 1000 * samples[int(len(samples) * 0.95)],
            len(samples))


def run() -> None:
    print(f"rq: people each against three heuristic bots, all at once; a person's play until"
          f" its turn again ({SECONDS:.0f} s each)")
    with scratch_redis("cardems-rq-store-") as (_, store), \
            scratch_redis("cardems-rq-queue-", fsync="everysec") as (_, queue):
        results: dict[tuple[str, int], tuple[float, float, int]] = {}
        inline = Server("--store", store.url, "--bots", "inline", "--pace", "0")
        try:
            for matches in (8, 32):
                results["inline", matches] = measure(inline.base, matches)
        finally:
            inline.stop()
        flags = ["--store", store.url, "--queue", queue.url, "--pace", "0"]
        server = Server(*flags)
        workers = [subprocess.Popen([sys.executable, "-m", "cli.main", "worker", *flags],
                                    cwd=ROOT, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL) for _ in range(2)]
        commands = 0
        try:
            before = _commands(queue.url)
            for matches in (8, 32):
                results["rq", matches] = measure(server.base, matches)
            commands = _commands(queue.url) - before
        finally:
            for worker in workers:
                worker.terminate()
                worker.wait()
            server.stop()
        for matches in (8, 32):
            for how in ("inline", "rq"):
                p50, p95, count = results[how, matches]
                print(f"  {how:6s} {matches:2d} matches  p50 {p50:7.1f} ms  p95 {p95:7.1f} ms"
                      f"  ({count} replies)")
            ratio = results["rq", matches][0] / results["inline", matches][0]
            print(f"  {matches} matches: RQ p50 / inline p50 = {ratio:.2f}")
        moves = 3 * sum(results["rq", m][2] for m in (8, 32))  # three bot plays a reply
        print(f"  commands on the queue's Redis per bot play: {commands / moves:.1f}"
              " (passes and the plays of unfinished replies not counted: an upper bound)")


def main() -> None:
    run()


if __name__ == "__main__":
    main()
