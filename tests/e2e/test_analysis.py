"""The analysis over HTTP: asked for, computed in the background, judged against the trick
audit's legal cards, limited to the rounds that are over, and the same on every store."""

from __future__ import annotations

import os
import random
import signal

import pytest

from eventstore import open_store
from harness.http import Server, call, children, free_port, wait_until
from harness.redis_server import scratch_redis
from service.analysis import round_key
from tests.e2e.conftest import PEOPLE, create, view
from tests.e2e.test_metrics import scrape, value
from tests.e2e.test_replay_audit_verify import PASSES, SUITS, deck, play_out_round, post

THRESHOLDS = [("best", 0.25), ("inaccuracy", 1.0), ("mistake", 3.0)]


def verdict_for(loss: float) -> str:
    return next((name for name, below in THRESHOLDS if loss < below), "blunder")


def decks(seed: int, rounds: int) -> list[list[str]]:
    cards = [r + s for s in "CDSH" for r in "23456789TJQKA"]
    rng = random.Random(seed)
    return [rng.sample(cards, 52) for _ in range(rounds)]


def move(base: str, match: dict, rng: random.Random) -> None:
    """One move of whichever person the match waits on, drawn from `rng`."""
    state = view(base, match["id"])
    seat = state["to_act"][0]
    token = match["tokens"][str(seat)]
    you = view(base, match["id"], token)["you"]
    if state["status"] == "passing":
        path, body = "passes", {"cards": rng.sample(sorted(you["hand"]), 3)}
    elif state["status"] == "playing":
        path, body = "plays", {"card": rng.choice(sorted(you["legal"]))}
    else:
        path, body = "moon", {"choice": "add_to_others"}
    reply = call(base, "POST", f"/v1/matches/{match['id']}/{path}", body, token=token)
    assert reply.status == 200, reply.body


def play_to_round(base: str, match: dict, number: int, rng: random.Random) -> None:
    while view(base, match["id"])["round"] < number:
        move(base, match, rng)


def ask(base: str, match_id: str) -> dict:
    reply = call(base, "POST", f"/v1/matches/{match_id}/analysis", {})
    assert reply.status == 202, reply.body
    assert reply.headers["location"].endswith(f"/v1/matches/{match_id}/analysis")
    return reply.body


def done(base: str, match_id: str, timeout: float = 180) -> dict:
    def finished():
        reply = call(base, "GET", f"/v1/matches/{match_id}/analysis")
        return reply.status == 200 and reply.body["status"] == "done" and reply.body
    return wait_until(finished, timeout, every=0.2)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("analysis")
    port = free_port()
    server = Server("--store", f"sqlite:///{folder / 'cardems.sqlite3'}", "--pace", "0",
                    "--metrics-port", str(port))
    server.operator = f"http://127.0.0.1:{port}"
    yield server
    server.stop()


def test_asking_is_checked_and_asking_again_changes_nothing(server):
    base = server.base
    assert call(base, "POST", "/v1/matches/nosuch/analysis", {}).status == 404
    assert call(base, "GET", "/v1/matches/nosuch/analysis").status == 404
    match = create(base)
    path = f"/v1/matches/{match['id']}/analysis"
    before = call(base, "GET", path)
    assert before.status == 404 and before.body["code"] == "not_found"
    for bad in ({"rounds": 3}, [], "x", None):
        refused = call(base, "POST", path, bad)
        assert refused.status in (400, 415, 422), (bad, refused.body)
        assert refused.headers["content-type"].startswith("application/problem+json")
    assert call(base, "GET", path).status == 404  # a refused ask asked for nothing
    first = ask(base, match["id"])
    assert first["up_to_round"] == 0 and first["rounds"] == []
    assert first["status"] == "done" and first["progress"] == {"done": 0, "total": 0}
    assert [s["decisions"] for s in first["seats"]] == [0, 0, 0, 0]
    assert ask(base, match["id"]) == first == call(base, "GET", path).body


def test_a_match_in_progress_is_analysed_up_to_its_last_round_over(server):
    base, rng = server.base, random.Random(25)
    match = create(base, decks=decks(25, 3))
    play_to_round(base, match, 2, rng)
    for _ in range(6):  # the passes and two plays of round 2: not over, never analysed
        move(base, match, rng)
    asked = ask(base, match["id"])
    assert asked["up_to_round"] == 1 and asked["status"] in ("queued", "running", "done")
    assert asked["progress"]["total"] == 4 + 52
    analysis = done(base, match["id"])
    assert analysis["up_to_round"] == 1 and [r["round"] for r in analysis["rounds"]] == [1]
    decisions = analysis["rounds"][0]["decisions"]
    assert len(decisions) == 56 and analysis["progress"] == {"done": 56, "total": 56}
    assert [d["kind"] for d in decisions[:4]] == ["pass"] * 4
    log = call(base, "GET", f"/v1/matches/{match['id']}/events?limit=1000").body["events"]
    by_version = {e["version"]: e for e in log}
    for decision in decisions:
        event = by_version[decision["version"]]
        assert event["data"]["seat"] == decision["seat"]
        moves = [o["move"] for o in decision["options"]]
        expected = [o["expected"] for o in decision["options"]]
        assert expected == sorted(expected) and decision["best"] == moves[0]
        assert decision["chosen"] in moves
        loss = expected[moves.index(decision["chosen"])] - expected[0]
        assert decision["loss"] == pytest.approx(loss, abs=0.011) and decision["loss"] >= 0
        if len(moves) == 1:
            assert decision["verdict"] == "forced" and decision["loss"] == 0
        else:
            assert decision["verdict"] == verdict_for(decision["loss"])
        if decision["kind"] == "play":
            assert decision["chosen"] == event["data"]["card"]
            audit = call(base, "GET", f"/v1/matches/{match['id']}/rounds/1/tricks/"
                         f"{decision['trick']}").body
            play = next(p for p in audit["plays"] if p["version"] == decision["version"])
            assert sorted(moves) == sorted(play["legal"])
        else:
            assert decision["trick"] is None
            assert sorted(decision["chosen"]) == sorted(event["data"]["cards"])
    assert any(d["verdict"] == "forced" for d in decisions)
    for summary in analysis["seats"]:
        mine = [d for d in decisions if d["seat"] == summary["seat"]]
        assert summary["decisions"] == len(mine) == 14
        assert summary["mean_loss"] == pytest.approx(sum(d["loss"] for d in mine) / 14,
                                                     abs=0.001)
        for key, verdict in [("blunders", "blunder"), ("mistakes", "mistake"),
                             ("inaccuracies", "inaccuracy")]:
            assert summary[key] == sum(d["verdict"] == verdict for d in mine)
    kept = value(scrape(server.operator), "cardems_analysed_rounds_total", outcome="kept")

    # Asking again with nothing new over computes nothing; once round 2 is over, it extends.
    assert ask(base, match["id"]) == analysis
    play_to_round(base, match, 3, rng)
    extended = ask(base, match["id"])
    assert extended["up_to_round"] == 2 and extended["rounds"][0] == analysis["rounds"][0]
    assert done(base, match["id"])["up_to_round"] == 2
    after = scrape(server.operator)
    assert value(after, "cardems_analysed_rounds_total", outcome="kept") == kept + 1
    assert value(after, "cardems_analysed_rounds_total", outcome="lost") == 0


def test_the_same_match_on_redis_is_judged_the_same(server, tmp_path):
    """Given decks and the same moves: the same events, so the same numbers on both stores."""
    with scratch_redis("analysis") as (_, redis):
        other = Server("--store", redis.url, "--bots", "inline", "--pace", "0")
        try:
            analyses = []
            for base in (server.base, other.base):
                match = create(base, seats=PEOPLE, decks=decks(7, 2))
                play_to_round(base, match, 2, random.Random(7))
                ask(base, match["id"])
                analyses.append(done(base, match["id"]))
        finally:
            other.stop()
    sqlite, redis_too = analyses
    assert sqlite["rounds"] == redis_too["rounds"] and sqlite["seats"] == redis_too["seats"]
    assert len(sqlite["rounds"][0]["decisions"]) == 56


def test_leading_the_queen_into_a_trick_nobody_else_can_take_is_a_blunder(server):
    """Given decks, one suit a seat: after the passes South holds every spade left and its
    last heart. On lead at trick 5, every other seat void in spades, South leads the queen of
    spades and takes its own queen; leading the heart would give the lead away, and South,
    void in every other suit, could then discard the queen on someone else's trick."""
    base = server.base
    match = create(base, decks=[deck(SUITS)])
    for seat, cards in enumerate(PASSES):
        assert post(base, match, seat, "passes", {"cards": cards.split()}).status == 200
    lowest = "23456789TJQKA"
    for seat, card in [(0, "2C"), (1, "3C"), (2, "5S"), (3, "2S"), (1, "4C"), (2, "2H"),
                       (3, "3S"), (0, "6C"), (0, "2D"), (1, "5C"), (2, "3H"), (3, "5D"),
                       (3, "4S"), (0, "3D"), (1, "5H"), (2, "6S")]:
        assert post(base, match, seat, "plays", {"card": card}).status == 200, (seat, card)
    south = view(base, match["id"], match["tokens"]["2"])
    assert south["turn"] == 2 and not south["trick"]["plays"]
    assert sorted(south["you"]["legal"], key=lambda c: (c[1], lowest.index(c[0]))) == [
        "4H", "7S", "8S", "9S", "TS", "JS", "QS", "KS", "AS"]
    assert post(base, match, 2, "plays", {"card": "QS"}).status == 200
    play_out_round(base, match, 1)
    ask(base, match["id"])
    analysis = done(base, match["id"])
    queen = next(d for d in analysis["rounds"][0]["decisions"]
                 if d["kind"] == "play" and d["chosen"] == "QS")
    assert (queen["seat"], queen["trick"]) == (2, 5)
    assert queen["verdict"] == "blunder" and queen["loss"] >= 3
    ranked = [o["move"] for o in queen["options"]]
    assert ranked[0] == queen["best"] == "4H"  # the lead given away
    assert ranked[-1] == "QS"  # every other lead is better than taking one's own queen
    expected = [o["expected"] for o in queen["options"]]
    assert queen["loss"] == round(expected[-1] - expected[0], 2)


def test_an_analysis_cut_by_kill_9_finishes_after_the_restart(tmp_path):
    """The embedded default killed mid-round, every process at once: the rounds asked for
    are in the store, and the restarted server's sweep hands the unfinished one on."""
    store = f"sqlite:///{tmp_path / 'cardems.sqlite3'}"
    server = Server("--store", store, "--pace", "0")
    try:
        match = create(server.base, decks=decks(9, 3))
        play_to_round(server.base, match, 3, random.Random(9))
        ask(server.base, match["id"])
        path = f"/v1/matches/{match['id']}/analysis"
        wait_until(lambda: call(server.base, "GET", path).body["progress"]["done"] > 0, 60,
                   every=0.05)
        for pid in [*children(server.process.pid), server.process.pid]:
            os.kill(pid, signal.SIGKILL)
        server.process.wait()
        cut = open_store(store)
        try:
            kept = [n for n in (1, 2) if cut.get_meta(match["id"], round_key(n))]
        finally:
            cut.close()
        assert kept != [1, 2], "killed before both rounds were kept"
        server = Server("--store", store, "--pace", "0", port=server.port)
        analysis = done(server.base, match["id"])
        assert [r["round"] for r in analysis["rounds"]] == [1, 2]
        assert analysis["progress"]["done"] == analysis["progress"]["total"] == 2 * 56
    finally:
        server.stop()
