"""Plays under concurrency on SQLite: clients each playing whole four-person matches over HTTP
against one serving process, with one transaction per append (the baseline) and with group
commit, side by side in one run.

    python -m bench play        (PLAY_SECONDS=8 per configuration by default)
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import os
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.http import Server

SPAWN = multiprocessing.get_context("spawn")
SECONDS = float(os.environ.get("PLAY_SECONDS", "8"))
PEOPLE = [{"name": n} for n in ("Ann", "Bob", "Cid", "Dee")]


def _call(conn: http.client.HTTPConnection, method: str, path: str, body: Any = None,
          token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    conn.request(method, path, None if body is None else json.dumps(body), headers)
    response = conn.getresponse()
    data = json.loads(response.read())
    if response.status >= 300:
        raise RuntimeError(f"{method} {path}: {response.status} {data}")
    return data


def _client(port: int, seed: int, start: float, until: float, queue: Any) -> None:
    """Plays matches of four people (all its own) until `until`; times each play's POST
    from `start` on (before it, the server and the client warm up)."""
    rng = random.Random(seed)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    plays: list[float] = []
    while time.time() < until:
        match = _call(conn, "POST", "/v1/matches", {"seats": PEOPLE})
        base = f"/v1/matches/{match['id']}"
        tokens = match["tokens"]
        view = match
        while time.time() < until and view["status"] != "finished":
            seat = view["to_act"][0]
            mine = _call(conn, "GET", base, token=tokens[str(seat)])["you"]
            if view["status"] == "passing":
                view = _call(conn, "POST", f"{base}/passes",
                             {"cards": rng.sample(mine["hand"], 3)}, tokens[str(seat)])
            elif view["status"] == "playing":
                began = time.perf_counter()
                view = _call(conn, "POST", f"{base}/plays", {"card": rng.choice(mine["legal"])},
                             tokens[str(seat)])
                if time.time() >= start:
                    plays.append(time.perf_counter() - began)
            else:
                view = _call(conn, "POST", f"{base}/moon", {"choice": "add_to_others"},
                             tokens[str(seat)])
    queue.put(plays)


def measure(port: int, clients: int) -> dict[str, float]:
    queue = SPAWN.Queue()
    start = time.time() + 2.0 + 0.1 * clients  # every client started before the clock
    until = start + SECONDS
    procs = [SPAWN.Process(target=_client, args=(port, c, start, until, queue))
             for c in range(clients)]
    for p in procs:
        p.start()
    plays = sorted(x for _ in procs for x in queue.get())
    for p in procs:
        p.join()
    return {"plays/s": len(plays) / SECONDS,
            "p50": 1000 * statistics.median(plays),
            "p99": 1000 * plays[int(len(plays) * 0.99) - 1], "max": 1000 * plays[-1]}


def run() -> None:
    print(f"play: clients playing four-person matches over HTTP, gunicorn, SQLite"
          f" ({SECONDS:.0f} s each)")
    with tempfile.TemporaryDirectory(prefix="cardems-play-bench-") as folder:
        results: dict[tuple[int, str, int], dict[str, float]] = {}
        for processes in (1, 2):
            for commit in ("each", "group"):
                name = f"{processes}-{commit}.sqlite3"
                url = f"sqlite:///{Path(folder) / name}?commit={commit}"
                server = Server("--store", url, "--bots", "off", "--workers", str(processes))
                try:
                    for clients in (4, 16):
                        fig = measure(server.port, clients)
                        results[processes, commit, clients] = fig
                        print(f"  {processes} process(es) commit={commit:5s} {clients:2d} clients"
                              f" {fig['plays/s']:6.0f} plays/s  p50 {fig['p50']:6.1f} ms"
                              f"  p99 {fig['p99']:6.1f} ms  max {fig['max']:7.1f} ms")
                finally:
                    server.stop()
        for processes in (1, 2):
            for commit in ("each", "group"):
                four = results[processes, commit, 4]
                sixteen = results[processes, commit, 16]
                print(f"  {processes} process(es) commit={commit}: plays/s at 16 clients / at 4"
                      f" = {sixteen['plays/s'] / four['plays/s']:.2f}")
            group, each = results[processes, "group", 16], results[processes, "each", 16]
            print(f"  {processes} process(es), 16 clients, group / each: p99"
                  f" {group['p99'] / each['p99']:.2f}, max {group['max'] / each['max']:.2f}")


def main() -> None:
    run()


if __name__ == "__main__":
    main()
