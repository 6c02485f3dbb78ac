"""The expert's fast simulation plays by the match's rules and scores as the domain does."""

from random import Random

import pytest

from domain.bots.expert import table_of
from domain.bots.knowledge import knowledge
from domain.bots.random_policy import RandomPolicy
from domain.bots.rollout import (
    SLIP,
    Table,
    distinct,
    hand_of,
    legal_plays,
    losers,
    out_of,
    played,
    rollout,
    searched_play,
    suited,
    thumb_play,
)
from domain.cards import DECK, QUEEN_OF_SPADES
from domain.commands import PassCards, PlayCard
from domain.decide import decide
from domain.events import RoundScored
from domain.evolve import fold
from domain.rules import MoonRule, Rules
from domain.state import Status
from domain.views import view_for
from tests.builders import cards, create_command, then

OPTIONS = [
    Rules(),
    Rules(queen_breaks_hearts=True, points_on_first_trick=True),
    Rules(shoot_the_sun=True, jack_of_diamonds=True, moon=MoonRule.SUBTRACT_FROM_SELF),
    Rules(jack_of_diamonds=True, moon=MoonRule.SHOOTER_CHOICE, queen_breaks_hearts=True),
]
QUEEN = QUEEN_OF_SPADES.index
SPADES = 2


def _lumpy_deck(rng):
    """A deck whose hands run long in one suit each: voids, all-heart hands and first-trick
    discards, the rare cases of the rules, come up often."""
    spread = rng.uniform(0.5, 4)
    cards = sorted(DECK, key=lambda c: c.suit + rng.uniform(0, spread))
    hands = [cards[i * 13:(i + 1) * 13] for i in rng.sample(range(4), 4)]
    return tuple(hands[(1 + i) % 4][i // 4] for i in range(52))  # dealt from the dealer's left


def _into_round(rules, rng, plays):
    """A match of `rules` after its passes and `plays` random plays."""
    decks = (_lumpy_deck(rng),) if rng.random() < 0.5 else ()
    create = create_command(rules=rules, seed=rng.randbytes(32), decks=decks)
    state, _ = then(None, create)
    for seat in range(4):
        passed = rng.sample(sorted(state.round.hands[seat]), 3)
        state, _ = then(state, PassCards(seat, tuple(passed), create.secret))
    for _ in range(plays):
        seat = state.round.turn
        card = RandomPolicy().choose_play(view_for(state, seat), rng)
        state, _ = then(state, PlayCard(seat, card, create.secret))
    return state, create.secret


@pytest.mark.parametrize("kin", [0, 0b0101, 0b1111], ids=["rules", "two-search", "all-search"])
@pytest.mark.parametrize("rules", OPTIONS, ids=range(len(OPTIONS)))
@pytest.mark.parametrize("seed", range(40))
def test_a_rollout_makes_only_legal_plays_and_scores_as_the_domain_does(rules, seed, kin):
    """With `kin`, the seats of its bits choose by a one-ply search over their own legal
    cards: the replay holds that list to the rules too. Each seed makes a pattern of seats of
    its own bold shooters, bystanders to a moon and noisy players (who slip often here)."""
    rng = Random(seed)
    state, secret = _into_round(rules, rng, plays=rng.choice([0, 1, 2, 3, rng.randrange(52)]))
    seat = state.round.turn
    view = view_for(state, seat)
    table = table_of(view, knowledge(view))
    table.hands = [hand_of(state.round.hands[s]) for s in range(4)]  # the true deal
    table.kin = kin
    table.bold = seed % 16
    table.bystanders = seed * 7 % 16
    table.noisy = seed * 5 % 16
    table.slips = [rng.random() * 2 * SLIP for _ in range(52)]  # half of the plays slip
    trace: list[tuple[int, int]] = []
    scores = rollout(rules, table, trace)
    scored = None
    for traced_seat, index in trace:
        # decide refuses an illegal play (IllegalMove), so the replay is the legality check
        events = decide(state, PlayCard(traced_seat, DECK[index], secret))
        scored = next((e for e in events if isinstance(e, RoundScored)), scored)
        if scored is not None:
            break
        state = fold(events, state)
    if scored is None:  # the shooter must choose how the moon scores: the rules' default
        assert state.status is Status.MOON_CHOICE
        assert max(state.round.points) == 26
    else:
        assert scores == scored.scores


def _table(hands, leader, points, broken=True, voids=None):
    """A table after the first trick, with `hands` spelled out and `points` taken."""
    return Table([hand_of(cards(h)) for h in hands], leader, [], list(points), [1, 0, 0, 0],
                 None, broken, False, voids)


def _first_play(table):
    trace: list[tuple[int, int]] = []
    rollout(Rules(), table, trace)
    return str(DECK[trace[0][1]])


# Twelve cards each, as after the first trick.
SPREAD = ("3C 4C 5C 6C 3D 4D 5D 6D 3S 4S 5S 6S", "7C 8C 9C TC 7D 8D 9D TD 7S 8S 9S TS",
          "JC QC KC AC JD QD KD AD 2H 3H 4H AH", "2D JS QS KS AS 5H 6H 7H 8H 9H TH JH")


def test_a_simulated_seat_leads_its_top_heart_against_a_moon():
    assert _first_play(_table(SPREAD, 2, (0, 0, 0, 12))) == "AH"
    assert _first_play(_table(SPREAD, 2, (0, 0, 0, 0))) != "AH"


def _noisy_trace(noisy, slip):
    table = _table(SPREAD, 2, (0, 0, 0, 0))
    table.noisy, table.slips = noisy, [slip] * 52
    trace: list[tuple[int, int]] = []
    rollout(Rules(), table, trace)
    return [str(DECK[card]) for _, card in trace]


def test_a_noisy_seat_plays_by_rules_of_thumb_unless_its_draw_slips():
    plain = _noisy_trace(0, 0.0)
    assert _noisy_trace(0b1111, SLIP) == plain  # a draw at SLIP does not slip
    assert plain[0] != "JC"
    # A draw under SLIP picks among the legal cards by where it falls: seat 2 leads its lowest
    # card, then its highest; only the noisy seat's plays change.
    assert _noisy_trace(0b0100, 0.0)[0] == "JC"
    assert _noisy_trace(0b0100, SLIP * 0.999)[0] == "AH"
    assert _noisy_trace(0b1011, 0.0)[0] == plain[0]


def test_a_bystander_leaves_a_run_at_the_moon_to_the_others():
    table = _table(SPREAD, 2, (0, 0, 0, 12))
    table.bystanders = 0b0100
    assert _first_play(table) == _first_play(_table(SPREAD, 2, (0, 0, 0, 0)))
    table = _table(SPREAD, 2, (0, 0, 0, 12))
    table.bystanders = 0b1011  # the others stand by, not South
    assert _first_play(table) == "AH"


def test_a_simulated_seat_that_can_take_every_trick_goes_for_the_moon():
    # South holds the top clubs, diamonds and hearts and has all the points so far.
    hands = (*SPREAD[:2], "QC KC AC JD QD KD AD 2H JH QH KH AH",
             "JS QS KS AS 3H 4H 5H 6H 7H 8H 9H TH")
    assert _first_play(_table(hands, 2, (0, 0, 5, 0))) in {"AC", "AD", "AH"}
    assert _first_play(_table(hands, 2, (0, 0, 0, 0))) not in {"AC", "AD", "AH"}


def test_a_bold_simulated_seat_runs_at_the_moon_with_two_cards_that_may_lose():
    # South holds every point so far; the two of diamonds and the two of hearts may lose.
    hands = (*SPREAD[:2], "QC KC AC 2D QD KD AD 2H JH QH KH AH",
             "JS QS KS AS 3H 4H 5H 6H 7H 8H 9H TH")
    table = _table(hands, 2, (0, 0, 5, 0))
    assert losers(table.hands, 2) == 2
    assert _first_play(table) == "2D"
    table = _table(hands, 2, (0, 0, 5, 0))
    table.bold = 0b0100
    assert _first_play(table) == "AC"
    table = _table(hands, 2, (0, 0, 5, 0))
    table.bold = 0b1011  # the others are bold, not South
    assert _first_play(table) == "2D"


def _random_hands(rng, seats=4):
    deck = list(range(52))
    rng.shuffle(deck)
    size = rng.randint(1, 52 // seats)
    return [suited(deck[s * size:(s + 1) * size]) for s in range(seats)]


@pytest.mark.parametrize("seed", range(200))
def test_losers_counts_each_card_that_more_of_the_others_cards_outrank_than_its_own(seed):
    rng = Random(seed)
    hands = _random_hands(rng, rng.randint(3, 6))
    seat = rng.randrange(len(hands))
    stated = 0
    for suit, mine in enumerate(hands[seat]):
        others = [c for o, hand in enumerate(hands) if o != seat for c in hand[suit]]
        for above, card in enumerate(reversed(mine)):  # `above`: its own cards above it
            stated += sum(c > card for c in others) > above
    assert losers(hands, seat) == stated


@pytest.mark.parametrize("seed", range(300))
def test_a_simulated_seat_that_can_follow_ducks_or_else_wins_as_high_as_is_safe(seed):
    """Following with nothing at stake: the queen onto a higher spade, else the highest card
    under the trick's top; else, last to play, the highest card but the queen, and earlier the
    lowest but the queen."""
    rng = Random(seed)
    led = SPADES if rng.random() < 0.5 else rng.randrange(4)
    suit = rng.sample(range(led * 13, led * 13 + 13), 13)
    if led == SPADES and rng.random() < 0.6:  # the queen in the seat's hand, often
        suit.remove(QUEEN)
        suit.insert(0, QUEEN)
    mine = sorted(suit[:rng.randint(1, 5)])
    rest = suit[len(mine):]
    other = (led + 1) % 4 * 13
    elsewhere = rng.sample(range(other, other + 13), 3)  # discards from a void
    plays = [(s, rest.pop() if s == 0 or rng.random() < 0.7 else elsewhere.pop())
             for s in range(rng.randint(1, 3))]
    seat = len(plays)
    hands = [[[], [], [], []] for _ in range(4)]
    hands[seat][led] = mine
    top = max(c for _, c in plays if c // 13 == led)
    plain = [c for c in mine if c != QUEEN] or mine
    if QUEEN in mine and top > QUEEN:
        stated = QUEEN
    elif any(c < top for c in plain):
        stated = max(c for c in plain if c < top)
    else:
        stated = plain[-1] if seat == 3 else plain[0]
    table = Table(hands, 0, plays, [0] * 4, [1, 0, 0, 0], None, True, False)
    assert thumb_play(Rules(), table, seat) == stated


def test_a_simulated_seat_does_not_lead_into_a_known_void():
    # West leads a low spade to flush the queen out, but not once North shows a spade void.
    assert _first_play(_table(SPREAD, 0, (0, 0, 0, 0))) == "3S"
    assert _first_play(_table(SPREAD, 0, (0, 0, 0, 0), voids=[0, 0, 0, 1 << 2])) == "3C"


def true_position(rules, seed):
    """A position of a round of `rules` some plays in: the view of the seat to play, and the
    table in the simulation's terms with every true hand."""
    rng = Random(seed)
    state, _ = _into_round(rules, rng, plays=rng.randrange(4, 44))
    view = view_for(state, state.round.turn)
    table = table_of(view, knowledge(view))
    table.hands = [hand_of(state.round.hands[s]) for s in range(4)]
    return view, table


def _value(rules, table, seat, card):
    scores = rollout(rules, played(rules, table, table.hands, seat, card, kin=0))
    return scores[seat] - (sum(scores) - scores[seat]) / (len(scores) - 1)  # stated anew


@pytest.mark.parametrize("rules", OPTIONS, ids=range(len(OPTIONS)))
@pytest.mark.parametrize("seed", range(30))
def test_a_searching_seat_tries_one_card_of_each_run_and_loses_nothing_by_it(rules, seed):
    """Cards of a run play alike, so the best of the distinct cards is as good as the best
    of every legal card; and the search leaves the table as it found it."""
    view, table = true_position(rules, seed)
    seat = view.you.seat
    before = repr(table)
    legal = legal_plays(rules, table, seat)
    assert legal == sorted(c.index for c in view.you.legal)
    choice = searched_play(rules, table, seat)
    assert repr(table) == before
    assert choice in distinct(rules, legal, out_of(table, seat))
    values = {card: _value(rules, table, seat, card) for card in legal}
    assert values[choice] == min(values.values())


def test_cards_play_alike_only_with_nothing_between_and_nothing_special():
    hands = ("3C 5C 7C 8C 9D TD JD QD JS QS KS 2H", "4C 6C", "TC", "JC")
    table = _table([*hands], 1, (0, 0, 0, 0))
    table.plays = [(1, DECK.index(cards("6C")[0]))]  # the six of clubs led, between 5 and 7
    held = [c for suit in table.hands[0] for c in suit]
    plain = distinct(Rules(), held, out_of(table, 0))
    assert [str(DECK[c]) for c in plain] == ["3C", "5C", "7C", "9D", "JS", "QS", "KS", "2H"]
    jack = distinct(Rules(jack_of_diamonds=True), held, out_of(table, 0))
    assert [str(DECK[c]) for c in jack] == ["3C", "5C", "7C", "9D", "JD", "QD", "JS", "QS", "KS",
                                             "2H"]


def test_a_searching_seat_plays_the_searched_card_until_its_last_searched_trick():
    # South, on lead, could go for the moon: its rules of thumb lead a top card, its search not.
    hands = (*SPREAD[:2], "QC KC AC JD QD KD AD 2H JH QH KH AH",
             "JS QS KS AS 3H 4H 5H 6H 7H 8H 9H TH")

    def table(kin=0, kin_until=13):
        t = _table(hands, 2, (0, 0, 5, 0))
        t.kin, t.kin_until = kin, kin_until
        return t

    by_rules = _first_play(table())
    searched = str(DECK[searched_play(Rules(), table(), 2)])
    assert searched != by_rules
    assert _first_play(table(kin=1 << 2)) == searched
    # One trick is taken already: with one trick to search, the search is over.
    assert _first_play(table(kin=1 << 2, kin_until=1)) == by_rules
