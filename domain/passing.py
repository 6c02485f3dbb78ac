"""Which way the cards pass in each round."""

from __future__ import annotations

from enum import StrEnum

from domain.table import SEATS


class PassDirection(StrEnum):
    LEFT = "left"
    RIGHT = "right"
    ACROSS = "across"
    HOLD = "hold"

    @property
    def offset(self) -> int:
        """How many seats clockwise the cards travel (0 for a hold round)."""
        return {"left": 1, "right": SEATS - 1, "across": 2, "hold": 0}[self.value]


_CYCLE = (PassDirection.HOLD, PassDirection.LEFT, PassDirection.RIGHT, PassDirection.ACROSS)


def pass_direction(round_number: int) -> PassDirection:
    """Round r passes left, right, across, then holds (r mod 4 = 1, 2, 3, 0)."""
    return _CYCLE[round_number % 4]


def receiver(passer: int, direction: PassDirection) -> int:
    return (passer + direction.offset) % SEATS


def passer_to(seat: int, direction: PassDirection) -> int:
    """The seat whose pass `seat` receives."""
    return (seat - direction.offset) % SEATS
