"""Cards, suits and ranks, with the two-character spelling that is the contract."""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum

RANK_LETTERS = "23456789TJQKA"


class Suit(IntEnum):
    """The four suits, in the canonical deck order."""

    CLUBS = 0
    DIAMONDS = 1
    SPADES = 2
    HEARTS = 3

    @property
    def letter(self) -> str:
        return "CDSH"[self]


class Card:
    """One playing card; there is exactly one instance per card, so identity is equality."""

    __slots__ = ("_text", "index", "rank", "suit")

    index: int
    rank: int
    suit: Suit
    _text: str

    def __new__(cls, index: int) -> Card:
        return _CARDS[index]

    @classmethod
    def _make(cls, index: int) -> Card:
        card = object.__new__(cls)
        card.index = index
        card.suit = Suit(index // 13)
        card.rank = index % 13 + 2
        card._text = RANK_LETTERS[index % 13] + card.suit.letter
        return card

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return self._text

    def __hash__(self) -> int:
        return self.index

    def __lt__(self, other: Card) -> bool:
        return self.index < other.index

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (self.index,))

    def __copy__(self) -> Card:
        return self

    def __deepcopy__(self, memo: object) -> Card:
        return self


_CARDS: list[Card] = [Card._make(i) for i in range(52)]
_BY_TEXT: dict[str, Card] = {str(c): c for c in _CARDS}

DECK: tuple[Card, ...] = tuple(_CARDS)
"""The canonical deck order: clubs, diamonds, spades, hearts; 2 up to ace within a suit."""


class BadCard(ValueError):
    """A string that is not a card's two-character spelling."""


def parse_card(text: str) -> Card:
    """The card spelled `text` (`QS`, `TD`), or BadCard."""
    card = _BY_TEXT.get(text) if isinstance(text, str) else None
    if card is None:
        raise BadCard(f"{text!r} is not a card: write rank then suit, like 'QS' or 'TD'")
    return card


TWO_OF_CLUBS = parse_card("2C")
QUEEN_OF_SPADES = parse_card("QS")
JACK_OF_DIAMONDS = parse_card("JD")


def penalty(card: Card) -> int:
    """The points a card carries into the trick that takes it."""
    if card.suit is Suit.HEARTS:
        return 1
    return 13 if card is QUEEN_OF_SPADES else 0


def is_point_card(card: Card) -> bool:
    return card.suit is Suit.HEARTS or card is QUEEN_OF_SPADES


def sorted_cards(cards: Iterable[Card]) -> list[Card]:
    """Cards in the canonical order, for display and canonical JSON."""
    return sorted(cards)


def spell(cards: Iterable[Card]) -> list[str]:
    """The canonical spelling of a group of cards, in canonical order."""
    return [str(c) for c in sorted_cards(cards)]
