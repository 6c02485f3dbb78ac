"""The random bot: uniform over the legal cards and over the possible passes."""

from __future__ import annotations

from random import Random

from domain.cards import Card
from domain.rules import MoonRule
from domain.views import MatchView


class RandomPolicy:
    name = "random"
    version = "1"

    def choose_pass(self, view: MatchView, rng: Random) -> tuple[Card, Card, Card]:
        assert view.you is not None
        a, b, c = rng.sample(view.you.hand, 3)
        return a, b, c

    def choose_play(self, view: MatchView, rng: Random) -> Card:
        assert view.you is not None
        return rng.choice(view.you.legal)

    def choose_moon(self, view: MatchView, rng: Random) -> MoonRule:
        return rng.choice((MoonRule.ADD_TO_OTHERS, MoonRule.SUBTRACT_FROM_SELF))
