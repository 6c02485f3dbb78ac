"""Paced bots at scale: N matches of four heuristic bots at the default pace, on one RQ worker,
then on the embedded default (bots in the serving process), side by side in one run.

A paced bot's move is recorded one pace after the event it answers, so a match makes at most
one move a pace: N matches allow N / pace moves a second. The figure is the moves made against
that rate, and the memory the process that holds the moves takes for each turn in flight.

    python -m bench pace          (PACE_MATCHES=40,200 and PACE_SECONDS=20 by default)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from harness.http import ROOT, Server, call, resident_mib, wait_until
from harness.redis_server import scratch_redis
from service.pacing import DEFAULT_PACE

COUNTS = [int(n) for n in os.environ.get("PACE_MATCHES", "40,200").split(",")]
SECONDS = float(os.environ.get("PACE_SECONDS", "20"))
BOTS = {"seats": [{"name": f"h{i}", "bot": "heuristic"} for i in range(4)],
        "rules": {"end_score": 10_000}}
MOVES = ("PassChosen", "CardPlayed", "MoonChosen")
PACE = DEFAULT_PACE["heuristic"]


def _moves(base: str, match_id: str, after: int) -> int:
    """The moves the match's log holds after version `after`."""
    count, path = 0, f"/v1/matches/{match_id}/events?after={after}&limit=1000"
    while path:
        page = call(base, "GET", path).body
        count += sum(1 for e in page["events"] if e["type"] in MOVES)
        path = page["next"] and page["next"].removeprefix(base)
    return count


def _versions(base: str, matches: list[str]) -> list[int]:
    return [call(base, "GET", f"/v1/matches/{m}").body["version"] for m in matches]


def measure(base: str, count: int, holder: Callable[[], float | None]) -> dict[str, float]:
    """Moves a second over SECONDS with `count` matches running, and the growth of the
    holding process's memory per match (one turn in flight each)."""
    before = holder() or 0.0
    matches = [call(base, "POST", "/v1/matches", BOTS).body["id"] for _ in range(count)]
    wait_until(lambda: all(v > 3 for v in _versions(base, matches)), timeout=120)
    start, began = _versions(base, matches), time.time()
    time.sleep(SECONDS)  # the window measured: matches run on their own
    during = holder() or 0.0
    made = sum(_moves(base, m, v) for m, v in zip(matches, start, strict=True))
    elapsed = time.time() - began
    rate = made / elapsed
    return {"rate": rate, "allowed": count / PACE, "ratio": rate / (count / PACE),
            "kib_per_turn": 1024 * max(0.0, during - before) / count}


def on_rq(count: int) -> dict[str, float]:
    with scratch_redis("cardems-pace-", fsync="everysec") as (_, redis):
        server = Server("--store", redis.url)
        worker = subprocess.Popen([sys.executable, "-m", "cli.main", "worker", "--store",
                                   redis.url], cwd=ROOT, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            return measure(server.base, count, lambda: resident_mib(worker.pid))
        finally:
            worker.terminate()
            worker.wait(30)
            server.stop()


def embedded(count: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder:
        server = Server("--store", f"sqlite:///{Path(folder) / 'pace.sqlite3'}")
        try:
            return measure(server.base, count, lambda: _serving_mib(server))
        finally:
            server.stop()


def _serving_mib(server: Server) -> float | None:
    from harness.http import children

    return sum(resident_mib(pid) or 0.0 for pid in children(server.process.pid)) or None


def main() -> None:
    print(f"paced bots: matches of four heuristic bots, pace {PACE} s, {SECONDS:.0f} s a run")
    for count in COUNTS:
        for name, run in (("1 RQ worker", on_rq), ("embedded", embedded)):
            got = run(count)
            print(f"  {count:>4} matches, {name:<12} {got['rate']:7.1f} moves/s of "
                  f"{got['allowed']:6.1f} allowed: {got['ratio']:.2f}; "
                  f"{got['kib_per_turn']:6.1f} KiB a turn in flight")
