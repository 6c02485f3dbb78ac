"""Duplicate play: the same deal played twice with the policies' seats swapped, so that the
cards' luck cancels and what remains is the difference in play."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from random import Random

from domain.bots.base import Policy, bot_command
from domain.cards import Card
from domain.commands import Secret
from domain.decide import decide
from domain.events import MatchCreated, RoundDealt, RoundScored, SeatSpec
from domain.evolve import fold
from domain.passing import pass_direction
from domain.rules import Rules
from domain.shuffle import deal, seed_commitment
from domain.state import Match
from domain.table import SEATS
from domain.views import seats_to_act, view_for

# Seat assignments of the two policies (0 and 1): each holds each seat's cards once.
ROTATIONS = ((0, 1, 0, 1), (1, 0, 1, 0))


@dataclass(frozen=True, slots=True)
class DuplicateResult:
    """Points each policy took on one deal, summed over its seats in both rotations."""

    points: tuple[int, int]


def dealt_state(deck: Sequence[Card], number: int, secret: Secret, rules: Rules) -> Match:
    dealer = rules.dealer_of(number)
    hands = deal(deck, dealer)
    created = MatchCreated("arena", rules, tuple(SeatSpec(f"s{i}") for i in range(SEATS)), "",
                           seed_commitment(secret.server_seed), 0, "")
    state = fold([created, RoundDealt(number, dealer, pass_direction(number), hands)])
    assert state is not None
    return state


def play_hand(state: Match, seats: Sequence[Policy], rng: Random, secret: Secret) -> RoundScored:
    """Play the round in `state` to its score, each seat by its policy."""
    while True:
        seat = seats_to_act(state)[0]
        command = bot_command(view_for(state, seat), seats[seat], rng, secret)
        assert command is not None
        events = decide(state, command)
        for event in events:
            if isinstance(event, RoundScored):
                return event
        after = fold(events, state)
        assert after is not None
        state = after


def duplicate_deal(policies: tuple[Policy, Policy], deck: Sequence[Card], number: int,
                   rng: Random, rules: Rules | None = None) -> DuplicateResult:
    """One deal, played once per rotation; round `number` sets the pass direction."""
    secret = Secret(rng.randbytes(32))
    rules = rules or Rules(end_score=10_000)
    points = [0, 0]
    for rotation in ROTATIONS:
        state = dealt_state(deck, number, secret, rules)
        scored = play_hand(state, [policies[p] for p in rotation], rng, secret)
        for seat, policy in enumerate(rotation):
            points[policy] += scored.scores[seat]
    return DuplicateResult((points[0], points[1]))
