import random

import pytest

from harness.http import Server, call

PEOPLE = [{"name": n} for n in ("Ann", "Bob", "Cid", "Dee")]


@pytest.fixture(scope="session")
def store_path(tmp_path_factory):
    return tmp_path_factory.mktemp("store") / "cardems.sqlite3"


@pytest.fixture(scope="session")
def server(store_path):
    server = Server("--store", f"sqlite:///{store_path}", "--keepalive", "0.5", "--pace", "0")
    yield server
    server.stop()


def create(base, seats=PEOPLE, **extra):
    reply = call(base, "POST", "/v1/matches", {"seats": seats, **extra})
    assert reply.status == 201, reply.body
    return reply.body


def view(base, match_id, token=None):
    reply = call(base, "GET", f"/v1/matches/{match_id}", token=token)
    assert reply.status == 200, reply.body
    return reply.body


def step(base, match, rng):
    """One legal move by whichever person the match waits for; False once it is over."""
    state = view(base, match["id"])
    if state["status"] == "finished":
        return False
    seat = state["to_act"][0]
    token = match["tokens"][str(seat)]
    mine = view(base, match["id"], token)["you"]
    if state["status"] == "passing":
        path, body = "passes", {"cards": rng.sample(mine["hand"], 3)}
    elif state["status"] == "playing":
        path, body = "plays", {"card": rng.choice(mine["legal"])}
    else:
        path, body = "moon", {"choice": "add_to_others"}
    reply = call(base, "POST", f"/v1/matches/{match['id']}/{path}", body, token=token)
    assert reply.status == 200, reply.body
    return True


def play_until(base, match, done, seed=0):
    rng = random.Random(seed)
    while not done(view(base, match["id"])) and step(base, match, rng):
        pass
    return view(base, match["id"])
