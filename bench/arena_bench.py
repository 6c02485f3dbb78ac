"""Variants of the expert in the arena, side by side on the same deals: each at two seats
against the heuristic bot at two, on the duplicate deals `cardems arena` plays.

Each deal is drawn, and its chance drawn, exactly as `cardems arena` draws the deal of that
number and seed, so the shipped expert's figures here are the arena's own; every variant
plays the same deals, and their differences are paired deal by deal. The seat across from an
expert is an expert of the same variant, as in the arena, and the match shows every seat's
bot: a variant that models the seat across by who holds it sees what the service shows.

    python -m bench arena                                          # quick: 6 deals
    python -m bench.arena_bench --deals 60 --seed 3 expert expert-kin expert-kin-1
"""

from __future__ import annotations

import multiprocessing
import os
import time
from random import Random

from bench.duel_bench import PLAYERS
from bench.figures import interval, quantile
from bench.options import deals_parser
from bench.watching import Watching
from domain.bots.base import Policy
from domain.bots.duplicate import duplicate_deal
from domain.bots.heuristic import HeuristicPolicy
from domain.cards import Card
from domain.table import FOUR_SEATS
from domain.views import MatchView

Played = tuple[float, float, float, list[float]]


class Timed(Watching):
    """A player whose decisions with a choice are timed (its forced plays are not: they take
    no thought)."""

    def __init__(self, player: Policy) -> None:
        super().__init__(player)
        self.seconds: list[float] = []

    def choose_pass(self, view: MatchView, rng: Random) -> tuple[Card, Card, Card]:
        started = time.process_time()
        cards = super().choose_pass(view, rng)
        self.seconds.append(time.process_time() - started)
        return cards

    def choose_play(self, view: MatchView, rng: Random) -> Card:
        started = time.process_time()
        card = super().choose_play(view, rng)
        if view.you is not None and len(view.you.legal) > 1:
            self.seconds.append(time.process_time() - started)
        return card


def play_deal(task: tuple[tuple[str, ...], int, int]) -> list[Played]:
    """One duplicate deal per variant: its points per hand, the heuristic's, the seconds of
    thinking the table spent a hand, and the seconds of each of the variant's decisions."""
    names, seed, number = task
    out = []
    for name in names:
        rng = Random(f"{seed}/{number}")  # as `cardems arena` draws deal `number`
        cards = list(FOUR_SEATS.cards)
        rng.shuffle(cards)
        player = Timed(PLAYERS[name]())
        started = time.process_time()
        result = duplicate_deal((player, HeuristicPolicy()), cards, number, rng)
        spent = (time.process_time() - started) / result.hands[0]
        out.append((result.per_hand(0), result.per_hand(1), spent, player.seconds))
    return out


def arena(names: tuple[str, ...], deals: int, seed: int, jobs: int, first: int = 1) -> None:
    unknown = [n for n in names if n not in PLAYERS]
    if unknown:
        raise SystemExit(f"unknown players {unknown}; known: {', '.join(PLAYERS)}")
    started = time.monotonic()
    tasks = [(names, seed, number) for number in range(first, first + deals)]
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        results = pool.map(play_deal, tasks, chunksize=1)
    print(f"arena: {deals} duplicate deals from {first} (seed {seed}), each variant at two"
          f" seats, the heuristic bot at two; {time.monotonic() - started:.0f} s on {jobs}"
          " processes")
    for i, name in enumerate(names):
        mean, ci = interval([r[i][0] for r in results])
        base, ci_h = interval([r[i][1] for r in results])
        gap, ci_gap = interval([r[i][0] - r[i][1] for r in results])
        seconds = sum(r[i][2] for r in results) / deals
        decisions = [s for r in results for s in r[i][3]]
        print(f"  {name:16s} {mean:5.2f} ± {ci:.2f} a hand, heuristic {base:5.2f} ± {ci_h:.2f};"
              f" difference {gap:+.2f} ± {ci_gap:.2f}, ratio {mean / base:.2f};"
              f" {seconds:.2f} s of the table's thinking a hand; decisions with a choice"
              f" p50 {1000 * quantile(decisions, 0.5):.0f} ms,"
              f" p95 {1000 * quantile(decisions, 0.95):.0f} ms")
    for i, one in enumerate(names):
        for j in range(i + 1, len(names)):
            gap, ci = interval([(r[i][0] - r[i][1]) - (r[j][0] - r[j][1]) for r in results])
            print(f"  {one} - {names[j]}: {gap:+.2f} ± {ci:.2f} in difference a hand")


def main() -> None:
    arena(("expert", "expert-kin-1"), deals=6, seed=3, jobs=os.cpu_count() or 1)


if __name__ == "__main__":
    parser = deals_parser(__doc__, deals=60, seed=3)
    parser.add_argument("names", nargs="+", help=f"variants, of: {', '.join(PLAYERS)}")
    options = parser.parse_args()
    arena(tuple(options.names), options.deals, options.seed, options.jobs, options.first)
