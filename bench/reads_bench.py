"""How often the reads of the others' plays (`domain.bots.reading`) are wrong, and by which
rule of thumb, for a seat held by the heuristic bot and for one held by the expert.

One seat (2) is held by the player under test, the other three by heuristic bots. At each of
its plays that the reading reads (`readable`, and a play that says something: not a lead, not
the queen under a higher spade, not a discard where points may not go, nor the queen's own
discard), the cards the rules of thumb say it would have played instead are checked against
its real hand: the read is wrong when it held one. A wrong read is what an expert suffers
when it reads a player who does not play by those rules; which rule misreads most says where
a reading of such a player should start.

    python -m bench reads                                  # quick: 6 rounds each
    python -m bench.reads_bench --rounds 60 --seed 5
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from random import Random

from bench.watching import Watching, play_round
from domain.bots.base import Policy
from domain.bots.expert import ExpertPolicy
from domain.bots.heuristic import HeuristicPolicy
from domain.bots.reading import instead, readable
from domain.cards import Card
from domain.legal import winning_play
from domain.state import Play
from domain.views import MatchView

TESTED = 2  # the seat of the player under test


class Watched(Watching):
    """The player under test, each of its plays checked against the reading as it is made:
    its own view holds what the reading needs, its hand included."""

    def __init__(self, player: Policy) -> None:
        super().__init__(player)
        self.read, self.wrong = Counter[str](), Counter[str]()

    def seen(self, view: MatchView, card: Card) -> None:
        assert view.you is not None and view.trick is not None
        lacks = read_lacks(view, card)
        if lacks:  # the reading reads this play
            rule = rule_of(view.trick.plays, card, view.table.seats)
            self.read[rule] += 1
            self.wrong[rule] += bool(lacks & set(view.you.hand))


def read_lacks(view: MatchView, card: Card) -> set[Card]:
    """What the reading takes the seat on turn to lack once it plays `card`: the cards the
    rules of thumb would have played instead (none where the reading reads nothing)."""
    assert view.you is not None and view.trick is not None
    plays = view.trick.plays
    points = [0] * view.table.seats
    for taken in view.tricks:
        points[taken.winner] += taken.points
    if not plays or not readable(points, view.you.seat):  # a lead says nothing
        return set()
    played = {p.card for t in view.tricks for p in t.plays} | {p.card for p in plays}
    barred = not view.tricks and not view.rules.points_on_first_trick
    last = len(plays) == view.table.seats - 1
    return instead(plays, card, played, barred, last) - played  # as `read_plays` keeps them


def rule_of(before: Sequence[Play], card: Card, seats: int) -> str:
    """The name of the rule of thumb a play after `before` is read by."""
    _, top = winning_play(before)
    if card.suit is not before[0].card.suit:
        return "discarding"
    if card.rank < top.rank:
        return "ducking under"
    return "taking it, last" if len(before) == seats - 1 else "going over"


def misreads(player: Policy, rounds: int, seed: int) -> tuple[Counter[str], Counter[str]]:
    """Per rule, the plays read and the plays read wrong, over `rounds` rounds."""
    watched = Watched(player)
    rng = Random(f"reads/{seed}")
    for number in range(1, rounds + 1):
        seats: list[Policy] = [HeuristicPolicy()] * 4
        seats[TESTED] = watched
        play_round(rng, number, seats)
    return watched.read, watched.wrong


def report(rounds: int, seed: int, iterations: int) -> None:
    print(f"reads: {rounds} rounds (seed {seed}), the tested player at one seat among three"
          " heuristic bots")
    players: dict[str, Policy] = {"heuristic": HeuristicPolicy(),
                                  f"expert ({iterations} rollouts)": ExpertPolicy(iterations)}
    for name, player in players.items():
        read, wrong = misreads(player, rounds, seed)
        plays, misses = sum(read.values()), sum(wrong.values())
        print(f"  {name}: {misses} of {plays} plays read wrong ({_share(misses, plays)})")
        for rule in sorted(read, key=lambda r: -wrong[r]):
            share = _share(wrong[rule], read[rule])
            print(f"    {rule:16s} {wrong[rule]:4d} of {read[rule]:4d} ({share})")


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "none read"


def main() -> None:
    report(rounds=6, seed=1, iterations=200)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=1600,
                        help="the expert's rollouts a play (1,600 as it ships)")
    options = parser.parse_args()
    report(options.rounds, options.seed, options.iterations)
