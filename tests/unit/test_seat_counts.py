"""Three, five and six seats: the deck, the deal, the pass cycle, the first lead, the moon and
the sun at every count, with the shuffle's test vectors recorded in docs/fairness.md."""

from random import Random

import pytest

from domain.bots.autoplay import play_out
from domain.bots.levels import policy_named
from domain.cards import DECK, JACK_OF_DIAMONDS, QUEEN_OF_SPADES, TWO_OF_CLUBS, Suit, parse_card
from domain.commands import CreateMatch, PassCards, PlayCard, Secret
from domain.decide import decide
from domain.errors import InvalidCommand
from domain.events import MatchCreated, RoundDealt, RoundScored, SeatSpec
from domain.evolve import fold
from domain.passing import PassDirection, pass_cycle, pass_direction, passer_to, receiver
from domain.rules import InvalidRules, MoonRule, Rules
from domain.scoring import score_round
from domain.shuffle import deal, seed_commitment, shuffled_deck
from domain.state import Play, Status, TakenTrick
from domain.table import TABLES, table_for
from domain.views import view_for, view_json
from tests.builders import NOW, SECRET, SEED, cards, play_lowest_until_round_ends, then

COUNTS = (3, 4, 5, 6)


def seats(n: int) -> tuple[SeatSpec, ...]:
    return tuple(SeatSpec(f"p{i}") for i in range(n))


def create(n: int, rules: Rules | None = None, decks: tuple = ()) -> CreateMatch:
    return CreateMatch("m1", seats(n), rules or Rules(), "", Secret(SEED, decks), NOW)


@pytest.mark.parametrize(("n", "removed", "size"), [
    (3, "2D", 17), (4, "", 13), (5, "2D 2S", 10), (6, "2D 3D 2S 3S", 8)])
def test_each_count_leaves_out_the_lowest_diamonds_and_spades(n, removed, size):
    table = table_for(n)
    assert table.removed == set(cards(removed))
    assert table.cards == tuple(c for c in DECK if c not in table.removed)  # canonical order
    assert table.hand_size == table.tricks == size
    assert len(table.cards) == n * size
    kept = {c for c in DECK if c.suit in (Suit.CLUBS, Suit.HEARTS)} | {QUEEN_OF_SPADES,
                                                                          JACK_OF_DIAMONDS}
    assert kept <= set(table.cards), "clubs, hearts, the queen and the jack always play"
    assert sum(1 for c in table.cards if c.suit is Suit.HEARTS) + 13 == 26


def test_with_three_seats_the_canonical_order_skips_the_two_of_diamonds():
    table = table_for(3)
    assert str(table.cards[0]) == "2C" and str(table.cards[13]) == "3D"


# Recorded in docs/fairness.md for anyone checking an implementation of their own.
VECTORS = {
    3: ("QC 3C TS AH TD 8S 4H 6H 3S 4D KS 9S KD 7C 3D 4C 9D 7H JS KC TH 9H 4S QH 5S 7S 2C 3H "
        "6S QD 5D TC JD JH 5C 8C 8D 5H JC QS AD 8H 6D 6C 2S 9C 7D AC AS KH 2H",
        "4C 9C QC 4D 5D 6D 8D KD 5S JS QS AS 3H 4H 9H JH AH", "6S 9H 6D 5D 9S KD 4C JC"),
    5: ("5H AH QD 4S 7H 5D 9H 3D 6D KD 9C 6C 7S AS QH 2H JS QC JD QS 8H 3S 3C KH 7C JH TS JC "
        "6S 4C 8C KS 6H TC AD TH 8S 3H 4D 2C AC 4H 8D KC 9S 7D 9D 5C TD 5S",
        "8C 9C AC 5D 7D 2H 5H 8H TH JH", "6S TD 9H 4H KC 3S QS AC"),
    6: ("TH 9H JH 8H 4C 2C AC QS 5H 2H KS 7H 7C 4S 7S 4H 5S 8D QC 5C 9D 7D 5D 8S AS QH 3H JD "
        "9S QD TC 6S 6D AD 6C TS KD 8C 9C JS 4D 3C 6H TD KH AH JC KC",
        "7C TC QC AC KD AS 6H TH", "9D 8H 8C AD 6D 7D 7C 7S"),
}


@pytest.mark.parametrize("n", sorted(VECTORS))
def test_the_shuffle_test_vectors_at_three_five_and_six_seats(n):
    whole, seat_one, alice = VECTORS[n]
    table = table_for(n)
    deck = shuffled_deck(SEED, "", 1, table)
    assert " ".join(map(str, deck)) == whole
    assert deal(deck, 0, table)[1] == tuple(sorted(cards(seat_one)))
    assert " ".join(map(str, shuffled_deck(SEED, "alice", 2, table)[:8])) == alice
    assert seed_commitment(SEED) == \
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"


@pytest.mark.parametrize("n", COUNTS)
def test_the_deal_goes_round_from_the_dealers_left_and_every_seat_holds_as_many(n):
    table = table_for(n)
    deck = shuffled_deck(SEED, "x", 3, table)
    assert sorted(deck) == list(table.cards)
    for dealer in range(n):
        hands = deal(deck, dealer, table)
        assert len(hands) == n and all(len(h) == table.hand_size for h in hands)
        assert deck[0] in hands[(dealer + 1) % n] and deck[n - 1] in hands[dealer]


@pytest.mark.parametrize(("n", "cycle"), [
    (3, "left right hold"), (4, "left right across hold"), (5, "left right hold"),
    (6, "left right across hold")])
def test_the_pass_cycle_of_each_count(n, cycle):
    table = table_for(n)
    expected = [PassDirection(d) for d in cycle.split()]
    assert list(pass_cycle(table)) == expected
    assert [pass_direction(r, table) for r in range(1, 2 * len(expected) + 1)] == expected * 2


@pytest.mark.parametrize(("n", "direction", "offset"), [
    (3, "left", 1), (3, "right", 2), (5, "left", 1), (5, "right", 4), (6, "across", 3),
    (6, "right", 5), (4, "across", 2)])
def test_left_right_and_across_at_each_count(n, direction, offset):
    table = table_for(n)
    for seat in range(n):
        to = receiver(seat, PassDirection(direction), table)
        assert to == (seat + offset) % n
        assert passer_to(to, PassDirection(direction), table) == seat


@pytest.mark.parametrize(("n", "number"), [(3, 2), (5, 1), (6, 3), (6, 1)])
def test_every_seat_receives_the_pass_of_the_seat_the_cycle_names(n, number):
    """A whole passing round through `decide`: the exchange waits for the last seat, then
    each seat holds what the seat `offset` places to its right chose."""
    state = fold(decide(None, create(n)))
    for _ in range(number - 1):
        state = _play_round_out(state)
    table, rnd = state.table, state.round
    assert rnd.pass_direction is pass_direction(number, table)
    chosen = {s: tuple(sorted(rnd.hands[s])[-3:]) for s in range(n)}
    for s in range(n):
        assert state.status is Status.PASSING
        state, _ = then(state, PassCards(s, chosen[s], SECRET))
    assert state.status is Status.PLAYING
    for s in range(n):
        giver = passer_to(s, rnd.pass_direction, table)
        assert state.round.received[s] == chosen[giver]
        assert set(chosen[giver]) <= state.round.hands[s]
        assert len(state.round.hands[s]) == table.hand_size


@pytest.mark.parametrize("n", COUNTS)
def test_the_holder_of_the_two_of_clubs_leads_it_to_the_first_trick(n):
    state = fold(decide(None, create(n)))
    for s in range(n):
        state, _ = then(state, PassCards(s, tuple(sorted(state.round.hands[s])[-3:]), SECRET))
    holder = next(s for s in range(n) if TWO_OF_CLUBS in state.round.hands[s])
    assert state.round.turn == holder and state.round.trick.leader == holder
    assert view_for(state, holder).you.legal == (TWO_OF_CLUBS,)
    state, _ = then(state, PlayCard(holder, TWO_OF_CLUBS, SECRET))
    assert state.round.turn == (holder + 1) % n


def sun_deal(n: int) -> tuple[tuple, ...]:
    """Seat 0 takes every trick: it wins the first with the ace of clubs, then leads the top
    spades, then the top hearts (once hearts are all it has, it may lead them)."""
    table = table_for(n)
    spades = [c for c in reversed(table.cards) if c.suit is Suit.SPADES]
    hearts = [c for c in reversed(table.cards) if c.suit is Suit.HEARTS]
    mine = [parse_card("AC"), *spades, *hearts][:table.hand_size]
    rest = [c for c in table.cards if c not in mine]
    others = [rest[i::n - 1] for i in range(n - 1)]
    return tuple(tuple(sorted(h)) for h in (mine, *others))


def hold_round(n: int, rules: Rules) -> object:
    table = table_for(n)
    number = len(pass_cycle(table))  # the first round that holds
    dealer = rules.dealer_of(number, n)
    created = MatchCreated("m1", rules, seats(n), "", seed_commitment(SEED), 0, NOW)
    return fold([created, RoundDealt(number, dealer, PassDirection.HOLD, sun_deal(n))])


def _play_round_out(state):
    """Every seat passes its top three cards if the round passes, then plays its lowest
    legal card until the round is scored."""
    for s in range(state.table.seats if state.status is Status.PASSING else 0):
        state, _ = then(state, PassCards(s, tuple(sorted(state.round.hands[s])[-3:]), SECRET))
    return play_lowest_until_round_ends(state)[0]


def _scored_round(n: int, rules: Rules) -> RoundScored:
    _, events = play_lowest_until_round_ends(hold_round(n, rules))
    return next(e for e in events if isinstance(e, RoundScored))


@pytest.mark.parametrize("n", COUNTS)
def test_the_moon_gives_every_other_seat_26_at_any_count(n):
    scored = _scored_round(n, Rules())
    assert scored.points == (26, *(0,) * (n - 1))
    assert scored.moon == 0 and scored.sun is None
    assert scored.scores == (0, *(26,) * (n - 1))


@pytest.mark.parametrize("n", COUNTS)
def test_the_moon_may_subtract_from_the_shooter_at_any_count(n):
    scored = _scored_round(n, Rules(moon=MoonRule.SUBTRACT_FROM_SELF))
    assert scored.scores == (-26, *(0,) * (n - 1))


@pytest.mark.parametrize("n", COUNTS)
def test_the_sun_is_every_trick_of_the_round_at_any_count(n):
    scored = _scored_round(n, Rules(shoot_the_sun=True, jack_of_diamonds=True))
    assert scored.sun == 0 and scored.moon is None and scored.jack == 0
    assert scored.scores == (-36, *(26,) * (n - 1))


@pytest.mark.parametrize("n", COUNTS)
def test_one_trick_short_of_all_is_no_sun(n):
    """The moon without the sun: seat 0 takes every point but gives one trick away."""
    table = table_for(n)
    tricks = [TakenTrick(i + 1, 0, (Play(0, TWO_OF_CLUBS),), 0, 0) for i in range(table.tricks)]
    points = (26, *(0,) * (n - 1))
    assert score_round(Rules(shoot_the_sun=True), points, tricks).sun == 0
    short = [*tricks[:-1], TakenTrick(table.tricks, 1, (Play(1, TWO_OF_CLUBS),), 1, 0)]
    result = score_round(Rules(shoot_the_sun=True), points, short)
    assert result.sun is None and result.moon == 0 and result.scores == (0, *(26,) * (n - 1))


@pytest.mark.parametrize("n", [3, 5, 6])
def test_a_given_deck_must_hold_exactly_the_cards_in_play(n):
    table = table_for(n)
    full = shuffled_deck(SEED, "", 1, table)
    removed = sorted(table.removed)
    for bad, words in [
        (full[:-1], f"missing: {full[-1]}"),
        ((*full[:-1], removed[0]), f"not in play: {removed[0]}"),
        ((*full[:-1], full[0]), f"twice: {full[0]}"),
        (tuple(DECK), "not in play: " + " ".join(map(str, removed))),
    ]:
        with pytest.raises(InvalidCommand) as error:
            decide(None, create(n, decks=(full, bad)))
        assert error.value.field == "decks[1]" and words in error.value.reason
    fold(decide(None, create(n, decks=(full,))))  # the right cards are taken


@pytest.mark.parametrize("n", [3, 5])
def test_the_first_dealer_must_be_one_of_the_seats(n):
    with pytest.raises(InvalidRules) as error:
        Rules.from_mapping({"first_dealer": n}, n)
    assert error.value.option == "first_dealer"
    with pytest.raises(InvalidCommand) as refused:
        decide(None, create(n, Rules(first_dealer=n)))
    assert refused.value.field == "rules.first_dealer"
    assert fold(decide(None, create(n, Rules(first_dealer=n - 1)))).round.dealer == n - 1


@pytest.mark.parametrize("n", COUNTS)
def test_the_view_says_which_cards_are_in_play_and_has_an_entry_per_seat(n):
    state = fold(decide(None, create(n)))
    view = view_json(view_for(state, 0))
    table = table_for(n)
    assert view["deck"] == {"cards": len(table.cards), "hand_size": table.hand_size,
                            "removed": [str(c) for c in sorted(table.removed)]}
    assert len(view["scores"]["round"]) == len(view["scores"]["total"]) == n
    assert len(view["seats"]) == n and len(view["you"]["hand"]) == table.hand_size


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("bot", ["random", "heuristic", "expert"])
def test_every_bot_plays_a_round_at_every_count(n, bot):
    rng = Random(n)
    policies = [policy_named(bot), *(policy_named("heuristic") for _ in range(n - 1))]
    command = CreateMatch("m1", seats(n), Rules(end_score=1), "", Secret(rng.randbytes(32)),
                          NOW)
    if bot == "expert":  # a round of the expert's own turns, each a short search
        from domain.bots.expert import ExpertPolicy
        policies[0] = ExpertPolicy(iterations=40)
    state, events = play_out(command, policies, rng)
    assert state.status is Status.FINISHED
    assert sum(1 for e in events if isinstance(e, RoundScored)) >= 1
    assert all(len(e.scores) == n for e in events if isinstance(e, RoundScored))


def test_there_is_a_table_for_each_count_from_three_to_six_and_no_other():
    assert sorted(TABLES) == [3, 4, 5, 6]
    with pytest.raises(KeyError):
        table_for(7)
