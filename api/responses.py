"""The shape of every response body, as schemas. The service's replies are sent as they are
(dumping them through these cost six times the JSON itself); these schemas are what the
replies are held to: tests/unit/test_fast_output.py checks every reply against them, field by
field both ways, tests/unit/test_view_shape.py checks them against openapi.yaml, and the
contract tests check the running app."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields

Int = fields.Integer
Str = fields.String


def _cards(**kwargs: Any) -> fields.List:
    return fields.List(Str(), **kwargs)


class PlayOut(Schema):
    seat = Int()
    card = Str()


class TrickOut(Schema):
    leader = Int()
    plays = fields.List(fields.Nested(PlayOut))


class TakenTrickOut(TrickOut):
    number = Int()
    winner = Int()
    points = Int()


class ScoresOut(Schema):
    round = fields.List(Int())
    total = fields.List(Int())
    history = fields.List(fields.List(Int()))


class SeatOut(Schema):
    seat = Int()
    name = Str()
    bot = Str(allow_none=True)


class DeckOut(Schema):
    cards = Int()
    hand_size = Int()
    removed = _cards()


class RulesOut(Schema):
    end_score = Int()
    queen_breaks_hearts = fields.Boolean()
    points_on_first_trick = fields.Boolean()
    moon = Str()
    shoot_the_sun = fields.Boolean()
    jack_of_diamonds = fields.Boolean()
    tie_break = Str()
    first_dealer = Int()
    turn_seconds = Int(allow_none=True)


class YouOut(Schema):
    seat = Int()
    hand = _cards()
    legal = _cards()
    illegal = fields.Dict(keys=Str(), values=Str())
    passed = _cards(allow_none=True)
    received = _cards(allow_none=True)


class MatchViewOut(Schema):
    id = Str()
    version = Int()
    status = Str()
    round = Int()
    pass_direction = Str()
    dealer = Int()
    turn = Int(allow_none=True)
    to_act = fields.List(Int())
    hearts_broken = fields.Boolean()
    trick = fields.Nested(TrickOut, allow_none=True)
    tricks = fields.List(fields.Nested(TakenTrickOut))
    scores = fields.Nested(ScoresOut)
    seats = fields.List(fields.Nested(SeatOut))
    deck = fields.Nested(DeckOut)
    seats_passed = fields.List(Int())
    rules = fields.Nested(RulesOut)
    winner = Int(allow_none=True)
    moon_shooter = Int(allow_none=True)
    seed_commitment = Str()
    given_decks = Int()
    server_seed = Str(allow_none=True)
    created_at = Str()
    deadlines = fields.Dict(keys=Str(), values=Str())
    away = fields.List(Int())
    you = fields.Nested(YouOut, allow_none=True)


class CreatedOut(MatchViewOut):
    tokens = fields.Dict(keys=Str(), values=Str())


class ReplayOut(MatchViewOut):
    hands = fields.List(_cards(allow_none=True))


class EventOut(Schema):
    version = Int()
    type = Str()
    data = fields.Dict()
    recorded_at = Str()
    hash = Str()
    prev_hash = Str()


class EventPageOut(Schema):
    events = fields.List(fields.Nested(EventOut))
    version = Int()
    next = Str(allow_none=True)


# A field with this mark is left out while what it holds is hidden (the round is not over).
ONCE_PUBLIC = {"once_public": True}


class AuditPlayOut(Schema):
    seat = Int()
    card = Str()
    hand_before = _cards(metadata=ONCE_PUBLIC)
    legal = _cards(metadata=ONCE_PUBLIC)
    illegal = fields.Dict(keys=Str(), values=Str(), metadata=ONCE_PUBLIC)
    version = Int()
    hash = Str()


class TrickAuditOut(Schema):
    round = Int()
    trick = Int()
    complete = fields.Boolean()
    round_over = fields.Boolean()
    leader = Int()
    led_suit = Str()
    winner = Int(allow_none=True)
    points = Int(allow_none=True)
    why_winner = Str(allow_none=True)
    hearts_broken_before = fields.Boolean()
    hearts_broken_in = Int(allow_none=True)
    plays = fields.List(fields.Nested(AuditPlayOut))
    chain_ok = fields.Boolean()


class IntegrityReportOut(Schema):
    ok = fields.Boolean()
    events = Int()
    chain_ok = fields.Boolean()
    replay_ok = fields.Boolean()
    deals_ok = fields.Boolean(allow_none=True)
    first_bad_version = Int(allow_none=True)
    reason = Str(allow_none=True)


class HealthOut(Schema):
    status = Str()
    store = Str()
    bots = Str()
