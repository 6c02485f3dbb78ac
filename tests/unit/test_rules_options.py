import pytest

from domain.rules import InvalidRules, MoonRule, Rules, TieBreak


def test_the_defaults_are_cardems_own_rules():
    rules = Rules.from_mapping(None)
    assert rules == Rules()
    assert rules.end_score == 100 and rules.moon is MoonRule.ADD_TO_OTHERS
    assert rules.tie_break is TieBreak.PLAY_ON and rules.first_dealer == 0
    assert not (rules.queen_breaks_hearts or rules.points_on_first_trick
                or rules.shoot_the_sun or rules.jack_of_diamonds)


def test_every_option_is_read_from_json():
    options = {"end_score": 50, "queen_breaks_hearts": True, "points_on_first_trick": True,
               "moon": "shooter_choice", "shoot_the_sun": True, "jack_of_diamonds": True,
               "tie_break": "last_round", "first_dealer": 3, "turn_seconds": 30}
    rules = Rules.from_mapping(options)
    assert rules.to_json() == options


@pytest.mark.parametrize(("options", "named"), [
    ({"end_scor": 50}, "end_scor"),
    ({"end_score": "100"}, "end_score"),
    ({"end_score": 0}, "end_score"),
    ({"end_score": True}, "end_score"),
    ({"queen_breaks_hearts": 1}, "queen_breaks_hearts"),
    ({"moon": "sometimes"}, "moon"),
    ({"tie_break": None}, "tie_break"),
    ({"turn_seconds": 4}, "turn_seconds"),
    ({"turn_seconds": 3601}, "turn_seconds"),
    ({"turn_seconds": 30.5}, "turn_seconds"),
    ({"turn_seconds": "30"}, "turn_seconds"),
    ({"turn_seconds": True}, "turn_seconds"),
    ({"first_dealer": 4}, "first_dealer"),
    ({"first_dealer": -1}, "first_dealer"),
    ({"jack_of_diamonds": "yes"}, "jack_of_diamonds"),
])
def test_an_unknown_option_or_bad_value_is_refused_by_name(options, named):
    with pytest.raises(InvalidRules) as error:
        Rules.from_mapping(options)
    assert error.value.option == named
    assert named in str(error.value)


def test_rules_are_frozen():
    with pytest.raises(AttributeError):
        Rules().end_score = 5  # type: ignore[misc]
