"""The provably fair shuffle (docs/fairness.md): an HMAC-SHA256 stream drives Fisher-Yates."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter
from collections.abc import Iterator, Sequence

from domain.cards import Card
from domain.table import FOUR_SEATS, Table

_TWO_32 = 2**32


def seed_commitment(server_seed: bytes) -> str:
    """The published commitment: lowercase hex SHA-256 of the server seed."""
    return hashlib.sha256(server_seed).hexdigest()


def _draws(server_seed: bytes, client_seed: str, round_number: int) -> Iterator[int]:
    """Unsigned 32-bit big-endian integers from the round's HMAC stream, in order."""
    counter = 0
    while True:
        message = f"{client_seed}:{round_number}:{counter}".encode()
        block = hmac.new(server_seed, message, hashlib.sha256).digest()
        for offset in range(0, len(block), 4):
            yield int.from_bytes(block[offset:offset + 4], "big")
        counter += 1


def shuffled_deck(server_seed: bytes, client_seed: str, round_number: int,
                  table: Table = FOUR_SEATS) -> tuple[Card, ...]:
    """The deck of round `round_number` (from 1), as anyone can recompute it: the table's
    cards in play, in canonical order, shuffled."""
    cards = list(table.cards)
    draws = _draws(server_seed, client_seed, round_number)
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        limit = _TWO_32 - (_TWO_32 % n)
        x = next(draws)
        while x >= limit:  # rejection keeps every j equally likely
            x = next(draws)
        j = x % n
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


def deal(cards: Sequence[Card], dealer: int, table: Table = FOUR_SEATS,
         ) -> tuple[tuple[Card, ...], ...]:
    """Deal one card at a time clockwise from the dealer's left: card i to dealer + 1 + i.
    Each hand comes sorted, as a `RoundDealt` holds it."""
    hands: list[list[Card]] = [[] for _ in range(table.seats)]
    for i, card in enumerate(cards):
        hands[table.left_of(dealer, 1 + i)].append(card)
    return tuple(tuple(sorted(h)) for h in hands)


def deck_problem(cards: Sequence[Card], table: Table) -> str | None:
    """What keeps `cards` from being a deck of `table`: each card in play exactly once."""
    counts = Counter(cards)
    seen = set(counts)
    twice = sorted(c for c, n in counts.items() if n > 1)
    missing = sorted(set(table.cards) - seen)
    extra = sorted(seen & table.removed)
    problems = [f"{label}: {' '.join(map(str, group))}" for label, group in
                (("missing", missing), ("not in play", extra), ("twice", twice)) if group]
    if not problems:
        return None
    return f"must hold each of the {len(table.cards)} cards in play exactly once; " \
        + "; ".join(problems)
