"""The table: how many seats, and which cards are in play. The one place the seat count lives.

Hearts is played by 3 to 6 seats. So that every seat is dealt as many cards, the lowest
diamonds and spades leave the deck; clubs stay whole (the two of clubs still leads), and so
do the hearts and the queen of spades (a round is still worth 26 points) and the jack of
diamonds. Every rule that depends on the count asks the match's `Table`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.cards import DECK, Card, parse_card

MIN_SEATS, MAX_SEATS = 3, 6
MOON_POINTS = 26  # every heart and the queen of spades: the same at any count

_REMOVED = {3: "2D", 4: "", 5: "2D 2S", 6: "2D 3D 2S 3S"}


@dataclass(frozen=True)
class Table:
    """A count of seats (numbered clockwise from 0) and the deck they play with."""

    seats: int
    removed: frozenset[Card] = field(repr=False)
    cards: tuple[Card, ...] = field(repr=False)  # the cards in play, in canonical order

    @property
    def hand_size(self) -> int:
        """Cards dealt to each seat, and so the tricks in a round."""
        return len(self.cards) // self.seats

    @property
    def tricks(self) -> int:
        return self.hand_size

    @property
    def has_across(self) -> bool:
        """Only an even count has a seat straight across."""
        return self.seats % 2 == 0

    def left_of(self, seat: int, steps: int = 1) -> int:
        """The seat `steps` places clockwise (to the left) of `seat`."""
        return (seat + steps) % self.seats


def _table(seats: int) -> Table:
    removed = frozenset(parse_card(text) for text in _REMOVED[seats].split())
    return Table(seats, removed, tuple(c for c in DECK if c not in removed))


TABLES: dict[int, Table] = {n: _table(n) for n in range(MIN_SEATS, MAX_SEATS + 1)}
FOUR_SEATS = TABLES[4]


def table_for(seats: int) -> Table:
    """The table of `seats` seats; KeyError outside 3 to 6 (the callers check the count)."""
    return TABLES[seats]
