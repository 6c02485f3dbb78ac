import json
import math
from copy import deepcopy
from dataclasses import replace
from random import Random

import pytest

from bench.play_model import WEIGHTS, fitted_model
from domain.bots.expert import ExpertPolicy, distinct_plays, outcome, table_of
from domain.bots.imitation import FEATURES, BadPlayModel, PlayModel, Position
from domain.bots.knowledge import knowledge
from domain.bots.rollout import distinct, legal_plays, out_of, rollout, thumb_play
from domain.cards import DECK
from domain.views import view_for
from tests.builders import UNBROKEN, after
from tests.unit.test_expert import OneDeal
from tests.unit.test_rollout import OPTIONS, SPREAD, _table, true_position

THUMB_ONLY = PlayModel(tuple(float(name == "thumb") for name in FEATURES))  # no hidden units


def _true_table(rules, seed):
    view, table = true_position(rules, seed)
    return table, view.you.seat


@pytest.mark.parametrize("rules", OPTIONS, ids=range(len(OPTIONS)))
@pytest.mark.parametrize("seed", range(25))
def test_a_model_weighing_the_rules_of_thumb_alone_plays_as_they_do(rules, seed):
    table, seat = _true_table(rules, seed)
    thumb = thumb_play(rules, table, seat)
    by_model = THUMB_ONLY(rules, table, seat)
    assert by_model == thumb and by_model in legal_plays(rules, table, seat)
    # And so a rollout with every seat played by it scores as one by rules of thumb.
    modelled = replace(deepcopy(table), kin=0b1111, kin_player=THUMB_ONLY)
    assert rollout(rules, modelled) == rollout(rules, table)


def _features(table, seat, card):
    cards = distinct(OPTIONS[0], legal_plays(OPTIONS[0], table, seat), out_of(table, seat))
    named = dict(zip(FEATURES, Position(OPTIONS[0], table, seat, cards).features(_index(card)),
                     strict=True))
    return {name: value for name, value in named.items() if value}


def _index(text):
    return next(i for i, c in enumerate(DECK) if str(c) == text)


def test_the_features_of_a_lead_say_what_the_card_is_against_the_cards_still_out():
    table = _table(SPREAD, 0, (0, 0, 0, 0))  # West leads; the queen is North's
    assert _features(table, 0, "3S") == {
        "thumb": 1.0, "lead rank": 1 / 12, "lead beaten by": 8 / 13, "lead others hold": 8 / 13,
        "lead own length": 4 / 13, "lead spade under queen": 1.0,
        "lead rank by others hold": 1 / 12 * 8 / 13}
    assert _features(table, 0, "6D") == {
        "lead rank": 4 / 12, "lead beaten by": 8 / 13, "lead others hold": 9 / 13,
        "lead own length": 4 / 13, "lead diamond": 1.0,
        "lead rank by others hold": 4 / 12 * 9 / 13}
    # South's ace of clubs, with eight clubs out: sure to win, and early enough that all follow.
    ace = _features(_table(SPREAD, 2, (0, 0, 0, 0)), 2, "AC")
    assert ace["lead sure win"] == ace["lead sure win while all follow"] == 1.0


def test_the_features_of_a_follow_and_a_discard_say_what_the_trick_gives():
    table = _table(SPREAD, 1, (0, 0, 0, 0))
    table.plays = [(1, _index("TC"))]
    follow = _features(table, 2, "AC")
    assert follow == {"follow wins": 1.0, "follow rank": 1.0, "follow sure win": 1.0,
                      "follow wins clean early": 1.0,  # seven clubs still out: all follow
                      "wins late": 1 / 13}
    assert _features(table, 2, "JC")["follow lowest"] == 1.0  # and wins too: nothing between
    table.plays = [(1, _index("TC")), (2, _index("JC"))]
    queen = _features(table, 3, "QS")
    assert queen == {"thumb": 1.0, "discard queen": 1.0, "discard rank": 10 / 12,
                     "discard own length": 4 / 13, "discard rank of short suit": 10 / 12 / 4}
    table.points = [0, 0, 12, 0]  # South, on the trick, has every point: a moon run
    assert _features(table, 3, "QS")["feeds shooter"] == 1.0
    assert _features(table, 3, "9H")["feeds shooter"] == 1 / 13


def test_the_fitted_model_loads_from_the_repository_with_a_weight_per_feature():
    model = fitted_model()
    assert len(model.linear) == len(model.first) == len(FEATURES)
    assert len(model.bias) == len(model.second) == len(model.first[0]) > 0
    assert model == PlayModel.from_json(WEIGHTS.read_text())
    table, seat = _true_table(OPTIONS[0], 3)
    assert model(OPTIONS[0], table, seat) in legal_plays(OPTIONS[0], table, seat)


def _weights(hidden=2, **changed):
    weights = {"features": list(FEATURES), "linear": [0.5] * len(FEATURES),
               "first": [[0.25] * hidden] * len(FEATURES) if hidden else [], "bias": [0.0] * hidden,
               "second": [1.0] * hidden}
    return json.dumps({**weights, **changed})


def test_a_card_is_scored_by_its_features_and_the_hidden_units_they_stir():
    rng = Random(5)
    hidden = 3
    first = [[rng.uniform(-1, 1) for _ in range(hidden)] for _ in FEATURES]
    linear = [rng.uniform(-1, 1) for _ in FEATURES]
    bias, second = [0.1, -0.2, 0.3], [1.5, -0.5, 2.0]
    model = PlayModel.from_json(_weights(hidden, linear=linear, first=first, bias=bias,
                                         second=second))
    features = [rng.choice([0.0, 0.0, 1.0, rng.random()]) for _ in FEATURES]
    units = [math.tanh(bias[j] + sum(f * first[i][j] for i, f in enumerate(features)))
             for j in range(hidden)]
    expected = sum(f * w for f, w in zip(features, linear, strict=True)) + sum(
        w * u for w, u in zip(second, units, strict=True))
    assert model.score(features) == pytest.approx(expected)
    linear_only = PlayModel.from_json(_weights(0, linear=linear))
    assert linear_only.score(features) == pytest.approx(sum(
        f * w for f, w in zip(features, linear, strict=True)))


@pytest.mark.parametrize("text", [
    "not json",
    json.dumps([1, 2]),
    _weights(features=list(reversed(FEATURES))),
    _weights(linear=[0.0] * (len(FEATURES) - 1)),
    _weights(first=[[0.0, 0.0]] * (len(FEATURES) - 1)),
    _weights(first=[[0.0]] * len(FEATURES)),
    _weights(second=[1.0]),
    _weights(linear=[float("nan")] * len(FEATURES)),
    _weights(bias=["1", "2"]),
    _weights(second=[True, False]),
    json.dumps({"features": list(FEATURES), "linear": [0.0] * len(FEATURES)}),
], ids=["text", "a list", "other features", "short linear", "short first", "narrow first",
        "short second", "not finite", "strings", "booleans", "no hidden layer given"])
def test_weights_that_are_not_this_models_are_refused(text):
    with pytest.raises(BadPlayModel):
        PlayModel.from_json(text)


def _experts_at_every_seat():
    """The first trick led by the two of clubs and followed once, every seat shown as held by
    the expert."""
    state = after(UNBROKEN, [(0, "2C"), (1, "AC")])
    return replace(state, seats=tuple(replace(s, bot="expert") for s in state.seats))


def test_an_expert_given_a_model_of_its_kin_plays_their_seats_by_it_in_its_rollouts():
    """On one given deal, the choice is the best card with the other experts played by the
    model; a model of the rules of thumb alone changes nothing."""
    state = _experts_at_every_seat()
    view = view_for(state, 2)
    source = OneDeal(state)
    model = fitted_model()

    class Given(ExpertPolicy):
        def deals(self, view, k):
            return source

    def values(player):
        start = table_of(view, knowledge(view))
        start.kin, start.kin_player = 0b1011, player
        cards = distinct_plays(view, knowledge(view), sorted(view.you.legal))
        return {card: outcome(view.rules, start, source.hands, 2, card) for card in cards}

    def best(values):
        return min(values, key=lambda card: (values[card], card.index))

    by_model = {Given(40, kin=True, kin_player=model).choose_play(view, Random(s))
                for s in range(3)}
    assert by_model == {best(values(model))}
    by_thumb = Given(40, kin=True, kin_player=THUMB_ONLY).choose_play(view, Random(0))
    assert by_thumb == Given(40).choose_play(view, Random(0)) == best(values(THUMB_ONLY))


def test_an_expert_with_the_fitted_model_is_deterministic_given_its_seed_and_budget():
    """Sampled deals and model-played rollouts alike draw from the seed alone: the same seed
    and budget give the same card and the same mean outcome for every card."""
    view = view_for(_experts_at_every_seat(), 2)

    def searched(seed):
        values = {}
        *_, card = ExpertPolicy(120, kin=True, kin_player=fitted_model()).searching(
            view, Random(seed), values)
        return card, values

    first = searched(7)
    assert len(first[1]) > 1
    assert searched(7) == first
    assert searched(8)[1] != first[1]
