"""Reads at the cost of their JSON: each read endpoint's throughput beside the same server's
/healthz in one wrk run (wrk from Debian's packages), and the cost per view of the schema
dump the replies no longer go through, beside the JSON writers.

    python -m bench views       (VIEWS_ROUNDS=3 rounds of VIEWS_SECONDS=3 per endpoint)

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
from bench.api_bench import played_to
from eventstore import open_store
from service import MatchService
from tests.http import Server

SECONDS = int(os.environ.get("VIEWS_SECONDS", "3"))
ROUNDS = int(os.environ.get("VIEWS_ROUNDS", "3"))


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


def run() -> None:
    if shutil.which("wrk") is None:
        raise SystemExit("bench views needs wrk (apt-get install wrk)")
    folder = Path(tempfile.mkdtemp(prefix="cardems-views-bench-"))
    url = f"sqlite:///{folder / 'bench.sqlite3'}"
    store = open_store(url)
    game = MatchService(store)
    match_id, token = played_to(game, 200, Random(5))
    view, version = game.view(match_id, 0)
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


def main() -> None:
    run()


if __name__ == "__main__":
    main()
