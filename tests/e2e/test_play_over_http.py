"""A real server process, played through HTTP to the end of a match."""

import time

import pytest

from tests.http import Server, call

BOTS = [{"name": f"Bot {i}", "bot": "heuristic"} for i in (1, 2, 3)]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = tmp_path_factory.mktemp("store") / "cardems.sqlite3"
    server = Server("--store", f"sqlite:///{store}", "--pace", "0")
    yield server
    server.stop()


def wait_for_turn(base, match_id, token, timeout=30.0):
    """Poll the view until the person must act or the match is over."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = call(base, "GET", f"/v1/matches/{match_id}", token=token).body
        if view["status"] == "finished" or view["you"]["seat"] in view["to_act"]:
            return view
        time.sleep(0.01)
    raise TimeoutError("the bots did not move")


def test_a_person_plays_a_whole_match_against_three_heuristic_bots(server):
    created = call(server.base, "POST", "/v1/matches",
                   {"seats": [{"name": "Ann"}, *BOTS], "rules": {"end_score": 100}})
    assert created.status == 201
    assert created.headers["location"] == f"/v1/matches/{created.body['id']}"
    assert set(created.body["tokens"]) == {"0"}
    match_id, token = created.body["id"], created.body["tokens"]["0"]
    moves = 0
    view = wait_for_turn(server.base, match_id, token)
    while view["status"] != "finished":
        you = view["you"]
        if view["status"] == "passing":
            reply = call(server.base, "POST", f"/v1/matches/{match_id}/passes",
                         {"cards": you["hand"][-3:]}, token=token)
        elif view["status"] == "playing":
            reply = call(server.base, "POST", f"/v1/matches/{match_id}/plays",
                         {"card": you["legal"][0]}, token=token)
        else:
            reply = call(server.base, "POST", f"/v1/matches/{match_id}/moon",
                         {"choice": "subtract_from_self"}, token=token)
        assert reply.status == 200, reply.body
        assert reply.headers["etag"] == f'"{reply.body["version"]}"'
        moves += 1
        view = wait_for_turn(server.base, match_id, token)
    assert view["winner"] in (0, 1, 2, 3)
    assert max(view["scores"]["total"]) >= 100
    assert view["scores"]["total"] == [sum(h[s] for h in view["scores"]["history"])
                                       for s in range(4)]
    assert len(view["server_seed"]) == 64
    assert moves >= 13 * len(view["scores"]["history"])
    log = call(server.base, "GET", f"/v1/matches/{match_id}/events?limit=1000").body
    assert [e["version"] for e in log["events"]] == list(range(1, view["version"] + 1))
    assert log["events"][-1]["type"] == "MatchEnded"
    bots = {e["data"]["bot"] for e in log["events"] if e["type"] == "CardPlayed"}
    assert bots == {None, "heuristic/1"}


def test_an_illegal_play_is_a_problem_with_the_rules_code_and_changes_nothing(server):
    created = call(server.base, "POST", "/v1/matches",
                   {"seats": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cid"},
                              {"name": "Dee"}]}).body
    token = created["tokens"]["0"]
    before = call(server.base, "GET", f"/v1/matches/{created['id']}", token=token).body
    reply = call(server.base, "POST", f"/v1/matches/{created['id']}/plays", {"card": "2C"},
                 token=token)
    assert reply.status == 422
    assert reply.headers["content-type"].startswith("application/problem+json")
    assert reply.body["code"] == "wrong_phase"
    after = call(server.base, "GET", f"/v1/matches/{created['id']}", token=token).body
    assert after == before


def test_health_names_the_store_and_the_dispatcher(server):
    assert call(server.base, "GET", "/healthz").body == {
        "status": "ok", "store": "sqlite", "bots": "inline"}
