import pytest

from domain.commands import ChooseMoon, PlayCard
from domain.decide import decide
from domain.errors import IllegalMove, InvalidCommand, Violation
from domain.events import MatchEnded, MoonChosen, MoonShot, RoundDealt, RoundScored
from domain.rules import MoonRule, Rules, TieBreak
from domain.scoring import match_winner, score_round
from domain.shuffle import deal as deal_cards
from domain.shuffle import shuffled_deck
from domain.state import Play, Status, TakenTrick
from domain.views import view_for
from tests.builders import (
    SECRET,
    SEED,
    SUIT_PER_SEAT,
    cards,
    hold_round,
    play_lowest_until_round_ends,
)


def scored(events):
    return next(e for e in events if isinstance(e, RoundScored))


def moon_round(rules):
    return play_lowest_until_round_ends(hold_round(SUIT_PER_SEAT, rules))


def test_a_round_scores_one_per_heart_and_thirteen_for_the_queen():
    deal = [sorted(h) for h in deal_cards(shuffled_deck(SEED, "", 4), dealer=3)]
    state, events = play_lowest_until_round_ends(hold_round(deal))
    result = scored(events)
    assert sum(result.points) == 26
    assert result.scores == result.points
    assert state.totals == result.totals == result.scores
    assert result.moon is None
    assert len([p for p in result.points if p]) > 1


def test_shooting_the_moon_adds_26_to_every_other_seat_by_default():
    result = scored(moon_round(Rules())[1])
    assert result.points == (26, 0, 0, 0)
    assert result.scores == (0, 26, 26, 26)
    assert result.moon == 0


def test_the_moon_can_subtract_26_from_the_shooter_instead():
    result = scored(moon_round(Rules(moon=MoonRule.SUBTRACT_FROM_SELF))[1])
    assert result.scores == (-26, 0, 0, 0)


def test_under_shooter_choice_the_shooter_decides_as_a_move_of_its_own():
    state, events = moon_round(Rules(moon=MoonRule.SHOOTER_CHOICE))
    assert events[-1] == MoonShot(4, 0)
    assert state.status is Status.MOON_CHOICE
    assert view_for(state, None).to_act == (0,)
    with pytest.raises(IllegalMove) as error:
        decide(state, ChooseMoon(1, MoonRule.ADD_TO_OTHERS, SECRET))
    assert error.value.code is Violation.NOT_YOUR_TURN
    with pytest.raises(IllegalMove) as error:
        decide(state, PlayCard(0, cards("AC")[0], SECRET))
    assert error.value.code is Violation.WRONG_PHASE
    with pytest.raises(InvalidCommand):
        decide(state, ChooseMoon(0, MoonRule.SHOOTER_CHOICE, SECRET))
    events = decide(state, ChooseMoon(0, MoonRule.SUBTRACT_FROM_SELF, SECRET))
    assert events[0] == MoonChosen(4, 0, MoonRule.SUBTRACT_FROM_SELF)
    assert scored(events).scores == (-26, 0, 0, 0)
    assert isinstance(events[-1], RoundDealt) and events[-1].round == 5


def test_shooting_the_sun_replaces_the_moon_when_one_seat_takes_every_trick():
    result = scored(moon_round(Rules(shoot_the_sun=True))[1])
    assert result.sun == 0 and result.moon is None
    assert result.scores == (-26, 26, 26, 26)


def test_the_sun_leaves_no_moon_choice():
    state, events = moon_round(Rules(shoot_the_sun=True, moon=MoonRule.SHOOTER_CHOICE))
    assert scored(events).scores == (-26, 26, 26, 26)
    assert not any(isinstance(e, MoonShot) for e in events)
    assert state.round.number == 5


def test_the_jack_of_diamonds_is_minus_ten_applied_after_the_moon():
    result = scored(moon_round(Rules(jack_of_diamonds=True))[1])
    assert result.jack == 0
    assert result.scores == (-10, 26, 26, 26)


def _trick(number, winner, text):
    plays = tuple(Play(seat, c) for seat, c in enumerate(cards(text)))
    return TakenTrick(number, 0, plays, winner, 0)


def test_the_jack_of_diamonds_counts_for_whoever_takes_it_without_a_moon():
    tricks = [_trick(1, 2, "2D JD 3D 4D")]
    result = score_round(Rules(jack_of_diamonds=True), (10, 3, 13, 0), tricks)
    assert result.scores == (10, 3, 3, 0)
    assert score_round(Rules(), (10, 3, 13, 0), tricks).scores == (10, 3, 13, 0)


def test_the_moon_needs_all_26_points_but_not_the_jack():
    tricks = [_trick(1, 1, "2D JD 3D 4D")]
    result = score_round(Rules(jack_of_diamonds=True), (26, 0, 0, 0), tricks)
    assert result.moon == 0
    assert result.scores == (26 - 26, 26 - 10, 26, 26)


def test_the_match_ends_after_a_round_when_one_seat_alone_is_lowest():
    state, events = moon_round(Rules(end_score=26))
    assert isinstance(events[-1], MatchEnded)
    assert events[-1].winner == 0 and events[-1].totals == (0, 26, 26, 26)
    assert events[-1].server_seed == SEED.hex()
    assert state.status is Status.FINISHED and state.winner == 0
    assert view_for(state, None).server_seed == SEED.hex()


def test_below_the_end_score_the_match_goes_on_with_the_next_dealer():
    state, events = moon_round(Rules(end_score=26, moon=MoonRule.SUBTRACT_FROM_SELF))
    assert isinstance(events[-1], RoundDealt)
    assert events[-1].round == 5 and events[-1].dealer == 0
    assert state.status is Status.PASSING


@pytest.mark.parametrize(("totals", "last", "tie_break", "winner"), [
    ((99, 50, 60, 70), (0, 0, 0, 0), TieBreak.PLAY_ON, None),
    ((100, 50, 60, 70), (0, 0, 0, 0), TieBreak.PLAY_ON, 1),
    ((100, 50, 50, 70), (0, 3, 5, 0), TieBreak.PLAY_ON, None),
    ((100, 50, 50, 70), (0, 3, 5, 0), TieBreak.LAST_ROUND, 1),
    ((100, 50, 50, 70), (0, 4, 4, 0), TieBreak.LAST_ROUND, None),
    ((104, 20, 20, 20), (26, 0, 0, 1), TieBreak.LAST_ROUND, None),
])
def test_the_winner_is_the_unique_lowest_total_once_any_total_reaches_the_end(
        totals, last, tie_break, winner):
    assert match_winner(Rules(tie_break=tie_break), totals, last) == winner
