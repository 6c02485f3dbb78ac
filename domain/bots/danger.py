"""How dangerous a card is to keep, by the rules of thumb: what a competent player passes
first. Apart from the hand it weighs only three facts about it, so that a reader of a pass
can weigh the passer's cards without knowing its hand."""

from __future__ import annotations

from collections.abc import Collection

from domain.cards import QUEEN_OF_SPADES, Card, Suit

QUEEN = 12
LONG_SPADES = 5  # this many spades guard the queen and the cards above her
SHORT_SUIT = 3  # a side suit this short can be voided, to throw points on it later


def pass_danger(card: Card, long_spades: bool, queen_held: bool, short_suit: bool) -> float:
    """`long_spades`: the hand holds LONG_SPADES spades or more; `queen_held`: it holds the
    queen of spades; `short_suit`: it holds SHORT_SUIT cards or fewer of `card`'s suit."""
    if card is QUEEN_OF_SPADES:
        return 10 if long_spades else 100
    if card.suit is Suit.SPADES and card.rank > QUEEN:
        return 20 if queen_held and long_spades else 90
    if card.suit is Suit.SPADES:
        return card.rank * 0.5  # low spades guard against the queen: keep them
    if card.suit is Suit.HEARTS:
        return 40 + card.rank * 3 if card.rank >= 10 else card.rank * 2
    return card.rank * 3 + (15 if short_suit else 0)


def dangers(hand: Collection[Card]) -> dict[Card, float]:
    """How dangerous each card of `hand` is to keep there."""
    lengths = [0] * 4
    for c in hand:
        lengths[c.suit] += 1
    long_spades = lengths[Suit.SPADES] >= LONG_SPADES
    queen = QUEEN_OF_SPADES in hand
    return {c: pass_danger(c, long_spades, queen, lengths[c.suit] <= SHORT_SUIT)
            for c in hand}


def passes_first(hand: Collection[Card], passed: Collection[Card]) -> bool:
    """Whether a rule-of-thumb player holding `hand` could pass `passed` from it: no card it
    keeps is more dangerous than the least dangerous it passes (a tie may go either way)."""
    danger = dangers(hand)
    least = min(danger[c] for c in passed)
    return all(d <= least for c, d in danger.items() if c not in passed)
