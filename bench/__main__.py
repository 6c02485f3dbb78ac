"""Run the benchmarks: `python -m bench` (all) or `python -m bench NAME...` (domain store api
bots search timing streams fair play)."""

from __future__ import annotations

import importlib
import sys

SUITES = {
    "domain": "bench.domain_bench",
    "store": "bench.store_bench",
    "api": "bench.api_bench",
    "bots": "bench.bots_bench",
    "search": "bench.search_bench",
    "timing": "bench.timing_bench",
    "streams": "bench.streams_bench",
    "fair": "bench.fair_bench",
    "play": "bench.play_bench",
}


def main(names: list[str]) -> None:
    for name in names or list(SUITES):
        if name not in SUITES:
            raise SystemExit(f"unknown benchmark {name!r}; known: {', '.join(SUITES)}")
        importlib.import_module(SUITES[name]).main()


if __name__ == "__main__":
    main(sys.argv[1:])
