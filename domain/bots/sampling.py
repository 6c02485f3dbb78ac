"""Deal the cards a seat cannot see to the other seats, consistently with all it knows."""

from __future__ import annotations

from bisect import bisect
from random import Random
from typing import Protocol

from domain.bots.danger import passes_first
from domain.bots.knowledge import Knowledge
from domain.bots.rollout import Hand, suited
from domain.cards import Card
from domain.passing import receiver
from domain.views import MatchView

ATTEMPTS = 20


class Deals(Protocol):
    """A source of deals for one decision: every seat's hand as the search plays it."""

    def deal(self, rng: Random) -> list[Hand]: ...


def hand_sizes(view: MatchView) -> list[int]:
    """How many cards each seat holds now."""
    played = [0] * view.table.seats
    for trick in view.tricks:
        for play in trick.plays:
            played[play.seat] += 1
    if view.trick is not None:
        for play in view.trick.plays:
            played[play.seat] += 1
    return [view.table.hand_size - n for n in played]


class Sampler:
    """Deals for one decision. What the seat knows is worked out once, since a decision
    draws hundreds of deals from the same knowledge."""

    def __init__(self, view: MatchView, k: Knowledge, whole_pass: bool = False) -> None:
        """With `whole_pass`, a deal whose hand for the passer read (`k.pass_read`) could
        not have passed what it did by the rules of thumb is drawn again, as one that
        breaks a read is: the read of single cards cannot say that the queen of spades, say,
        was kept only with five spades."""
        assert view.you is not None
        me = view.you.seat
        seats = range(view.table.seats)
        fixed: list[list[int]] = [[] for _ in seats]
        fixed[me] = [c.index for c in k.hand]
        passed = set(view.you.passed or ()) & k.unseen
        to = receiver(me, view.pass_direction, view.table)
        if passed and to != me:
            fixed[to] += [c.index for c in passed]
        self.fixed = fixed
        self.free = [c.index for c in sorted(k.unseen - passed)]
        sizes = hand_sizes(view)
        self.room = [sizes[s] - len(fixed[s]) if s != me else 0 for s in seats]
        open_seats = [s for s in seats if self.room[s] > 0]
        lacks = [self._fitting(k, s) for s in seats]
        # Per strictness, the seats each free card may go to: 2 keeps the voids and the
        # likely lacks, 1 the voids only, 0 neither.
        self.allowed = [
            {c: [s for s in open_seats if not (strict and Card(c).suit in k.voids[s])
                 and not (strict > 1 and Card(c) in lacks[s])] for c in self.free}
            for strict in (0, 1, 2)]
        # A card every seat is read to lack is held by one that was misread: any seat not
        # void in its suit may hold it.
        for card, options in self.allowed[2].items():
            if not options:
                self.allowed[2][card] = self.allowed[1][card]
        self.kept = self._kept(view, k, lacks) if whole_pass else None

    @staticmethod
    def _kept(view: MatchView, k: Knowledge, fitting: list[frozenset[Card]],
              ) -> tuple[int, frozenset[Card], frozenset[Card], frozenset[Card]] | None:
        """The passer read, what it has played, what it was given and what it passed; None
        where its reads do not stand (`fitting`, the lacks sampled by, set them aside)."""
        read = k.pass_read
        if read is None or fitting[read.passer] is not k.lacks[read.passer]:
            return None
        plays = [t.plays for t in view.tricks] + ([view.trick.plays] if view.trick else [])
        played = frozenset(p.card for trick in plays for p in trick if p.seat == read.passer)
        return read.passer, played, read.given, read.passed

    def _fitting(self, k: Knowledge, seat: int) -> frozenset[Card]:
        """The seat's likely lacks, if they leave it enough cards to fill its hand; else
        (it was misread) what passing up the queen says, if that does; else nothing."""
        for lacks in (k.lacks[seat], k.queen_lacks[seat]):
            room = sum(1 for c in self.free
                       if Card(c).suit not in k.voids[seat] and Card(c) not in lacks)
            if room >= self.room[seat]:
                return lacks
        return frozenset()

    def deal(self, rng: Random) -> list[Hand]:
        """One deal, every seat's hand as ascending card indexes by suit."""
        unlike: list[Hand] | None = None  # keeps every read but the passer's whole hand
        for strict in (2, 1):  # voids and likely lacks; then the voids alone
            for _ in range(ATTEMPTS):
                hands = self._try(rng, self.allowed[strict])
                if hands is None:
                    continue
                if strict < 2 or self._passes(hands):
                    return hands
                unlike = unlike or hands
            if unlike is not None:
                return unlike
        hands = self._try(rng, self.allowed[0])
        assert hands is not None, "the card counts always fit when voids are set aside"
        return hands

    def _passes(self, hands: list[Hand]) -> bool:
        """Whether the passer read would have passed what it did, with its hand in `hands`."""
        if self.kept is None:
            return True
        passer, played, given, passed = self.kept
        now = {Card(c) for suit in hands[passer] for c in suit}
        return passes_first((now | played) - given | passed, passed)

    def _try(self, rng: Random, allowed: dict[int, list[int]]) -> list[Hand] | None:
        """One deal, or None when the draw painted itself into a corner."""
        room = list(self.room)
        held = [list(h) for h in self.fixed]
        cards = list(self.free)
        rng.shuffle(cards)
        cards.sort(key=lambda c: len(allowed[c]))  # the most constrained first
        draw = rng.random
        for card in cards:
            # A seat with room left, in proportion to its room: what `Random.choices`
            # draws, inline.
            options, weights, total = [], [], 0
            for s in allowed[card]:
                if room[s] > 0:
                    total += room[s]
                    weights.append(total)
                    options.append(s)
            if not options:
                return None
            seat = options[bisect(weights, draw() * total, 0, len(options) - 1)]
            held[seat].append(card)
            room[seat] -= 1
        return [suited(cards_held) for cards_held in held]
