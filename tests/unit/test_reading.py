from dataclasses import replace
from random import Random

import pytest

from domain.bots.base import bot_command
from domain.bots.duplicate import dealt_state
from domain.bots.heuristic import HeuristicPolicy, shooting
from domain.bots.knowledge import knowledge
from domain.bots.reading import read_plays
from domain.bots.sampling import Sampler
from domain.cards import DECK, Card, Suit, parse_card
from domain.commands import Secret
from domain.decide import decide
from domain.events import RoundScored
from domain.evolve import fold
from domain.rules import Rules
from domain.table import table_for
from domain.views import seats_to_act, view_for
from tests.builders import after, cards, hands

VOIDS = hands(
    "2C 3C 4C 5C 6C 7C 8C 9C 2H 3H 4H 5H 6H",
    "AC 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD",
    "TC JC QC 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
)  # East: KC AD QS KS AS and 7H to AH
FIRST_TRICK = [(0, "2C"), (1, "AC"), (2, "QC"), (3, "KC")]


def test_a_seat_that_goes_over_with_its_lowest_card_lacks_the_cards_below_it():
    view = view_for(after(VOIDS, FIRST_TRICK), 0)
    lacks = read_plays(view, 0)
    assert parse_card("KC") not in lacks[2]  # played: nothing left to read
    assert set(cards("3C 4C 5C 6C 7C 8C 9C TC JC QC KC")) - {parse_card("QC"), parse_card(
        "KC")} <= lacks[1]  # over with its lowest club: it held no club below the ace
    assert not lacks[0] and not lacks[3]  # our own seat; East's king ducked the ace


def test_a_discard_of_a_side_card_says_no_heart_no_queen_and_no_high_spade():
    view = view_for(after(VOIDS, [*FIRST_TRICK, (1, "2D"), (2, "JC")]), 0)
    lacks = read_plays(view, 0)
    hearts = {c for c in DECK if c.suit is Suit.HEARTS}
    assert hearts | set(cards("QS KS AS")) <= lacks[2]
    assert not lacks[2] & set(VOIDS[2])


def test_a_seat_whose_play_contradicts_its_reads_loses_them_all():
    # North ducks the ace of clubs with the ten though it holds the jack and queen: read as
    # lacking them, until it throws the jack.
    ducked = [(0, "2C"), (1, "AC"), (2, "TC")]
    assert set(cards("JC QC KC")) <= read_plays(view_for(after(VOIDS, ducked), 0), 0)[2]
    thrown = [*ducked, (3, "KC"), (1, "2D"), (2, "JC")]
    assert not read_plays(view_for(after(VOIDS, thrown), 0), 0)[2]
    # So too when it holds a card we passed it and it has not played.
    assert not read_plays(view_for(after(VOIDS, ducked), 0), 0, frozenset(cards("QC")), 2)[2]


def test_the_plays_of_an_unread_seat_are_not_read():
    # North's duck of the ace says it lacks the jack to king; unread, it says nothing.
    view = view_for(after(VOIDS, [(0, "2C"), (1, "AC"), (2, "TC")]), 0)
    assert set(cards("JC QC KC")) <= knowledge(view).lacks[2]
    unread = knowledge(view, unread=1 << 2)
    assert unread.lacks[2] == unread.queen_lacks[2] and not unread.lacks[2] & set(cards("JC"))
    assert unread.lacks[1] == knowledge(view).lacks[1]  # East's, still read


QUEEN_HELD = hands(
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
    "AC 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "QS 2S 3S 2H 3H 4H 5H 6H 7H 8H 9H TH JH",
)


def test_no_discard_is_read_on_the_first_trick_where_points_may_not_go():
    # North, void in clubs, may not throw the queen on the first trick: its 2S says nothing.
    view = view_for(after(QUEEN_HELD, [(0, "2C"), (1, "AC"), (2, "2S")]), 0)
    assert not read_plays(view, 0)[2]
    # On the second it throws her: nothing to read.
    view = view_for(after(QUEEN_HELD, [(0, "2C"), (1, "AC"), (2, "2S"), (3, "4S"),
                                       (1, "3D"), (2, "QS")]), 0)
    assert not read_plays(view, 0)[2]  # she was thrown: nothing to read


@pytest.mark.parametrize("seats", [3, 4, 5, 6])
def test_rule_of_thumb_players_are_read_wrong_only_when_running_at_the_moon(seats):
    """At every decision of whole rounds of heuristic bots, no card a seat is read to lack is
    in its hand, unless the seat has played as a shooter, by other rules; and the reads say
    something."""
    table = table_for(seats)
    read = 0
    for number in range(1, 13):
        rng = Random(f"reading/{seats}/{number}")
        deck = list(table.cards)
        rng.shuffle(deck)
        secret = Secret(rng.randbytes(32))
        state = dealt_state(deck, number, secret, Rules(end_score=10_000), table)
        bot = HeuristicPolicy()
        shooter = [False] * seats
        while True:
            seat = seats_to_act(state)[0]
            view = view_for(state, seat)
            if view.trick is not None:
                k = knowledge(view, read_plays=True)
                for other in range(seats):
                    assert shooter[other] or not k.lacks[other] & set(state.round.hands[other])
                    read += len(k.lacks[other] & k.unseen)
                shooter[seat] |= shooting(k)
            events = decide(state, bot_command(view, bot, rng, secret))
            if any(isinstance(e, RoundScored) for e in events):
                break
            state = fold(events, state)
    assert read > 100 * seats


def dealt(view, k, draws=40):
    """Sampled deals, as a set of cards a seat."""
    sampler, rng = Sampler(view, k), Random(3)
    return [[{Card(c) for suit in hand for c in suit} for hand in sampler.deal(rng)]
            for _ in range(draws)]


def test_a_card_every_seat_is_read_to_lack_still_goes_to_a_seat_and_the_other_reads_hold():
    view = view_for(after(VOIDS, FIRST_TRICK), 0)
    k = knowledge(view)
    ace, queen = parse_card("AH"), parse_card("QS")
    misread = replace(k, lacks=(frozenset(), frozenset({ace}), frozenset({ace, queen}),
                                frozenset({ace})))
    deals = dealt(view, misread)
    assert all(any(ace in hand for hand in deal) for deal in deals)
    assert not any(queen in deal[2] for deal in deals)  # North's other read still holds


def test_a_seat_read_to_lack_more_than_leaves_it_a_hand_keeps_the_queens_read_alone():
    view = view_for(after(VOIDS, FIRST_TRICK), 0)
    k = knowledge(view)
    queen = parse_card("QS")
    everything = frozenset(k.unseen) - {queen}
    misread = replace(k, lacks=(frozenset(), everything, frozenset(), frozenset()),
                      queen_lacks=(frozenset(), frozenset({queen}), frozenset(), frozenset()))
    deals = dealt(view, misread)
    assert not any(queen in deal[1] for deal in deals)
    assert any(deal[1] & everything for deal in deals)
