"""HTTP figures: GET /v1/matches/{id} on a short match against a long one, over a real server."""

from __future__ import annotations

import http.client
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from random import Random

from domain.events import SeatSpec
from domain.rules import Rules
from eventstore import open_store
from harness.http import Server
from harness.play import random_move
from service import MatchService

PEOPLE = [SeatSpec(n) for n in ("Ann", "Bob", "Cid", "Dee")]


def played_to(game: MatchService, version: int, rng: Random,
              end_score: int = 1000) -> tuple[str, str]:
    """A match of four people moved at random until it holds `version` events."""
    created = game.create(PEOPLE, Rules(end_score=end_score))
    match_id = created.match.id
    while game.load(match_id).version < version:
        assert random_move(game, match_id, rng) is not None, "the match ended before"
    return match_id, created.tokens[0]


def timed_gets(port: int, match_id: str, token: str, count: int) -> list[float]:
    conn = http.client.HTTPConnection("127.0.0.1", port)
    headers = {"Authorization": f"Bearer {token}"}
    out = []
    for _ in range(count):
        start = time.perf_counter()
        conn.request("GET", f"/v1/matches/{match_id}", headers=headers)
        response = conn.getresponse()
        response.read()
        out.append(time.perf_counter() - start)
        assert response.status == 200
    conn.close()
    return out


def run(count: int = 1000) -> None:
    folder = Path(tempfile.mkdtemp(prefix="cardems-api-bench-"))
    url = f"sqlite:///{folder / 'bench.sqlite3'}"
    store = open_store(url)
    game = MatchService(store)
    rng = Random(3)
    short = played_to(game, 60, rng)
    long = played_to(game, 1200, rng)
    versions = (game.load(short[0]).version, game.load(long[0]).version)
    store.close()
    server = Server("--store", url, "--pace", "0")
    try:
        timed_gets(server.port, *short, 50)
        timed_gets(server.port, *long, 50)
        samples: dict[str, list[float]] = {"short": [], "long": []}
        for _ in range(5):  # interleaved, so both see the same machine
            samples["short"] += timed_gets(server.port, *short, count // 5)
            samples["long"] += timed_gets(server.port, *long, count // 5)
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
    p50 = {k: statistics.median(v) * 1000 for k, v in samples.items()}
    p95 = {k: sorted(v)[int(len(v) * 0.95)] * 1000 for k, v in samples.items()}
    print("api: GET /v1/matches/{id} as a seat, gunicorn 1 process, keep-alive client")
    print(f"  at event {versions[0]:5d}: p50 {p50['short']:.2f} ms  p95 {p95['short']:.2f} ms")
    print(f"  at event {versions[1]:5d}: p50 {p50['long']:.2f} ms  p95 {p95['long']:.2f} ms")
    print(f"  ratio long / short: p50 {p50['long'] / p50['short']:.2f}"
          f"  p95 {p95['long'] / p95['short']:.2f}")


def main() -> None:
    run()


if __name__ == "__main__":
    main()
