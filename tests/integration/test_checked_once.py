"""Audits, replays and the integrity report cost one round, not the whole match: they start
from what the process checked and kept before. They must say exactly what a fold from the
first event says, at every step of a match, and still find an edit made behind the store's
back once their walk is begun again."""

from __future__ import annotations

from random import Random

from domain.audit import Recorded, trick_audit
from domain.evolve import fold
from domain.rules import Rules
from domain.views import replay_json
from harness.play import random_move
from service import MatchService, decode
from service.integrity import FRESH_FOR, report
from tests.integration.test_idempotency_and_integrity import (
    PEOPLE,
    Clock,
    _first,
    tamper,
)


def move(game, match_id, rng) -> bool:
    return random_move(game, match_id, rng) is not None


def test_audits_replays_and_reports_agree_with_a_fold_from_the_first_event(game):
    rng = Random(11)
    match_id = game.create(PEOPLE, Rules(end_score=60)).match.id  # three rounds at least
    secret = game.matches.secret(match_id)
    steps = 0
    while move(game, match_id, rng):
        steps += 1
        if steps % 7 == 0:  # the walk grows a piece at a time, as reads come in
            stored = game.store.read(match_id)
            assert game.verify(match_id) == report(stored, secret)
    stored = game.store.read(match_id)
    assert game.verify(match_id) == report(stored, secret) and game.verify(match_id)["ok"]
    now = game.load(match_id)
    assert now.rounds_dealt >= 3, "a match of several rounds"
    log = [Recorded(e.version, e.hash, decode(e)) for e in stored]
    for round_number in range(1, now.rounds_dealt + 1):
        for trick in range(1, 14):
            expected = trick_audit(log, round_number, trick, now)
            assert expected is not None
            expected.pop("taken_version")
            got = game.audit(match_id, round_number, trick)
            assert got.pop("chain_ok") is True
            assert got == expected, (round_number, trick)
    events = [decode(e) for e in stored]
    for version in range(1, now.version + 1):
        then = fold(events[:version])
        for viewer in (None, 2):
            assert game.replay(match_id, version, viewer) == replay_json(then, now, viewer)


def test_an_edit_after_a_check_is_found_once_the_walk_begins_again(backend, game):
    clock = Clock()
    game = MatchService(game.store, clock=clock)
    match_id = game.create(PEOPLE, Rules(end_score=26)).match.id
    rng = Random(3)
    while move(game, match_id, rng):
        pass
    assert game.verify(match_id)["ok"]
    version = _first(game, match_id, "TrickTaken")
    tamper(backend, game, match_id, version,
           lambda d: {**d, "winner": (d["winner"] + 1) % 4}, rechain=False)
    assert game.verify(match_id)["ok"], "each event is checked once within the walk's time"
    clock.now += FRESH_FOR + 1
    found = game.verify(match_id)
    assert found["ok"] is False and found["first_bad_version"] == version
    audit = game.audit(match_id, 1, 1)
    assert audit["chain_ok"] is False
