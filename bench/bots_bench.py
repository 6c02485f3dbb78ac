"""Bot figures: decision time of each policy, and how soon bots answer a person's play, with
bots inline and on RQ with two workers."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from random import Random
from typing import Any

from domain.bots.base import bot_command
from domain.bots.levels import policy_named
from domain.commands import CreateMatch, Secret
from domain.decide import decide
from domain.events import SeatSpec
from domain.evolve import fold
from domain.rules import Rules
from domain.state import Status
from domain.views import seats_to_act, view_for
from harness.http import ROOT, Server, call
from harness.redis_server import scratch_redis


def decision_times(name: str, decisions: int = 3000) -> tuple[float, float]:
    policy = policy_named(name)
    rng = Random(4)
    times: list[float] = []
    while len(times) < decisions:
        secret = Secret(rng.randbytes(32))
        seats = tuple(SeatSpec(f"b{i}", name) for i in range(4))
        state = fold(decide(None, CreateMatch("m", seats, Rules(end_score=26), "", secret, "t")))
        while state is not None and state.status is not Status.FINISHED:
            seat = seats_to_act(state)[0]
            view = view_for(state, seat)
            start = time.perf_counter()
            command = bot_command(view, policy, rng, secret)
            times.append(time.perf_counter() - start)
            assert command is not None, "a seat on turn always has a move"
            state = fold(decide(state, command), state)
    times.sort()
    return statistics.median(times) * 1000, times[int(len(times) * 0.95)] * 1000


def reply_latency(base: str, plays: int = 60) -> tuple[float, float]:
    """From a person's play until the view shows the person to act again (three bot plays)."""
    seats = [{"name": "Ann"}, *({"name": f"b{i}", "bot": "heuristic"} for i in range(3))]
    samples: list[float] = []
    while len(samples) < plays:
        match = call(base, "POST", "/v1/matches", {"seats": seats}).body
        token, path = match["tokens"]["0"], f"/v1/matches/{match['id']}"
        while len(samples) < plays:
            view = wait_for_person(base, path, token)
            if view["status"] != "playing" or len(view["trick"]["plays"]) != 0:
                if not act(base, path, token, view):
                    break
                continue
            start = time.perf_counter()
            act(base, path, token, view)
            wait_for_person(base, path, token)
            samples.append(time.perf_counter() - start)
    samples.sort()
    return statistics.median(samples) * 1000, samples[int(len(samples) * 0.95)] * 1000


def wait_for_person(base: str, path: str, token: str, every: float = 0.001) -> dict[str, Any]:
    while True:
        view: dict[str, Any] = call(base, "GET", path, token=token).body
        if view["status"] == "finished" or 0 in view["to_act"]:
            return view
        time.sleep(every)


def act(base: str, path: str, token: str, view: dict) -> bool:
    if view["status"] == "finished":
        return False
    if view["status"] == "passing":
        call(base, "POST", path + "/passes", {"cards": view["you"]["hand"][:3]}, token=token)
    elif view["status"] == "playing":
        call(base, "POST", path + "/plays", {"card": view["you"]["legal"][0]}, token=token)
    else:
        call(base, "POST", path + "/moon", {"choice": "add_to_others"}, token=token)
    return True


def run() -> None:
    print("bots: decision time over positions of whole matches")
    for name, decisions in (("random", 3000), ("heuristic", 3000), ("expert", 600)):
        p50, p95 = decision_times(name, decisions)
        print(f"  {name:10s} p50 {p50:.3f} ms  p95 {p95:.3f} ms")
    with scratch_redis("cardems-bots-bench-") as (folder, redis):
        print("bots: a person leads; until the three bots' plays are visible (polling GET)")
        inline = Server("--store", f"sqlite:///{folder / 'inline.sqlite3'}", "--pace", "0")
        try:
            p50, p95 = reply_latency(inline.base)
            print(f"  inline, SQLite       p50 {p50:.1f} ms  p95 {p95:.1f} ms")
        finally:
            inline.stop()
        print(f"  RQ, 2 workers, queue on the store's Redis   {_on_rq(redis.url, redis.url)}")
        with scratch_redis("cardems-bots-queue-", fsync="everysec") as (_, queue):
            print(f"  RQ, 2 workers, queue on its own Redis       {_on_rq(redis.url, queue.url)}")


def _on_rq(store: str, queue: str) -> str:
    """Reply latency with bots on RQ: two `cardems worker`s, the queue on `queue`."""
    flags = ["--store", store, "--queue", queue, "--pace", "0"]  # the thinking alone
    server = Server(*flags)
    workers = [subprocess.Popen([sys.executable, "-m", "cli.main", "worker", *flags], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for _ in range(2)]
    try:
        p50, p95 = reply_latency(server.base)
        return f"p50 {p50:.1f} ms  p95 {p95:.1f} ms"
    finally:
        for worker in workers:
            worker.terminate()
            worker.wait()
        server.stop()


def main() -> None:
    run()


if __name__ == "__main__":
    main()
