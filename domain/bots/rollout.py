"""Play a round to its end fast, every seat by simple rules, on plain sets: the expert's
simulations. Legality comes from the rules module itself (`legal_from`)."""

from __future__ import annotations

from domain.cards import QUEEN_OF_SPADES, Card, Suit, penalty
from domain.legal import legal_from
from domain.rules import Rules
from domain.scoring import score_round
from domain.state import Play, TakenTrick
from domain.table import SEATS, TRICKS_PER_ROUND


def rollout(rules: Rules, hands: list[set[Card]], leader: int, plays: list[tuple[int, Card]],
            taken: list[TakenTrick], points: list[int], broken: bool) -> tuple[int, ...]:
    """Every seat's score for the round once it is played out from this position."""
    hands = [set(h) for h in hands]
    plays = list(plays)
    taken = list(taken)
    points = list(points)
    queen_out = any(QUEEN_OF_SPADES in h for h in hands)
    while True:
        if len(plays) == SEATS:
            suit = plays[0][1].suit
            winner = max((p for p in plays if p[1].suit is suit), key=lambda p: p[1].rank)[0]
            won = sum(penalty(c) for _, c in plays)
            points[winner] += won
            taken.append(TakenTrick(len(taken) + 1, leader,
                                    tuple(Play(s, c) for s, c in plays), winner, won))
            leader, plays = winner, []
        if len(taken) == TRICKS_PER_ROUND:
            break
        seat = (leader + len(plays)) % SEATS
        led = plays[0][1].suit if plays else None
        legal = legal_from(frozenset(hands[seat]), led, not taken, broken, rules)
        card = _choose(legal, plays, queen_out)
        queen_out = queen_out and card is not QUEEN_OF_SPADES
        hands[seat].discard(card)
        plays.append((seat, card))
        broken = broken or breaks_hearts(card, rules)
    return score_round(rules, tuple(points), taken).scores


def breaks_hearts(card: Card, rules: Rules) -> bool:
    return card.suit is Suit.HEARTS or (card is QUEEN_OF_SPADES and rules.queen_breaks_hearts)


def _choose(legal: frozenset[Card], plays: list[tuple[int, Card]], queen_out: bool) -> Card:
    """The simulated players' rules of thumb: lead low, duck, dump the queen and the top
    spades while it is out, then hearts."""
    if len(legal) == 1:
        return next(iter(legal))
    if not plays:
        return min(legal, key=lambda c: (c.suit is Suit.HEARTS,
                                         queen_out and c.suit is Suit.SPADES and c.rank > 12,
                                         c.rank))
    led = plays[0][1].suit
    top = max((c for _, c in plays if c.suit is led), key=lambda c: c.rank)
    if next(iter(legal)).suit is led:
        if QUEEN_OF_SPADES in legal and top.rank > QUEEN_OF_SPADES.rank:
            return QUEEN_OF_SPADES
        under = [c for c in legal if c.rank < top.rank and c is not QUEEN_OF_SPADES]
        if under:
            return max(under, key=lambda c: c.rank)
        if len(plays) == SEATS - 1:
            return max(legal, key=lambda c: (c is not QUEEN_OF_SPADES, c.rank))
        return min(legal, key=lambda c: (c is QUEEN_OF_SPADES, c.rank))
    if QUEEN_OF_SPADES in legal:
        return QUEEN_OF_SPADES
    return max(legal, key=lambda c: (queen_out and c.suit is Suit.SPADES and c.rank > 12,
                                     c.suit is Suit.HEARTS, c.rank))
