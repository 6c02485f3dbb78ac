"""Moves made at random through the application service, for the tests and the benchmarks:
the seat the match waits for passes three cards, plays one of its legal cards, or chooses
how its moon counts."""

from __future__ import annotations

from random import Random

from domain.legal import legal_cards
from domain.rules import MoonRule
from domain.state import Match, Status
from domain.views import seats_to_act
from service import MatchService

MOON_CHOICES = (MoonRule.ADD_TO_OTHERS, MoonRule.SUBTRACT_FROM_SELF)


def random_move(game: MatchService, match_id: str, rng: Random) -> Match | None:
    """One random legal move by the first seat the match waits for, and the match before
    it; None once the match is over."""
    state = game.load(match_id)
    if state.is_over:
        return None
    seat = seats_to_act(state)[0]
    assert state.round is not None
    if state.status is Status.PASSING:
        game.pass_cards(match_id, seat, rng.sample(sorted(state.round.hands[seat]), 3))
    elif state.status is Status.PLAYING:
        game.play_card(match_id, seat,
                       rng.choice(sorted(legal_cards(state.round, state.rules, seat))))
    else:
        game.choose_moon(match_id, seat, rng.choice(MOON_CHOICES))
    return state


def play_out(game: MatchService, match_id: str, rng: Random) -> Match:
    """Random moves until the match is over; the match then."""
    while random_move(game, match_id, rng) is not None:
        pass
    return game.load(match_id)
