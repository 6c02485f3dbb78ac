"""How fast the pure domain is: replaying a match's events, simulating whole matches."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from random import Random

from domain.bots.autoplay import play_out
from domain.bots.levels import policy_named
from domain.codec import event_type, from_data, to_data
from domain.commands import CreateMatch, Secret
from domain.events import SeatSpec
from domain.evolve import fold
from domain.rules import Rules
from domain.sealing import canonical_json


def _matches(count: int, seed: int = 1) -> list[list]:
    rng = Random(seed)
    heuristic = [policy_named("heuristic")] * 4
    out = []
    for i in range(count):
        command = CreateMatch(f"m{i}", tuple(SeatSpec(f"b{s}", "heuristic") for s in range(4)),
                              Rules(), "", Secret(rng.randbytes(32)), "2026-12-02T12:00:00Z")
        out.append(play_out(command, heuristic, rng)[1])
    return out


def _best(*fns: Callable[[], object], repeat: int = 9) -> list[float]:
    """The best time of each function, run in turn so that all see the same machine."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def run() -> dict[str, float]:
    matches = _matches(20)
    events = sum(len(m) for m in matches)
    texts = [[(event_type(e), canonical_json(to_data(e))) for e in m] for m in matches]
    decoded = [[(t, json.loads(j)) for t, j in m] for m in texts]

    def loads() -> None:
        for m in texts:
            for _, j in m:
                json.loads(j)

    def fold_typed() -> None:
        for m in matches:
            fold(m)

    def replay_from_json() -> None:
        for m in texts:
            fold(from_data(t, json.loads(j)) for t, j in m)

    def decode_only() -> None:
        for m in decoded:
            for t, d in m:
                from_data(t, d)

    t_loads, t_fold, t_replay, t_decode = _best(loads, fold_typed, replay_from_json,
                                                decode_only)
    sims = 40
    start = time.perf_counter()
    _matches(sims, seed=2)
    t_sim = time.perf_counter() - start
    figures = {
        "events": events,
        "events per match": events / len(matches),
        "json.loads events/s": events / t_loads,
        "fold events/s": events / t_fold,
        "fold / json.loads (time ratio)": t_fold / t_loads,
        "event decode (from_data) / json.loads": t_decode / t_loads,
        "full replay from JSON / json.loads": t_replay / t_loads,
        "4-heuristic matches simulated per second": sims / t_sim,
    }
    return figures


def main() -> None:
    print("domain: replay and simulation")
    for name, value in run().items():
        print(f"  {name:44s} {value:12,.2f}")


if __name__ == "__main__":
    main()
