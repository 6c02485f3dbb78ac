"""A paced bot's move is recorded on its beat, never sooner, whatever it holds: a seat with
one legal card (which any bot chooses at once) waits just as long as one with ten."""

from __future__ import annotations

from itertools import pairwise

import pytest

from domain.events import SeatSpec
from domain.evolve import fold
from domain.legal import legal_cards
from domain.rules import Rules
from domain.state import Status
from domain.views import seats_to_act
from eventstore import open_store
from harness.http import wait_until
from service import MatchService, decode
from service.pacing import parse_instant, parse_pace

PACE = 0.05


@pytest.fixture
def game(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'events.sqlite3'}")
    yield MatchService(store, pace={"random": PACE, "heuristic": PACE})
    store.close()


def test_no_bot_move_is_recorded_sooner_than_its_pace_one_legal_card_or_many(game):
    seats = [SeatSpec(f"b{i}", "random" if i % 2 else "heuristic") for i in range(4)]
    match = game.create(seats, Rules(end_score=10_000)).match
    while (state := game.load(match.id)).round.number == 1 and state.status is not Status.FINISHED:
        for seat in seats_to_act(state):
            game.bot_turn(match.id, seat, state.version)
        # Each move is held until its due time, then stored; one of them wins the version.
        wait_until(lambda v=state.version: game.load(match.id).version > v, 30)
    stored = game.store.read(match.id)
    gaps = {"one legal card": [], "several": []}
    before = None
    for previous, event in pairwise(stored):
        before = fold([decode(previous)], before)
        if event.type != "CardPlayed":
            continue
        seat = event.data["seat"]
        choices = len(legal_cards(before.round, before.rules, seat))
        gap = parse_instant(event.recorded_at) - parse_instant(previous.recorded_at)
        gaps["one legal card" if choices == 1 else "several"].append(gap)
    assert len(gaps["one legal card"]) >= 2 and len(gaps["several"]) >= 10, gaps
    for kind, seen in gaps.items():
        assert min(seen) >= PACE - 0.001, (kind, min(seen))
    bot_moves = [e for e in stored if (e.data.get("bot") or "")]
    assert len(bot_moves) == 4 + 52


def test_without_a_pace_a_bot_moves_at_once(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'events.sqlite3'}")
    game = MatchService(store)
    match = game.create([SeatSpec(f"b{i}", "random") for i in range(4)], Rules()).match
    state = game.load(match.id)
    game.bot_turn(match.id, 0, state.version)
    first, passed = game.store.read(match.id, after=state.version - 1)
    assert parse_instant(passed.recorded_at) - parse_instant(first.recorded_at) < PACE
    store.close()


def test_a_pace_is_one_figure_or_per_level():
    assert parse_pace("0") == {"random": 0.0, "heuristic": 0.0, "expert": 0.0}
    assert parse_pace("expert=2,random=0.1") == {"random": 0.1, "heuristic": 0.5,
                                                   "expert": 2.0}
    for bad in ("fast", "genius=1", "-1", "61", "expert="):
        with pytest.raises(ValueError):
            parse_pace(bad)


def test_a_graceful_stop_delivers_the_moves_it_holds_at_their_time(tmp_path):
    """Closed with a paced move in hand, the service makes it on its beat before it lets the
    store go: the turn is not left for the next start's sweep to make late."""
    url = f"sqlite:///{tmp_path / 'events.sqlite3'}"
    game = MatchService(open_store(url), pace={"heuristic": 0.5})
    seats = [SeatSpec("Ann"), *(SeatSpec(f"h{i}", "heuristic") for i in (1, 2, 3))]
    match = game.create(seats, Rules()).match
    state = game.load(match.id)
    assert game.bot_turn(match.id, 1, state.version) == 2  # HELD for its pace
    assert game.bots.deliveries.held() == 1
    game.close()
    store = open_store(url)
    try:
        stored = store.read(match.id)
        passes = [e for e in stored if e.type == "PassChosen"]
        assert [e.data["seat"] for e in passes] == [1]
        dealt = parse_instant(stored[state.version - 1].recorded_at)
        assert parse_instant(passes[0].recorded_at) >= dealt + 0.5 - 0.001  # on its beat
    finally:
        store.close()
