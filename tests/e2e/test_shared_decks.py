"""Duplicate play: two tables dealt the same given decks. What one table's end reveals must
tell the other table nothing it will be dealt later."""

from __future__ import annotations

import random
from typing import Any

from harness.http import call
from tests.e2e.conftest import PEOPLE, create, view
from tests.e2e.test_verify_match_script import verify

DECK = [rank + suit for suit in "CDSH" for rank in "23456789TJQKA"]


def card_lists(value: Any) -> list[list[str]]:
    """Every list of card codes anywhere in a JSON value."""
    if isinstance(value, dict):
        return [found for v in value.values() for found in card_lists(v)]
    if isinstance(value, list):
        own = [value] if value and all(isinstance(c, str) and c in DECK for c in value) else []
        return own + [found for v in value for found in card_lists(v)]
    return []


def everything_public(base: str, match_id: str) -> list[Any]:
    """What a spectator can read of a match: its view, log, every replay, verify and audits."""
    log = call(base, "GET", f"/v1/matches/{match_id}/events?after=0&limit=1000").body
    version = log["events"][-1]["version"]
    replays = [call(base, "GET", f"/v1/matches/{match_id}/replay/{v}").body
               for v in range(0, version + 1)]
    audit = call(base, "GET", f"/v1/matches/{match_id}/rounds/1/tricks/1").body
    return [view(base, match_id), log, replays, audit,
            call(base, "GET", f"/v1/matches/{match_id}/verify").body]


def test_an_abandoned_table_shows_no_deck_it_did_not_deal(server):
    rng = random.Random(27)
    decks = [rng.sample(DECK, 52) for _ in range(5)]
    here = create(server.base, PEOPLE, decks=decks)
    there = create(server.base, PEOPLE, decks=decks)
    # Round 1 at this table: the passes are made, then Ann gives the match up.
    for seat in range(4):
        hand = view(server.base, here["id"], here["tokens"][str(seat)])["you"]["hand"]
        reply = call(server.base, "POST", f"/v1/matches/{here['id']}/passes",
                     {"cards": hand[:3]}, token=here["tokens"][str(seat)])
        assert reply.status == 200, reply.body
    reply = call(server.base, "POST", f"/v1/matches/{here['id']}/abandon", {},
                 token=here["tokens"]["0"])
    assert reply.status == 200, reply.body
    public = everything_public(server.base, here["id"])
    ended = public[1]["events"][-1]
    assert ended["type"] == "MatchAbandoned"
    assert ended["data"]["decks"] == decks[:1], "the deck of the round dealt, and no other"
    report = public[-1]
    assert report["ok"] and report["deals_ok"], report
    code, out = verify(server.base, here["id"])  # the stand-alone verifier agrees
    assert code == 0 and "1 deals recomputed" in out, out
    # No deck of a later round, nor any hand it deals, in anything a spectator reads.
    later = [sorted(deck[i::4]) for deck in decks[1:] for i in range(4)]
    seen = card_lists(public)
    for deck in decks[1:]:
        assert deck not in seen
    assert not [hand for hand in seen if sorted(hand) in later]
    # The other table plays on, its round 1 the same deal, and its later deals still secret.
    assert view(server.base, there["id"])["status"] == "passing"
