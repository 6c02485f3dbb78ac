"""The table: how many seats and which cards. The one place a 3, 5 or 6 seat game would change."""

from __future__ import annotations

from domain.cards import DECK, Card

SEATS = 4
SEAT_NAMES = ("North", "East", "South", "West")
HAND_SIZE = len(DECK) // SEATS
TRICKS_PER_ROUND = HAND_SIZE
MOON_POINTS = 26


def deck() -> tuple[Card, ...]:
    """The cards in play, in canonical order."""
    return DECK


def seats() -> range:
    return range(SEATS)


def next_seat(seat: int) -> int:
    """The seat that plays after `seat` (clockwise)."""
    return (seat + 1) % SEATS


def seat_at(seat: int, offset: int) -> int:
    return (seat + offset) % SEATS
