"""Turn clocks over HTTP: a person who does not move in time has the move made for them,
after two in a row the seat is away until it says it is back, and a clock survives a kill -9
and a restart of the server, on SQLite and on Redis."""

from __future__ import annotations

import os
import signal

import pytest

from domain.instants import parse_instant
from harness.http import Server, call, children, view_when
from harness.redis_server import scratch_redis
from tests.e2e.test_replay_audit_verify import SUITS, deck

SECONDS = 5  # the shortest clock the rules allow
ANN_AND_BOTS = [{"name": "Ann"}, *({"name": f"b{i}", "bot": "random"} for i in (1, 2, 3))]


def create(server, seconds=SECONDS, **extra):
    reply = call(server.base, "POST", "/v1/matches",
                 {"seats": ANN_AND_BOTS, "rules": {"turn_seconds": seconds}, **extra})
    assert reply.status == 201, reply.body
    return reply.body


def events(server, match_id):
    return call(server.base, "GET", f"/v1/matches/{match_id}/events?limit=1000").body["events"]


@pytest.mark.parametrize("seconds", [4, 3601, 2.5, "30", True])
def test_a_bad_clock_is_refused(server, seconds):
    reply = call(server.base, "POST", "/v1/matches",
                 {"seats": ANN_AND_BOTS, "rules": {"turn_seconds": seconds}})
    assert reply.status == 422 and reply.body["code"] == "invalid_request", reply.body
    assert "turn_seconds" in reply.body["detail"]


def test_a_clock_runs_out_the_seat_goes_away_and_comes_back(server):
    match = create(server)
    token, path = match["tokens"]["0"], f"/v1/matches/{match['id']}"
    assert match["rules"]["turn_seconds"] == SECONDS and match["away"] == []
    due = match["deadlines"]["0"]
    dealt = next(e for e in events(server, match["id"]) if e["type"] == "RoundDealt")
    assert parse_instant(due) == pytest.approx(parse_instant(dealt["recorded_at"]) + SECONDS)
    assert call(server.base, "POST", path + "/back", {}, token=token).body["code"] == "not_away"
    # Ann does nothing: her pass is made for her when the clock runs out, never before.
    passed = view_when(server.base, match["id"], lambda v: v["you"]["passed"], token=token,
                       timeout=30)
    log = events(server, match["id"])
    timed_out = next(e for e in log if e["type"] == "TurnTimedOut")
    assert timed_out["data"] == {"seat": 0}
    assert parse_instant(timed_out["recorded_at"]) >= parse_instant(due)
    chosen = log[log.index(timed_out) + 1]
    assert chosen["type"] == "PassChosen" and chosen["data"]["seat"] == 0
    assert passed["away"] == []
    # The second timeout in a row, on her first play: she is away.
    away = view_when(server.base, match["id"], lambda v: 0 in v["away"], token=token,
                     timeout=60)
    assert "0" not in away["deadlines"]
    kinds = [e["type"] for e in events(server, match["id"])]
    assert kinds.count("TurnTimedOut") == 2 and kinds.count("SeatAway") == 1
    # Away, her moves come on the bots' pace, without her clock.
    moved = view_when(server.base, match["id"], lambda v: v["version"] > away["version"] + 8,
                      token=token, timeout=30)
    assert 0 in moved["away"]
    back = call(server.base, "POST", path + "/back", {}, token=token)
    assert back.status == 200, back.body
    assert back.body["away"] == []
    assert events(server, match["id"])[back.body["version"] - 1]["type"] == "SeatBack"
    again = call(server.base, "POST", path + "/back", {}, token=token)
    assert again.status == 422 and again.body["code"] == "not_away"
    # Timeouts, the away seat's moves and its coming back all decide again as they stand.
    report = call(server.base, "GET", path + "/verify").body
    assert report["ok"], report


def test_a_move_in_time_stops_the_clock(server):
    # Ann holds hearts and the two of clubs sits with seat 1, so it ends with seat 1 or 2
    # only: however soon the bots pass, her pass leaves the match waiting on someone else.
    # (With a random deal she might receive it and, the passes done, have to lead at once.)
    hands = [SUITS[1], SUITS[0], SUITS[2], SUITS[3]]
    match = create(server, seconds=60, decks=[deck(hands)])
    token, path = match["tokens"]["0"], f"/v1/matches/{match['id']}"
    hand = call(server.base, "GET", path, token=token).body["you"]["hand"]
    moved = call(server.base, "POST", path + "/passes", {"cards": hand[:3]}, token=token)
    assert moved.status == 200 and "0" not in moved.body["deadlines"]
    assert "TurnTimedOut" not in {e["type"] for e in events(server, match["id"])}


def kill(server):
    for pid in [*children(server.process.pid), server.process.pid]:
        os.kill(pid, signal.SIGKILL)
    server.process.wait()


@pytest.mark.parametrize("store", ["sqlite", "redis"])
def test_a_clock_still_runs_out_after_kill_9_and_a_restart(tmp_path, store):
    with scratch_redis("cardems-clock-") as (_, redis):
        url = redis.url if store == "redis" else f"sqlite:///{tmp_path / 'c.sqlite3'}"
        server = Server("--store", url, "--pace", "0")
        try:
            match = create(server)
            kill(server)  # well within Ann's five seconds
            server = Server("--store", url, "--pace", "0", port=server.port)
            view_when(server.base, match["id"], lambda v: v["you"]["passed"],
                      token=match["tokens"]["0"], timeout=30)
            kinds = [e["type"] for e in events(server, match["id"])]
            assert "TurnTimedOut" in kinds, kinds
            assert call(server.base, "GET", f"/v1/matches/{match['id']}/verify").body["ok"]
        finally:
            if server.process.poll() is None:
                server.stop()
