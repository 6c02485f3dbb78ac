"""The table: how many seats and which cards. The one place a 3, 5 or 6 seat game would change."""

from __future__ import annotations

from domain.cards import DECK, Card

SEATS = 4
HAND_SIZE = len(DECK) // SEATS
TRICKS_PER_ROUND = HAND_SIZE
MOON_POINTS = 26


def deck() -> tuple[Card, ...]:
    """The cards in play, in canonical order."""
    return DECK
