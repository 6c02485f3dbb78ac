from itertools import combinations
from random import Random

import pytest

from domain.bots.duplicate import dealt_state
from domain.bots.expert import ExpertPolicy
from domain.bots.heuristic import HeuristicPolicy, pass_ranking
from domain.bots.pass_search import played_out, searched_pass, simulated_passes
from domain.cards import parse_card
from domain.commands import Secret
from domain.passing import receiver
from domain.rules import Rules
from domain.table import table_for
from domain.views import view_for
from tests.builders import deck_for, hands

SEARCH = ExpertPolicy(iterations=120, pass_rollouts=200)


def passing_view(seed: int, seats: int = 4, seat: int = 0):
    """A seat's view of a round dealt from `seed`, passing to the left."""
    table = table_for(seats)
    cards = list(table.cards)
    Random(seed).shuffle(cards)
    state = dealt_state(cards, 1, Secret(bytes(32)), Rules(end_score=10_000), table)
    return state, view_for(state, seat)


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_the_searched_pass_is_three_of_the_five_most_dangerous_cards(seats):
    for seed in range(3):
        _, view = passing_view(seed, seats)
        chosen = SEARCH.choose_pass(view, Random(seed))
        top = pass_ranking(sorted(view.you.hand), keep_points=False)[:5]
        assert len(set(chosen)) == 3 and set(chosen) <= set(top)
        assert set(chosen) in [set(c) for c in combinations(top, 3)]


def test_the_searched_pass_is_the_same_for_the_same_seed_and_budget():
    _, view = passing_view(5)
    first = SEARCH.choose_pass(view, Random(9))
    assert all(SEARCH.choose_pass(view, Random(9)) == first for _ in range(2))


def test_the_search_leaves_the_bots_chance_where_it_found_it():
    # The plays after the pass draw the same chance whichever way the pass was chosen.
    _, view = passing_view(6)
    rng = Random(4)
    before = rng.getstate()
    SEARCH.choose_pass(view, rng)
    assert rng.getstate() == before


MOON_HAND = hands(
    "AH KH QH JH TH 9H AS KS QS AC KC AD 2D",
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC 3D 4D",
    "5D 6D 7D 8D 9D TD JD QD KD 2S 3S 4S 5S",
)


def test_a_hand_that_carries_the_moon_keeps_its_points_as_the_heuristic_does():
    state = dealt_state(deck_for(MOON_HAND), 1, Secret(bytes(32)), Rules(end_score=10_000))
    view = view_for(state, 0)
    assert set(view.you.hand) == set(MOON_HAND[0])
    chosen = SEARCH.choose_pass(view, Random(1))
    assert set(chosen) == set(HeuristicPolicy().choose_pass(view, Random(1)))
    assert parse_card("QS") not in chosen and not any(c.suit.letter == "H" for c in chosen)


@pytest.mark.parametrize("seed", range(12))
def test_the_simulated_players_pass_as_the_heuristic_bot_does(seed):
    state, _ = passing_view(seed)
    held = [[c.index for c in hand] for hand in state.round.hands]
    me = seed % 4
    passes = simulated_passes(held, me)
    assert passes[me] == []
    for seat in set(range(4)) - {me}:
        expected = HeuristicPolicy().choose_pass(view_for(state, seat), Random(0))
        assert sorted(passes[seat]) == sorted(c.index for c in expected)


@pytest.mark.parametrize("seed", range(3))
def test_on_a_given_deal_the_pass_is_the_candidate_that_plays_out_best_on_it(seed):
    state, view = passing_view(seed)
    dealt = [[c.index for c in hand] for hand in state.round.dealt]
    rng = Random(seed)
    before = rng.getstate()
    chosen = searched_pass(view, rng, 1, dealt)
    assert rng.getstate() == before  # no deal was sampled
    ranking = pass_ranking(sorted(view.you.hand), keep_points=False)[:5]
    to = [receiver(s, view.pass_direction, view.table) for s in range(4)]

    def on_the_deal(candidate):
        passes = simulated_passes(dealt, 0)
        passes[0] = [c.index for c in candidate]
        return played_out(view.rules, dealt, passes, to, 0)

    best = min(on_the_deal(c) for c in combinations(sorted(ranking), 3))
    assert on_the_deal(sorted(chosen)) == best
