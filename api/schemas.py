"""Request bodies, validated field by field; unknown fields are refused by name."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from domain.bots.levels import BOT_LEVELS
from domain.cards import BadCard, Card, parse_card
from domain.decide import MAX_CLIENT_SEED, name_problem
from domain.rules import MoonRule
from domain.table import MAX_SEATS, MIN_SEATS, TABLES

MAX_DECKS = 64
MOST_CARDS = max(len(t.cards) for t in TABLES.values())  # a deck's own check is the domain's
BIGGEST_HAND = max(t.hand_size for t in TABLES.values())


class CardField(fields.Field):
    """A card in its two-character spelling, like `QS`."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Card:
        try:
            return parse_card(value)
        except BadCard as exc:
            raise ValidationError(str(exc)) from exc

    def _serialize(self, value: Any, attr: str | None, obj: Any, **kwargs: Any) -> str | None:
        return None if value is None else str(value)


class SeatName(fields.String):
    """A seat's name, normalised to NFC and trimmed, then held to the domain's rule."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        text = unicodedata.normalize("NFC", text).strip()
        problem = name_problem(text)
        if problem:
            raise ValidationError(problem)
        return text


class SeatIn(Schema):
    name = SeatName(required=True)
    bot = fields.String(load_default=None, allow_none=True, validate=validate.OneOf(BOT_LEVELS))


class CreateMatchIn(Schema):
    seats = fields.List(fields.Nested(SeatIn), required=True,
                        validate=validate.Length(min=MIN_SEATS, max=MAX_SEATS,
                                                 error=f"{MIN_SEATS} to {MAX_SEATS} seats"))
    rules = fields.Dict(keys=fields.String(), load_default=dict)
    client_seed = fields.String(load_default="", validate=validate.Length(max=MAX_CLIENT_SEED))
    decks = fields.List(
        fields.List(CardField(), validate=validate.Length(
            max=MOST_CARDS, error=f"a deck has at most {MOST_CARDS} cards")),
        load_default=list, validate=validate.Length(max=MAX_DECKS))


class PassIn(Schema):
    cards = fields.List(CardField(), required=True, validate=validate.Length(max=BIGGEST_HAND))


class PlayIn(Schema):
    card = CardField(required=True)


class MoonIn(Schema):
    choice = fields.String(required=True, validate=validate.OneOf(
        [MoonRule.ADD_TO_OTHERS.value, MoonRule.SUBTRACT_FROM_SELF.value]))


class NoFieldsIn(Schema):
    """No fields: the token says who gives the match up, or who is back."""


MAX_VERSION = 2**31 - 1
ASCII_NUMBER = re.compile(r"[0-9]{1,10}")


class Count(fields.Integer):
    """A whole number in ASCII digits: Python's int() also reads other scripts' digits and
    `1_0`, which no client means and no cache key should tell apart from `1` and `10`."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if isinstance(value, str) and not ASCII_NUMBER.fullmatch(value):
            raise ValidationError("a number in 1 to 10 ASCII digits, like 12")
        return int(super()._deserialize(value, attr, data, **kwargs))


class EventsQuery(Schema):
    after = Count(load_default=0, validate=validate.Range(min=0, max=MAX_VERSION))
    limit = Count(load_default=100, validate=validate.Range(min=1, max=1000))


class StreamQuery(Schema):
    after = Count(load_default=0, validate=validate.Range(min=0, max=MAX_VERSION))
