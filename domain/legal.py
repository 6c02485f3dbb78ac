"""Which cards a seat may play, and the rule that forbids each of the others.

`play_violation` is the one statement of the rules of play: the legal cards, the barred
cards of a view, refusals and the trick audit all come from it. The expert's simulations
play by the same rules in their own fast terms (`domain.bots.rollout`), and the tests replay
simulated rounds through `decide` to hold them to these."""

from __future__ import annotations

from collections.abc import Iterable

from domain.cards import TWO_OF_CLUBS, Card, Suit, is_point_card
from domain.errors import Violation
from domain.rules import Rules
from domain.state import Round


def play_violation(rnd: Round, rules: Rules, seat: int, card: Card) -> Violation | None:
    """The rule that forbids `seat` playing `card` now (it being its turn), or None."""
    hand = rnd.hands[seat]
    if card not in hand:
        return Violation.CARD_NOT_IN_HAND
    first_trick = not rnd.taken
    plays = rnd.trick.plays
    if not plays:
        return _lead_violation(hand, card, first_trick, rnd.hearts_broken)
    led = plays[0].card.suit
    if card.suit is not led and _holds_suit(hand, led):
        return Violation.MUST_FOLLOW_SUIT
    if first_trick and not rules.points_on_first_trick and is_point_card(card) \
            and not all(is_point_card(c) for c in hand):
        return Violation.NO_POINTS_ON_FIRST_TRICK
    return None


def _lead_violation(hand: frozenset[Card], card: Card, first_trick: bool,
                    hearts_broken: bool) -> Violation | None:
    if first_trick:
        return None if card is TWO_OF_CLUBS else Violation.MUST_LEAD_TWO_OF_CLUBS
    if card.suit is Suit.HEARTS and not hearts_broken \
            and not all(c.suit is Suit.HEARTS for c in hand):
        return Violation.HEARTS_NOT_BROKEN
    return None


def _holds_suit(hand: Iterable[Card], suit: Suit) -> bool:
    return any(c.suit is suit for c in hand)


def forbidden_cards(rnd: Round, rules: Rules, seat: int) -> dict[Card, Violation]:
    """Every card of the hand that may not be played now, mapped to the rule against it."""
    out: dict[Card, Violation] = {}
    for card in rnd.hands[seat]:
        violation = play_violation(rnd, rules, seat, card)
        if violation is not None:
            out[card] = violation
    return out


def legal_cards(rnd: Round, rules: Rules, seat: int) -> frozenset[Card]:
    """Every card of `seat`'s hand that it may play now, were it its turn: the cards no rule
    of `play_violation`, the one statement of the rules of play, forbids."""
    return rnd.hands[seat] - forbidden_cards(rnd, rules, seat).keys()


def winning_play(plays: Iterable[tuple[int, Card]]) -> tuple[int, Card]:
    """The (seat, card) taking the trick so far: the highest card of the led suit, since
    there are no trumps."""
    items = list(plays)
    led = items[0][1].suit
    return max((p for p in items if p[1].suit is led), key=lambda p: p[1].rank)


def trick_winner(plays: Iterable[tuple[int, Card]]) -> int:
    return winning_play(plays)[0]
