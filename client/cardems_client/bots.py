"""A bot to start from: it passes its three highest cards and plays its lowest legal one."""

from __future__ import annotations

from cardems_client.models import Card, MatchView

RANKS = "23456789TJQKA"


def rank(card: Card) -> int:
    return RANKS.index(card[0])


class LowestCard:
    """Ducks every trick it can: rarely the strongest play, never an illegal one."""

    def choose_pass(self, view: MatchView) -> list[Card]:
        assert view.you is not None
        return sorted(view.you.hand, key=rank)[-3:]

    def choose_play(self, view: MatchView) -> Card:
        assert view.you is not None
        return min(view.you.legal, key=rank)

    def choose_moon(self, view: MatchView) -> str:
        return "add_to_others"
