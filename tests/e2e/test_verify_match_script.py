"""docs/verify_match.py, the stand-alone verifier, against a live server: as a spectator and
as a seat, mid-round and after the match, and against a log altered in the store."""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys

from domain.shuffle import shuffled_deck
from harness.http import ROOT, call
from tests.e2e.conftest import create, play_until, step, view

SCRIPT = ROOT / "docs" / "verify_match.py"


def verify(base: str, match_id: str, token: str | None = None) -> tuple[int, str]:
    command = [sys.executable, "-I", str(SCRIPT), base, match_id]  # -I: nothing of ours
    if token:  # joined with "=": a token may begin with "-"
        command.append(f"--token={token}")
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, cwd="/")
    return done.returncode, done.stdout + done.stderr


def test_mid_round_a_spectator_and_a_seat_check_the_chain_and_open_what_they_hold(server):
    match = create(server.base, rules={"end_score": 26})
    play_until(server.base, match, lambda v: v["status"] == "playing" and len(v["tricks"]) >= 3)
    code, out = verify(server.base, match["id"])
    assert code == 0, out
    assert "hash chain: ok" in out and "sealed values: 0 of 12 opened" in out, out
    assert "deals: not yet: the seed is revealed when the match ends" in out, out
    assert "ok, not yet" not in out
    code, out = verify(server.base, match["id"], match["tokens"]["1"])
    # Seat 1's dealt hand, its pass, the pass it received, the cards it received.
    assert code == 0 and "sealed values: 4 of 12 opened and checked" in out, out


def test_after_the_match_every_seal_opens_and_every_deal_is_recomputed(server):
    match = create(server.base, rules={"end_score": 26}, client_seed="a seed of mine")
    final = play_until(server.base, match, lambda v: v["status"] == "finished", seed=4)
    rounds = len(final["scores"]["history"])
    for token in (None, match["tokens"]["2"]):
        code, out = verify(server.base, match["id"], token)
        assert code == 0, out
        assert f"deals: ok, {rounds} deals recomputed from the revealed seed" in out, out
        opened, total = out.split("sealed values: ")[1].split(" opened")[0].split(" of ")
        assert opened == total, out


def test_an_abandoned_match_reveals_its_seed_and_its_deals_are_recomputed(server):
    match = create(server.base, rules={"end_score": 100})
    play_until(server.base, match, lambda v: v["round"] == 2, seed=3)
    gone = call(server.base, "POST", f"/v1/matches/{match['id']}/abandon", {},
                token=match["tokens"]["0"])
    assert gone.status == 200, gone.body
    code, out = verify(server.base, match["id"])
    assert code == 0, out
    assert "deals: ok, 2 deals recomputed from the revealed seed" in out, out
    opened, total = out.split("sealed values: ")[1].split(" opened")[0].split(" of ")
    assert opened == total, out


def test_a_match_created_with_given_decks_is_checked_against_them(server):
    deck = [str(c) for c in shuffled_deck(bytes(32), "", 1)]
    match = create(server.base, rules={"end_score": 26}, decks=[deck])
    play_until(server.base, match, lambda v: v["status"] == "finished", seed=2)
    code, out = verify(server.base, match["id"])
    assert code == 0 and "deals: ok" in out, out


def _edit(store_path, match_id: str, type_name: str, change) -> None:
    with sqlite3.connect(store_path) as conn:
        version, text = conn.execute(
            "SELECT version, data FROM events WHERE stream = ? AND type = ? ORDER BY version "
            "LIMIT 1", (match_id, type_name)).fetchone()
        conn.execute("UPDATE events SET data = ? WHERE stream = ? AND version = ?",
                     (json.dumps(change(json.loads(text))), match_id, version))


def test_a_log_altered_in_the_store_is_caught(server, store_path):
    rng = random.Random(5)
    finished = create(server.base, rules={"end_score": 26})
    while step(server.base, finished, rng):
        pass
    # A hidden value swapped: the chain still holds (it covers the sealed form only), but
    # the value no longer opens its commitment, and the deal is not the one recomputed.
    def swap(data):
        data["hands"][0][0], data["hands"][1][0] = data["hands"][1][0], data["hands"][0][0]
        return data

    _edit(store_path, finished["id"], "RoundDealt", swap)
    code, out = verify(server.base, finished["id"])
    assert code == 1, out
    assert "hands.0: does not open its commitment" in out, out
    assert "round 1: the recorded deal is not the one recomputed" in out, out
    # A public fact changed: the chain breaks.
    playing = create(server.base, rules={"end_score": 26})
    play_until(server.base, playing, lambda v: v["status"] == "playing" and len(v["tricks"]))
    _edit(store_path, playing["id"], "TrickTaken", lambda d: {**d, "points": d["points"] + 1})
    code, out = verify(server.base, playing["id"])
    assert code == 1 and "hash chain: BROKEN" in out, out
    assert view(server.base, playing["id"])["status"] == "playing"


def test_an_unreachable_server_is_a_clear_failure(server):
    code, out = verify("http://127.0.0.1:9", "nothing")
    assert code == 2 and "could not read the log" in out, out


def test_a_match_at_five_seats_is_checked_deal_by_deal(server):
    people = [{"name": f"P{i}"} for i in range(5)]
    match = create(server.base, people, rules={"end_score": 26})
    final = play_until(server.base, match, lambda v: v["status"] == "finished", seed=5)
    code, out = verify(server.base, match["id"], match["tokens"]["4"])
    assert code == 0, out
    rounds = len(final["scores"]["history"])
    assert f"deals: ok, {rounds} deals recomputed from the revealed seed" in out, out
