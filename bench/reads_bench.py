"""How often the reads of the others' plays (`domain.bots.reading`) are wrong, and by which
rule of thumb, for a seat held by the heuristic bot and for one held by the expert.

One seat (2) is held by the player under test, the other three by heuristic bots. At each of
its plays that the reading would read (not a lead, no moon on, not the seat that holds every
point so far, not a discard where points may not go), the cards the rules of thumb say it
would have played instead are checked against its real hand: the read is wrong when it held
one. A wrong read is what an expert suffers when it reads a player who does not play by
those rules; which rule misreads most says where a reading of such a player should start.

    python -m bench reads                                  # quick: 6 rounds each
    python -m bench.reads_bench --rounds 40 --seed 5
"""

from __future__ import annotations

import argparse
from collections import Counter
from random import Random

from domain.bots.base import Policy, bot_command
from domain.bots.duplicate import dealt_state
from domain.bots.expert import ExpertPolicy
from domain.bots.heuristic import HeuristicPolicy
from domain.bots.reading import MOON_WATCH, _instead
from domain.cards import QUEEN_OF_SPADES, Card
from domain.commands import PlayCard, Secret
from domain.decide import decide
from domain.events import RoundScored
from domain.evolve import fold
from domain.legal import winning_play
from domain.rules import Rules
from domain.state import Match
from domain.table import FOUR_SEATS
from domain.views import seats_to_act, view_for

TESTED = 2  # the seat of the player under test


def rule_of(state: Match, card: Card) -> str | None:
    """The rule of thumb a play by the tested seat is read by, or None when not read."""
    rnd = state.round
    assert rnd is not None
    before = rnd.trick.plays
    if not before:
        return None  # a lead says nothing
    points = [0] * state.table.seats
    for taken in rnd.taken:
        points[taken.winner] += taken.points
    total = sum(points)
    if (total >= MOON_WATCH and total in points) or 0 < total == points[TESTED]:
        return None
    led = before[0].card.suit
    _, top = winning_play(before)
    if card.suit is not led:
        if len(rnd.taken) == 0 and not state.rules.points_on_first_trick:
            return None
        return "discarding"
    if card is QUEEN_OF_SPADES and top.rank > card.rank:
        return None  # she goes under the king or ace: nothing read
    if card.rank < top.rank:
        return "ducking under"
    return "taking it, last" if len(before) == state.table.seats - 1 else "going over"


def misreads(player: Policy, rounds: int, seed: int) -> tuple[Counter[str], Counter[str]]:
    """Per rule, the plays read and the plays read wrong, over `rounds` rounds."""
    read, wrong = Counter[str](), Counter[str]()
    rng = Random(f"reads/{seed}")
    for number in range(1, rounds + 1):
        cards = list(FOUR_SEATS.cards)
        rng.shuffle(cards)
        secret = Secret(rng.randbytes(32))
        state = dealt_state(cards, number, secret, Rules(end_score=10_000))
        seats: list[Policy] = [HeuristicPolicy()] * 4
        seats[TESTED] = player
        while True:
            seat = seats_to_act(state)[0]
            command = bot_command(view_for(state, seat), seats[seat], rng, secret)
            assert command is not None
            if seat == TESTED and isinstance(command, PlayCard):
                _score(state, command.card, read, wrong)
            events = decide(state, command)
            if any(isinstance(e, RoundScored) for e in events):
                break
            after = fold(events, state)
            assert after is not None
            state = after
    return read, wrong


def _score(state: Match, card: Card, read: Counter[str],
           wrong: Counter[str]) -> None:
    rule = rule_of(state, card)
    if rule is None:
        return
    rnd = state.round
    assert rnd is not None
    played = {p.card for t in rnd.taken for p in t.plays} | {p.card for p in rnd.trick.plays}
    barred = len(rnd.taken) == 0 and not state.rules.points_on_first_trick
    last = len(rnd.trick.plays) == state.table.seats - 1
    instead = _instead(rnd.trick.plays, card, played, barred, last)
    read[rule] += 1
    if instead & rnd.hands[TESTED]:
        wrong[rule] += 1


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
