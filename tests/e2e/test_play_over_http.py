"""A real server process, played through HTTP to the end of a match."""


import pytest

from harness.http import Server, a_move, call, view_when

BOTS = [{"name": f"Bot {i}", "bot": "heuristic"} for i in (1, 2, 3)]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = tmp_path_factory.mktemp("store") / "cardems.sqlite3"
    server = Server("--store", f"sqlite:///{store}", "--pace", "0")
    yield server
    server.stop()


def wait_for_turn(base, match_id, token, timeout=30.0):
    """The view once the person must act or the match is over."""
    return view_when(base, match_id, lambda v: v["status"] == "finished"
                     or v["you"]["seat"] in v["to_act"], token, timeout)


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
        path, body = a_move(view)
        reply = call(server.base, "POST", f"/v1/matches/{match_id}/{path}", body, token=token)
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


@pytest.mark.parametrize(("seats", "hand_size", "removed"), [
    (3, 17, ["2D"]), (5, 10, ["2D", "2S"]), (6, 8, ["2D", "3D", "2S", "3S"])])
def test_a_whole_match_at_three_five_and_six_seats(server, seats, hand_size, removed):
    bots = [{"name": f"Bot {i}", "bot": "heuristic"} for i in range(1, seats)]
    created = call(server.base, "POST", "/v1/matches",
                   {"seats": [{"name": "Ann"}, *bots], "rules": {"end_score": 60}})
    assert created.status == 201, created.body
    assert created.body["deck"] == {"cards": seats * hand_size, "hand_size": hand_size,
                                    "removed": removed}
    match_id, token = created.body["id"], created.body["tokens"]["0"]
    view = wait_for_turn(server.base, match_id, token)
    directions = []
    while view["status"] != "finished":
        assert not set(removed) & set(view["you"]["hand"])
        if view["status"] == "passing":
            directions.append(view["pass_direction"])
        elif view["status"] == "playing" and not view["tricks"] \
                and not (view["trick"] or {}).get("plays"):
            assert len(view["you"]["hand"]) == hand_size
        path, body = a_move(view)
        reply = call(server.base, "POST", f"/v1/matches/{match_id}/{path}", body, token=token)
        assert reply.status == 200, reply.body
        view = wait_for_turn(server.base, match_id, token)
    assert view["winner"] in range(seats)
    history = view["scores"]["history"]
    assert len(view["scores"]["total"]) == seats and all(len(h) == seats for h in history)
    cycle = ["left", "right", "across", "hold"] if seats == 6 else ["left", "right", "hold"]
    expected = [cycle[r % len(cycle)] for r in range(len(history))]
    assert directions == [d for d in expected if d != "hold"]
    log = call(server.base, "GET", f"/v1/matches/{match_id}/events?limit=1000").body["events"]
    plays = [e for e in log if e["type"] == "CardPlayed"]
    assert len(plays) == seats * hand_size * len(history)
    taken = [e for e in log if e["type"] == "TrickTaken"]
    assert len(taken) == hand_size * len(history)
    dealt = [e["data"]["hands"] for e in log if e["type"] == "RoundDealt"]
    assert all(len(hands) == seats for hands in dealt)
    replay = call(server.base, "GET", f"/v1/matches/{match_id}/replay/{view['version'] - 1}")
    assert len(replay.body["hands"]) == seats
    audit = call(server.base, "GET", f"/v1/matches/{match_id}/rounds/1/tricks/{hand_size}")
    assert audit.status == 200 and len(audit.body["plays"]) == seats
    # One trick past the round's: a 404 within the contract's bounds (17, three seats' hand),
    # a 422 outside them.
    assert call(server.base, "GET", f"/v1/matches/{match_id}/rounds/1/tricks/{hand_size + 1}"
                ).status == (404 if hand_size < 17 else 422)
    report = call(server.base, "GET", f"/v1/matches/{match_id}/verify").body
    assert report["ok"] and report["deals_ok"] is True, report


@pytest.mark.parametrize(("seats", "deck", "named"), [
    (5, "full", "not in play: 2D 2S"),
    (3, "without 5H", "missing: 5H"),
    (6, "with 2C twice", "twice: 2C"),
])
def test_a_given_deck_must_hold_exactly_the_cards_in_play_over_http(server, seats, deck,
                                                                    named):
    from domain.cards import DECK
    from domain.table import table_for

    cards = [str(c) for c in (DECK if deck == "full" else table_for(seats).cards)]
    if deck == "without 5H":
        cards.remove("5H")
    if deck == "with 2C twice":
        cards[-1] = "2C"
    people = [{"name": f"P{i}"} for i in range(seats)]
    reply = call(server.base, "POST", "/v1/matches", {"seats": people, "decks": [cards]})
    assert reply.status == 422, reply.body
    assert named in str(reply.body["errors"]["decks[0]"]), reply.body


@pytest.mark.parametrize("count", [0, 1, 2, 7])
def test_a_table_of_fewer_than_three_or_more_than_six_is_refused(server, count):
    people = [{"name": f"P{i}"} for i in range(count)]
    reply = call(server.base, "POST", "/v1/matches", {"seats": people})
    assert reply.status == 422 and "3 to 6 seats" in str(reply.body["errors"]["seats"]), \
        reply.body


def test_the_first_dealer_must_sit_at_the_table(server):
    people = [{"name": f"P{i}"} for i in range(3)]
    reply = call(server.base, "POST", "/v1/matches",
                 {"seats": people, "rules": {"first_dealer": 3}})
    assert reply.status == 422 and "from 0 to 2" in str(reply.body["errors"]), reply.body
    reply = call(server.base, "POST", "/v1/matches",
                 {"seats": people, "rules": {"first_dealer": 2}})
    assert reply.status == 201 and reply.body["dealer"] == 2
