"""Random matches played to the end under random rules at 3 to 6 seats: the invariants that must
always hold."""

import json
import re
from collections import Counter
from random import Random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from domain.bots.autoplay import play_out
from domain.bots.levels import policy_named
from domain.cards import penalty
from domain.codec import from_data, to_data
from domain.commands import CreateMatch, Secret
from domain.events import (
    CardPlayed,
    MatchEnded,
    MoonChosen,
    RoundDealt,
    RoundScored,
    SeatSpec,
    TrickTaken,
)
from domain.evolve import evolve, fold
from domain.legal import trick_winner
from domain.rules import MoonRule, Rules
from domain.scoring import JACK_BONUS
from domain.sealing import canonical_json
from domain.state import Status
from domain.table import table_for
from domain.views import event_json, view_for, view_json

rules_options = st.fixed_dictionaries({}, optional={
    "end_score": st.sampled_from([26, 50, 100]),
    "queen_breaks_hearts": st.booleans(),
    "points_on_first_trick": st.booleans(),
    "moon": st.sampled_from([m.value for m in MoonRule]),
    "shoot_the_sun": st.booleans(),
    "jack_of_diamonds": st.booleans(),
    "tie_break": st.sampled_from(["play_on", "last_round"]),
    "first_dealer": st.integers(0, 5),  # taken modulo the count of seats
})
bots = st.lists(st.sampled_from(["random", "heuristic"]), min_size=3, max_size=6)
CARD = re.compile(r'"([2-9TJQKA][CDSH])"')


def a_match(seed: int, options: dict, seat_bots: list[str], decks: int = 0):
    rng = Random(seed)
    table = table_for(len(seat_bots))
    given_decks = tuple(tuple(rng.sample(table.cards, len(table.cards))) for _ in range(decks))
    if "first_dealer" in options:
        options = options | {"first_dealer": options["first_dealer"] % table.seats}
    command = CreateMatch(
        f"m{seed}", tuple(SeatSpec(f"s{i}", b) for i, b in enumerate(seat_bots)),
        Rules.from_mapping(options, table.seats), str(seed),
        Secret(rng.randbytes(32), given_decks),
        "2026-12-02T12:00:00Z")
    state, events = play_out(command, [policy_named(b) for b in seat_bots], rng)
    return state, events, command


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), options=rules_options, seat_bots=bots,
       decks=st.integers(0, 2))
def test_every_random_match_keeps_the_rules_invariants(seed, options, seat_bots, decks):
    state, events, command = a_match(seed, options, seat_bots, decks)
    rules = state.rules
    _check_rounds(events, rules, state.table)
    assert state.status is Status.FINISHED
    totals = [sum(h[s] for h in state.history) for s in range(state.table.seats)]
    assert list(state.totals) == totals
    assert max(totals) >= rules.end_score
    assert isinstance(events[-1], MatchEnded) and events[-1].winner == state.winner
    assert events[-1].server_seed == command.secret.server_seed.hex()
    decoded = [from_data(type(e).__name__, json.loads(canonical_json(to_data(e))))
               for e in events]
    assert fold(decoded) == state, "replaying the stored events gives the live state"


def _check_rounds(events, rules, table):
    dealt, plays, tricks, choice = None, [], [], None
    n, size = table.seats, table.hand_size
    for event in events:
        if isinstance(event, RoundDealt):
            dealt, plays, tricks, choice = event, [], [], None
            assert sorted(c for h in event.hands for c in h) == list(table.cards)
            assert len(event.hands) == n and all(len(h) == size for h in event.hands)
        elif isinstance(event, CardPlayed):
            plays.append((event.seat, event.card))
        elif isinstance(event, TrickTaken):
            trick = plays[-n:]
            assert [s for s, _ in trick] == [(trick[0][0] + i) % n for i in range(n)]
            assert event.winner == trick_winner(trick)
            assert event.points == sum(penalty(c) for _, c in trick)
            assert event.trick == len(tricks) + 1
            tricks.append(event)
        elif isinstance(event, MoonChosen):
            choice = event.choice
        elif isinstance(event, RoundScored):
            assert len(plays) == len(table.cards) and len(tricks) == size
            assert Counter(c for _, c in plays) == Counter(table.cards), "each played once"
            assert Counter(s for s, _ in plays) == Counter(dict.fromkeys(range(n), size))
            assert dealt is not None
            _check_scores(event, tricks, rules, choice, n)


def _check_scores(scored, tricks, rules, choice, n):
    points = [sum(t.points for t in tricks if t.winner == s) for s in range(n)]
    assert list(scored.points) == points and sum(points) == 26
    winners = {t.winner for t in tricks}
    expected = list(points)
    if rules.shoot_the_sun and len(winners) == 1:
        (sun,) = winners
        assert scored.sun == sun
        expected = [-26 if s == sun else 26 for s in range(n)]
    elif 26 in points:
        moon = points.index(26)
        assert scored.moon == moon
        how = choice or rules.moon
        assert how is not MoonRule.SHOOTER_CHOICE
        expected = ([0 if s == moon else 26 for s in range(n)] if how is MoonRule.ADD_TO_OTHERS
                    else [-26 if s == moon else 0 for s in range(n)])
    if rules.jack_of_diamonds:
        assert scored.jack is not None
        expected[scored.jack] += JACK_BONUS
    assert list(scored.scores) == expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), options=rules_options, seat_bots=bots)
def test_no_view_or_event_ever_shows_a_card_its_viewer_may_not_see(seed, options, seat_bots):
    _, events, _ = a_match(seed, options | {"end_score": 26}, seat_bots)
    state = None
    for seen, event in enumerate(events, start=1):
        state = evolve(state, event)
        if state.round is None:
            continue  # only the creation so far: nothing dealt, nothing to show
        for viewer in (None, *range(state.table.seats)):
            allowed = _may_see(state, viewer)
            shown = set(CARD.findall(json.dumps(view_json(view_for(state, viewer)))))
            assert shown <= allowed, (viewer, shown - allowed)
        if isinstance(event, CardPlayed) and event.card.suit.letter != "H":
            continue  # the log is checked at fewer moments: it only grows
        for viewer in (None, *range(state.table.seats)):
            allowed = _may_see(state, viewer)
            for past in events[:seen]:
                if state.round_is_over(getattr(past, "round", 0)):
                    continue  # that round's deal and passes are public now
                shown = set(CARD.findall(json.dumps(event_json(past, state, viewer))))
                assert shown <= allowed, (viewer, type(past).__name__, shown - allowed)


def _may_see(state, viewer):
    rnd = state.round
    seen = {p.card for t in rnd.taken for p in t.plays} | {p.card for p in rnd.trick.plays}
    seen |= state.table.removed  # out of the game, as every view says: nobody holds them
    if state.round_is_over(rnd.number):
        seen |= set(state.table.cards)
    if viewer is not None:
        seen |= rnd.hands[viewer] | set(rnd.passes[viewer] or ()) | set(
            rnd.received[viewer] or ())
    return {str(c) for c in seen}
