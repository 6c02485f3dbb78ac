"""Bot turns survive any restart of the embedded default: kill -9 of the whole server, of its
worker alone, and a graceful stop, each while matches wait on bots."""

from __future__ import annotations

import os
import signal

import pytest

from harness.http import Server, call, children, wait_until

PERSON_AND_BOTS = [{"name": "Ann"}, *({"name": f"h{i}", "bot": "heuristic"} for i in (1, 2, 3))]
ALL_BOTS = [{"name": f"r{i}", "bot": "random"} for i in range(4)]
# Heuristic bots wait 3 s before each move: a kill is sure to find them still waiting.
SLOW = ("--pace", "random=0.05,heuristic=3")
FAST = ("--pace", "0")


def view(server, match, seat=None):
    token = match["tokens"][str(seat)] if seat is not None else None
    reply = call(server.base, "GET", f"/v1/matches/{match['id']}", token=token)
    assert reply.status == 200, reply.body
    return reply.body


def wait_for(server, match, done, seat=None, timeout=60.0):
    return wait_until(lambda: done(state := view(server, match, seat)) and state, timeout)


def play_person_to_the_end(server, match):
    """Ann moves whenever it is her turn, until the match is over."""
    while True:
        state = wait_for(server, match, lambda v: v["status"] == "finished"
                         or 0 in v["to_act"], seat=0)
        if state["status"] == "finished":
            return state
        you, path = state["you"], f"/v1/matches/{match['id']}"
        if state["status"] == "passing":
            reply = call(server.base, "POST", path + "/passes", {"cards": you["hand"][:3]},
                         token=match["tokens"]["0"])
        elif state["status"] == "playing":
            reply = call(server.base, "POST", path + "/plays", {"card": you["legal"][0]},
                         token=match["tokens"]["0"])
        else:
            reply = call(server.base, "POST", path + "/moon",
                         {"choice": "add_to_others"}, token=match["tokens"]["0"])
        assert reply.status == 200, reply.body


def stop(server, how: str) -> None:
    master = server.process.pid
    if how == "kill -9 the server":
        for pid in [*children(master), master]:
            os.kill(pid, signal.SIGKILL)
        server.process.wait()
    elif how == "SIGTERM the server":
        server.process.terminate()
        server.process.wait(30)
    else:  # kill -9 the gunicorn worker alone: its master starts another
        workers = children(master)
        assert workers
        for pid in workers:
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("how", ["kill -9 the server", "kill -9 the worker alone",
                                 "SIGTERM the server"])
def test_matches_waiting_on_bots_move_again_after_a_restart(tmp_path, how):
    store = f"sqlite:///{tmp_path / 'cardems.sqlite3'}"
    server = Server("--store", store, *SLOW)
    rules = {"end_score": 1}
    try:
        bots = call(server.base, "POST", "/v1/matches", {"seats": ALL_BOTS, "rules": rules}).body
        person = call(server.base, "POST", "/v1/matches",
                      {"seats": PERSON_AND_BOTS, "rules": rules}).body
        hand = view(server, person, 0)["you"]["hand"]
        assert call(server.base, "POST", f"/v1/matches/{person['id']}/passes",
                    {"cards": hand[:3]}, token=person["tokens"]["0"]).status == 200
        waiting = view(server, person, 0)
        assert set(waiting["to_act"]) == {1, 2, 3}, "the person waits on three bots"
        moving = wait_for(server, bots, lambda v: v["version"] >= 8)
        assert moving["status"] != "finished"
        stop(server, how)
        if how != "kill -9 the worker alone":
            server = Server("--store", store, *FAST)
        # Nothing is lost and nothing is stuck: both matches go on by themselves.
        moved = wait_for(server, person, lambda v: v["version"] > waiting["version"], seat=0)
        assert moved["version"] > waiting["version"]
        finished = wait_for(server, bots, lambda v: v["status"] == "finished", timeout=120)
        assert finished["winner"] is not None
        if how == "kill -9 the worker alone":  # still slow: let the person's match finish fast
            server.stop()
            server = Server("--store", store, *FAST)
        assert play_person_to_the_end(server, person)["winner"] is not None
        for match in (bots, person):
            report = call(server.base, "GET", f"/v1/matches/{match['id']}/verify").body
            assert report["ok"], report
    finally:
        if server.process.poll() is None:
            server.stop()


def test_a_graceful_stop_closes_the_store(tmp_path):
    """SIGTERM: the service stops its sweeps and bots and closes the store, so SQLite folds
    its write-ahead log into the file and removes it (a process that just exits leaves it)."""
    server = Server("--store", f"sqlite:///{tmp_path / 'cardems.sqlite3'}", *FAST)
    try:
        match = call(server.base, "POST", "/v1/matches", {"seats": PERSON_AND_BOTS}).body
        assert (tmp_path / "cardems.sqlite3-wal").exists()
    finally:
        server.process.terminate()
        assert server.process.wait(30) == 0
    assert not (tmp_path / "cardems.sqlite3-wal").exists()
    again = Server("--store", f"sqlite:///{tmp_path / 'cardems.sqlite3'}", *FAST)
    try:
        assert call(again.base, "GET", f"/v1/matches/{match['id']}").status == 200
    finally:
        again.stop()
