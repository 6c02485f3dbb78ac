from dataclasses import replace
from random import Random

import pytest

from domain.bots.expert import ExpertPolicy, distinct_plays, draw_slips, outcome, settled, table_of
from domain.bots.heuristic import HeuristicPolicy
from domain.bots.knowledge import knowledge
from domain.bots.levels import policy_named
from domain.bots.rollout import SLIP, Table, suited
from domain.bots.sampling import Sampler, hand_sizes
from domain.cards import Card, parse_card
from domain.commands import PassCards, PlayCard
from domain.legal import legal_cards
from domain.views import view_for
from tests.builders import SECRET, UNBROKEN, after, create_command, hands, play, then

EXPERT = ExpertPolicy(iterations=120)
HEURISTIC = HeuristicPolicy()


def _seated(state, bots):
    """`state` with its seats held by `bots` (None: a person)."""
    return replace(state, seats=tuple(replace(s, bot=b) for s, b in zip(state.seats, bots,
                                                                         strict=True)))


def sample_hands(view, k, rng):
    """One sampled deal, as a set of cards a seat."""
    return [{Card(c) for suit in hand for c in suit} for hand in Sampler(view, k).deal(rng)]


def choose(state, seat, seed=0):
    return EXPERT.choose_play(view_for(state, seat), Random(seed))


QUEEN_DUMP = hands(
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
    "AC 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD",
    "QS 2S 3S 2H 3H 4H 5H 6H 7H 8H 9H TH JH",
)


def test_the_expert_dumps_the_queen_when_void():
    state = after(QUEEN_DUMP, [(0, "2C"), (1, "AC"), (2, "2S"), (3, "4S"), (1, "3D")])
    assert choose(state, 2) == parse_card("QS")


def test_the_expert_keeps_the_queen_when_its_hand_carries_the_moon():
    # South holds AS KS QS and nine hearts from the six up: dumping the queen gives the moon up.
    state = after(UNBROKEN, [(0, "2C"), (1, "AC"), (2, "JD"), (3, "2S"), (1, "2D")])
    assert choose(state, 2) != parse_card("QS")


QUEEN_ON_THE_TRICK = hands(
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
    "4D QS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH",
    "5D 8D KD 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
)


def test_the_expert_ducks_under_a_trick_another_seat_is_taking():
    # West leads 7D and East, void, throws the queen on it: South, last, ducks with 5D.
    state = after(QUEEN_ON_THE_TRICK, [(0, "2C"), (1, "4D"), (2, "2S"), (3, "AC"),
                                       (3, "7D"), (0, "2D"), (1, "QS")])
    assert choose(state, 2) == parse_card("5D")


def test_the_expert_takes_a_heart_to_stop_a_moon():
    state = after(UNBROKEN, [(0, "2C"), (1, "AC"), (2, "JD"), (3, "2S")])
    state = replace(state, round=replace(state.round, hearts_broken=True, points=(0, 16, 0, 0)))
    state = play(state, 1, "5H")
    assert choose(state, 2).suit.letter == "H" and choose(state, 2).rank > 5


def test_the_expert_is_deterministic_given_its_seed_and_budget():
    state = after(QUEEN_ON_THE_TRICK, [(0, "2C"), (1, "4D")])
    assert all(choose(state, 2, seed=7) == choose(state, 2, seed=7) for _ in range(3))


def test_the_expert_searches_the_plays_of_the_seats_held_by_the_expert_when_told_to():
    state = after(QUEEN_ON_THE_TRICK, [(0, "2C"), (1, "4D")])
    state = _seated(state, (None, "expert", "heuristic", "expert"))
    view = view_for(state, 1)
    assert ExpertPolicy().searching_seats(view) == 0
    assert ExpertPolicy(kin=True).searching_seats(view) == 0b1000
    assert ExpertPolicy(kin=True, plan_own=True).searching_seats(view) == 0b1010
    assert ExpertPolicy(plan_own=True).searching_seats(view) == 0b0010
    assert ExpertPolicy().kin_seats(view) == 0b1000


def test_an_expert_told_not_to_read_its_kin_samples_their_hands_without_reads():
    # North (an expert) ducked the ace of clubs with the ten, holding the jack and queen.
    state = after(hands("2C 3C 4C 5C 6C 7C 8C 9C 2H 3H 4H 5H 6H",
                        "AC 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD AS",
                        "TC JC QC 2S 3S 4S 5S 6S 7S 8S 9S TS JS"),
                  [(0, "2C"), (1, "AC"), (2, "TC"), (3, "KC")])
    state = _seated(state, ("heuristic", "expert", "expert", "heuristic"))
    known = []

    class Seeing(ExpertPolicy):
        def deals(self, view, k):
            known.append(k)
            return super().deals(view, k)

    for read_kin in (True, False):
        Seeing(iterations=8, pass_rollouts=0, read_kin=read_kin).choose_play(
            view_for(state, 1), Random(0))
    read, unread = known
    assert parse_card("JC") in read.lacks[2] and parse_card("JC") not in unread.lacks[2]
    assert unread.lacks[2] == unread.queen_lacks[2]
    assert unread.lacks[0] == read.lacks[0]  # the heuristic bot's plays, read still


class OneDeal:
    """Deals that are always the same: every seat's true hand."""

    def __init__(self, state):
        self.hands = [suited(c.index for c in hand) for hand in state.round.hands]
        self.drawn = 0

    def deal(self, rng):
        self.drawn += 1
        return [[list(suit) for suit in hand] for hand in self.hands]


def test_the_search_plays_out_the_deals_its_source_gives_and_keeps_the_best_card():
    state = after(QUEEN_ON_THE_TRICK, [(0, "2C"), (1, "4D")])
    view = view_for(state, 2)
    source = OneDeal(state)

    class Given(ExpertPolicy):
        def deals(self, view, k):
            return source

    choice = Given(iterations=40).choose_play(view, Random(1))
    k = knowledge(view)
    on_it = {card: outcome(view.rules, table_of(view, k), source.hands, 2, card)
             for card in distinct_plays(view, k, sorted(view.you.legal))}
    assert source.drawn > 0
    assert on_it[choice] == min(on_it.values())


@pytest.mark.parametrize("seed", range(5))
def test_sampled_deals_fit_everything_the_seat_knows(seed):
    rng = Random(seed)
    state, _ = then(None, create_command())
    for seat in range(4):
        hand = sorted(state.round.hands[seat])
        state, _ = then(state, PassCards(seat, tuple(hand[:3]), SECRET))
    expert = policy_named("expert")
    for _ in range(30):  # play into the round so that voids and passes matter
        seat = state.round.turn
        view = view_for(state, seat)
        k = knowledge(view)
        dealt = sample_hands(view, k, rng)
        assert dealt[seat] == set(view.you.hand)
        assert [len(h) for h in dealt] == hand_sizes(view)
        assert set().union(*dealt) == set(view.you.hand) | set(k.unseen)
        receiver = (seat + view.pass_direction.offset(view.table)) % 4
        assert set(view.you.passed) & k.unseen <= dealt[receiver]
        for other in range(4):
            if other != seat:
                assert not any(c.suit in k.voids[other] for c in dealt[other])
        card = expert.choose_play(view, rng)
        assert card in legal_cards(state.round, state.rules, seat)
        state = play(state, seat, str(card))


PASSED_UP = hands(
    "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC 2D",
    "AC 3D 4D 5D 6D 7D 8D 9D TD JD 4S 5S 6S",
    "QS 2S 3S 2H 3H 4H 5H 6H 7H 8H 9H TH JH",
)


@pytest.mark.parametrize("read_plays", [True, False])
def test_a_seat_that_passes_up_dumping_the_queen_is_dealt_no_queen_in_samples(read_plays):
    # Trick 1 bars points, so its spade discard says nothing; on trick 2 West, void in
    # diamonds, discards a heart while the queen is out: the queen is likely elsewhere.
    # Version 5 (without reading the plays) read that much alone. Read in full, North's
    # plays (no queen, no top spade, no heart over the two) leave too few cards for its
    # hand: it was misread, and the samples keep what passing up the queen says alone.
    first = [(0, "2C"), (1, "AC"), (2, "2S"), (3, "7S")]
    k = knowledge(view_for(after(PASSED_UP, first), 0), read_plays)
    assert not any(parse_card("QS") in lacks for lacks in k.lacks)
    assert any(k.lacks) is read_plays  # East's ace over the two: it held no other club
    view = view_for(after(PASSED_UP, [*first, (1, "3D"), (2, "2H"), (3, "QD"), (0, "2D")]), 0)
    k = knowledge(view, read_plays)
    assert [parse_card("QS") in lacks for lacks in k.lacks] == [False, False, True, False]
    rng = Random(1)
    assert not any(parse_card("QS") in sample_hands(view, k, rng)[2] for _ in range(30))


def test_a_card_on_the_table_keeps_the_cards_either_side_of_it_apart():
    # West leads 7D; South holds 5D 8D KD. Only the 7D on the table lies between 5D and 8D,
    # but 5D ducks under it and 8D takes the queen: the two must stay apart.
    state = after(QUEEN_ON_THE_TRICK, [(0, "2C"), (1, "4D"), (2, "2S"), (3, "AC"),
                                       (3, "7D"), (0, "2D"), (1, "QS")])
    view = view_for(state, 2)
    legal = sorted(view.you.legal)
    assert [str(c) for c in distinct_plays(view, knowledge(view), legal)] == ["5D", "8D", "KD"]


def test_touching_spades_collapse_but_the_queen_never_does():
    # West leads 3D and South, void in diamonds, may discard anything: QS 3S and 2H to JH.
    # No one else holds a heart below the queen, so the ten hearts are one play.
    state = after(QUEEN_DUMP, [(0, "2C"), (1, "AC"), (2, "2S"), (3, "4S"), (1, "3D")])
    view = view_for(state, 2)
    legal = sorted(view.you.legal)
    plays = distinct_plays(view, knowledge(view), legal)
    assert parse_card("QS") in plays
    hearts = [c for c in plays if c.suit.letter == "H"]
    assert [str(c) for c in hearts] == ["2H"]
    assert [str(c) for c in plays if c.suit.letter == "S"] == ["3S", "QS"]


def test_the_search_yields_a_legal_card_after_every_deal_and_ends_on_its_choice():
    state = after(QUEEN_ON_THE_TRICK, [(0, "2C"), (1, "4D")])
    view = view_for(state, 2)
    legal = legal_cards(state.round, state.rules, 2)
    steps = list(ExpertPolicy(120).searching(view, Random(3)))
    assert len(steps) > 10 and all(card in legal for card in steps)
    assert steps[-1] == ExpertPolicy(120).choose_play(view, Random(3))


def test_a_search_stopped_after_one_deal_still_gives_a_legal_command():
    from domain.bots.base import bot_command

    state = after(QUEEN_ON_THE_TRICK, [(0, "2C"), (1, "4D")])
    command = bot_command(view_for(state, 2), ExpertPolicy(), Random(1), SECRET,
                          drive=lambda search: next(search))
    assert command.card in legal_cards(state.round, state.rules, 2)


def test_a_lead_beyond_the_noise_settles_a_close_call():
    assert settled([1.0, 1.2, 0.9, 1.1] * 10)


def test_two_cards_that_score_alike_settle_at_once():
    assert settled([0.0] * 50)


def test_a_noisy_near_tie_is_not_settled():
    assert not settled([5.0, -5.0] * 50 + [1.0])


def test_close_calls_get_more_deals_and_stay_deterministic():
    view = view_for(after(QUEEN_ON_THE_TRICK, [(0, "2C"), (1, "4D")]), 2)
    plain = ExpertPolicy(iterations=120, pass_rollouts=0)
    closer = ExpertPolicy(iterations=120, pass_rollouts=0, close_calls=400)
    steps = len(list(plain.searching(view, Random(3))))
    closer_steps = [list(closer.searching(view, Random(3))) for _ in range(2)]
    assert closer_steps[0] == closer_steps[1]
    assert steps < len(closer_steps[0]) <= steps + 200
    assert closer_steps[0][-1] in view.you.legal


def test_an_expert_modelling_its_kin_plays_their_seats_by_search_in_its_rollouts():
    """On one given deal the choice is the best card with the other experts' plays searched
    in the rollouts. Here that search changes the choice: South's run at the moon, which
    rules-of-thumb players let through, is stopped by searching ones."""
    state = after(UNBROKEN, [(0, "2C"), (1, "AC")])
    state = replace(state, seats=tuple(replace(s, bot="expert") for s in state.seats))
    view = view_for(state, 2)
    source = OneDeal(state)

    class Given(ExpertPolicy):
        def deals(self, view, k):
            return source

    choices = {Given(iterations=40, kin=True).choose_play(view, Random(s)) for s in range(3)}
    k = knowledge(view)
    start = table_of(view, k)
    cards = distinct_plays(view, k, sorted(view.you.legal))
    by_rules = {card: outcome(view.rules, start, source.hands, 2, card) for card in cards}
    start.kin = 0b1011
    searched = {card: outcome(view.rules, start, source.hands, 2, card) for card in cards}
    assert min(by_rules, key=by_rules.__getitem__) == parse_card("KS")  # the moon, by rules
    assert choices == {parse_card("JD")}
    assert searched[parse_card("JD")] == min(searched.values())


def _heuristic_round(seed, plays):
    """A round of four rule-of-thumb players from a seeded deal, after `plays` plays; the
    seats show the heuristic bot, whose rules of thumb the rollouts play without slips."""
    rng = Random(seed)
    create = create_command(seed=rng.randbytes(32))
    state, _ = then(None, create)
    for seat in range(4):
        cards = HEURISTIC.choose_pass(view_for(state, seat), rng)
        state, _ = then(state, PassCards(seat, cards, create.secret))
    for _ in range(plays):
        seat = state.round.turn
        card = HEURISTIC.choose_play(view_for(state, seat), rng)
        state, _ = then(state, PlayCard(seat, card, create.secret))
    return _seated(state, ["heuristic"] * 4)


def _on_the_true_deal(state, **table):
    """Each distinct legal card's outcome for the seat to play on `state`'s true deal, with
    the simulation's `table` fields set; and the expert (given `expert` options) choosing
    there on the true deal, one choice per seed of three."""
    seat = state.round.turn
    view = view_for(state, seat)
    source = OneDeal(state)

    class Given(ExpertPolicy):
        def deals(self, view, k):
            return source

    k = knowledge(view)
    start = table_of(view, k)
    for field, bits in table.items():
        setattr(start, field, bits)
    cards = distinct_plays(view, k, sorted(view.you.legal))
    scores = {card: outcome(view.rules, start, source.hands, seat, card) for card in cards}

    def choices(**expert):
        return {Given(iterations=40, pass_rollouts=0, **expert).choose_play(view, Random(s))
                for s in range(3)}

    return scores, choices


def _best(scores):
    return min(scores, key=scores.__getitem__)


def test_an_expert_wary_of_bold_shooters_simulates_the_others_running_at_the_moon():
    """West holds the queen, every point so far. On the true deal, South's search keeps the
    best card with the others simulated as bold shooters, and here that is another card than
    with rules-of-thumb shooters: the search now sees West's moon and stops it."""
    state = _heuristic_round(2, 26)
    assert state.round.turn == 2 and state.round.points == (13, 0, 0, 0)
    plain, choices = _on_the_true_deal(state)
    wary, _ = _on_the_true_deal(state, bold=0b1011)
    assert _best(plain) != _best(wary)
    assert choices() == {_best(plain)}
    assert choices(bold_shooters=True) == {_best(wary)}


def test_an_expert_that_stops_moons_alone_discards_a_point_to_a_bystander():
    """Seat 3 holds every point so far, 23; seat 0 is void in the diamond led. On the true
    deal, with the others simulated as fighting the moon, every discard does alike; with the
    others standing by, only the heart given to another seat stops the moon, and the expert
    that counts on no one but itself plays it."""
    state = _heuristic_round(33, 37)
    assert state.round.turn == 0 and state.round.points == (0, 0, 0, 23)
    fought, choices = _on_the_true_deal(state)
    alone, _ = _on_the_true_deal(state, bystanders=0b1110)
    assert len(set(fought.values())) == 1
    assert _best(alone) == parse_card("3H")
    assert choices(lone_stopper=True) == {parse_card("3H")}


def test_the_expert_lets_slip_the_seats_held_by_people_and_no_bot_of_the_house():
    view = view_for(_seated(after(UNBROKEN, [(0, "2C")]), (None, "expert", "heuristic",
                                                             "random")), 1)
    assert ExpertPolicy(noisy_strangers=False).noisy_seats(view) == 0
    assert ExpertPolicy().noisy_seats(view) == 0b0001
    assert ExpertPolicy(noisy_others=True).noisy_seats(view) == 0b1101
    people = view_for(after(UNBROKEN, [(0, "2C")]), 1)
    assert ExpertPolicy().noisy_seats(people) == 0b1101


def test_among_bots_the_expert_searches_as_version_6_and_among_people_as_noisy_others():
    """Among the house's bots its search is version 6's, deal for deal and value for value;
    among people it is the one that lets every other seat slip, and that differs."""
    state = _heuristic_round(9, 22)  # seven distinct cards to choose from
    seat = state.round.turn

    def search(bots, **options):
        values = {}
        view = view_for(_seated(state, bots), seat)
        steps = list(ExpertPolicy(iterations=120, **options).searching(view, Random(4), values))
        return steps, values

    for bots in (["heuristic"] * 4, ["expert", "random", "heuristic", "expert"]):
        assert search(bots) == search(bots, noisy_strangers=False)
    people = [None] * 4
    assert search(people) == search(people, noisy_others=True)
    noisy = search(people)
    assert len(noisy[1]) == 7 and noisy[1] != search(people, noisy_strangers=False)[1]


def test_the_slip_rate_reaches_the_rollouts_of_people_and_no_bots():
    """A slip rate of its own changes the search among people, where seats slip, and not at
    all among the house's bots; the shipped rate is the search as it was."""
    state = _heuristic_round(9, 22)
    seat = state.round.turn

    def values(bots, **options):
        got = {}
        view = view_for(_seated(state, bots), seat)
        list(ExpertPolicy(iterations=120, **options).searching(view, Random(4), got))
        return got

    bots, people = ["heuristic"] * 4, [None] * 4
    assert values(bots, slip=0.6) == values(bots)
    assert values(people, slip=SLIP) == values(people)
    assert values(people, slip=0.6) != values(people)


@pytest.mark.parametrize("rate", [0.1, SLIP, 0.5, 1.0])
def test_slips_drawn_at_a_rate_fall_under_the_rollouts_threshold_that_often_and_uniformly(
        rate):
    start = Table([], 0, [], [0] * 4, [0] * 4, None, False, False, noisy=0b0010)
    draws = []
    rng = Random(7)
    for _ in range(400):
        draw_slips(start, rng, rate)
        draws += start.slips
    under = [d / SLIP for d in draws if d < SLIP]
    # 20,800 seeded draws: the bound is 3 to 5 standard errors, and the same every run.
    assert abs(len(under) / len(draws) - rate) < 0.01
    # Scaled, the draws under the threshold spread evenly: a tenth of them in each tenth.
    tenths = [sum(int(u * 10) == t for u in under) / len(under) for t in range(10)]
    assert max(abs(share - 0.1) for share in tenths) < 0.02


def test_at_the_shipped_rate_the_slips_are_the_generators_own_draws():
    start = Table([], 0, [], [0] * 4, [0] * 4, None, False, False, noisy=0b0010)
    draw_slips(start, Random(3))
    rng = Random(3)
    assert start.slips == [rng.random() for _ in range(52)]


@pytest.mark.parametrize("rate", [0.0, -0.1, 1.5])
def test_a_slip_rate_is_a_probability_above_zero(rate):
    with pytest.raises(ValueError, match="slip rate"):
        ExpertPolicy(slip=rate)
