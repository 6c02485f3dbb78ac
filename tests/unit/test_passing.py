from random import Random

import pytest

from domain.bots.base import bot_command
from domain.bots.levels import policy_named
from domain.commands import PassCards
from domain.decide import decide
from domain.errors import IllegalMove, Violation
from domain.events import PassChosen, PassesExchanged
from domain.passing import PassDirection, pass_direction
from domain.sealing import seal
from domain.state import Status
from domain.views import seats_to_act, view_for
from tests.builders import SECRET, cards, create_command, deck_for, hands, pass_cards, then

DEAL = hands(
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC",
    "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS",
)


def match_in_round_one(rules=None):
    state, _ = then(None, create_command(rules, decks=(deck_for(DEAL),)))
    return state


@pytest.mark.parametrize(("number", "direction"), [
    (1, "left"), (2, "right"), (3, "across"), (4, "hold"), (5, "left"), (8, "hold")])
def test_the_pass_direction_cycles_left_right_across_hold(number, direction):
    assert pass_direction(number) is PassDirection(direction)


def test_a_pass_of_three_cards_is_secret_until_all_four_have_chosen():
    state = match_in_round_one()
    assert state.status is Status.PASSING
    state, events = then(state, PassCards(0, cards("2C 3C 4C"), SECRET))
    sealed = seal(SECRET.server_seed, "r1/pass.0/cards", ["2C", "3C", "4C"])
    assert events == [PassChosen(1, 0, cards("2C 3C 4C"), None, sealed)]
    assert view_for(state, 1).you.received is None
    assert view_for(state, None).seats_passed == (0,)


def test_all_four_passes_resolve_at_once_to_the_left_in_round_one():
    state = match_in_round_one()
    state = pass_cards(state, 0, "2C 3C 4C")
    state = pass_cards(state, 1, "2D 3D 4D")
    state = pass_cards(state, 2, "2S 3S 4S")
    state, events = then(state, PassCards(3, cards("2H 3H 4H"), SECRET))
    assert isinstance(events[-1], PassesExchanged)
    assert events[-1].received == (cards("2H 3H 4H"), cards("2C 3C 4C"), cards("2D 3D 4D"),
                                   cards("2S 3S 4S"))
    assert state.status is Status.PLAYING
    assert state.round.turn == 1, "the 2C was passed to seat 1, who now leads it"
    assert set(cards("2C 3C 4C")) <= state.round.hands[1]
    assert len(state.round.hands[1]) == 13


@pytest.mark.parametrize("chosen", ["2C 3C", "2C 3C 4C 5C", "2C 2C 3C", ""])
def test_a_pass_needs_exactly_three_distinct_cards(chosen):
    with pytest.raises(IllegalMove) as error:
        decide(match_in_round_one(), PassCards(0, cards(chosen), SECRET))
    assert error.value.code is Violation.PASS_NEEDS_THREE_CARDS


def test_a_pass_takes_only_cards_from_ones_own_hand():
    with pytest.raises(IllegalMove) as error:
        decide(match_in_round_one(), PassCards(0, cards("2C 3C 2D"), SECRET))
    assert error.value.code is Violation.CARD_NOT_IN_HAND


def test_a_pass_cannot_be_changed_once_submitted():
    state = pass_cards(match_in_round_one(), 0, "2C 3C 4C")
    with pytest.raises(IllegalMove) as error:
        decide(state, PassCards(0, cards("5C 6C 7C"), SECRET))
    assert error.value.code is Violation.ALREADY_PASSED


def test_there_is_no_passing_once_play_has_begun():
    state = match_in_round_one()
    for seat, chosen in enumerate(["2C 3C 4C", "2D 3D 4D", "2S 3S 4S", "2H 3H 4H"]):
        state = pass_cards(state, seat, chosen)
    with pytest.raises(IllegalMove) as error:
        decide(state, PassCards(1, cards("5D 6D 7D"), SECRET))
    assert error.value.code is Violation.WRONG_PHASE


@pytest.mark.parametrize(("number", "receiver_of_seat_0"), [(2, 3), (3, 2)])
def test_right_and_across_rounds_hand_cards_the_right_way(number, receiver_of_seat_0):
    decks = tuple(deck_for(DEAL, dealer=(r - 1) % 4) for r in range(1, number + 1))
    command = create_command(decks=decks)
    state, _ = then(None, command)
    for _ in range(1, number):
        state = _play_round_out(state, command.secret)
    assert state.round.number == number
    for seat in range(4):
        chosen = sorted(state.round.hands[seat])[:3]
        state, events = then(state, PassCards(seat, tuple(chosen), SECRET))
        if seat == 0:
            passed = tuple(chosen)
    assert events[-1].received[receiver_of_seat_0] == passed


def _play_round_out(state, secret):
    number = state.round.number
    rng = Random(0)
    while state.round.number == number:
        seat = seats_to_act(state)[0]
        command = bot_command(view_for(state, seat), policy_named("random"), rng, secret)
        state, _ = then(state, command)
    return state


def test_a_hold_round_has_no_passing_and_starts_with_the_lead():
    decks = tuple(deck_for(DEAL, dealer=(r - 1) % 4) for r in range(1, 5))
    command = create_command(decks=decks)
    state, _ = then(None, command)
    for _ in range(3):
        state = _play_round_out(state, command.secret)
    assert state.round.number == 4
    assert state.status is Status.PLAYING
    assert state.round.turn == 0
    with pytest.raises(IllegalMove) as error:
        decide(state, PassCards(0, tuple(sorted(state.round.hands[0])[:3]), SECRET))
    assert error.value.code is Violation.WRONG_PHASE
