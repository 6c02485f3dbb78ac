"""The app sends the service's replies as they are, without dumping them through the response
schemas (that cost six times the JSON itself). Here every kind of reply, at every step of
random matches and for every reader, equals what its schema would have dumped."""

from __future__ import annotations

from random import Random

import orjson
import pytest
from marshmallow import Schema, fields

from api.responses import (
    CreatedOut,
    EventPageOut,
    IntegrityReportOut,
    MatchViewOut,
    ReplayOut,
    TrickAuditOut,
)
from domain.events import SeatSpec
from domain.rules import MoonRule, Rules, TieBreak
from domain.state import Status
from domain.views import view_for, view_json
from eventstore import open_store
from harness.play import random_move
from service import MatchService

PEOPLE = [SeatSpec(n) for n in ("Ann", "Bob", "Cid", "Dee")]
READERS = (None, 0, 1, 2, 3)


def same_as_dumped(schema, reply) -> None:
    """The reply is what its schema dumps, and holds every field the schema declares and no
    other, at every depth: a dump leaves out a field the reply lacks, so equality alone would
    not see it missing."""
    assert schema.dump(reply) == reply
    same_keys(schema, reply, "reply")


def same_keys(schema: Schema, data: dict, where: str) -> None:
    declared = {field.data_key or name: field for name, field in schema.fields.items()}
    optional = {key for key, field in declared.items() if field.metadata.get("once_public")}
    assert set(data) <= set(declared), (where, set(data) - set(declared))
    assert set(declared) - set(data) <= optional, (where, set(declared) - set(data))
    for key, field in declared.items():
        if key not in data:
            continue
        for i, item in enumerate(nested_values(field, data[key])):
            same_keys(item[0], item[1], f"{where}.{key}[{i}]")


def nested_values(field: fields.Field, value) -> list[tuple[Schema, dict]]:
    """The (schema, object) pairs a field's value holds, if it nests schemas."""
    if value is None:
        return []
    if isinstance(field, fields.Nested):
        items = value if field.many else [value]
        return [(field.schema, item) for item in items]
    if isinstance(field, fields.List):
        return [pair for item in value for pair in nested_values(field.inner, item)]
    if isinstance(field, fields.Dict) and field.value_field is not None:
        return [pair for item in value.values()
                for pair in nested_values(field.value_field, item)]
    return []


def same_view(game: MatchService, match_id: str, reader: int | None) -> None:
    """The view as a dict matches its schema, and the JSON the API sends (kept per version,
    so asked twice) is that view at that version."""
    state = game.load(match_id)
    view, version = view_json(view_for(state, reader)), state.version
    same_as_dumped(MatchViewOut(), view)
    for _ in range(2):
        body, kept_version = game.view_body(match_id, reader)
        assert (orjson.loads(body), kept_version) == (view, version)


def random_rules(rng: Random) -> Rules:
    return Rules(end_score=rng.choice([26, 50]), moon=rng.choice(list(MoonRule)),
                 shoot_the_sun=rng.random() < 0.5, jack_of_diamonds=rng.random() < 0.5,
                 queen_breaks_hearts=rng.random() < 0.5, tie_break=rng.choice(list(TieBreak)),
                 points_on_first_trick=rng.random() < 0.5)


@pytest.mark.parametrize("seed", range(5))
def test_every_reply_equals_its_schemas_dump(tmp_path, seed):
    rng = Random(seed)
    store = open_store(f"sqlite:///{tmp_path / 'fast.sqlite3'}")
    # The server seed from the test's own draws: the deals, and so the match's length, are
    # the same every run (a one-round match left too few reads checked, now and then).
    game = MatchService(store, entropy=rng.randbytes)
    created = game.create_match(PEOPLE, random_rules(rng), str(seed), [], None, "")
    same_as_dumped(CreatedOut(), created["view"])
    match_id = created["view"]["id"]
    checked = 0
    while (state := game.load(match_id)).status not in (Status.FINISHED, Status.ABANDONED):
        if rng.random() < 0.3:
            for reader in READERS:
                same_view(game, match_id, reader)
                version = rng.randint(1, state.version)
                same_as_dumped(ReplayOut(), game.replay(match_id, version, reader))
                items, now = game.events(match_id, reader, rng.randint(0, state.version), 50)
                same_as_dumped(EventPageOut(), {"events": items, "version": now.version,
                                                "next": None})
            rnd = state.round
            for trick in range(1, len(rnd.taken) + 2 if rnd and rnd.trick.plays else 1):
                same_as_dumped(TrickAuditOut(), game.audit(match_id, rnd.number, trick))
            checked += 1
        random_move(game, match_id, rng)
    for reader in READERS:
        same_view(game, match_id, reader)
        items, now = game.events(match_id, reader, 0, 1000)
        same_as_dumped(EventPageOut(), {"events": items, "version": now.version, "next": None})
    for number in range(1, 14):
        same_as_dumped(TrickAuditOut(), game.audit(match_id, 1, number))
    same_as_dumped(IntegrityReportOut(), game.verify(match_id))
    assert checked > 20
    store.close()


def test_the_rules_in_json_name_every_option():
    from dataclasses import fields

    rules = Rules(moon=MoonRule.SHOOTER_CHOICE, tie_break=TieBreak.LAST_ROUND, first_dealer=2)
    assert rules.to_json() == {f.name: getattr(getattr(rules, f.name), "value",
                                               getattr(rules, f.name)) for f in fields(Rules)}
    assert Rules.from_mapping(rules.to_json()) == rules
