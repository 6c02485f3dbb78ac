"""Matches that end unplayed, and the caps on matches of bots alone, through the service on
real stores."""

from __future__ import annotations

import time

import pytest

from domain.errors import IllegalMove, InvalidCommand, Violation
from domain.events import AbandonReason, MatchAbandoned, SeatSpec
from domain.rules import Rules
from domain.state import Status
from service import MatchService, decode
from service.fair_use import BotMatchesCapped, FairUse
from service.sweeps import abandon_idle
from service.waiting import BOTS_ONLY, PEOPLE
from workers.dispatch import InlineDispatcher

PERSONS = [SeatSpec(n) for n in ("Ann", "Bob", "Cid", "Dee")]
BOTS = [SeatSpec(f"r{i}", "random") for i in range(4)]


def test_a_person_abandons_and_the_match_ends_with_its_seed_revealed(store):
    game = MatchService(store)
    created = game.create(PERSONS, Rules())
    match_id = created.match.id
    reply = game.abandon(match_id, 2)
    assert reply.view["status"] == "abandoned" and reply.view["winner"] is None
    assert reply.view["server_seed"] is not None and reply.view["to_act"] == []
    stored = store.read(match_id)
    abandoned = decode(stored[-1])
    assert abandoned == MatchAbandoned(AbandonReason.BY_SEAT, 2, (0, 0, 0, 0),
                                       reply.view["server_seed"], ())
    assert game.verify(match_id)["ok"] and game.verify(match_id)["deals_ok"] is True
    with pytest.raises(IllegalMove) as error:
        game.pass_cards(match_id, 0, list(game.load(match_id).round.hands[0])[:3])
    assert error.value.code is Violation.WRONG_PHASE
    with pytest.raises(IllegalMove):
        game.abandon(match_id, 1)
    assert store.marked(PEOPLE).get(match_id) is None, "no longer waits on its people"
    # Once abandoned, every hand of the round is everyone's.
    event = game.events(match_id, None)[0][1]
    assert event["type"] == "RoundDealt" and None not in event["data"]["hands"]


def test_a_bot_seat_cannot_abandon(store):
    game = MatchService(store)
    match = game.create([SeatSpec("Ann"), *BOTS[1:]], Rules()).match
    with pytest.raises(InvalidCommand):
        game.abandon(match.id, 1)


def test_matches_whose_people_went_away_are_abandoned_as_idle_once_the_time_is_up(store):
    game = MatchService(store, fair=FairUse(idle_seconds=3600))
    idle = game.create(PERSONS, Rules()).match.id
    busy = game.create(PERSONS, Rules()).match.id
    assert abandon_idle(game.commands) == 0, "nobody is idle yet"
    an_hour_on = time.time() + 3601
    game.pass_cards(busy, 0, sorted(game.load(busy).round.hands[0])[:3])
    assert abandon_idle(game.commands, clock=lambda: an_hour_on) == 2
    assert game.load(idle).status is Status.ABANDONED
    last = decode(store.read(idle)[-1])
    assert isinstance(last, MatchAbandoned) and last.reason is AbandonReason.IDLE
    assert last.seat is None
    assert abandon_idle(game.commands, clock=lambda: an_hour_on) == 0, "once is enough"


def test_matches_of_bots_alone_are_capped_per_client_and_in_all_until_they_end(store):
    game = MatchService(store, fair=FairUse(bot_matches_per_client=2, bot_matches=3))
    first = game.create(BOTS, Rules(), owner="10.0.0.1").match.id
    game.create(BOTS, Rules(), owner="10.0.0.1")
    with pytest.raises(BotMatchesCapped) as capped:
        game.create(BOTS, Rules(), owner="10.0.0.1")
    assert capped.value.per_client
    game.create(BOTS, Rules(), owner="10.0.0.2")
    with pytest.raises(BotMatchesCapped) as capped:
        game.create(BOTS, Rules(), owner="10.0.0.3")
    assert not capped.value.per_client
    game.create(PERSONS, Rules(), owner="10.0.0.1")  # people are not capped
    assert len(store.marked(BOTS_ONLY)) == 3
    game.commands.abandon(first, None, AbandonReason.IDLE)
    assert first not in store.marked(BOTS_ONLY), "an ended match frees its place"
    game.create(BOTS, Rules(), owner="10.0.0.1")


def test_a_match_of_bots_alone_is_abandoned_past_its_most_rounds(store):
    game = MatchService(store, lambda service: InlineDispatcher(service.bot_turn, 2),
                        fair=FairUse(bot_rounds=1))
    dispatcher = game.dispatcher
    assert dispatcher is not None
    try:
        match_id = game.create(BOTS, Rules(end_score=10_000)).match.id
        deadline = time.monotonic() + 60
        while not game.load(match_id).is_over:
            assert time.monotonic() < deadline, "the bots never stopped"
            dispatcher.wait_idle(1.0)
        state = game.load(match_id)
        assert state.status is Status.ABANDONED and len(state.history) == 1
        last = decode(store.read(match_id)[-1])
        assert isinstance(last, MatchAbandoned) and last.reason is AbandonReason.ROUND_LIMIT
        assert game.verify(match_id)["ok"]
    finally:
        dispatcher.close()
