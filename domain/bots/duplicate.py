"""Duplicate play: the same deal played again with the policies' seats rotated, so that every
seat's cards are played by each policy and the cards' luck cancels; what remains is the
difference in play.

With an even count of seats the two policies sit alternately and one rotation swaps them: each
holds every seat's cards once. With an odd count alternation cannot be even, so the first
policy sits at one seat and the second at the rest, and the deal is played once with the
first policy at each seat. Either way each policy holds every seat's cards equally often, so
its points per hand held compare with the other's."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from domain.table import FOUR_SEATS, Table
from domain.views import seats_to_act, view_for


def rotations(seats: int) -> tuple[tuple[int, ...], ...]:
    """The seat assignments of the two policies (0 and 1): a pattern turned `seats` ways
    round the table, each distinct turn once."""
    pattern = [s % 2 for s in range(seats)] if seats % 2 == 0 else [0] + [1] * (seats - 1)
    turns: list[tuple[int, ...]] = []
    for shift in range(seats):
        turn = tuple(pattern[(s - shift) % seats] for s in range(seats))
        if turn not in turns:
            turns.append(turn)
    return tuple(turns)


@dataclass(frozen=True, slots=True)
class DuplicateResult:
    """Points each policy took on one deal, summed over its seats in every rotation, and how
    many hands it held to take them."""

    points: tuple[int, int]
    hands: tuple[int, int]

    def per_hand(self, policy: int) -> float:
        return self.points[policy] / self.hands[policy]


def dealt_state(deck: Sequence[Card], number: int, secret: Secret, rules: Rules,
                table: Table = FOUR_SEATS, bots: Sequence[str] = ()) -> Match:
    """Round `number` dealt from `deck`; `bots`, if given, names each seat's bot, as a
    match shows it to every seat."""
    dealer = rules.dealer_of(number, table.seats)
    hands = deal(deck, dealer, table)
    seats = tuple(SeatSpec(f"s{i}", bots[i] if bots else None) for i in range(table.seats))
    created = MatchCreated("arena", rules, seats, "", seed_commitment(secret.server_seed), 0, "")
    state = fold([created, RoundDealt(number, dealer, pass_direction(number, table), hands)])
    assert state is not None
    return state


Observer = Callable[[Match, Secret], None]


def play_hand(state: Match, seats: Sequence[Policy], rng: Random, secret: Secret,
              observe: Observer | None = None) -> RoundScored:
    """Play the round in `state` to its score, each seat by its policy; `observe`, if
    given, is shown the whole state and the secret before every command (a bench's
    instrument)."""
    while True:
        if observe is not None:
            observe(state, secret)
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
                   rng: Random, rules: Rules | None = None, table: Table = FOUR_SEATS,
                   observe: Observer | None = None) -> DuplicateResult:
    """One deal of `table`'s cards, played once per rotation; round `number` sets the pass
    direction."""
    secret = Secret(rng.randbytes(32))
    rules = rules or Rules(end_score=10_000)
    points, hands = [0, 0], [0, 0]
    for rotation in rotations(table.seats):
        seats = [policies[p] for p in rotation]
        state = dealt_state(deck, number, secret, rules, table, [p.name for p in seats])
        scored = play_hand(state, seats, rng, secret, observe)
        for seat, policy in enumerate(rotation):
            points[policy] += scored.scores[seat]
            hands[policy] += 1
    return DuplicateResult((points[0], points[1]), (hands[0], hands[1]))
