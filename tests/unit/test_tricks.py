import pytest

from domain.cards import parse_card
from domain.commands import PlayCard
from domain.decide import decide
from domain.errors import IllegalMove, Violation
from domain.events import CardPlayed, TrickTaken
from domain.legal import legal_cards
from domain.rules import Rules
from domain.views import view_for
from tests.builders import SECRET, UNBROKEN, cards, hands, hold_round, play, then

# Seat 1 holds nothing but points; seat 2 is void in clubs with AH among spades.
ONLY_POINTS = hands(
    "2C 3C 4C 5C 6C 7C 8C 9C TC 2D 3D 4D 5D",
    "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
    "AH 2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS",
)
# Seat 1 wins trick 1 with AC and then holds hearts and diamonds.
# Seat 1 wins trick 1 and is left with nothing but hearts.
ALL_HEARTS = hands(
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
    "AC 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
)


def refused(state, seat, card):
    with pytest.raises(IllegalMove) as error:
        decide(state, PlayCard(seat, parse_card(card), SECRET))
    return error.value.code


def test_the_holder_of_the_two_of_clubs_leads_it_to_the_first_trick():
    state = hold_round(ONLY_POINTS)
    assert state.round.turn == 0
    assert refused(state, 0, "3C") is Violation.MUST_LEAD_TWO_OF_CLUBS
    assert legal_cards(state.round, state.rules, 0) == frozenset(cards("2C"))


def test_only_the_seat_on_turn_may_play():
    assert refused(hold_round(ONLY_POINTS), 1, "QS") is Violation.NOT_YOUR_TURN


def test_a_card_must_be_in_the_players_hand():
    state = play(hold_round(ONLY_POINTS), 0, "2C")
    assert refused(state, 1, "AH") is Violation.CARD_NOT_IN_HAND


def test_a_follower_holding_the_led_suit_must_follow_it():
    state = play(play(play(hold_round(ONLY_POINTS), 0, "2C"), 1, "QS"), 2, "2S")
    assert refused(state, 3, "6D") is Violation.MUST_FOLLOW_SUIT
    assert legal_cards(state.round, state.rules, 3) == frozenset(cards("JC QC KC AC"))


def test_no_heart_or_queen_on_the_first_trick_while_another_card_is_held():
    state = play(play(hold_round(ONLY_POINTS), 0, "2C"), 1, "KH")
    assert refused(state, 2, "AH") is Violation.NO_POINTS_ON_FIRST_TRICK
    assert legal_cards(state.round, state.rules, 2) == frozenset(
        cards("2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS"))


def test_a_hand_of_nothing_but_points_may_discard_them_on_the_first_trick():
    state = play(hold_round(ONLY_POINTS), 0, "2C")
    assert legal_cards(state.round, state.rules, 1) == state.round.hands[1]
    assert play(state, 1, "QS").round.trick.plays[-1].card == parse_card("QS")


def test_points_on_first_trick_lets_hearts_and_the_queen_be_discarded():
    state = play(hold_round(ONLY_POINTS, Rules(points_on_first_trick=True)), 0, "2C")
    state = play(state, 1, "QS")
    assert parse_card("AH") in legal_cards(state.round, state.rules, 2)
    assert play(state, 2, "AH").round.hearts_broken


def test_the_highest_card_of_the_led_suit_takes_the_trick_and_leads_next():
    state = hold_round(UNBROKEN)
    for seat, card in [(0, "2C"), (1, "AC"), (2, "JD")]:
        state = play(state, seat, card)
    state, events = then(state, PlayCard(3, parse_card("2S"), SECRET))
    assert events == [CardPlayed(3, parse_card("2S")), TrickTaken(4, 1, 1, 0)]
    assert state.round.turn == 1
    assert state.round.trick.leader == 1 and state.round.trick.plays == ()


def test_hearts_may_not_be_led_before_they_are_broken():
    state = hold_round(UNBROKEN)
    for seat, card in [(0, "2C"), (1, "AC"), (2, "JD"), (3, "2S")]:
        state = play(state, seat, card)
    assert refused(state, 1, "2H") is Violation.HEARTS_NOT_BROKEN
    assert legal_cards(state.round, state.rules, 1) == frozenset(
        cards("2D 3D 4D 5D 6D 7D 8D 9D"))


def test_the_queen_does_not_break_hearts_by_default():
    state = _queen_discarded(Rules())
    assert not state.round.hearts_broken
    assert not view_for(state, None).hearts_broken


def test_the_queen_breaks_hearts_under_queen_breaks_hearts():
    assert _queen_discarded(Rules(queen_breaks_hearts=True)).round.hearts_broken


def _queen_discarded(rules):
    state = hold_round(UNBROKEN, rules)
    for seat, card in [(0, "2C"), (1, "AC"), (2, "JD"), (3, "2S"),
                       (1, "2D"), (2, "QS"), (3, "QD"), (0, "TD")]:
        state = play(state, seat, card)
    assert state.round.taken[-1].winner == 3 and state.round.taken[-1].points == 13
    return state


def test_a_discarded_heart_breaks_hearts_for_later_leads():
    state = hold_round(UNBROKEN)
    for seat, card in [(0, "2C"), (1, "AC"), (2, "JD"), (3, "2S"),
                       (1, "2D"), (2, "6H"), (3, "QD"), (0, "TD")]:
        state = play(state, seat, card)
    assert state.round.hearts_broken
    assert parse_card("KH") not in state.round.hands[3]
    assert state.round.taken[-1].points == 1


def test_a_leader_with_nothing_but_hearts_may_lead_one_unbroken():
    state = hold_round(ALL_HEARTS)
    for seat, card in [(0, "2C"), (1, "AC")]:
        state = play(state, seat, card)
    for seat in (2, 3):
        state = play(state, seat, str(min(legal_cards(state.round, state.rules, seat))))
    assert not state.round.hearts_broken
    assert legal_cards(state.round, state.rules, 1) == state.round.hands[1]
    assert play(state, 1, "2H").round.hearts_broken


def test_a_void_follower_after_the_first_trick_may_discard_anything():
    state = hold_round(UNBROKEN)
    for seat, card in [(0, "2C"), (1, "AC"), (2, "JD"), (3, "2S"), (1, "2D")]:
        state = play(state, seat, card)
    assert legal_cards(state.round, state.rules, 2) == state.round.hands[2]
