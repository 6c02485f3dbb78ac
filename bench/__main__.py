"""Run the benchmarks: `python -m bench` (all but those on request) or `python -m bench
NAME...` (domain store api bots search search-full duel arena reads sighted model timing streams
fair play views checks client pace schedule rq cluster load soak memory analysis ismcts
ismcts-full)."""

from __future__ import annotations

import importlib
import sys

SUITES = {
    "domain": "bench.domain_bench",
    "store": "bench.store_bench",
    "api": "bench.api_bench",
    "bots": "bench.bots_bench",
    "search": "bench.search_bench",  # quick; search-full is the long one
    "search-full": "bench.search_bench:full",
    "duel": "bench.duel_bench",  # quick; `python -m bench.duel_bench` for a real trial
    "reads": "bench.reads_bench",  # quick; `python -m bench.reads_bench` for more rounds
    "arena": "bench.arena_bench",  # quick; `python -m bench.arena_bench` for more deals
    "sighted": "bench.sighted_bench",  # quick; `python -m bench.sighted_bench` for more deals
    "model": "bench.model_bench",  # quick; `python -m bench.model_bench` for more rounds
    "timing": "bench.timing_bench",
    "streams": "bench.streams_bench",
    "fair": "bench.fair_bench",
    "play": "bench.play_bench",
    "views": "bench.views_bench",
    "checks": "bench.views_bench:checks",
    "client": "bench.client_bench",
    "pace": "bench.pace_bench",
    "schedule": "bench.schedule_bench",
    "rq": "bench.rq_bench",
    "cluster": "bench.cluster_bench",
    "load": "bench.load_bench:load",  # five minutes, with faults
    "soak": "bench.load_bench:soak",  # thirty minutes: only when asked for
    "memory": "bench.memory_bench",  # a few minutes: only when asked for
    "analysis": "bench.analysis_bench",  # eight minutes: only when asked for
    "ismcts": "bench.ismcts_bench",  # a quick run against OpenSpiel's IS-MCTS
    "ismcts-full": "bench.ismcts_bench:full",  # hours: only when asked for
}

# The long ones run only when named: `make bench` stays under ten minutes.
ON_REQUEST = ("search-full", "checks", "client", "pace", "cluster", "load", "soak", "memory",
              "analysis", "ismcts-full")


def main(names: list[str]) -> None:
    for name in names or [n for n in SUITES if n not in ON_REQUEST]:
        if name not in SUITES:
            raise SystemExit(f"unknown benchmark {name!r}; known: {', '.join(SUITES)}")
        module, _, function = SUITES[name].partition(":")
        getattr(importlib.import_module(module), function or "main")()


if __name__ == "__main__":
    main(sys.argv[1:])
