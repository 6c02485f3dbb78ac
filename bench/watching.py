"""What the bot benches share: a player watched as it plays, and rounds drawn for them."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from domain.bots.base import Policy
from domain.bots.duplicate import Observer, dealt_state, play_hand
from domain.cards import Card
from domain.commands import Secret
from domain.events import RoundScored
from domain.rules import MoonRule, Rules
from domain.table import FOUR_SEATS
from domain.views import MatchView


class Watching:
    """A player in a bench's eye: every choice is the player's own, and each play is shown
    to `seen` as it is made."""

    def __init__(self, player: Policy) -> None:
        self.player = player
        self.name, self.version = player.name, player.version

    def choose_pass(self, view: MatchView, rng: Random) -> tuple[Card, Card, Card]:
        return self.player.choose_pass(view, rng)

    def choose_moon(self, view: MatchView, rng: Random) -> MoonRule:
        return self.player.choose_moon(view, rng)

    def choose_play(self, view: MatchView, rng: Random) -> Card:
        card = self.player.choose_play(view, rng)
        self.seen(view, card)
        return card

    def seen(self, view: MatchView, card: Card) -> None:
        """What the bench makes of a play; nothing, unless a subclass says."""


def play_round(rng: Random, number: int, seats: Sequence[Policy],
               observe: Observer | None = None) -> RoundScored:
    """Round `number` of four seats, its cards and secret drawn from `rng`, played to its
    score by `seats`, each seat shown held by its player's bot (as in the arena)."""
    cards = list(FOUR_SEATS.cards)
    rng.shuffle(cards)
    secret = Secret(rng.randbytes(32))
    state = dealt_state(cards, number, secret, Rules(end_score=10_000), FOUR_SEATS,
                        [seat.name for seat in seats])
    return play_hand(state, seats, rng, secret, observe)
