"""Real matches played through HTTP at every count of seats; at many moments every endpoint is
read as the spectator and as every seat, and no response holds a card that its reader may not
see at that moment.

The truth (every hand, every pass) is read from the store itself, beside the server.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from domain.events import CardPlayed, MatchEnded, PassesExchanged, RoundDealt
from domain.sealing import canonical_json, opens, public_form, value_at
from domain.table import table_for
from eventstore import GENESIS_HASH, chain_hash, open_store
from harness.http import call, wait_until
from service import decode
from tests.e2e.conftest import create, step, view

CARD = re.compile(r'"([2-9TJQKA][CDSH])"')


class Truth:
    """What each seat may know of each round, from the stored log."""

    def __init__(self, store, match_id: str, seats: int) -> None:
        self.viewers = (None, *range(seats))
        # Out of the game at this count, as every view says: nobody holds them.
        self.removed = {str(c) for c in table_for(seats).removed}
        self.known: dict[int, dict[int | None, set[str]]] = {}
        self.over: set[int] = set()
        number = 0
        for stored in store.read(match_id):
            event = decode(stored)
            if isinstance(event, RoundDealt):
                number = event.round
                self.over.add(number - 1)
                self.known[number] = {v: set() for v in self.viewers}
                for seat, hand in enumerate(event.hands):
                    self.known[number][seat] |= {str(c) for c in hand}
            elif isinstance(event, PassesExchanged):
                for seat, cards in enumerate(event.received):
                    self.known[number][seat] |= {str(c) for c in cards}
            elif isinstance(event, CardPlayed):
                for viewer in self.viewers:
                    self.known[number][viewer].add(str(event.card))
            elif isinstance(event, MatchEnded):
                self.over.add(number)
        self.current = number

    def allowed(self, number: int, viewer: int | None) -> set[str] | None:
        """The cards `viewer` may see of round `number`; None when all of it is public."""
        if number in self.over or number < self.current:
            return None
        return self.known[number][viewer] | self.removed


def cards_in(value) -> set[str]:
    return set(CARD.findall(json.dumps(value)))


def check_chain_and_seals(items: list[dict]) -> None:
    """The reader's log chains from its own content, and a salt stands only beside a value
    that the reader sees, which it opens; a hidden value is null and has no salt."""
    prev = GENESIS_HASH
    for item in items:
        data = item["data"]
        digest = chain_hash(prev, item["version"], item["type"],
                            canonical_json(public_form(data)), item["recorded_at"])
        assert (item["prev_hash"], item["hash"]) == (prev, digest), item["version"]
        prev = item["hash"]
        salts = data.get("salts", {})
        assert set(salts) <= set(data.get("sealed", {})), item
        for path, sealed in data.get("sealed", {}).items():
            value = value_at(data, path)
            if value is None:
                assert path not in salts, ("a salt beside a hidden value", item)
            else:
                assert opens(sealed, salts[path], value), (path, item)


def check(base: str, match: dict, truth: Truth) -> int:
    checked = 0
    match_id = match["id"]
    for viewer in truth.viewers:
        token = None if viewer is None else match["tokens"][str(viewer)]
        got = call(base, "GET", f"/v1/matches/{match_id}", token=token).body
        allowed = truth.allowed(got["round"], viewer)
        if allowed is not None:
            assert cards_in(got) <= allowed, (viewer, cards_in(got) - allowed)
        log = call(base, "GET", f"/v1/matches/{match_id}/events?limit=1000", token=token).body
        check_chain_and_seals(log["events"])
        for item in log["events"]:
            number = item["data"].get("round")
            allowed = truth.allowed(number, viewer) if number else None
            if allowed is not None:
                assert cards_in(item) <= allowed, (viewer, item["type"], cards_in(item) - allowed)
        for version in sorted({2, max(2, got["version"] - 3), got["version"]}):
            replay = call(base, "GET", f"/v1/matches/{match_id}/replay/{version}",
                          token=token).body
            allowed = truth.allowed(replay["round"], viewer)
            if allowed is not None:
                assert cards_in(replay) <= allowed, (viewer, version)
        trick = len(got["tricks"]) + (1 if got["trick"] and got["trick"]["plays"] else 0)
        if trick:
            audit = call(base, "GET",
                         f"/v1/matches/{match_id}/rounds/{got['round']}/tricks/{trick}",
                         token=token).body
            allowed = truth.allowed(got["round"], viewer)
            if allowed is not None:
                assert cards_in(audit) <= allowed, (viewer, "audit")
        verify = call(base, "GET", f"/v1/matches/{match_id}/verify", token=token).body
        assert not cards_in(verify) and "server_seed" not in verify
        analysis = call(base, "GET", f"/v1/matches/{match_id}/analysis", token=token)
        if analysis.status == 200:  # only rounds that are over, whatever it shows of them
            assert all(truth.allowed(r["round"], viewer) is None
                       for r in analysis.body["rounds"]), (viewer, "analysis")
            assert analysis.body["up_to_round"] < truth.current or truth.allowed(
                truth.current, viewer) is None
        checked += 1
    return checked


def ask_analysis(base: str, match_id: str) -> bool:
    """Ask for the match's analysis. Asking is limited like creating, and this file creates
    many matches on one server: a 429 is asked again until the limit lets it through."""
    def accepted() -> bool:
        reply = call(base, "POST", f"/v1/matches/{match_id}/analysis", {})
        assert reply.status in (202, 429), reply.body
        return reply.status == 202

    return bool(wait_until(accepted, 120, every=1.0))


ALL_RULES = ({"end_score": 26}, {"end_score": 26, "moon": "shooter_choice",
                                 "queen_breaks_hearts": True})


@pytest.mark.parametrize(("seats", "rule_sets"), [
    (4, ALL_RULES), (3, ALL_RULES[1:]), (5, ALL_RULES[1:]), (6, ALL_RULES[1:])])
def test_no_endpoint_shows_any_reader_a_card_it_may_not_see(server, store_path, seats,
                                                             rule_sets):
    store = open_store(f"sqlite:///{store_path}")
    rng = random.Random(7)
    people = [{"name": f"P{i}"} for i in range(seats)]
    checks = 0
    for rules in rule_sets:
        match = create(server.base, people, rules=rules)
        # Round 1 analysed while round 2 is played, in one match of each count of seats
        # (each round judged costs the server seconds): every check reads it.
        moves, asked = 0, rules is not rule_sets[0]
        while True:
            if not asked and view(server.base, match["id"])["round"] == 2:
                asked = ask_analysis(server.base, match["id"])
            if moves % 6 == 0:
                checks += check(server.base, match, Truth(store, match["id"], seats))
            if not step(server.base, match, rng):
                break
            moves += 1
        assert view(server.base, match["id"])["status"] == "finished"
        assert len(view(server.base, match["id"])["seats"]) == seats
        checks += check(server.base, match, Truth(store, match["id"], seats))
        if rules is rule_sets[0]:
            if not asked:  # a moon ended the match in round 1: asked for once it is over
                asked = ask_analysis(server.base, match["id"])
                checks += check(server.base, match, Truth(store, match["id"], seats))
            analysed = call(server.base, "GET", f"/v1/matches/{match['id']}/analysis").body
            assert analysed["up_to_round"] == 1
    store.close()
    assert checks > 40 * len(rule_sets)
