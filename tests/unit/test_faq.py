"""Every question in the FAQ of the Cardems rules page, answered by the domain."""

import pytest

from domain.cards import parse_card
from domain.commands import PassCards, PlayCard
from domain.decide import decide
from domain.errors import IllegalMove, Violation
from domain.events import PassChosen, RoundDealt, RoundScored
from domain.legal import legal_cards
from domain.passing import PassDirection
from domain.rules import MoonRule, Rules
from domain.scoring import match_winner
from tests.builders import (
    SECRET,
    SUIT_PER_SEAT,
    UNBROKEN,
    cards,
    create_command,
    created,
    given,
    hands,
    hold_round,
    play,
    play_lowest_until_round_ends,
    then,
)


def test_faq_how_many_cards_do_i_pass():
    state, _ = then(None, create_command())
    hand = sorted(state.round.hands[0])
    for wrong in (hand[:2], hand[:4]):
        with pytest.raises(IllegalMove) as error:
            decide(state, PassCards(0, tuple(wrong), SECRET))
        assert error.value.code is Violation.PASS_NEEDS_THREE_CARDS
    chosen = decide(state, PassCards(0, tuple(hand[:3]), SECRET))
    assert [type(e) for e in chosen] == [PassChosen] and chosen[0].cards == tuple(hand[:3])
    with pytest.raises(IllegalMove) as error:
        decide(hold_round(UNBROKEN), PassCards(0, cards("2C 3C 4C"), SECRET))
    assert error.value.code is Violation.WRONG_PHASE, "the hold round has no passing"


def test_faq_who_leads_first():
    state = hold_round(UNBROKEN)
    assert state.round.turn == 0
    with pytest.raises(IllegalMove) as error:
        decide(state, PlayCard(0, parse_card("3C"), SECRET))
    assert error.value.code is Violation.MUST_LEAD_TWO_OF_CLUBS


def test_faq_can_i_lead_hearts_before_they_are_broken():
    state = hold_round(UNBROKEN)
    for seat, card in [(0, "2C"), (1, "AC"), (2, "JD"), (3, "2S")]:
        state = play(state, seat, card)
    with pytest.raises(IllegalMove) as error:
        decide(state, PlayCard(1, parse_card("2H"), SECRET))
    assert error.value.code is Violation.HEARTS_NOT_BROKEN
    for seat, card in [(1, "2D"), (2, "6H"), (3, "QD"), (0, "TD")]:
        state = play(state, seat, card)
    assert state.round.hearts_broken, "a heart discarded on a led trick breaks hearts"


def test_faq_what_happens_when_a_player_shoots_the_moon():
    _, events = play_lowest_until_round_ends(hold_round(SUIT_PER_SEAT))
    result = next(e for e in events if isinstance(e, RoundScored))
    assert result.points == (26, 0, 0, 0)
    assert result.scores == (0, 26, 26, 26)


def test_faq_when_may_a_point_card_be_played_on_the_opening_trick():
    only_points = hands("2C 3C 4C 5C 6C 7C 8C 9C TC 2D 3D 4D 5D",
                        "QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH",
                        "AH 2S 3S 4S 5S 6S 7S 8S 9S TS JS KS AS")
    state = play(hold_round(only_points), 0, "2C")
    assert parse_card("QS") in legal_cards(state.round, state.rules, 1), "nothing but points"
    state = play(state, 1, "QS")
    with pytest.raises(IllegalMove) as error:
        decide(state, PlayCard(2, parse_card("AH"), SECRET))
    assert error.value.code is Violation.NO_POINTS_ON_FIRST_TRICK


def test_faq_what_happens_at_100_points():
    assert match_winner(Rules(), (100, 40, 60, 80), (10, 0, 0, 16)) == 1
    assert match_winner(Rules(), (100, 40, 40, 80), (10, 0, 0, 16)) is None
    # Seat 0 shoots the moon (-26) from 26 and draws level with seat 1 at 0: play on.
    rules = Rules(end_score=20, moon=MoonRule.SUBTRACT_FROM_SELF)
    before = RoundScored(3, (26, 0, 0, 0), (26, 0, 30, 30), (26, 0, 30, 30), None, None, None)
    dealt = RoundDealt(4, 3, PassDirection.HOLD, SUIT_PER_SEAT)
    state, events = play_lowest_until_round_ends(given(created(rules), before, dealt))
    assert state.totals == (0, 0, 30, 30)
    assert state.winner is None and isinstance(events[-1], RoundDealt)
    assert events[-1].round == 5
