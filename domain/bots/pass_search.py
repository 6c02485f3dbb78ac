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

from domain.bots.heuristic import pass_ranking
from domain.bots.rollout import Hand, Table, rollout
from domain.cards import TWO_OF_CLUBS, Card, Suit
from domain.passing import receiver
from domain.rules import Rules
from domain.views import MatchView

CANDIDATE_CARDS = 5  # the heuristic's five most dangerous cards, three at a time: ten passes


def searched_pass(view: MatchView, rng: Random, rollouts: int) -> tuple[Card, Card, Card]:
    """The pass whose played-out rounds come out best for the seat over `rollouts` rounds."""
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
            held = _deal(rng, unseen, mine, me, seats)
            passes = [[] if s == me else simulated_pass(held, s) for s in range(seats)]
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


def simulated_pass(held: list[list[int]], seat: int) -> list[int]:
    """What the simulated player at `seat` passes: the heuristic's choice for that hand."""
    hand = [Card(c) for c in held[seat]]
    hearts = sum(1 for c in hand if c.suit is Suit.HEARTS)
    carries = hearts >= 5 and _losers(held, seat) <= 1
    return [c.index for c in pass_ranking(hand, carries)[:3]]


def _losers(held: list[list[int]], seat: int) -> int:
    """How many of the seat's cards could lose a trick to a card another seat holds."""
    others = [c for s, cards in enumerate(held) if s != seat for c in cards]
    count = 0
    for suit in range(4):
        mine = sorted((c for c in held[seat] if c // 13 == suit), reverse=True)
        higher = [c for c in others if c // 13 == suit]
        for position, card in enumerate(mine):
            if sum(1 for c in higher if c > card) > position:
                count += 1
    return count


def played_out(rules: Rules, held: list[list[int]], passes: list[list[int]], to: list[int],
                me: int) -> float:
    """The round after the passes (each seat's to `to[seat]`), played out by the simulated
    players: `me`'s score against the others' mean."""
    seats = len(held)
    after: list[list[int]] = [[c for c in cards if c not in passes[s]]
                              for s, cards in enumerate(held)]
    for seat in range(seats):
        after[to[seat]] += passes[seat]
    hands: list[Hand] = []
    for cards in after:
        hand: Hand = [[], [], [], []]
        for card in sorted(cards):
            hand[card // 13].append(card)
        hands.append(hand)
    leader = next(s for s in range(seats) if TWO_OF_CLUBS.index in hands[s][0])
    scores = rollout(rules, Table(hands, leader, [], [0] * seats, [0] * seats, None, False,
                                  False))
    return scores[me] - (sum(scores) - scores[me]) / (seats - 1)
