"""The match's rule options (docs/rules.md) as one frozen value."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any

from domain.table import FOUR_SEATS


class MoonRule(StrEnum):
    ADD_TO_OTHERS = "add_to_others"
    SUBTRACT_FROM_SELF = "subtract_from_self"
    SHOOTER_CHOICE = "shooter_choice"


class TieBreak(StrEnum):
    PLAY_ON = "play_on"
    LAST_ROUND = "last_round"


class InvalidRules(ValueError):
    """A rules object with an unknown option or a bad value; `option` names it."""

    def __init__(self, option: str, reason: str) -> None:
        super().__init__(f"rules.{option}: {reason}")
        self.option = option
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Rules:
    """Every option of a match; the defaults are Cardems' own rules."""

    end_score: int = 100
    queen_breaks_hearts: bool = False
    points_on_first_trick: bool = False
    moon: MoonRule = MoonRule.ADD_TO_OTHERS
    shoot_the_sun: bool = False
    jack_of_diamonds: bool = False
    tie_break: TieBreak = TieBreak.PLAY_ON
    first_dealer: int = 0
    turn_seconds: int | None = None  # a person's time for each move; None: no clock

    def dealer_of(self, round_number: int, seats: int) -> int:
        """The deal moves one seat clockwise each round, starting from `first_dealer`."""
        return (self.first_dealer + round_number - 1) % seats

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any] | None,
                     seats: int = FOUR_SEATS.seats) -> Rules:
        """Rules from a JSON object for a match of `seats` seats; an unknown option or a bad
        value raises InvalidRules."""
        if options is None:
            return cls()
        if not isinstance(options, Mapping):
            raise InvalidRules("(rules)", "must be an object of options")
        known = {f.name for f in fields(cls)}
        for name in options:
            if name not in known:
                raise InvalidRules(str(name), f"unknown option; known: {', '.join(sorted(known))}")
        return cls(**{name: _parse(name, value, seats) for name, value in options.items()})

    def to_json(self) -> dict[str, Any]:
        return {"end_score": self.end_score, "queen_breaks_hearts": self.queen_breaks_hearts,
                "points_on_first_trick": self.points_on_first_trick, "moon": self.moon.value,
                "shoot_the_sun": self.shoot_the_sun, "jack_of_diamonds": self.jack_of_diamonds,
                "tie_break": self.tie_break.value, "first_dealer": self.first_dealer,
                "turn_seconds": self.turn_seconds}


_MAX_END_SCORE = 10_000
TURN_SECONDS = (5, 3600)  # the shortest and the longest turn clock


def _parse(name: str, value: Any, seats: int) -> Any:
    if name in ("queen_breaks_hearts", "points_on_first_trick", "shoot_the_sun",
                "jack_of_diamonds"):
        if not isinstance(value, bool):
            raise InvalidRules(name, "must be true or false")
        return value
    if name == "end_score":
        if not _is_int(value) or not 1 <= value <= _MAX_END_SCORE:
            raise InvalidRules(name, f"must be a whole number from 1 to {_MAX_END_SCORE}")
        return value
    if name == "turn_seconds":
        least, most = TURN_SECONDS
        if value is not None and (not _is_int(value) or not least <= value <= most):
            raise InvalidRules(name, f"must be null (no clock) or whole seconds from {least}"
                                     f" to {most}")
        return value
    if name == "first_dealer":
        if not _is_int(value) or not 0 <= value < seats:
            raise InvalidRules(name, f"must be a seat from 0 to {seats - 1}")
        return value
    enum = MoonRule if name == "moon" else TieBreak
    try:
        return enum(value)
    except ValueError:
        choices = ", ".join(e.value for e in enum)
        raise InvalidRules(name, f"must be one of: {choices}") from None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
