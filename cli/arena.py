"""`cardems arena`: duplicate tournaments between bots, with confidence intervals and a chart."""

from __future__ import annotations

import math
import multiprocessing
import statistics
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from random import Random

from tqdm import tqdm

from domain.bots.duplicate import duplicate_deal, rotations
from domain.bots.levels import policy_named
from domain.table import table_for


@dataclass(frozen=True)
class Standing:
    name: str
    per_hand: float  # mean points per hand a seat of this policy took
    ci95: float  # half-width of the 95% confidence interval of that mean


def run_arena(first: str, second: str, deals: int, seed: int, progress: bool = True,
              jobs: int = 1, seats: int = 4,
              first_deal: int = 1) -> tuple[Standing, Standing, list[float]]:
    """Play `deals` duplicate deals at a table of `seats` (each deal once per rotation of
    the seats), numbered from `first_deal`; per-hand standings.

    Each deal draws its cards and chance from (`seed`, its number) alone, so the tournament
    is the same whatever the number of `jobs` (processes) that play it, and a long one can
    be played in parts (on several machines, or continued later) that add up to the whole.
    """
    numbers = range(first_deal, first_deal + deals)
    tasks = [(first, second, seed, number, seats) for number in numbers]
    bar = tqdm(total=deals, disable=not progress, unit="deal")
    per_deal: list[tuple[float, float]] = []
    with ExitStack() as stack:
        if jobs > 1:
            pool = stack.enter_context(multiprocessing.get_context("spawn").Pool(jobs))
            results: Iterator[tuple[float, float]] = pool.imap(_play_deal, tasks)
        else:
            results = map(_play_deal, tasks)
        for result in results:
            per_deal.append(result)
            bar.update()
    bar.close()
    standings = tuple(_standing(name, [d[i] for d in per_deal])
                      for i, name in enumerate((first, second)))
    differences = [a - b for a, b in per_deal]
    return standings[0], standings[1], differences


def _play_deal(task: tuple[str, str, int, int, int]) -> tuple[float, float]:
    """One duplicate deal: each policy's points per hand it held, over every rotation."""
    first, second, seed, number, seats = task
    # The four-seat tournament keeps the draws it always had, so its figures reproduce.
    rng = Random(f"{seed}/{number}" if seats == 4 else f"{seed}/{seats}/{number}")
    table = table_for(seats)
    cards = list(table.cards)
    rng.shuffle(cards)
    result = duplicate_deal((policy_named(first), policy_named(second)), cards, number, rng,
                            table=table)
    return result.per_hand(0), result.per_hand(1)


def _standing(name: str, values: list[float]) -> Standing:
    spread = statistics.stdev(values) if len(values) > 1 else 0.0
    return Standing(name, statistics.fmean(values), 1.96 * spread / math.sqrt(len(values)))


def chart(first: Standing, second: Standing, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # no screen: render straight to the file
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(5, 4))
    names = [first.name, second.name]
    axes.bar(names, [first.per_hand, second.per_hand], yerr=[first.ci95, second.ci95],
             capsize=8, color=["#3b6ea5", "#c0504d"])
    axes.set_ylabel("points per hand (lower is better)")
    axes.set_title("Duplicate Hearts, 95% confidence intervals")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    pyplot.close(figure)


def main(first: str, second: str, deals: int, seed: int, chart_path: str | None,
         jobs: int = 1, seats: int = 4, first_deal: int = 1) -> int:
    a, b, differences = run_arena(first, second, deals, seed, jobs=jobs, seats=seats,
                                  first_deal=first_deal)
    held = [p for turn in rotations(seats) for p in turn]  # which policy held each hand
    numbered = "" if first_deal == 1 else f" (numbers {first_deal} to {first_deal + deals - 1})"
    print(f"{deals} duplicate deals{numbered} at {seats} seats ({deals * held.count(0)} hands"
          f" for {first}, {deals * held.count(1)} for {second}), seed {seed}")
    for standing in (a, b):
        print(f"  {standing.name:10s} {standing.per_hand:6.2f} ± {standing.ci95:.2f}"
              " points per hand")
    gap = _standing("difference", differences)  # one deal: no spread to speak of, ± 0
    print(f"  {a.name} - {b.name}: {gap.per_hand:+.2f} ± {gap.ci95:.2f} per hand;"
          f" ratio {a.per_hand / b.per_hand:.2f}")
    if chart_path:
        chart(a, b, Path(chart_path))
        print(f"  chart: {chart_path}")
    return 0
