"""What every bot policy offers, and how its choice becomes a command."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from random import Random
from typing import Protocol

from domain.cards import Card
from domain.commands import ChooseMoon, PassCards, PlayCard, Secret
from domain.rules import MoonRule
from domain.state import Status
from domain.views import MatchView


class Policy(Protocol):
    """A bot: it sees only its seat's view, and draws chance only from `rng`."""

    name: str
    version: str

    def choose_pass(self, view: MatchView, rng: Random) -> tuple[Card, Card, Card]: ...

    def choose_play(self, view: MatchView, rng: Random) -> Card: ...

    def choose_moon(self, view: MatchView, rng: Random) -> MoonRule: ...


Drive = Callable[[Iterator[Card]], Card]
"""Runs a search and takes its answer: to the end, or as far as its driver allows."""


def to_the_end(search: Iterator[Card]) -> Card:
    last = deque(search, maxlen=1)
    assert last, "a search yields at least once"
    return last[0]


def bot_command(view: MatchView, policy: Policy, rng: Random, secret: Secret,
                drive: Drive = to_the_end) -> PassCards | PlayCard | ChooseMoon | None:
    """The command the view's seat gives now, or None when the match does not wait for it.

    A policy that searches (the expert) is run by `drive`, which may stop it early."""
    you = view.you
    if you is None or you.seat not in view.to_act:
        return None
    signature = f"{policy.name}/{policy.version}"
    if view.status is Status.PASSING:
        return PassCards(you.seat, tuple(policy.choose_pass(view, rng)), secret, signature)
    if view.status is Status.PLAYING:
        searching = getattr(policy, "searching", None)
        card = drive(searching(view, rng)) if searching else policy.choose_play(view, rng)
        return PlayCard(you.seat, card, secret, signature)
    if view.status is Status.MOON_CHOICE:
        return ChooseMoon(you.seat, policy.choose_moon(view, rng), secret, signature)
    return None
