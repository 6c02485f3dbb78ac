"""Deal the cards a seat cannot see to the other seats, consistently with all it knows."""

from __future__ import annotations

from random import Random

from domain.bots.knowledge import Knowledge
from domain.cards import Card
from domain.table import HAND_SIZE, SEATS
from domain.views import MatchView

ATTEMPTS = 20


def hand_sizes(view: MatchView) -> list[int]:
    """How many cards each seat holds now."""
    played = [0] * SEATS
    for trick in view.tricks:
        for play in trick.plays:
            played[play.seat] += 1
    if view.trick is not None:
        for play in view.trick.plays:
            played[play.seat] += 1
    return [HAND_SIZE - n for n in played]


def sample_hands(view: MatchView, k: Knowledge, rng: Random) -> list[set[Card]]:
    """One deal of the unseen cards: sizes right, known voids kept, our pass where it went."""
    assert view.you is not None
    me = view.you.seat
    sizes = hand_sizes(view)
    hands: list[set[Card]] = [set() for _ in range(SEATS)]
    hands[me] = set(k.hand)
    passed = set(view.you.passed or ()) & k.unseen
    receiver = (me + view.pass_direction.offset) % SEATS
    if passed and receiver != me:
        hands[receiver] |= passed
    free = sorted(k.unseen - passed)
    for strict in (2, 1):  # voids and likely lacks; then the voids alone
        for _ in range(ATTEMPTS):
            deal = _try_deal(free, hands, sizes, k, me, rng, strict)
            if deal is not None:
                return deal
    deal = _try_deal(free, hands, sizes, k, me, rng, 0)
    assert deal is not None, "the card counts always fit when voids are set aside"
    return deal


def _try_deal(free: list[Card], fixed: list[set[Card]], sizes: list[int], k: Knowledge,
              me: int, rng: Random, strict: int) -> list[set[Card]] | None:
    """One deal, or None when the draw painted itself into a corner. `strict` 2 keeps the
    voids and the likely lacks, 1 the voids only, 0 neither."""
    hands = [set(h) for h in fixed]
    room = [sizes[s] - len(hands[s]) if s != me else 0 for s in range(SEATS)]
    seats = [s for s in range(SEATS) if room[s] > 0]
    allowed = {card: [s for s in seats if not (strict and card.suit in k.voids[s])
                      and not (strict > 1 and card in k.lacks[s])] for card in free}
    cards = list(free)
    rng.shuffle(cards)
    cards.sort(key=lambda c: len(allowed[c]))  # the most constrained first
    for card in cards:
        options = [s for s in allowed[card] if room[s] > 0]
        if not options:
            return None
        seat = rng.choices(options, weights=[room[s] for s in options])[0]
        hands[seat].add(card)
        room[seat] -= 1
    return hands
