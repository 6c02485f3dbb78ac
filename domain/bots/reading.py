"""Reading the others' hands from their plays.

A competent player follows suit by rules of thumb: under the highest card played with the
highest card that ducks, over it with the lowest (the highest when last), and when void it
sheds the queen of spades first, then the top spades while she is out, then its highest
heart. So each play also says which cards the player did not hold: the ones it would have
played instead. Those reads are soft. They hold for a player who plays by those rules and
may not for another, so a seat whose later play (or a card it is known to hold) contradicts
its reads loses them all: from then on only its voids are certain. No read is taken while a
moon is on (its rules are others), from a seat that holds every point taken so far (it may
be running at the moon), nor from a discard on a first trick where points may not go. A
seat that runs at the moon before anyone has taken a point cannot be told from its plays,
and is read wrong until it plays a card it was read to lack.

A pass is read too, where the passer's whole hand after it is known but for what it kept
(`passed_over`): the cards it kept none of are read as its plays' are, and fall with them.
A hand that carries a moon passes its lowest cards instead, and is read wrong alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.bots.danger import LONG_SPADES, SHORT_SUIT, pass_danger
from domain.cards import DECK, QUEEN_OF_SPADES, Card, Suit
from domain.legal import winning_play
from domain.passing import PassDirection, passer_to
from domain.state import Play
from domain.views import MatchView

MOON_WATCH = 10  # points one seat alone has taken before the others fight its moon


def read_plays(view: MatchView, me: int, held: frozenset[Card] = frozenset(),
               holder: int | None = None, pass_read: PassRead | None = None,
               ) -> tuple[frozenset[Card], ...]:
    """Per seat, the cards its plays say it most likely lacks (empty for `me`). `held` are
    cards `me` knows `holder` holds (what it was passed and has not played). `pass_read`,
    the pass `me` received read (`passed_over`), adds what it says, and its reads fall with
    the seat's others when a play contradicts them."""
    seats = view.table.seats
    lacks: list[set[Card]] = [set() for _ in range(seats)]
    if pass_read is not None:
        lacks[pass_read.passer] |= pass_read.kept_none
    contradicted = [False] * seats
    # Each trick's plays, and who took its points: none yet for the trick on the table.
    tricks: list[tuple[tuple[Play, ...], int | None, int]] = [
        (t.plays, t.winner, t.points) for t in view.tricks]
    if view.trick is not None:
        tricks.append((view.trick.plays, None, 0))
    points = [0] * seats
    played: set[Card] = set()
    for number, (plays, winner, taken) in enumerate(tricks, start=1):
        barred = number == 1 and not view.rules.points_on_first_trick
        for position, play in enumerate(plays):
            seat = play.seat
            if seat == me or contradicted[seat]:
                played.add(play.card)
                continue
            if play.card in lacks[seat]:
                contradicted[seat] = True
            elif readable(points, seat) and position > 0:
                lacks[seat] |= instead(plays[:position], play.card, played, barred,
                                       position == seats - 1)
            played.add(play.card)
        if winner is not None:
            points[winner] += taken
    if holder is not None and lacks[holder] & held:
        contradicted[holder] = True
    return tuple(frozenset() if contradicted[s] else frozenset(lacks[s] - played)
                 for s in range(seats))


def readable(points: Sequence[int], seat: int) -> bool:
    """Whether `seat`'s plays are read, given the points each seat has taken so far: not
    while a moon is on, nor from a seat that holds every point taken (it may be running at
    the moon)."""
    total = sum(points)
    moon_on = total >= MOON_WATCH and total in points
    return not moon_on and not 0 < total == points[seat]


def instead(before: Sequence[Play], card: Card, played: set[Card], barred: bool,
            last: bool) -> set[Card]:
    """The cards a rule-of-thumb player would have played rather than `card`, after
    `before`: so, most likely, it held none of them."""
    led = before[0].card.suit
    _, top = winning_play(before)
    if card.suit is led:
        return _instead_of_following(led, top, card, last)
    return _instead_of_discarding(card, QUEEN_OF_SPADES in played, barred)


def _suit(suit: Suit, low: int, high: int) -> set[Card]:
    """The cards of `suit` with a rank strictly between `low` and `high`, but the queen of
    spades: the rules of thumb treat her apart."""
    return {c for c in DECK if c.suit is suit and low < c.rank < high} - {QUEEN_OF_SPADES}


def _instead_of_following(led: Suit, top: Card, card: Card, last: bool) -> set[Card]:
    queen_under = led is Suit.SPADES and top.rank > QUEEN_OF_SPADES.rank
    if card is QUEEN_OF_SPADES and queen_under:
        return set()  # she goes under the king or ace whatever else is held
    lacks = {QUEEN_OF_SPADES} if queen_under else set()
    if card.rank < top.rank:
        return lacks | _suit(led, card.rank, top.rank)  # the highest card that ducks
    lacks |= _suit(led, 1, top.rank)  # it would have ducked
    if card is QUEEN_OF_SPADES:
        return lacks | _suit(led, 1, 15)  # she was its only card of the suit
    if last:
        return lacks | _suit(led, card.rank, 15)  # taking it anyway: the highest
    return lacks | _suit(led, top.rank, card.rank)  # the lowest that goes over


def _instead_of_discarding(card: Card, queen_played: bool, barred: bool) -> set[Card]:
    if card is QUEEN_OF_SPADES or barred:
        return set()  # where points may not go, the queen may be held back
    lacks = {QUEEN_OF_SPADES}
    high_spades = _suit(Suit.SPADES, QUEEN_OF_SPADES.rank, 15)
    if not queen_played:
        if card in high_spades:
            return lacks | _suit(Suit.SPADES, card.rank, 15)
        lacks |= high_spades
    if card.suit is Suit.HEARTS:
        return lacks | _suit(Suit.HEARTS, card.rank, 15)
    return lacks | _suit(Suit.HEARTS, 1, 15)


@dataclass(frozen=True, slots=True)
class PassRead:
    """What the pass a seat received says of its passer."""

    passer: int
    passed: frozenset[Card]  # what it passed the reader
    given: frozenset[Card]  # what the reader passed it
    kept_none: frozenset[Card]  # the cards it would have passed before the least of `passed`


def passed_over(view: MatchView) -> PassRead | None:
    """The seat whose pass the view's seat received, and the cards that pass says it kept
    none of; None where its hand after the pass is not known but for what it was given.

    A rule-of-thumb player passes the three cards most dangerous to keep, so every card it
    kept was at most as dangerous as the least of them. Its hand after the pass also holds
    what its own passer gave it, three unknown and likely dangerous cards, so the read holds
    only where that passer is the reader itself (across, at an even table): every card the
    passer holds then, beyond the reader's own, is one it kept."""
    assert view.you is not None
    me, direction, table = view.you.seat, view.pass_direction, view.table
    if direction is PassDirection.HOLD or not view.you.received or not view.you.passed:
        return None
    passer = passer_to(me, direction, table)
    if passer_to(passer, direction, table) != me:
        return None
    played = {p.card for t in view.tricks for p in t.plays if p.seat == me}
    if view.trick is not None:
        played |= {p.card for p in view.trick.plays if p.seat == me}
    received = frozenset(view.you.received)
    mine = (frozenset(view.you.hand) | played | frozenset(view.you.passed)) - received
    deck = frozenset(table.cards)
    return PassRead(passer, received, frozenset(view.you.passed),
                    frozenset(c for c in deck - mine - received
                              if _kept_none(c, received, mine, deck)))


def _kept_none(card: Card, passed: frozenset[Card], mine: frozenset[Card],
               deck: frozenset[Card]) -> bool:
    """Whether `card` is more dangerous to keep than the least dangerous of `passed`, in
    every hand the passer may have held it in: then it would have been passed before it.
    What the hand may be is known only in part, so each fact the danger weighs (many
    spades, the queen, a short side suit) is taken both ways unless the cards seen settle it;
    facts are not checked against each other, which only ever reads less."""
    held = passed | {card}
    others = deck - mine

    def count(cards: frozenset[Card], suit: Suit) -> int:
        return sum(1 for c in cards if c.suit is suit)

    spades_held, spades_out = count(held, Suit.SPADES), count(others, Suit.SPADES)
    long_spades = [v for v, can in ((False, spades_held < LONG_SPADES),
                                    (True, spades_out >= LONG_SPADES)) if can]
    queen = [QUEEN_OF_SPADES in held] if QUEEN_OF_SPADES in held | mine else [False, True]
    short = {suit: [v for v, can in ((True, count(held, suit) <= SHORT_SUIT),
                                     (False, count(others, suit) > SHORT_SUIT)) if can]
             for suit in (Suit.CLUBS, Suit.DIAMONDS) if any(c.suit is suit for c in held)}
    for spades in long_spades:
        for has_queen in queen:
            for shorts in _ways(short):
                least = min(pass_danger(p, spades, has_queen, shorts.get(p.suit, False))
                            for p in passed)
                if pass_danger(card, spades, has_queen, shorts.get(card.suit, False)) <= least:
                    return False
    return True


def _ways(options: dict[Suit, list[bool]]) -> list[dict[Suit, bool]]:
    """Every choice of one value a suit from its options."""
    ways: list[dict[Suit, bool]] = [{}]
    for suit, values in options.items():
        ways = [{**way, suit: v} for way in ways for v in values]
    return ways
