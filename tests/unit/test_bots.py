from dataclasses import replace
from random import Random

import pytest

from domain.bots.base import bot_command
from domain.bots.levels import UnknownPolicy, policy_named
from domain.cards import parse_card
from domain.commands import PassCards, PlayCard
from domain.legal import legal_cards
from domain.views import view_for
from tests.builders import (
    SECRET,
    UNBROKEN,
    after,
    cards,
    create_command,
    deck_for,
    hands,
    play,
    then,
)

HEURISTIC = policy_named("heuristic")

DUCK = hands(
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
    "AC 9D 3D 4D 2H 3H 4H 5H 6H 7H 8H 9H TH",
    "5D 8D KD 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
)




def heuristic_play(state, seat):
    return HEURISTIC.choose_play(view_for(state, seat), Random(0))


def heuristic_pass(hand_text):
    deal = hands(hand_text)
    state, _ = then(None, create_command(decks=(deck_for(deal),)))
    return set(HEURISTIC.choose_pass(view_for(state, 0), Random(0)))


def test_the_heuristic_passes_an_unguarded_queen():
    assert parse_card("QS") in heuristic_pass("QS 2S 3S 2C 3C 4C 5C 6C 2D 3D 4D 5D 6D")


def test_the_heuristic_passes_the_high_spades_and_high_hearts():
    assert heuristic_pass("AS KS 2S 3S 4S AH KH 2C 3C 4C 2D 3D 4D") == set(cards("AS KS AH"))


def test_the_heuristic_keeps_points_when_its_hand_carries_the_moon():
    passed = heuristic_pass("AH KH QH JH TH 9H AS KS QS AC KC AD KD")
    assert not any(c.suit.letter == "H" or str(c) == "QS" for c in passed)


def test_the_heuristic_ducks_under_the_card_that_is_winning():
    state = after(DUCK, [(0, "2C"), (1, "AC"), (2, "2S"), (3, "6D"), (1, "9D")])
    assert heuristic_play(state, 2) == parse_card("8D")


def test_the_heuristic_dumps_the_queen_when_void():
    state = after(UNBROKEN, [(0, "2C"), (1, "AC"), (2, "JD"), (3, "2S"), (1, "2D")])
    assert heuristic_play(state, 2) == parse_card("QS")


def test_the_heuristic_takes_a_heart_to_stop_a_moon():
    state = after(UNBROKEN, [(0, "2C"), (1, "AC"), (2, "JD"), (3, "2S")])
    state = replace(state, round=replace(state.round, hearts_broken=True))
    # Seat 2 could shoot the moon itself while nobody has points; give seat 0 one.
    calm = replace(state, round=replace(state.round, points=(1, 0, 0, 0)))
    calm = play(calm, 1, "5H")
    assert heuristic_play(calm, 2) == parse_card("6H")
    threat = replace(state, round=replace(state.round, points=(0, 16, 0, 0)))
    threat = play(threat, 1, "5H")
    assert heuristic_play(threat, 2) == parse_card("AH")


def test_the_heuristic_gives_a_shooter_no_points_when_void():
    state = after(UNBROKEN, [(0, "2C"), (1, "AC"), (2, "JD"), (3, "2S")])
    threat = replace(state, round=replace(state.round, points=(0, 16, 0, 0)))
    threat = play(threat, 1, "9D")
    choice = heuristic_play(threat, 2)
    assert choice.suit.letter == "S" and choice is not parse_card("QS")


@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_a_bot_only_ever_gives_legal_commands(name):
    policy = policy_named(name)
    rng = Random(5)
    state, _ = then(None, create_command())
    for _ in range(200):
        seat = (view_for(state, None).to_act or (None,))[0]
        if seat is None:
            break
        command = bot_command(view_for(state, seat), policy, rng, SECRET)
        if isinstance(command, PlayCard):
            assert command.card in legal_cards(state.round, state.rules, seat)
        if isinstance(command, PassCards):
            assert set(command.cards) <= state.round.hands[seat]
        state, _ = then(state, command)


def test_an_unknown_bot_is_refused():
    with pytest.raises(UnknownPolicy):
        policy_named("grandmaster")


def _cards_reachable(value, seen=None):
    """Every Card object reachable from a view, however deep."""
    from dataclasses import fields, is_dataclass

    from domain.cards import Card

    if isinstance(value, Card):
        yield value
    elif is_dataclass(value):
        for field in fields(value):
            yield from _cards_reachable(getattr(value, field.name))
    elif isinstance(value, tuple | list | frozenset | set):
        for item in value:
            yield from _cards_reachable(item)


def test_what_a_bot_is_given_holds_no_card_its_seat_may_not_see():
    rng = Random(11)
    for _ in range(3):
        state, _ = then(None, create_command())
        while state.status.value != "finished":
            seat = view_for(state, None).to_act[0]
            given = view_for(state, seat)  # exactly what bot_command hands the policy
            rnd = state.round
            played = {p.card for t in rnd.taken for p in t.plays} | {
                p.card for p in rnd.trick.plays}
            mine = rnd.hands[seat] | set(rnd.passes[seat] or ()) | set(rnd.received[seat] or ())
            assert set(_cards_reachable(given)) <= mine | played
            command = bot_command(given, policy_named("heuristic"), rng, SECRET)
            state, _ = then(state, command)
            if len(state.history) >= 1:
                break
