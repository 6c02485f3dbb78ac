"""A learned model of the expert's play, cheap enough to stand for an expert seat in the
expert's own rollouts.

The expert plays another card than its rules of thumb at nearly half its choices, so a
rollout that plays an expert seat by those rules misreads it. This model scores each
distinct legal card by a weighted sum of a few features of the card in its position (the
rules-of-thumb card is one of them) and plays the best: a linear choice model, its weights
fitted to the expert's recorded decisions by `bench/play_model.py`. It sees what a player
sees in a rollout: its own hand, the trick, the points taken, which cards are still out
(as one pool) and the voids shown. The weights are data it is given, as JSON text.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from itertools import repeat
from operator import add, mul

from domain.bots.reading import MOON_WATCH
from domain.bots.rollout import (
    FIRST_HEART,
    QUEEN,
    SPADES,
    Table,
    distinct,
    legal_plays,
    out_of,
    thumb_play,
)
from domain.rules import Rules

FEATURES = (
    "thumb",  # the card the rules of thumb play (or one of its run)
    "lead rank", "lead sure win", "lead beaten by", "lead others hold", "lead own length",
    "lead heart", "lead spade over queen", "lead queen", "lead spade under queen",
    "lead void shown", "lead club", "lead diamond",
    "follow wins", "follow wins points", "follow wins last", "follow rank", "follow queen",
    "follow highest under", "follow beaten by", "follow sure win", "follow heart",
    "follow spade over queen", "follow lowest",
    "discard queen", "discard heart", "discard heart rank", "discard spade over queen",
    "discard rank", "discard voids suit", "discard own length", "discard club",
    "discard diamond",
    "shooter wins", "feeds shooter", "own points wins",
    "lead sure win while all follow", "lead rank by others hold", "follow wins clean early",
    "discard rank of short suit", "wins late",
)


class BadPlayModel(ValueError):
    """Weights that are not this model's."""


@dataclass(frozen=True, slots=True)
class PlayModel:
    """A card's score: `linear` weighs its features, and `second` weighs the `hidden` units,
    each the tanh of `bias` plus the features weighed by its column of `first` (a row per
    feature). With no hidden units it is a linear choice."""

    linear: tuple[float, ...]
    first: tuple[tuple[float, ...], ...] = ()
    bias: tuple[float, ...] = ()
    second: tuple[float, ...] = ()

    @classmethod
    def from_json(cls, text: str) -> PlayModel:
        """The model of `{"features": [...], "linear": [...], "first": [[...]...],
        "bias": [...], "second": [...]}`, its features this module's."""
        try:
            data = json.loads(text)
            names = data["features"]
            linear, first = _numbers(data["linear"]), tuple(map(_numbers, data["first"]))
            bias, second = _numbers(data["bias"]), _numbers(data["second"])
        except (ValueError, TypeError, KeyError) as error:
            raise BadPlayModel(f"not a play model: {error}") from None
        if names != list(FEATURES):
            raise BadPlayModel("the weights are for other features than this model's")
        hidden = len(bias)
        if len(linear) != len(FEATURES) or len(first) != len(FEATURES) * bool(hidden) \
                or any(len(row) != hidden for row in first) or len(second) != hidden:
            raise BadPlayModel("the weights' shapes are not a feature per row and a column"
                               " per hidden unit")
        return cls(linear, first, bias, second)

    def score(self, features: list[float]) -> float:
        """How much the expert is taken to favour a card of these features."""
        total: float = sum(map(mul, features, self.linear))
        if not self.bias:
            return total
        hidden = self.bias
        for value, row in zip(features, self.first, strict=True):
            if value:  # the features are sparse: only their rows are added
                hidden = tuple(map(add, hidden, row if value == 1.0
                                   else map(mul, row, repeat(value))))
        unit: float = sum(map(mul, self.second, map(math.tanh, hidden)))
        return total + unit

    def __call__(self, rules: Rules, table: Table, seat: int) -> int:
        """The card `seat` plays on `table` by this model (a `Table.kin_player`)."""
        cards = distinct(rules, legal_plays(rules, table, seat), out_of(table, seat))
        if len(cards) == 1:
            return thumb_play(rules, table, seat)  # the rules of thumb's card of the one run
        position = Position(rules, table, seat, cards)
        best, best_score = cards[0], -math.inf
        for card in cards:
            score = self.score(position.features(card))
            if score > best_score:
                best, best_score = card, score
        # Within a run the rules of thumb's own card: later rules of thumb go by ranks.
        return position.thumb_card if best == position.thumb else best


def _numbers(values: object) -> tuple[float, ...]:
    if not isinstance(values, list) or not all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
            for v in values):
        raise ValueError("weights must be lists of finite numbers")
    return tuple(float(v) for v in values)


class Position:
    """What a seat's choice of card turns on, worked out once for all its candidates."""

    def __init__(self, rules: Rules, table: Table, seat: int, cards: list[int]) -> None:
        self.hand = table.hands[seat]
        self.seats = len(table.hands) - 1  # the others
        self.tricks = sum(table.won)
        self.plays = table.plays
        self.thumb_card = thumb_play(rules, table, seat)
        self.thumb = max(c for c in cards if c <= self.thumb_card)  # the first of its run
        self.others = [sorted(c for other, hand in enumerate(table.hands) if other != seat
                              for c in hand[suit]) for suit in range(4)]
        self.queen_out = not table.queen_played and QUEEN not in self.hand[SPADES]
        self.voids = 0
        for other, shown in enumerate(table.voids or ()):
            if other != seat:
                self.voids |= shown
        total = sum(table.points)
        self.own_points = table.points[seat]
        self.shooting = 0 < total == self.own_points
        threat = (table.points.index(total)
                  if total >= MOON_WATCH and total in table.points else None)
        self.threat = threat if threat != seat else None  # another seat's moon run
        if self.plays:
            self.led = self.plays[0][1] // 13
            self.winner, self.top = max(((s, c) for s, c in self.plays if c // 13 == self.led),
                                        key=lambda play: play[1])
            self.trick_points = sum(_worth(c) for _, c in self.plays)
            self.last = len(self.plays) == len(table.hands) - 1

    def beaten_by(self, card: int) -> int:
        """How many cards still out could beat `card` in its suit."""
        return sum(1 for c in self.others[card // 13] if c > card)

    def features(self, card: int) -> list[float]:
        values = [0.0] * len(FEATURES)
        values[0] = float(card == self.thumb)
        suit, rank = card // 13, card % 13 / 12
        above = self.beaten_by(card)
        over_queen = float(suit == SPADES and card > QUEEN and self.queen_out)
        wins = False
        if not self.plays:
            wins = above == 0
            values[1:13] = [rank, float(wins), above / 13, len(self.others[suit]) / 13,
                            len(self.hand[suit]) / 13, float(suit == 3), over_queen,
                            float(card == QUEEN),
                            float(suit == SPADES and card < QUEEN and self.queen_out),
                            float(self.voids >> suit & 1), float(suit == 0), float(suit == 1)]
        elif suit == self.led:
            wins = card > self.top
            own = self.hand[suit]
            under = [c for c in own if c < self.top]
            values[13:24] = [float(wins), wins * self.trick_points / 26,
                             float(wins and self.last), rank, float(card == QUEEN),
                             float(bool(under) and card == under[-1]), above / 13,
                             float(wins and (self.last or above == 0)), float(suit == 3),
                             over_queen, float(card == own[0])]
        else:
            heart = suit == 3
            values[24:33] = [float(card == QUEEN), float(heart), rank if heart else 0.0,
                             over_queen, rank, float(len(self.hand[suit]) == 1),
                             len(self.hand[suit]) / 13, float(suit == 0), float(suit == 1)]
            if self.threat is not None and self.winner == self.threat:
                values[34] = _worth(card) / 13
        if not self.plays:
            # Early in a suit every seat still follows: a high lead then takes no points.
            values[36] = float(wins and len(self.others[suit]) >= 2 * self.seats)
            values[37] = rank * len(self.others[suit]) / 13
        elif suit == self.led:
            values[38] = float(wins and not self.trick_points and not self.last
                               and len(self.others[suit]) >= 2 * self.seats)
        else:
            values[39] = rank / len(self.hand[suit])
        if wins:
            values[33] = float(self.shooting)
            values[35] = self.own_points / 26
            values[40] = self.tricks / 13
        return values


def _worth(card: int) -> int:
    return 13 if card == QUEEN else int(card >= FIRST_HEART)
