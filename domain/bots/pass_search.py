"""The expert's pass, searched: candidate passes played out on the same sampled deals.

The candidates are the heuristic's most dangerous cards, three at a time. On every sampled
deal the other seats pass as the simulated players would (the heuristic's ranking), every
candidate is passed in turn, and the round is played out from the first trick by the
simulated players; the candidate whose outcome is best on average is passed. As in the
search of plays, the candidates share their deals and rounds of halving drop the worse half.
"""

from __future__ import annotations

from itertools import combinations
from random import Random

from domain.bots.heuristic import moon_hand, pass_ranking
from domain.bots.rollout import Table, losers, margin, rollout, suited
from domain.cards import TWO_OF_CLUBS, Card, Suit
from domain.passing import receiver
from domain.rules import Rules
from domain.views import MatchView

CANDIDATE_CARDS = 5  # the heuristic's five most dangerous cards, three at a time: ten passes


def searched_pass(view: MatchView, rng: Random, rollouts: int,
                  dealt: list[list[int]] | None = None) -> tuple[Card, Card, Card]:
    """The pass whose played-out rounds come out best for the seat over `rollouts` rounds;
    on `dealt`, every seat's cards as dealt, instead of sampled deals when a bench shows it
    the true deal."""
    assert view.you is not None
    me, seats, rules = view.you.seat, view.table.seats, view.rules
    ranking = pass_ranking(sorted(view.you.hand), keep_points=False)
    alive = [tuple(sorted(c)) for c in combinations(ranking[:CANDIDATE_CARDS], 3)]
    first = alive[0]  # the heuristic's own pass: it wins every tie
    to = [receiver(s, view.pass_direction, view.table) for s in range(seats)]
    unseen = [c.index for c in view.table.cards if c not in view.you.hand]
    mine = [c.index for c in view.you.hand]
    totals = dict.fromkeys(alive, 0.0)
    rounds = (len(alive) - 1).bit_length()
    for left in range(rounds, 0, -1):
        for _ in range(max(1, rollouts // rounds // len(alive))):
            held = dealt or _deal(rng, unseen, mine, me, seats)
            passes = simulated_passes(held, me)
            for candidate in alive:
                passes[me] = [c.index for c in candidate]
                totals[candidate] += played_out(rules, held, passes, to, me)
        alive.sort(key=lambda c: (totals[c], c != first))
        if left > 1:
            alive = alive[:(len(alive) + 1) // 2]
    a, b, c = alive[0]
    return a, b, c


def _deal(rng: Random, unseen: list[int], mine: list[int], me: int, seats: int,
          ) -> list[list[int]]:
    """The unseen cards dealt evenly to the other seats."""
    rng.shuffle(unseen)
    size = len(mine)
    held, start = [], 0
    for seat in range(seats):
        if seat == me:
            held.append(mine)
        else:
            held.append(unseen[start:start + size])
            start += size
    return held


def simulated_passes(held: list[list[int]], me: int) -> list[list[int]]:
    """What every seat but `me` passes as a simulated player: the heuristic's choice for its
    hand (`me`'s entry is left empty, for the pass being weighed)."""
    hands = [suited(cards) for cards in held]
    passes: list[list[int]] = []
    for seat, cards in enumerate(held):
        if seat == me:
            passes.append([])
            continue
        carries = moon_hand(len(hands[seat][Suit.HEARTS]), losers(hands, seat))
        passes.append([c.index for c in pass_ranking([Card(c) for c in cards], carries)[:3]])
    return passes


def played_out(rules: Rules, held: list[list[int]], passes: list[list[int]], to: list[int],
                me: int) -> float:
    """The round after the passes (each seat's to `to[seat]`), played out by the simulated
    players: `me`'s score against the others' mean."""
    seats = len(held)
    after: list[list[int]] = [[c for c in cards if c not in passes[s]]
                              for s, cards in enumerate(held)]
    for seat in range(seats):
        after[to[seat]] += passes[seat]
    hands = [suited(cards) for cards in after]
    leader = next(s for s in range(seats) if TWO_OF_CLUBS.index in hands[s][0])
    return margin(rollout(rules, Table(hands, leader, [], [0] * seats, [0] * seats, None, False,
                                       False)), me)
