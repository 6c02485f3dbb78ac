"""The analysis: how fast, how stable, and whether its numbers mean what they say.

- Speed: a finished match of four bots of about ten rounds, analysed on the embedded default
  (`cardems serve`, SQLite, the analysis on its own thread) and on RQ with two workers; the
  wall time, and each decision's time judged in the domain alone.
- Stability: the same decisions judged on two other sets of sampled deals.
- Calibration: rounds of matches where a random, a heuristic and an expert bot sit at one
  table (two heuristic seats), every decision judged: the mean loss per decision of each
  level, with 95% intervals of the gaps taken over rounds (the decisions of one round are not
  independent), and how often the expert's own move is judged the best.

Run: `.venv/bin/python -m bench analysis` (about eight minutes on two cores).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from random import Random
from typing import Any

from bench.figures import interval, quantile
from domain.analysis import Kind, judge, round_decisions
from domain.bots.base import bot_command
from domain.bots.levels import policy_named
from domain.commands import CreateMatch, Secret
from domain.decide import decide
from domain.events import Event, RoundScored, SeatSpec
from domain.evolve import fold
from domain.rules import Rules
from domain.state import Match
from domain.views import seats_to_act, view_for
from harness.http import ROOT, Server, call, wait_until
from harness.redis_server import scratch_redis

LEVELS = ("random", "heuristic", "expert", "heuristic")
SPEED_SEED = 22  # a match of ten rounds
CALIBRATION_ROUNDS = 48
STABILITY_ROUNDS = 2


def played_match(seed: int, levels: tuple[str, ...] = LEVELS, rules: Rules | None = None,
                 rounds: int | None = None) -> list[tuple[int, Event]]:
    """A match of bots played in the domain: its log, up to the end of round `rounds` (or of
    the match)."""
    rng = Random(seed)
    secret = Secret(rng.randbytes(32))
    seats = tuple(SeatSpec(f"{level}{i}", level) for i, level in enumerate(levels))
    policies = [policy_named(level) for level in levels]
    events = decide(None, CreateMatch("bench", seats, rules or Rules(), "", secret, "t"))
    log = list(enumerate(events, start=1))
    state: Match | None = fold(events)
    while state is not None and not state.is_over:
        seat = seats_to_act(state)[0]
        command = bot_command(view_for(state, seat), policies[seat], rng, secret)
        assert command is not None
        events = decide(state, command)
        log += [(state.version + i, e) for i, e in enumerate(events, start=1)]
        state = fold(events, state)
        if rounds and any(isinstance(e, RoundScored) and e.round == rounds for e in events):
            break
    return log


def rounds_of(log: list[tuple[int, Event]]) -> int:
    return sum(isinstance(e, RoundScored) for _, e in log)


# -- speed ------------------------------------------------------------------------------


def domain_speed(log: list[tuple[int, Event]]) -> dict[str, Any]:
    times: dict[str, list[float]] = {k.value: [] for k in Kind}
    start = time.perf_counter()
    for number in range(1, rounds_of(log) + 1):
        for decision in round_decisions(log, None, number):
            began = time.perf_counter()
            judge(decision)
            times[decision.kind.value].append(time.perf_counter() - began)
    return {"wall": time.perf_counter() - start, "times": times}


def served(base: str, levels: tuple[str, ...], seed: int) -> dict[str, Any]:
    """A match of bots played to its end on a server, then analysed: its rounds, the wall
    time from asking to done, and how long `/healthz` took to answer, idle and meanwhile."""
    seats = [{"name": f"{level}{i}", "bot": level} for i, level in enumerate(levels)]
    match = call(base, "POST", "/v1/matches", {"seats": seats, "client_seed": str(seed)}).body
    path = f"/v1/matches/{match['id']}"
    final = wait_until(lambda: (v := call(base, "GET", path).body)["status"] in (
        "finished", "abandoned") and v, timeout=900, every=0.2)
    idle = [_answered_in(base, "/healthz") for _ in range(200)]
    start = time.perf_counter()
    assert call(base, "POST", path + "/analysis", {}).status == 202
    meanwhile: list[float] = []
    while call(base, "GET", path + "/analysis").body["status"] != "done":
        meanwhile += [_answered_in(base, "/healthz") for _ in range(5)]
        time.sleep(0.05)
    return {"rounds": len(final["scores"]["history"]), "wall": time.perf_counter() - start,
            "idle": _quantiles(idle), "meanwhile": _quantiles(meanwhile)}


def _answered_in(base: str, path: str) -> float:
    start = time.perf_counter()
    assert call(base, "GET", path).status == 200
    return time.perf_counter() - start


def _quantiles(times: list[float]) -> str:
    return (f"p50 {quantile(times, 0.5) * 1000:.1f} ms, p95 {quantile(times, 0.95) * 1000:.1f}"
            f" ms, max {max(times) * 1000:.0f} ms")


def on_the_embedded_default(folder: Path) -> dict[str, Any]:
    server = Server("--store", f"sqlite:///{folder / 'embedded.sqlite3'}", "--pace", "0")
    try:
        return served(server.base, LEVELS, SPEED_SEED)
    finally:
        server.stop()


def on_rq(workers: int = 2) -> dict[str, Any]:
    with scratch_redis("cardems-analysis-bench-") as (_, redis):
        flags = ["--store", redis.url, "--pace", "0"]
        server = Server(*flags)
        processes = [subprocess.Popen([sys.executable, "-m", "cli.main", "worker", *flags],
                                      cwd=ROOT, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL) for _ in range(workers)]
        try:
            return served(server.base, LEVELS, SPEED_SEED)
        finally:
            for process in processes:
                process.terminate()
                process.wait()
            server.stop()


# -- stability --------------------------------------------------------------------------


def stability(log: list[tuple[int, Event]], rounds: int) -> dict[str, float]:
    deltas, agree, total = [], 0, 0
    for number in range(1, rounds + 1):
        for decision in round_decisions(log, None, number):
            one, two = judge(decision, salt="one"), judge(decision, salt="two")
            deltas.append(abs(one.loss - two.loss))
            agree += one.verdict == two.verdict
            total += 1
    return {"decisions": total, "mean": statistics.fmean(deltas),
            "p95": quantile(deltas, 0.95), "agree": agree / total}


# -- calibration ------------------------------------------------------------------------


def judged_round(seed: int) -> dict[str, Any]:
    """One round of a match of the four levels, seats turned by the seed, every decision
    judged: per level, the losses, and for the expert how many of its moves were best."""
    turn = seed % 4
    levels = LEVELS[turn:] + LEVELS[:turn]
    number = 1 + (seed // 4) % 4  # rounds 1 to 4: every direction of the pass
    log = played_match(seed, levels, Rules(end_score=10_000), rounds=number)
    losses: dict[str, list[float]] = {level: [] for level in set(levels)}
    expert = {"choices": 0, "best": 0}
    for decision in round_decisions(log, None, number):
        judged = judge(decision)
        level = levels[decision.seat]
        losses[level].append(judged.loss)
        if level == "expert" and judged.verdict.value != "forced":
            expert["choices"] += 1
            expert["best"] += judged.verdict.value == "best"
            expert["top"] = expert.get("top", 0) + (judged.loss == 0)
    return {"losses": losses, "expert": expert}


def calibration(rounds: int) -> None:
    with ProcessPoolExecutor(2) as pool:
        results = list(pool.map(judged_round, range(rounds)))
    means = {level: [statistics.fmean(r["losses"][level]) for r in results]
             for level in ("random", "heuristic", "expert")}
    every = {level: [x for r in results for x in r["losses"][level]] for level in means}
    print(f"  calibration: {rounds} rounds, {sum(len(v) for v in every.values())} decisions")
    for level, values in every.items():
        mean, half = interval(means[level])
        print(f"    {level:10s} mean loss per decision {statistics.fmean(values):.3f} "
              f"(over rounds {mean:.3f} \u00b1 {half:.3f}, {len(values)} decisions)")
    for worse, better in (("random", "heuristic"), ("heuristic", "expert")):
        gaps = [a - b for a, b in zip(means[worse], means[better], strict=True)]
        mean, half = interval(gaps)
        verdict = "beyond its interval" if mean - half > 0 else "NOT beyond its interval"
        print(f"    {worse} - {better}: {mean:.3f} \u00b1 {half:.3f} ({verdict})")
    choices = sum(r["expert"]["choices"] for r in results)
    best = sum(r["expert"]["best"] for r in results)
    top = sum(r["expert"].get("top", 0) for r in results)
    print(f"    the expert's own move, of {choices} with a choice: judged best (loss under "
          f"0.25) {best / choices:.1%}, the very top option {top / choices:.1%}")


def main() -> None:
    print("analysis: a match of random, heuristic, expert and heuristic bots")
    log = played_match(SPEED_SEED)
    rounds = rounds_of(log)
    speed = domain_speed(log)
    decisions = sum(len(t) for t in speed["times"].values())
    print(f"  in the domain, one thread: {rounds} rounds, {decisions} decisions in "
          f"{speed['wall']:.1f} s ({speed['wall'] / rounds:.1f} s a round)")
    for kind, times in speed["times"].items():
        if times:
            mean, p95 = statistics.fmean(times), quantile(times, 0.95)
            print(f"    {kind:5s} {len(times):4d} decisions, mean {mean * 1000:.0f} ms, "
                  f"p95 {p95 * 1000:.0f} ms")
    with tempfile.TemporaryDirectory() as folder:
        got = on_the_embedded_default(Path(folder))
    print(f"  embedded default (cardems serve, SQLite): {got['rounds']} rounds analysed in "
          f"{got['wall']:.1f} s ({got['wall'] / got['rounds']:.1f} s a round)")
    print(f"    /healthz idle: {got['idle']}; while analysing: {got['meanwhile']}")
    got = on_rq()
    print(f"  RQ, two workers: {got['rounds']} rounds analysed in {got['wall']:.1f} s "
          f"({got['wall'] / got['rounds']:.1f} s a round of wall time, "
          f"{2 * got['wall'] / got['rounds']:.1f} s of a worker)")
    got = stability(log, STABILITY_ROUNDS)
    print(f"  stability, two sets of deals over {got['decisions']} decisions: loss moves "
          f"{got['mean']:.2f} on average, p95 {got['p95']:.2f}; verdicts agree "
          f"{got['agree']:.1%}")
    calibration(CALIBRATION_ROUNDS)


if __name__ == "__main__":
    main()
