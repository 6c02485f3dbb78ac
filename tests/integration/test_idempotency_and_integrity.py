"""Idempotent retries, the integrity report, tampering, and the cache against a replay."""

import json
import threading
from random import Random

import pytest

from domain.errors import IllegalMove, Violation
from domain.events import SeatSpec
from domain.evolve import fold
from domain.legal import legal_cards
from domain.rules import MoonRule, Rules
from domain.sealing import public_form
from domain.state import Status
from domain.views import seats_to_act
from eventstore import GENESIS_HASH, chain_hash, open_store
from eventstore.base import canonical
from harness.play import play_out
from service import MatchService, decode
from service.creations import STALE_CLAIM
from service.errors import StillInProgress
from service.idempotency import CREATION_TTL, CREATIONS, Idempotency, KeyReused

PEOPLE = [SeatSpec(n) for n in ("Ann", "Bob", "Cid", "Dee")]


def three(match, seat):
    return sorted(match.round.hands[seat])[:3]


def test_a_retry_with_the_same_key_and_body_returns_the_first_reply_and_appends_nothing(game):
    match = game.create(PEOPLE, Rules()).match
    key = Idempotency.of("k-1", {"cards": [str(c) for c in three(match, 0)]})
    first = game.pass_cards(match.id, 0, three(match, 0), idempotency=key)
    again = game.pass_cards(match.id, 0, three(match, 0), idempotency=key)
    assert again == first
    assert game.store.version(match.id) == match.version + 1


def test_the_same_key_with_another_body_is_refused(game):
    match = game.create(PEOPLE, Rules()).match
    game.pass_cards(match.id, 0, three(match, 0), idempotency=Idempotency.of("k", {"a": 1}))
    with pytest.raises(KeyReused):
        game.pass_cards(match.id, 0, three(match, 0), idempotency=Idempotency.of("k", {"a": 2}))


def test_keys_are_scoped_to_the_match_and_the_seat(game):
    match = game.create(PEOPLE, Rules()).match
    other = game.create(PEOPLE, Rules()).match
    key = Idempotency.of("same", {})
    game.pass_cards(match.id, 0, three(match, 0), idempotency=key)
    game.pass_cards(match.id, 1, three(match, 1), idempotency=key)
    game.pass_cards(other.id, 0, three(other, 0), idempotency=key)
    assert game.store.version(match.id) == match.version + 2
    assert game.store.version(other.id) == other.version + 1


def test_a_refused_move_is_refused_again_on_retry_even_after_the_state_moved(game):
    match = game.create(PEOPLE, Rules()).match
    for seat in range(4):
        game.pass_cards(match.id, seat, three(match, seat))
    state = game.load(match.id)
    leader = state.round.turn
    other = (leader + 1) % 4
    card = min(legal_cards(state.round, state.rules, other) or state.round.hands[other])
    key = Idempotency.of("early", {"card": str(card)})
    with pytest.raises(IllegalMove) as first:
        game.play_card(match.id, other, card, idempotency=key)
    assert first.value.code is Violation.NOT_YOUR_TURN
    game.play_card(match.id, leader, min(state.round.hands[leader]))
    with pytest.raises(IllegalMove) as again:
        game.play_card(match.id, other, card, idempotency=key)
    assert again.value.code is Violation.NOT_YOUR_TURN


STRONG = "6f1c2b9e-0d4a-4c8e-9b7f-2a5d3e8c1f40"


class Clock:
    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_creation_retried_with_its_key_returns_the_same_match_and_tokens(game):
    clock = Clock()
    game = MatchService(game.store, clock=clock)
    key = Idempotency.of(STRONG, {"seats": "..."})
    first = game.create_match(PEOPLE, Rules(), "", (), key)
    again = game.create_match(PEOPLE, Rules(), "", (), key)
    assert again == json.loads(json.dumps(first))
    sealed = game.store.get_meta(CREATIONS, key.slot(None, int(clock.now // CREATION_TTL)))
    assert sealed and all(t not in sealed for t in first["view"]["tokens"].values())
    # A copy of the whole store shows neither the key nor a token in any form.
    stored = everything_stored(game.store)
    assert STRONG not in stored and STRONG.replace("-", "") not in stored
    for token in first["view"]["tokens"].values():
        assert token not in stored
    with pytest.raises(KeyReused):
        game.create_match(PEOPLE, Rules(), "", (), Idempotency.of(STRONG, {"seats": "other"}))


def test_a_creation_key_is_kept_24_hours_across_periods_and_not_after(game):
    start = (int(1_800_000_000 // CREATION_TTL) + 1) * CREATION_TTL - 5  # 5 s before a period
    clock = Clock(start)
    game = MatchService(game.store, clock=clock)
    key = Idempotency.of(STRONG, {"seats": "..."})
    first = game.create_match(PEOPLE, Rules(), "", (), key)
    clock.now = start + CREATION_TTL - 1  # the next period, still within 24 h
    assert game.create_match(PEOPLE, Rules(), "", (), key) == first
    clock.now = start + CREATION_TTL + 1
    assert game.create_match(PEOPLE, Rules(), "", (), key)["view"]["id"] != first["view"]["id"]


def everything_stored(store) -> str:
    """Every byte the store holds, as text: what a leaked copy of it would show."""
    if hasattr(store, "client"):
        out = []
        for key in store.client.scan_iter():
            kind = store.client.type(key)
            value = {"hash": store.client.hgetall, "string": store.client.get,
                     "stream": store.client.xrange, "zset": lambda k: store.client.zrange(
                         k, 0, -1, withscores=True), "set": store.client.smembers,
                     "list": lambda k: store.client.lrange(k, 0, -1)}[kind](key)
            out.append(f"{key} {value}")
        return "\n".join(out)
    conn = store._open()
    tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    return "\n".join(str(row) for table in tables
                     for row in conn.execute(f"SELECT * FROM {table}"))


def matches_created(store) -> int:
    if hasattr(store, "client"):
        keys = list(store.client.scan_iter(match="cardems:{*}:events", _type="stream"))
        return sum(1 for k in keys if store.client.xrange(k, count=1)[0][1]["type"]
                   == "MatchCreated")
    return store._open().execute(
        "SELECT COUNT(*) FROM events WHERE type = 'MatchCreated'").fetchone()[0]


def test_simultaneous_creations_with_one_key_store_one_match_and_all_get_its_reply(backend):
    stores = [open_store(backend[1]) for _ in range(6)]  # as six processes would
    games = [MatchService(store) for store in stores]
    key = Idempotency.of(STRONG, {"seats": "..."})
    start = threading.Barrier(len(games))
    replies: list = [None] * len(games)

    def create(i: int) -> None:
        start.wait()
        replies[i] = games[i].create_match(PEOPLE, Rules(), "", (), key)

    threads = [threading.Thread(target=create, args=(i,)) for i in range(len(games))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(json.loads(json.dumps(r)) == json.loads(json.dumps(replies[0]))
               for r in replies)
    assert matches_created(stores[0]) == 1
    for store in stores:
        store.close()


def test_a_claim_left_by_a_process_that_died_is_taken_over_for_the_same_match(game):
    clock = Clock()
    game = MatchService(game.store, clock=clock)
    key = Idempotency.of(STRONG, {"seats": "..."})
    claim = key.record(None, at=clock.now - STALE_CLAIM - 1, match="abandoned-claim")
    game.store.put_meta(CREATIONS, key.slot(None, int(clock.now // CREATION_TTL)),
                        key.seal(claim))
    reply = game.create_match(PEOPLE, Rules(), "", (), key)
    assert reply["view"]["id"] == "abandoned-claim"
    assert game.create_match(PEOPLE, Rules(), "", (), key) == reply
    assert matches_created(game.store) == 1


def test_a_fresh_claim_not_finished_in_time_is_a_retry_later(game, monkeypatch):
    monkeypatch.setattr("service.creations.CLAIM_PATIENCE", 0.05)
    clock = Clock()
    game = MatchService(game.store, clock=clock)
    key = Idempotency.of(STRONG, {"seats": "..."})
    claim = key.record(None, at=clock.now, match="in-progress")
    game.store.put_meta(CREATIONS, key.slot(None, int(clock.now // CREATION_TTL)),
                        key.seal(claim))
    with pytest.raises(StillInProgress):
        game.create_match(PEOPLE, Rules(), "", (), key)
    assert matches_created(game.store) == 0


@pytest.mark.parametrize("if_match", [True, False])
def test_a_retry_that_races_its_original_gets_the_original_reply(game, if_match):
    match = game.create(PEOPLE, Rules()).match
    cards = three(match, 0)
    key = Idempotency.of("k", {"cards": [str(c) for c in cards]})
    version = match.version if if_match else None
    original: list = []

    def original_lands_first() -> str:
        # Called by the retry just before its append: the original is stored right then,
        # after the retry has read the match, looked for a record and checked If-Match.
        if not original:
            original.append(game.pass_cards(match.id, 0, cards, version, key))
        return "2026-12-03T00:00:00.000Z"

    retry = MatchService(game.store, now=original_lands_first)
    again = retry.pass_cards(match.id, 0, cards, version, key)
    assert original and again == original[0]
    assert game.store.version(match.id) == match.version + 1


def play_to_the_end(game, match_id, rules_seed=0):
    return play_out(game, match_id, Random(rules_seed))


def test_the_cached_state_equals_a_full_replay_at_every_step(game):
    rules = Rules(end_score=30, moon=MoonRule.SHOOTER_CHOICE)
    match = game.create(PEOPLE, rules).match
    rng = Random(1)
    steps = 0
    while True:
        cached = game.load(match.id)
        assert cached == fold(decode(e) for e in game.store.read(match.id))
        if cached.status is Status.FINISHED:
            break
        seat = seats_to_act(cached)[0]
        if cached.status is Status.PASSING:
            game.pass_cards(match.id, seat, rng.sample(sorted(cached.round.hands[seat]), 3))
        elif cached.status is Status.PLAYING:
            game.play_card(match.id, seat,
                           rng.choice(sorted(legal_cards(cached.round, cached.rules, seat))))
        else:
            game.choose_moon(match.id, seat, MoonRule.SUBTRACT_FROM_SELF)
        steps += 1
    assert steps > 52


def test_an_untouched_finished_match_verifies_with_every_deal_recomputed(game):
    match = game.create(PEOPLE, Rules(end_score=26)).match
    assert game.verify(match.id)["deals_ok"] is None, "deals are checked once the seed is out"
    final = play_to_the_end(game, match.id)
    report = game.verify(match.id)
    assert report == {"ok": True, "events": final.version, "chain_ok": True, "replay_ok": True,
                      "deals_ok": True, "first_bad_version": None, "reason": None}


def tamper(backend, game, match_id, version, change, rechain):
    """Edit one stored event behind the store's back (and, if asked, forge the chain)."""
    events = game.store.read(match_id)
    rows = []
    prev = GENESIS_HASH
    for e in events:
        data = change(dict(e.data)) if e.version == version else e.data
        digest = e.hash
        prev_hash = e.prev_hash
        if rechain and e.version >= version:
            prev_hash = prev
            digest = chain_hash(prev, e.version, e.type, canonical(public_form(data)),
                                e.recorded_at)
        rows.append((e, data, prev_hash, digest))
        prev = digest
    if backend[0] == "sqlite":
        conn = game.store._open()
        for e, data, prev_hash, digest in rows:
            conn.execute("UPDATE events SET data = ?, prev_hash = ?, hash = ? "
                         "WHERE stream = ? AND version = ?",
                         (canonical(data), prev_hash, digest, match_id, e.version))
    else:
        client = game.store.client
        key = "cardems:{" + match_id + "}:events"
        client.delete(key)
        for e, data, prev_hash, digest in rows:
            client.xadd(key, {"type": e.type, "data": canonical(data),
                              "recorded_at": e.recorded_at, "prev_hash": prev_hash,
                              "hash": digest}, id=f"0-{e.version}")


def _first(game, match_id, type_name):
    return next(e.version for e in game.store.read(match_id) if e.type == type_name)


def test_an_edited_event_breaks_the_chain_at_its_version(backend, game):
    match = game.create(PEOPLE, Rules(end_score=26)).match
    play_to_the_end(game, match.id)
    version = _first(game, match.id, "TrickTaken")
    tamper(backend, game, match.id, version,
           lambda d: {**d, "winner": (d["winner"] + 1) % 4}, rechain=False)
    report = MatchService(game.store).verify(match.id)
    assert report["chain_ok"] is False and report["ok"] is False
    assert report["first_bad_version"] == version


def test_a_forged_chain_still_fails_the_replay_at_the_edited_event(backend, game):
    match = game.create(PEOPLE, Rules(end_score=26)).match
    play_to_the_end(game, match.id)
    version = _first(game, match.id, "RoundScored")
    tamper(backend, game, match.id, version,
           lambda d: {**d, "scores": [0, 0, 0, 0]}, rechain=True)
    report = MatchService(game.store).verify(match.id)
    assert report["chain_ok"] is True
    assert report["replay_ok"] is False and report["ok"] is False
    assert report["first_bad_version"] == version


def test_a_forged_revealed_seed_fails_verification(backend, game):
    match = game.create(PEOPLE, Rules(end_score=26)).match
    final = play_to_the_end(game, match.id)
    tamper(backend, game, match.id, final.version,
           lambda d: {**d, "server_seed": "00" * 32}, rechain=True)
    report = MatchService(game.store).verify(match.id)
    assert report["ok"] is False and report["first_bad_version"] == final.version


def test_an_event_that_no_longer_decodes_is_named_as_such_even_under_a_forged_chain(
        backend, game):
    match = game.create(PEOPLE, Rules(end_score=26)).match
    play_to_the_end(game, match.id)
    version = _first(game, match.id, "TrickTaken")
    tamper(backend, game, match.id, version, lambda d: {k: v for k, v in d.items()
                                                        if k != "winner"}, rechain=True)
    report = MatchService(game.store).verify(match.id)
    assert report["chain_ok"] is True and report["replay_ok"] is False
    assert report["first_bad_version"] == version
    assert report["reason"] == "the stored event does not decode"
    assert report["deals_ok"] is None and report["ok"] is False
