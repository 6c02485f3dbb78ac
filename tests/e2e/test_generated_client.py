"""A client generated from the contract, as a third-party developer would make one: it must
come out with no warning and no model dropped, and every operation must give a typed result
against a live server (a problem document for a refusal)."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import uuid
from pathlib import Path
from types import ModuleType

import pytest

from harness.http import ROOT

GENERATOR = Path(sys.executable).parent / "openapi-python-client"
MODELS = ("CreatedMatch", "MatchViewFields", "ReplayView", "Scores", "Deck", "Deadlines",
          "EventPage",
          "TrickAudit", "IntegrityReport", "Problem", "CreateMatch", "Pass", "Play",
          "MoonChoice", "NoFields")


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> ModuleType:
    out = tmp_path_factory.mktemp("generated")
    done = subprocess.run(
        [str(GENERATOR), "generate", "--path", str(ROOT / "openapi.yaml"), "--meta", "none",
         "--config", str(ROOT / "tests" / "e2e" / "generator.yaml"),
         "--output-path", str(out / "generated_cardems")],
        capture_output=True, text=True, timeout=300, cwd=out,
        # the generator formats what it writes with ruff, from the same environment
        env={**os.environ, "PATH": f"{GENERATOR.parent}:{os.environ['PATH']}"})
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert "warning" not in said.lower() and "unable" not in said.lower(), said
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("generated_cardems")
    finally:
        sys.path.remove(str(out))


def test_every_object_of_the_contract_becomes_a_model(generated):
    models = importlib.import_module("generated_cardems.models")
    assert [name for name in MODELS if not hasattr(models, name)] == []


def test_every_operation_gives_a_typed_result_against_a_live_server(generated, server):
    api = "generated_cardems.api."
    health = importlib.import_module(api + "service.health")
    contract = importlib.import_module(api + "service.contract")
    matches = {name: importlib.import_module(api + "matches." + name) for name in (
        "create_match", "get_match", "pass_cards", "play_card", "choose_moon", "come_back",
        "abandon_match")}
    log = {name: importlib.import_module(api + "log." + name) for name in (
        "get_events", "replay_match", "audit_trick", "verify_match", "stream_events")}
    web = {name: importlib.import_module(api + "web." + name)
           for name in ("start_page", "table_page")}
    models = importlib.import_module("generated_cardems.models")
    anyone = generated.Client(server.base)

    assert isinstance(health.sync(client=anyone), models.HealthResponse200)
    created = matches["create_match"].sync(
        client=anyone, idempotency_key=str(uuid.uuid4()),
        body=models.CreateMatch.from_dict({"seats": [{"name": n} for n in "ABCD"]}))
    assert isinstance(created, models.CreatedMatch)
    seats = {int(seat): generated.AuthenticatedClient(server.base, token=token)
             for seat, token in created.tokens.additional_properties.items()}
    for seat, client in seats.items():
        mine = matches["get_match"].sync(created.id, client=client)
        assert isinstance(mine, models.MatchViewFields) and mine.you.seat == seat
        passed = matches["pass_cards"].sync(
            created.id, client=client, body=models.Pass.from_dict({"cards": mine.you.hand[:3]}))
        assert isinstance(passed, models.MatchViewFields)
    turn = matches["get_match"].sync(created.id, client=anyone).turn
    legal = matches["get_match"].sync(created.id, client=seats[turn]).you.legal
    played = matches["play_card"].sync(created.id, client=seats[turn],
                                       body=models.Play.from_dict({"card": legal[0]}))
    assert isinstance(played, models.MatchViewFields) and played.version > created.version
    assert isinstance(log["get_events"].sync(created.id, client=anyone), models.EventPage)
    assert isinstance(log["replay_match"].sync(created.id, 2, client=anyone),
                      models.ReplayView)
    assert isinstance(log["audit_trick"].sync(created.id, 1, 1, client=anyone),
                      models.TrickAudit)
    assert isinstance(log["verify_match"].sync(created.id, client=anyone),
                      models.IntegrityReport)
    refused = matches["choose_moon"].sync(
        created.id, client=seats[0], body=models.MoonChoice.from_dict({"choice":
                                                                       "add_to_others"}))
    assert isinstance(refused, models.Problem) and refused.code == "wrong_phase"
    not_away = matches["come_back"].sync(created.id, client=seats[0],
                                         body=models.NoFields.from_dict({}))
    assert isinstance(not_away, models.Problem) and not_away.code == "not_away"
    abandoned = matches["abandon_match"].sync(created.id, client=seats[0],
                                              body=models.NoFields.from_dict({}))
    assert isinstance(abandoned, models.MatchViewFields) and abandoned.status == "abandoned"
    stream = log["stream_events"].sync(created.id, client=anyone)
    assert isinstance(stream, str) and "event: MatchAbandoned" in stream
    assert isinstance(contract.sync(client=anyone), bytes)
    assert isinstance(web["start_page"].sync(client=anyone), str)
    assert isinstance(web["table_page"].sync(created.id, client=anyone), str)
