"""Every response of a whole match, refusals included, validated against the contract by
openapi-core, as a client's own validating layer would check them."""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

import pytest
import requests
import yaml
from openapi_core import Config, OpenAPI
from openapi_core.contrib.requests import RequestsOpenAPIRequest, RequestsOpenAPIResponse

from harness.http import ROOT, wait_until
from tests.e2e.conftest import PEOPLE


class Checked:
    """A client whose every response openapi-core holds to openapi.yaml; problem documents
    are JSON, which openapi-core is told."""

    def __init__(self, base: str) -> None:
        contract = yaml.safe_load((ROOT / "openapi.yaml").read_text())
        config = Config(extra_media_type_deserializers={"application/problem+json": json.loads})
        self.openapi = OpenAPI.from_dict(contract, config=config)
        self.base = base
        self.session = requests.Session()
        self.checked: dict[int, int] = {}

    def __call__(self, method: str, path: str, body: Any = None, token: str | None = None,
                 **headers: str) -> requests.Response:
        if token:
            headers["Authorization"] = f"Bearer {token}"
        response = self.session.request(method, self.base + path, json=body,
                                        headers={k.replace("_", "-"): v
                                                 for k, v in headers.items()}, timeout=30)
        self.openapi.validate_response(RequestsOpenAPIRequest(response.request),
                                       RequestsOpenAPIResponse(response))
        self.checked[response.status_code] = self.checked.get(response.status_code, 0) + 1
        return response


@pytest.fixture
def client(server) -> Checked:
    return Checked(server.base)


def test_a_whole_match_and_its_refusals_keep_the_contract(client):
    rng = random.Random(26)
    # Given decks: the deals, and so the match's length, are the same every run (a match
    # over in one round left too few replies checked, now and then).
    cards = [r + s for s in "CDSH" for r in "23456789TJQKA"]
    decks = [rng.sample(cards, 52) for _ in range(8)]
    created = client("POST", "/v1/matches", {"seats": PEOPLE, "rules": {"end_score": 26},
                                             "decks": decks},
                     Idempotency_Key=str(uuid.uuid4())).json()
    match_id, tokens = created["id"], created["tokens"]
    path = f"/v1/matches/{match_id}"
    client("GET", "/healthz")
    client("GET", "/v1/matches/no-such-match")  # 404
    client("POST", path + "/plays", {"card": "2C"})  # 401: no token
    client("POST", path + "/plays", {"card": "2C", "extra": 1}, tokens["0"])  # 422 fields
    asked = False
    while (view := client("GET", path).json())["status"] not in ("finished", "abandoned"):
        if not asked and view["round"] == 2:
            # The analysis of round 1, asked for while the match goes on (judging every round
            # of the match would check the same shapes again, round after round).
            client("GET", f"{path}/analysis")  # 404: nobody asked
            client("POST", f"{path}/analysis", {})
            asked = True
        seat = view["to_act"][0]
        mine = client("GET", path, token=tokens[str(seat)]).json()["you"]
        if view["status"] == "passing":
            move = ("passes", {"cards": rng.sample(mine["hand"], 3)})
        elif view["status"] == "playing":
            barred = sorted(mine["illegal"])
            if barred and rng.random() < 0.2:  # 422 with the rule's code
                client("POST", f"{path}/plays", {"card": barred[0]}, tokens[str(seat)])
            move = ("plays", {"card": rng.choice(mine["legal"])})
        else:
            move = ("moon", {"choice": "add_to_others"})
        if rng.random() < 0.05:  # 409: a stale version
            client("POST", f"{path}/{move[0]}", move[1], tokens[str(seat)],
                   If_Match=f'"{view["version"] - 1}"')
        client("POST", f"{path}/{move[0]}", move[1], tokens[str(seat)],
               If_Match=f'"{view["version"]}"')
        if view["version"] % 25 == 0:
            client("GET", f"{path}/replay/{view['version']}", token=tokens["1"])
            client("GET", f"{path}/events?after={view['version'] - 10}&limit=20")
            if view["tricks"]:
                client("GET", f"{path}/rounds/{view['round']}/tricks/1")
    client("GET", f"{path}/verify")
    client("GET", f"{path}/rounds/1/tricks/13")
    client("GET", f"{path}/rounds/1/tricks/0")  # 422 outside the bounds
    client("GET", f"{path}/events?limit=1000", token=tokens["2"])
    assert {200, 201, 401, 404, 422}.issubset(client.checked), client.checked
    assert sum(client.checked.values()) > 200
    # The analysis, followed until it is done.
    assert asked, "the match ended in its first round"
    report = wait_until(lambda: (r := client("GET", f"{path}/analysis").json())["status"]
                        == "done" and r, 180, every=0.5)
    assert report["up_to_round"] == 1 and len(report["rounds"]) == 1
