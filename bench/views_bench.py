"""Reads at the cost of their JSON: each read endpoint's throughput beside the same server's
/healthz in one wrk run (wrk from Debian's packages), and the cost per view of the schema
dump the replies no longer go through, beside the JSON writers.

    python -m bench views       (VIEWS_ROUNDS=3 rounds of VIEWS_SECONDS=3 per endpoint)
    python -m bench checks      (audits and verifications at 60 and 15,000 events)

Each read is measured in rounds, /healthz just before it in each round, and the median of
the rounds' ratios is its figure: on a shared machine a single pair of runs moves by a tenth
either way.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from random import Random

import orjson

from api.responses import MatchViewOut
from bench.api_bench import played_to, timed_gets
from domain.views import view_for, view_json
from eventstore import open_store
from harness.http import Server, call
from service import MatchService

SECONDS = int(os.environ.get("VIEWS_SECONDS", "3"))
ROUNDS = int(os.environ.get("VIEWS_ROUNDS", "3"))
LONG_MATCH = int(os.environ.get("CHECKS_EVENTS", "15000"))


def wrk(url: str, token: str | None = None, connections: int = 16) -> float:
    """Requests per second, as wrk counts them (one thread, `connections` keep-alive)."""
    command = ["wrk", "-t1", f"-c{connections}", f"-d{SECONDS}s", url]
    if token:
        command[1:1] = ["-H", f"Authorization: Bearer {token}"]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in out:
        raise RuntimeError(f"{url} answered errors:\n{out}")
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]


def per_call(work: Callable[[], object], repeat: int = 2000) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat):
            work()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best * 1e6


def bench_store(name: str) -> tuple[Path, str, MatchService]:
    """A scratch folder with a SQLite store in it, and a service on that store."""
    if shutil.which("wrk") is None:
        raise SystemExit(f"bench {name} needs wrk (apt-get install wrk)")
    folder = Path(tempfile.mkdtemp(prefix=f"cardems-{name}-bench-"))
    url = f"sqlite:///{folder / 'bench.sqlite3'}"
    return folder, url, MatchService(open_store(url))


def run() -> None:
    folder, url, game = bench_store("views")
    store = game.store
    match_id, token = played_to(game, 200, Random(5))
    state = game.load(match_id)
    view, version = view_json(view_for(state, 0)), state.version
    schema = MatchViewOut()
    print(f"views: one {len(orjson.dumps(view)):,}-byte view as a seat, per call")
    print(f"  marshmallow dump   {per_call(lambda: schema.dump(view)):7.1f} µs")
    print(f"  json.dumps         {per_call(lambda: json.dumps(view)):7.1f} µs")
    print(f"  orjson.dumps       {per_call(lambda: orjson.dumps(view)):7.1f} µs")
    store.close()
    server = Server("--store", url, "--bots", "off")
    base = server.base
    reads = {
        "GET view as a seat": (f"{base}/v1/matches/{match_id}", token),
        "GET view as a spectator": (f"{base}/v1/matches/{match_id}", None),
        "GET replay/100": (f"{base}/v1/matches/{match_id}/replay/100", token),
        "GET events?limit=100": (f"{base}/v1/matches/{match_id}/events?limit=100", token),
        "GET audit of a trick": (f"{base}/v1/matches/{match_id}/rounds/1/tricks/5", token),
    }
    try:
        print(f"views: wrk -t1 -c16 -d{SECONDS}s, one gunicorn process, against /healthz"
              f" measured just before each; the median of {ROUNDS} rounds")
        wrk(f"{base}/healthz")  # warm
        for name, (target, who) in reads.items():
            rounds = []
            for _ in range(ROUNDS):
                health = wrk(f"{base}/healthz")
                rounds.append((wrk(target, who) / health, health))
            ratio, health = sorted(rounds)[len(rounds) // 2]
            spread = ", ".join(f"{r:.2f}" for r, _ in rounds)
            print(f"  {name:24s} {ratio * health:8.0f} req/s   /healthz {health:8.0f} req/s"
                  f"   ratio {ratio:.2f} (rounds {spread})")
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    assert version > 100


def checks() -> None:
    """An audit and a verification of a 15,000-event match against a 60-event one, side by
    side, and a seat's view while eight connections ask for the long match's report."""
    folder, url, game = bench_store("checks")
    store = game.store
    started = time.perf_counter()
    long_id, long_token = played_to(game, LONG_MATCH, Random(7), end_score=10_000)
    short_id, short_token = played_to(game, 60, Random(8))
    late = game.load(long_id).rounds_dealt - 1
    print(f"checks: a match of {game.load(long_id).version:,} events ({late + 1} rounds) and"
          f" one of {game.load(short_id).version}, played in"
          f" {time.perf_counter() - started:.0f} s")
    store.close()
    server = Server("--store", url, "--bots", "off")
    base = server.base
    try:
        cold = []
        for match_id in (short_id, long_id):  # the first report walks the whole log
            start = time.perf_counter()
            assert call(base, "GET", f"/v1/matches/{match_id}/verify").body["ok"]
            cold.append((time.perf_counter() - start) * 1000)
        print(f"  first report, walking the whole log: {cold[0]:.1f} ms at 60 events,"
              f" {cold[1]:.1f} ms at {LONG_MATCH:,}")
        pairs = {
            "audit of trick 5": (f"/v1/matches/{short_id}/rounds/1/tricks/5",
                                 f"/v1/matches/{long_id}/rounds/{late}/tricks/5"),
            "verify": (f"/v1/matches/{short_id}/verify", f"/v1/matches/{long_id}/verify"),
            "replay, late": (f"/v1/matches/{short_id}/replay/55",
                             f"/v1/matches/{long_id}/replay/{LONG_MATCH - 5}"),
        }
        print(f"  wrk -t1 -c16 -d{SECONDS}s, one gunicorn process, short then long in each of"
              f" {ROUNDS} rounds; aim: the long within 2x of the short (ratio at least 0.5)")
        for name, (short, long) in pairs.items():
            rounds = []
            for _ in range(ROUNDS):
                fast = wrk(base + short, short_token)
                slow = wrk(base + long, long_token)
                rounds.append((slow / fast, fast, slow))
            ratio, fast, slow = sorted(rounds)[len(rounds) // 2]
            spread = ", ".join(f"{r:.2f}" for r, _, _ in rounds)
            print(f"  {name:18s} 60 events {fast:7.0f} req/s   {LONG_MATCH:,} events"
                  f" {slow:7.0f} req/s   ratio {ratio:.2f} (rounds {spread})")
        print("  a seat's view (1,000 in a row) while 8 other connections ask for something"
              " without pause; aim: p99 under 20 ms while they ask for reports")
        for name, path in (("nothing", None), ("/healthz", "/healthz"),
                           ("the long match's report", f"/v1/matches/{long_id}/verify")):
            p50, p99 = view_beside(server.port, short_id, short_token,
                                   None if path is None else base + path)
            print(f"    beside {name:25s} p50 {p50:5.1f} ms   p99 {p99:5.1f} ms")
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def view_beside(port: int, match_id: str, token: str, hammered: str | None,
                ) -> tuple[float, float]:
    """A seat's view's p50 and p99 (ms) while wrk's eight connections ask for `hammered`."""
    hammer = None if hammered is None else subprocess.Popen(
        ["wrk", "-t1", "-c8", "-d60s", hammered], stdout=subprocess.DEVNULL)
    try:
        time.sleep(0.5)  # let the eight connections get going
        times = sorted(timed_gets(port, match_id, token, 1000))
    finally:
        if hammer is not None:
            hammer.terminate()
            hammer.wait()
    return times[len(times) // 2] * 1000, times[int(len(times) * 0.99)] * 1000


def main() -> None:
    run()


if __name__ == "__main__":
    main()
