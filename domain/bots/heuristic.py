"""The heuristic bot: a competent player's rules of thumb, with no search."""

from __future__ import annotations

from random import Random

from domain.bots.danger import dangers
from domain.bots.knowledge import Knowledge, knowledge, moon_threat
from domain.cards import QUEEN_OF_SPADES, Card, Suit, penalty
from domain.legal import winning_play
from domain.rules import MoonRule
from domain.table import MOON_POINTS
from domain.views import MatchView

ACE, KING, QUEEN = 14, 13, 12

# How much leading a card risks, in points of a made-up scale: the heuristic bot and the
# expert's simulated players weigh their leads alike.
SURE_WIN = 100  # no card still out of this suit beats it
UNDER_QUEEN = 60  # a spade above the queen while she is out: she may fall on it
QUEEN_LEAD = 80  # leading the queen herself
FLUSH_QUEEN = -5  # a low spade, when someone else holds the queen, draws her out
HEART_LEAD = 10
VOID_SEEN = 30  # someone has shown a void in the suit and will discard points on it


class HeuristicPolicy:
    name = "heuristic"
    version = "1"

    def choose_pass(self, view: MatchView, rng: Random) -> tuple[Card, Card, Card]:
        assert view.you is not None
        a, b, c = pass_ranking(list(view.you.hand), carries_moon(knowledge(view)))[:3]
        return a, b, c

    def choose_play(self, view: MatchView, rng: Random) -> Card:
        assert view.you is not None and view.trick is not None
        legal = list(view.you.legal)
        if len(legal) == 1:
            return legal[0]
        k = knowledge(view)
        plays = [(p.seat, p.card) for p in view.trick.plays]
        if not plays:
            return _lead(k, legal)
        led = plays[0][1].suit
        if legal[0].suit is led:
            return _follow(k, legal, plays, len(view.seats))
        return _discard(k, legal, plays)

    def choose_moon(self, view: MatchView, rng: Random) -> MoonRule:
        assert view.you is not None
        me = view.you.seat
        after_add = [t if s == me else t + MOON_POINTS for s, t in enumerate(view.totals)]
        others_low = min(t for s, t in enumerate(after_add) if s != me)
        # Adding to the others ends the match sooner: good when it leaves us alone in front.
        if after_add[me] < others_low:
            return MoonRule.ADD_TO_OTHERS
        return MoonRule.SUBTRACT_FROM_SELF


def pass_ranking(hand: list[Card], keep_points: bool) -> list[Card]:
    """The hand, the cards to pass first: the most dangerous to keep, or, for a hand that
    carries a moon, the lowest cards that are worth no points."""
    if keep_points:
        return sorted(hand, key=lambda c: (penalty(c) > 0, c.rank))
    danger = dangers(hand)
    return sorted(hand, key=lambda c: -danger[c])


def carries_moon(k: Knowledge) -> bool:
    """A hand that can take every trick but one or two, long in high hearts."""
    hearts = sum(1 for c in k.hand if c.suit is Suit.HEARTS)
    return moon_hand(hearts, k.losers()) and sum(k.points) == k.points[k.seat]


def moon_hand(hearts: int, losers: int) -> bool:
    """Enough hearts, and few enough cards that could lose a trick, to run at the moon."""
    return hearts >= 5 and losers <= 1


def shooting(k: Knowledge) -> bool:
    others = sum(k.points) - k.points[k.seat]
    return others == 0 and k.losers() <= 1 and (k.points[k.seat] > 0 or carries_moon(k))


def _lead(k: Knowledge, legal: list[Card]) -> Card:
    if shooting(k):
        return max(legal, key=lambda c: (k.higher_unseen(c) == 0, c.rank))
    threat = moon_threat(k)
    hearts = [c for c in legal if c.suit is Suit.HEARTS]
    if threat is not None and hearts:
        return max(hearts, key=lambda c: c.rank)  # win a heart back to stop the moon
    return min(legal, key=lambda c: _lead_risk(k, c))


def _lead_risk(k: Knowledge, card: Card) -> tuple[int, int]:
    risk = 0
    if k.higher_unseen(card) == 0:
        risk += SURE_WIN
    if card.suit is Suit.SPADES and k.queen_out and card.rank > QUEEN:
        risk += UNDER_QUEEN
    if card is QUEEN_OF_SPADES:
        risk += QUEEN_LEAD
    if card.suit is Suit.SPADES and QUEEN_OF_SPADES not in k.hand and card.rank < QUEEN:
        risk += FLUSH_QUEEN
    if card.suit is Suit.HEARTS:
        risk += HEART_LEAD
    if any(card.suit in v for s, v in enumerate(k.voids) if s != k.seat):
        risk += VOID_SEEN
    return risk, card.rank


def _follow(k: Knowledge, legal: list[Card], plays: list[tuple[int, Card]], seats: int,
            ) -> Card:
    winner_seat, top = winning_play(plays)
    trick_points = sum(penalty(c) for _, c in plays)
    last = len(plays) == seats - 1
    under = [c for c in legal if c.rank < top.rank]
    over = [c for c in legal if c.rank > top.rank]
    threat = moon_threat(k)
    if shooting(k) and over:
        return max(over, key=lambda c: c.rank)
    if threat is not None and threat == winner_seat and trick_points and over:
        return max(over, key=lambda c: c.rank)  # take points away from the shooter
    if QUEEN_OF_SPADES in legal and top.suit is Suit.SPADES and top.rank > QUEEN:
        return QUEEN_OF_SPADES  # someone else's ace or king takes the queen
    if under:
        safe = [c for c in under if c is not QUEEN_OF_SPADES] or under
        return max(safe, key=lambda c: c.rank)
    no_queen = [c for c in legal if c is not QUEEN_OF_SPADES] or legal
    if last:
        return max(no_queen, key=lambda c: c.rank)  # we take it anyway: shed the highest
    return min(no_queen, key=lambda c: c.rank)  # a later seat may still go over us

def _discard(k: Knowledge, legal: list[Card], plays: list[tuple[int, Card]]) -> Card:
    winner_seat, _ = winning_play(plays)
    threat = moon_threat(k)
    if shooting(k):
        return min(legal, key=lambda c: (c.suit is Suit.HEARTS, c.rank))
    if threat is not None and threat == winner_seat:
        clean = [c for c in legal if penalty(c) == 0]
        if clean:
            return max(clean, key=lambda c: c.rank)  # give the shooter nothing
    if QUEEN_OF_SPADES in legal:
        return QUEEN_OF_SPADES
    high_spades = [c for c in legal if c.suit is Suit.SPADES and c.rank > QUEEN]
    if high_spades and k.queen_out:
        return max(high_spades, key=lambda c: c.rank)
    hearts = [c for c in legal if c.suit is Suit.HEARTS]
    if hearts:
        return max(hearts, key=lambda c: c.rank)
    return max(legal, key=lambda c: (c.rank - 2 * _suit_length(k, c.suit), c.rank))


def _suit_length(k: Knowledge, suit: Suit) -> int:
    return sum(1 for c in k.hand if c.suit is suit)
