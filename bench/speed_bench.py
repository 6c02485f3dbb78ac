"""The expert's search and the analysis's judge in this checkout against another's, on one
machine at one moment: a change meant to make them faster measured side by side.

Timings on a shared machine drift by tens of percent from one minute to the next, far more
than a speed-up worth having, so two runs one after the other cannot tell it. Here both
versions live in one process and take turns decision by decision (and rollout by rollout),
so that both meet the same load; the ratio of their totals is the figure. The other
checkout's `MODULES` are loaded from their sources under names of their own, each importing
the others' other versions; everything else (the rules, the views, the knowledge) is
shared, so the two are compared only where they may differ. Both must choose alike and judge
alike: a speed-up changes nothing else. The other checkout's modules always run interpreted,
so `--against .` weighs this checkout's compiled modules (setup.py) against their sources.

    python -m bench.speed_bench --against ../other-checkout [--positions 40] [--rounds 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from random import Random
from statistics import mean, quantiles
from types import ModuleType
from typing import Any

from bench.analysis_bench import SPEED_SEED, played_match
from bench.search_bench import positions
from domain import analysis as this_analysis
from domain.bots import expert as this_expert
from domain.bots import rollout as this_rollout
from domain.cards import TWO_OF_CLUBS
from domain.rules import Rules

# The modules a speed-up of the search touches, in the order they import one another.
MODULES = ("domain.bots.rollout", "domain.bots.sampling", "domain.bots.pass_search",
           "domain.bots.expert", "domain.analysis")


def load_other(checkout: Path) -> dict[str, ModuleType]:
    """The other checkout's `MODULES`, each bound to the other's versions of those before it."""
    loaded: dict[str, ModuleType] = {}
    saved = {name: sys.modules[name] for name in MODULES}
    try:
        for name in MODULES:
            path = checkout / (name.replace(".", "/") + ".py")
            spec = importlib.util.spec_from_file_location(f"other_{name}", path)
            assert spec is not None and spec.loader is not None, path
            module = importlib.util.module_from_spec(spec)
            sys.modules[spec.name] = module  # where its dataclasses look themselves up
            sys.modules[name] = module  # what the next ones import, while they load
            spec.loader.exec_module(module)
            loaded[name] = module
    finally:
        sys.modules.update(saved)
    return loaded


def rollout_tables(module: Any, count: int, seed: int) -> list[Any]:
    """Tables from the deal in `module`'s terms: the same cards for both versions."""
    rng = Random(seed)
    tables = []
    for _ in range(count):
        cards = list(range(52))
        rng.shuffle(cards)
        hands = [module.suited(cards[s * 13:(s + 1) * 13]) for s in range(4)]
        leader = next(s for s, hand in enumerate(hands) if TWO_OF_CLUBS.index in hand[0])
        tables.append(module.Table(hands, leader, [], [0] * 4, [0] * 4, None, False, False))
    return tables


def copy_table(module: Any, table: Any) -> Any:
    return module.Table([[list(s) for s in h] for h in table.hands], table.leader, [],
                        [0] * 4, [0] * 4, None, False, False)


def race(first: Any, second: Any, rounds: int) -> tuple[list[float], list[float]]:
    """The seconds of each call of `first` and of `second`, two callables of an index,
    called in turns (which goes first alternating) over `rounds` passes of
    `range(first.count)`."""
    spent: tuple[list[float], list[float]] = ([], [])
    clock = time.perf_counter
    for turn in range(rounds * first.count):
        index = turn % first.count
        order = (0, 1) if turn % 2 else (1, 0)
        for side in order:
            run = (first, second)[side]
            start = clock()
            run(index)
            spent[side].append(clock() - start)
    return spent


class Rollouts:
    def __init__(self, module: Any, tables: list[Any]) -> None:
        self.module, self.tables, self.count = module, tables, len(tables)
        self.rules = Rules()

    def __call__(self, index: int) -> None:
        self.module.rollout(self.rules, copy_table(self.module, self.tables[index]))


def played_out(module: Any, tables: list[Any]) -> list[Any]:
    """Each table's simulated plays and scores, recorded apart from the timed rollouts so
    that recording weighs on neither side's time (a rollout draws nothing at random, so
    one play-out a table stands for all of its timed ones)."""
    played = []
    for table in tables:
        trace: list[tuple[int, int]] = []
        played.append((trace, module.rollout(Rules(), copy_table(module, table), trace)))
    return played


class Decisions:
    def __init__(self, module: Any, views: list[Any], chosen: list[Any]) -> None:
        self.policy, self.views, self.count, self.chosen = module.ExpertPolicy(), views, \
            len(views), chosen

    def __call__(self, index: int) -> None:
        self.chosen.append((index, self.policy.choose_play(self.views[index], Random(index))))


class Judging:
    """Every decision of the first round of a match of bots, judged as the analysis does."""

    def __init__(self, module: Any, log: list[Any], judged: list[Any]) -> None:
        self.module, self.judged = module, judged
        self.decisions = module.round_decisions(log, None, 1)
        self.count = len(self.decisions)

    def __call__(self, index: int) -> None:
        verdict = self.module.judge(self.decisions[index])
        self.judged.append((index, verdict.verdict.value,
                            [(str(o.move), o.expected) for o in verdict.options]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--against", type=Path, required=True, help="the other checkout")
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args(argv)
    other = load_other(args.against)

    this_tables = rollout_tables(this_rollout, 200, args.seed)
    other_tables = rollout_tables(other["domain.bots.rollout"], 200, args.seed)
    other_s, this_s = race(Rollouts(other["domain.bots.rollout"], other_tables),
                           Rollouts(this_rollout, this_tables), args.rounds * 5)
    alike = sum(a == b for a, b in zip(played_out(other["domain.bots.rollout"], other_tables),
                                       played_out(this_rollout, this_tables), strict=True))
    print(f"rollout from the deal: other {mean(other_s) * 1e6:.1f} µs, "
          f"this {mean(this_s) * 1e6:.1f} µs, this/other {sum(this_s) / sum(other_s):.3f}; "
          f"the same plays and scores on {alike} of {len(this_tables)} deals")

    views = positions(args.positions, seed=args.seed)
    other_chose: list[Any] = []
    this_chose: list[Any] = []
    other_s, this_s = race(Decisions(other["domain.bots.expert"], views, other_chose),
                           Decisions(this_expert, views, this_chose), args.rounds)
    alike = sum(a == b for a, b in zip(sorted(other_chose), sorted(this_chose), strict=True))
    print(f"expert decision ({len(views)} positions x {args.rounds}), mean p50 p95: "
          f"other {_ms(other_s)}, this {_ms(this_s)}, this/other "
          f"{sum(this_s) / sum(other_s):.3f}; the same card {alike} times of {len(this_s)}")

    log = played_match(SPEED_SEED, rounds=1)
    other_judged: list[Any] = []
    this_judged: list[Any] = []
    other_s, this_s = race(Judging(other["domain.analysis"], log, other_judged),
                           Judging(this_analysis, log, this_judged), 1)
    alike = sum(a == b for a, b in zip(sorted(other_judged), sorted(this_judged), strict=True))
    print(f"a decision judged ({len(this_s)}, a round's), mean p50 p95: other {_ms(other_s)}, "
          f"this {_ms(this_s)}, this/other {sum(this_s) / sum(other_s):.3f}; the same options "
          f"and verdict {alike} times of {len(this_s)}")


def _ms(times: list[float]) -> str:
    cuts = quantiles(times, n=20)
    return f"{mean(times) * 1e3:.1f} {cuts[9] * 1e3:.1f} {cuts[18] * 1e3:.1f} ms"

if __name__ == "__main__":
    main()
