"""What a seat can work out from its view: cards gone, cards unseen, who is void, moons."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from domain.bots import reading
from domain.cards import QUEEN_OF_SPADES, Card, Suit
from domain.passing import receiver
from domain.views import MatchView


@dataclass(frozen=True, slots=True)
class Knowledge:
    seat: int
    hand: frozenset[Card]
    played: frozenset[Card]
    unseen: frozenset[Card]
    voids: tuple[frozenset[Suit], ...]
    points: tuple[int, ...]
    # Cards a seat's own plays say it most likely lacks: it passed up the obvious moment to
    # be rid of them. Softer than a void: sampling gives it up before it gives up a void.
    lacks: tuple[frozenset[Card], ...]
    # What passing up the queen alone says: for a seat whose reads cannot all hold.
    queen_lacks: tuple[frozenset[Card], ...]
    # What the pass received says of its passer, while its plays have not contradicted it.
    pass_read: reading.PassRead | None = None

    @property
    def queen_out(self) -> bool:
        """True while the queen of spades is still to be played by someone else."""
        return QUEEN_OF_SPADES in self.unseen

    def higher_unseen(self, card: Card) -> int:
        return sum(1 for c in self.unseen if c.suit is card.suit and c.rank > card.rank)

    def losers(self, cards: Iterable[Card] | None = None) -> int:
        """How many of `cards` (the hand) could lose a trick to a card someone else holds."""
        count = 0
        for suit in Suit:
            mine = sorted((c for c in (cards or self.hand) if c.suit is suit), reverse=True)
            for position, card in enumerate(mine):
                if self.higher_unseen(card) > position:
                    count += 1
        return count


def knowledge(view: MatchView, read_plays: bool = True, unread: int = 0,
              read_pass: bool = False) -> Knowledge:
    """What `view`'s seat knows. The others' likely lacks are read from all their plays
    (`domain.bots.reading`), and with `read_pass` from the pass it received too; without
    `read_plays`, and for the seats of `unread`'s bits, only from passing up the queen."""
    assert view.you is not None
    hand = frozenset(view.you.hand)
    played: set[Card] = set()
    voids: list[set[Suit]] = [set() for _ in range(view.table.seats)]
    lacks: list[set[Card]] = [set() for _ in range(view.table.seats)]
    tricks = [t.plays for t in view.tricks]
    if view.trick is not None and view.trick.plays:
        tricks.append(view.trick.plays)
    for number, plays in enumerate(tricks, start=1):
        led = plays[0].card.suit
        points_barred = number == 1 and not view.rules.points_on_first_trick
        top = plays[0].card
        for play in plays:
            card = play.card
            if QUEEN_OF_SPADES not in played and card is not QUEEN_OF_SPADES \
                    and _passed_up_the_queen(card, led, top, points_barred):
                lacks[play.seat].add(QUEEN_OF_SPADES)
            played.add(card)
            if card.suit is not led:
                voids[play.seat].add(led)
            elif card.rank > top.rank:
                top = card
    unseen = frozenset(view.table.cards) - hand - played
    queen_lacks = tuple(frozenset(x) for x in lacks)
    reads = queen_lacks
    pass_read = reading.passed_over(view) if read_plays and read_pass else None
    if pass_read is not None and unread >> pass_read.passer & 1:
        pass_read = None
    if read_plays:
        to = receiver(view.you.seat, view.pass_direction, view.table)
        held = frozenset(view.you.passed or ()) & unseen
        reads = tuple(queen_lacks[seat] if unread >> seat & 1 else read for seat, read in
                      enumerate(reading.read_plays(view, view.you.seat, held, to, pass_read)))
    if pass_read is not None and not pass_read.kept_none - played <= reads[pass_read.passer]:
        pass_read = None  # its plays contradicted the reads
    return Knowledge(view.you.seat, hand, frozenset(played), unseen,
                     tuple(frozenset(v) for v in voids), view.round_points, reads, queen_lacks,
                     pass_read)


def _passed_up_the_queen(card: Card, led: Suit, top: Card, points_barred: bool) -> bool:
    """A play that a holder of the queen of spades would have made with the queen: a discard
    (where points may go), or a spade under someone else's king or ace."""
    if card.suit is not led:
        return not points_barred
    return led is Suit.SPADES and top.rank > QUEEN_OF_SPADES.rank and card.rank < top.rank


def moon_threat(k: Knowledge) -> int | None:
    """Another seat that has taken every point so far, and enough of them to be dangerous."""
    total = sum(k.points)
    for seat, taken in enumerate(k.points):
        if seat != k.seat and taken == total and taken >= reading.MOON_WATCH:
            return seat
    return None
