from dataclasses import replace
from random import Random

import pytest

from domain.bots.base import bot_command
from domain.bots.danger import passes_first
from domain.bots.duplicate import dealt_state
from domain.bots.heuristic import HeuristicPolicy, carries_moon, pass_ranking, shooting
from domain.bots.knowledge import knowledge
from domain.bots.reading import passed_over, read_plays
from domain.bots.sampling import Sampler
from domain.cards import DECK, Card, Suit, parse_card
from domain.commands import Secret
from domain.decide import decide
from domain.events import RoundScored
from domain.evolve import fold
from domain.rules import Rules
from domain.table import table_for
from domain.views import seats_to_act, view_for
from tests.builders import after, cards, hands, hold_round, pass_cards, play

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
    read = passes_read = 0
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
            if view.trick is None:  # a hand that carries a moon passes by other rules
                shooter[seat] |= carries_moon(knowledge(view))
            else:
                k = knowledge(view, read_plays=True, read_pass=True)
                for other in range(seats):
                    assert shooter[other] or not k.lacks[other] & set(state.round.hands[other])
                    read += len(k.lacks[other] & k.unseen)
                shooter[seat] |= shooting(k)
                if not view.tricks and (pass_read := passed_over(view)) is not None:
                    passes_read += len(pass_read.kept_none)
            events = decide(state, bot_command(view, bot, rng, secret))
            if any(isinstance(e, RoundScored) for e in events):
                break
            state = fold(events, state)
    assert read > 100 * seats
    assert passes_read > 20 if table.has_across else passes_read == 0


# North, across, is passed to by South and passes to it: the diamonds are its most
# dangerous cards (three clubs short of the ace and the hearts from the ten up).
ACROSS = hands(
    "5C 6C 7C 8C 9C TC 5D 6D 7D 5S 6S 7S 3H",
    "JC QC KC AC 8D 9D TD 8S 9S TS 4H 5H 6H",
    "2C 3C 4C 2D 3D 4D JD QD KD 2S 3S 4S 2H",
)  # East: AD, JS to AS and 7H to AH


def passed_across(north: str):
    """The across round of ACROSS, once every seat has passed; North passes `north`."""
    state = hold_round(ACROSS, number=3)
    for seat, passed in ((0, "8C 9C TC"), (1, "JC QC KC"), (2, north), (3, "JS 7H 8H")):
        state = pass_cards(state, seat, passed)
    return state


def test_a_pass_from_across_says_which_cards_the_passer_kept_none_of():
    assert set(pass_ranking(list(ACROSS[2]), keep_points=False)[:3]) == set(cards("JD QD KD"))
    state = passed_across("JD QD KD")
    read = passed_over(view_for(state, 0))
    seat, kept_none = read.passer, read.kept_none
    # Each would have gone before the jack of diamonds, whatever else it held: the ace of
    # diamonds makes four, too many to be short, and high hearts are dangerous anywhere.
    assert seat == 2 and kept_none == set(cards("AD TH JH QH KH AH"))
    assert not kept_none & set(state.round.hands[2])
    assert kept_none <= read_plays(view_for(state, 0), 0, pass_read=read)[2]
    assert not read_plays(view_for(state, 0), 0)[2]  # the pass is read only when asked


def test_a_card_as_dangerous_as_the_least_passed_may_have_been_kept():
    # The two of hearts weighs as the eight of spades: which of two such cards goes is the
    # hand's order, not their danger, so only the nine of spades up is read as passed over.
    kept_none = passed_over(view_for(passed_across("KD QD 2H"), 0)).kept_none
    assert parse_card("9S") in kept_none and parse_card("8S") not in kept_none


def test_the_rules_of_thumb_pass_first_what_they_pass_and_nothing_kept_outranks_it():
    rng = Random(5)
    for _ in range(500):
        hand = rng.sample(list(DECK), 13)
        assert passes_first(hand, pass_ranking(hand, keep_points=False)[:3])
    # The queen kept with four spades, the diamonds passed: not the rules' pass.
    held = cards("QS 2S 3S 4S 2C 3C 4C 2D 3D 4D JD QD KD")
    assert not passes_first(held, cards("JD QD KD"))
    five_spades = [*held[:-1], parse_card("5S")]
    assert passes_first(five_spades, cards("JD QD 4C"))  # five spades guard her
    assert not passes_first(five_spades, cards("JD QD 2C"))  # the four of clubs is worse


def test_a_passer_whole_hand_is_drawn_again_until_it_could_have_passed_what_it_did():
    state = passed_across("JD QD KD")
    view = view_for(state, 0)
    k = knowledge(view, read_pass=True)
    read = k.pass_read

    def could_pass(whole_pass: bool) -> list[bool]:
        sampler, rng = Sampler(view, k, whole_pass), Random(3)
        hands = [sampler.deal(rng)[2] for _ in range(200)]
        return [passes_first({Card(c) for suit in hand for c in suit} - read.given
                             | read.passed, read.passed) for hand in hands]

    # Single cards read, most deals give North a hand it would not have passed the diamonds
    # from (the queen of spades with too few spades, a short club above the jack's danger);
    # read whole, only those that came to no such hand in their draws, which keep the
    # single cards' reads rather than fall back to the voids alone.
    unlike = could_pass(False).count(False), could_pass(True).count(False)
    assert unlike[0] > 150 and unlike[1] * 3 < unlike[0]


def test_only_a_pass_whose_passer_was_passed_to_by_the_reader_is_read():
    state = hold_round(ACROSS, number=1)  # to the left: North was passed to by East
    for seat, passed in ((0, "8C 9C TC"), (1, "JC QC KC"), (2, "JD QD KD"), (3, "JS 7H 8H")):
        state = pass_cards(state, seat, passed)
    assert all(passed_over(view_for(state, seat)) is None for seat in range(4))


def test_a_passer_that_kept_what_the_rules_would_pass_loses_the_reads_at_its_first_play():
    state = passed_across("2S 3S 4S")  # not the rules' pass: every other card looks worse
    view = view_for(state, 0)
    assert set(cards("2C JD AH")) <= read_plays(view, 0, pass_read=passed_over(view))[2]
    assert knowledge(view, read_pass=True).pass_read is not None
    state = play(state, 2, "2C")  # it leads the two of clubs, read as passed over
    view = view_for(state, 0)
    assert not read_plays(view, 0, pass_read=passed_over(view))[2]
    assert knowledge(view, read_pass=True).pass_read is None


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
