"""Which way the cards pass in each round."""

from __future__ import annotations

from enum import StrEnum

from domain.table import FOUR_SEATS, Table


class PassDirection(StrEnum):
    LEFT = "left"
    RIGHT = "right"
    ACROSS = "across"
    HOLD = "hold"

    def offset(self, table: Table) -> int:
        """How many seats clockwise the cards travel (0 for a hold round)."""
        return {"left": 1, "right": table.seats - 1, "across": table.seats // 2,
                "hold": 0}[self.value]


def pass_cycle(table: Table) -> tuple[PassDirection, ...]:
    """Left, right, across where there is a seat across, then a round that holds."""
    across = (PassDirection.ACROSS,) if table.has_across else ()
    return (PassDirection.LEFT, PassDirection.RIGHT, *across, PassDirection.HOLD)


def pass_direction(round_number: int, table: Table = FOUR_SEATS) -> PassDirection:
    """Round r (from 1) takes the r-th step of the cycle, round after round."""
    cycle = pass_cycle(table)
    return cycle[(round_number - 1) % len(cycle)]


def receiver(passer: int, direction: PassDirection, table: Table) -> int:
    return table.left_of(passer, direction.offset(table))


def passer_to(seat: int, direction: PassDirection, table: Table) -> int:
    """The seat whose pass `seat` receives."""
    return table.left_of(seat, -direction.offset(table))
