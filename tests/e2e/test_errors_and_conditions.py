"""Every failure is a problem document; conditional and repeatable requests."""

import pytest

from harness.http import call
from tests.e2e.conftest import PEOPLE, create, view


def assert_problem(reply, status, code):
    assert reply.status == status, reply.body
    assert reply.headers["content-type"].startswith("application/problem+json")
    assert reply.body["status"] == status and reply.body["code"] == code
    assert {"type", "title", "detail"} <= set(reply.body)


@pytest.fixture(scope="module")
def match(server):
    return create(server.base)


def test_malformed_json_is_a_400(server, match):
    token = match["tokens"]["0"]
    reply = call(server.base, "POST", f"/v1/matches/{match['id']}/passes", token=token,
                 raw=b'{"cards": [')
    assert_problem(reply, 400, "invalid_request")


def test_a_body_that_is_not_json_is_a_415(server, match):
    reply = call(server.base, "POST", "/v1/matches", raw=b"seats=4",
                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert_problem(reply, 415, "unsupported_media_type")


def test_an_oversized_body_is_a_413(server):
    reply = call(server.base, "POST", "/v1/matches", raw=b'{"x": "' + b"a" * 70_000 + b'"}')
    assert_problem(reply, 413, "payload_too_large")


@pytest.mark.parametrize(("body", "field"), [
    ({"seats": PEOPLE, "colour": "red"}, "colour"),
    ({"seats": PEOPLE[:2]}, "seats"),
    ({"seats": PEOPLE + PEOPLE[:3]}, "seats"),
    ({"seats": PEOPLE, "client_seed": 5}, "client_seed"),
    ({"seats": [{"name": "A", "bot": "genius"}, *PEOPLE[1:]]}, "seats"),
    ({"seats": PEOPLE, "decks": [["2C"] * 52]}, "decks"),
    ({"seats": PEOPLE, "decks": [["1C"]]}, "decks"),
    ({}, "seats"),
])
def test_an_unknown_or_bad_field_is_a_422_that_names_it(server, body, field):
    reply = call(server.base, "POST", "/v1/matches", body)
    assert_problem(reply, 422, "invalid_request")
    assert field in str(reply.body["errors"])


def test_a_bad_rules_option_is_named(server):
    reply = call(server.base, "POST", "/v1/matches", {"seats": PEOPLE, "rules": {"moon": 3}})
    assert_problem(reply, 422, "invalid_request")
    assert reply.body["errors"] == {"rules": {"moon": [
        "must be one of: add_to_others, subtract_from_self, shooter_choice"]}}


def test_a_card_that_is_not_spelled_right_is_named(server, match):
    reply = call(server.base, "POST", f"/v1/matches/{match['id']}/plays", {"card": "10H"},
                 token=match["tokens"]["0"])
    assert_problem(reply, 422, "invalid_request")
    assert "card" in reply.body["errors"]


def test_unknown_match_and_path_are_404s_and_a_wrong_method_a_405(server, match):
    assert_problem(call(server.base, "GET", "/v1/matches/nope"), 404, "not_found")
    assert_problem(call(server.base, "GET", "/v1/nowhere"), 404, "not_found")
    reply = call(server.base, "DELETE", f"/v1/matches/{match['id']}")
    assert_problem(reply, 405, "method_not_allowed")
    assert "GET" in reply.headers["allow"]


def test_moves_need_a_token_and_tokens_open_only_their_own_match(server, match):
    other = create(server.base)
    path = f"/v1/matches/{match['id']}/passes"
    body = {"cards": ["2C", "3C", "4C"]}
    assert_problem(call(server.base, "POST", path, body), 401, "unauthorized")
    assert_problem(call(server.base, "POST", path, body, token="made-up"), 401, "unauthorized")
    reply = call(server.base, "POST", path, body, token=other["tokens"]["1"])
    assert_problem(reply, 403, "forbidden")
    assert_problem(call(server.base, "GET", f"/v1/matches/{match['id']}",
                        headers={"Authorization": "Basic abc"}), 401, "unauthorized")


def test_tokens_have_256_bits_and_match_ids_are_unguessable(server, match):
    assert all(len(t) >= 43 for t in match["tokens"].values())
    assert len(match["id"]) >= 22


def test_a_stale_if_match_is_a_409_and_changes_nothing(server):
    match = create(server.base)
    token = match["tokens"]["0"]
    hand = view(server.base, match["id"], token)["you"]["hand"]
    path = f"/v1/matches/{match['id']}/passes"
    reply = call(server.base, "POST", path, {"cards": hand[:3]}, token=token,
                 headers={"If-Match": '"1"'})
    assert_problem(reply, 409, "version_conflict")
    assert view(server.base, match["id"])["version"] == match["version"]
    reply = call(server.base, "POST", path, {"cards": hand[:3]}, token=token,
                 headers={"If-Match": f'"{match["version"]}"'})
    assert reply.status == 200 and reply.headers["etag"] == f'"{match["version"] + 1}"'


def test_an_idempotent_retry_returns_the_first_reply_and_appends_nothing(server):
    match = create(server.base)
    token = match["tokens"]["2"]
    hand = view(server.base, match["id"], token)["you"]["hand"]
    path = f"/v1/matches/{match['id']}/passes"
    key = {"Idempotency-Key": "pass-once"}
    first = call(server.base, "POST", path, {"cards": hand[:3]}, token=token, headers=key)
    again = call(server.base, "POST", path, {"cards": hand[:3]}, token=token, headers=key)
    assert first.status == again.status == 200 and first.body == again.body
    assert view(server.base, match["id"])["version"] == match["version"] + 1
    other = call(server.base, "POST", path, {"cards": hand[3:6]}, token=token, headers=key)
    assert_problem(other, 422, "invalid_request")


def test_an_idempotent_creation_returns_the_same_match_and_tokens(server):
    key = {"Idempotency-Key": "0c9f6a3e5b7d41e28a4f9c1d2e3b5a7f"}
    first = call(server.base, "POST", "/v1/matches", {"seats": PEOPLE}, headers=key)
    again = call(server.base, "POST", "/v1/matches", {"seats": PEOPLE}, headers=key)
    assert first.status == again.status == 201
    assert first.body == again.body and first.headers["location"] == again.headers["location"]


@pytest.mark.parametrize("key", ["1", "create-xyz", "0" * 64, "abababababababababababababababab",
                                 "0c9f6a3e5b7d41e28a4f9c1d2e3b5a7",
                                 # long enough, and counting: anyone could guess them
                                 "abcdefghijklmnopqrstuvwxyz",
                                 "0123456789abcdef0123456789abcdef",
                                 "ABCDEFGHIJKLMNOPQRSTUV"])
def test_a_creation_key_anyone_could_guess_is_a_400_that_says_so(server, key):
    reply = call(server.base, "POST", "/v1/matches", {"seats": PEOPLE},
                 headers={"Idempotency-Key": key})
    assert_problem(reply, 400, "invalid_request")
    assert "128 bits" in reply.body["detail"]


def test_simultaneous_creations_with_one_key_answer_one_match(server, store_path):
    import sqlite3
    from concurrent.futures import ThreadPoolExecutor

    key = {"Idempotency-Key": "Jq3v9XkT2mLr8WcZp5NhYb"}  # 22 base64url characters
    with sqlite3.connect(store_path) as conn:
        before = conn.execute("SELECT COUNT(*) FROM events WHERE type = 'MatchCreated'"
                              ).fetchone()[0]
    with ThreadPoolExecutor(6) as pool:
        replies = list(pool.map(lambda _: call(server.base, "POST", "/v1/matches",
                                               {"seats": PEOPLE}, headers=key), range(6)))
    assert {r.status for r in replies} == {201}
    assert all(r.body == replies[0].body for r in replies)
    with sqlite3.connect(store_path) as conn:
        after = conn.execute("SELECT COUNT(*) FROM events WHERE type = 'MatchCreated'"
                             ).fetchone()[0]
    assert after == before + 1


def test_illegal_moves_carry_the_rules_code(server):
    match = create(server.base)
    token = match["tokens"]["0"]
    path = f"/v1/matches/{match['id']}/passes"
    assert_problem(call(server.base, "POST", path, {"cards": ["2C"]}, token=token), 422,
                   "pass_needs_three_cards")
    mine = view(server.base, match["id"], token)["you"]["hand"]
    theirs = view(server.base, match["id"], match["tokens"]["1"])["you"]["hand"]
    reply = call(server.base, "POST", path, {"cards": [*mine[:2], theirs[0]]}, token=token)
    assert_problem(reply, 422, "card_not_in_hand")
    assert theirs[0] in reply.body["detail"], "it names only the card the caller sent"
    assert not set(theirs[1:]) & set(str(reply.body).replace("'", " ").split())
    moon = call(server.base, "POST", f"/v1/matches/{match['id']}/moon",
                {"choice": "add_to_others"}, token=token)
    assert_problem(moon, 422, "wrong_phase")


def test_the_contract_and_its_browsable_page_are_served_offline(server):
    contract = call(server.base, "GET", "/openapi.yaml")
    assert contract.status == 200 and "openapi: 3.1.0" in contract.body
    docs = call(server.base, "GET", "/docs/")
    assert docs.status == 200 and "swagger-ui" in docs.body
    assert "http://" not in docs.body.replace("http://127.0.0.1", "")
    assert "https://" not in docs.body, "no asset from a CDN"
    asset = call(server.base, "GET", "/docs/swagger-ui-bundle.js")
    assert asset.status == 200


def test_the_contract_is_a_valid_openapi_document():
    from pathlib import Path

    import yaml
    from openapi_spec_validator import validate

    validate(yaml.safe_load((Path(__file__).parents[2] / "openapi.yaml").read_text()))


def test_the_contracts_creation_examples_and_key_example_are_accepted(server):
    import yaml

    from harness.http import ROOT

    contract = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    key = contract["components"]["parameters"]["IdempotencyKey"]["example"]
    examples = contract["paths"]["/v1/matches"]["post"]["requestBody"]["content"][
        "application/json"]["examples"]
    assert examples
    for name, example in examples.items():
        reply = call(server.base, "POST", "/v1/matches", example["value"],
                     headers={"Idempotency-Key": key} if name == next(iter(examples)) else {})
        assert reply.status == 201, (name, reply.body)
