"""The expert's own decisions, recorded for learning a model of its play: rounds with the
expert at every seat, and at each play with a choice, the position in the simulation's
terms with every true hand, the card the expert chose, and each distinct card's mean outcome
in its search (its score against the others' mean, lower is better: how close the choice
was). One JSON object a line.

    python -m bench.expert_plays --rounds 400 --seed 101 --out expert-plays.jsonl

Each round draws its cards and chance from the seed and its number alone, so `--jobs` does
not change the record, and `--from` continues one.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import time
from random import Random

from bench.model_bench import true_table
from bench.watching import Watching, play_round
from domain.bots.base import to_the_end
from domain.bots.expert import ExpertPolicy
from domain.cards import Card
from domain.commands import Secret
from domain.state import Match
from domain.views import MatchView


class Recorded(Watching):
    """The expert, each of its plays with a choice kept as a record."""

    def __init__(self) -> None:
        self.expert = ExpertPolicy()
        super().__init__(self.expert)
        self.state: Match | None = None
        self.records: list[dict[str, object]] = []
        self.values: dict[Card, float] = {}

    def choose_play(self, view: MatchView, rng: Random) -> Card:
        self.values = {}
        card = to_the_end(self.expert.searching(view, rng, self.values))
        self.seen(view, card)
        return card

    def observe(self, state: Match, secret: Secret) -> None:
        self.state = state

    def seen(self, view: MatchView, card: Card) -> None:
        assert view.you is not None and self.state is not None
        if len(view.you.legal) > 1:
            table = true_table(self.state, view)
            self.records.append({
                "hands": table.hands, "leader": table.leader, "plays": table.plays,
                "points": table.points, "won": table.won, "jack": table.jack,
                "broken": table.broken, "queen_played": table.queen_played,
                "voids": table.voids, "seat": view.you.seat, "card": card.index,
                "values": {c.index: round(v, 3) for c, v in self.values.items()},
            })


def round_records(job: tuple[int, int]) -> list[dict[str, object]]:
    seed, number = job
    recorded = Recorded()
    play_round(Random(seed * 1_000_003 + number), number, [recorded] * 4, recorded.observe)
    for record in recorded.records:
        record["round"] = number
    return recorded.records


def run(rounds: int, seed: int, first: int, jobs: int, out: str) -> None:
    started, count = time.monotonic(), 0
    numbers = [(seed, n) for n in range(first, first + rounds)]
    with multiprocessing.get_context("spawn").Pool(jobs) as pool, open(out, "a") as sink:
        for records in pool.imap(round_records, numbers):
            for record in records:
                sink.write(json.dumps(record, separators=(",", ":")) + "\n")
            count += len(records)
    print(f"expert plays: {rounds} rounds (seed {seed}, from {first}), {count} plays with a"
          f" choice, {time.monotonic() - started:.0f} s on {jobs} processes -> {out}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--seed", type=int, default=101)
    parser.add_argument("--from", dest="first", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", default="expert-plays.jsonl")
    options = parser.parse_args()
    run(options.rounds, options.seed, options.first, options.jobs, options.out)
