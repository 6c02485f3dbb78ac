"""Bots from anywhere: a `Bot` chooses, `run_bot` plays its seat from the stream to the end.

A bot sees its seat's view (`view.you.hand`, `view.you.legal`, the trick, the scores) and
returns cards as the view spells them. `run_bot` waits on the live stream, asks the bot only
when the match waits on its seat, and sends its move with the safeguards a program needs:
an `Idempotency-Key` so a retried move counts once, and `If-Match` on plays so a move
meant for one turn never lands on a later one.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from cardems_client.client import Client
from cardems_client.errors import NotNow, VersionConflict
from cardems_client.models import Card, Event, MatchView


@runtime_checkable
class Bot(Protocol):
    def choose_pass(self, view: MatchView) -> Sequence[Card]:
        """Three cards of `view.you.hand` to pass (`view.pass_direction` says to whom)."""
        ...

    def choose_play(self, view: MatchView) -> Card:
        """One card of `view.you.legal`."""
        ...

    def choose_moon(self, view: MatchView) -> str:
        """`"add_to_others"` or `"subtract_from_self"`, after shooting the moon under the
        `shooter_choice` rule."""
        ...


@dataclass(frozen=True)
class Move:
    """A move the bot made and the service accepted."""

    kind: str  # "pass", "play" or "moon"
    chosen: tuple[Card, ...] | Card | str
    round: int
    version: int  # the match's version once the move was applied


def run_bot(client: Client, match_id: str, bot: Bot,
            on_move: Callable[[Move], None] | None = None) -> MatchView:
    """Play `client`'s seat with `bot` until the match is over; the last view."""
    view = client.match(match_id)
    if view.you is None:
        raise ValueError("run_bot plays a seat: give the client that seat's token")
    seat = view.you.seat
    news = client.follow(match_id, after=view.version)
    try:
        while not view.over:
            if view.waits_on(seat):
                view = _move(client, bot, view, on_move)
            else:
                view = _after_news(client, news, view)
    finally:
        news.close()  # type: ignore[attr-defined]
    return view


def _after_news(client: Client, news: Iterator[Event], view: MatchView) -> MatchView:
    """The view once the match has moved past `view`."""
    for event in news:
        if event.version > view.version:
            break
    return client.match(view.id)


def _move(client: Client, bot: Bot, view: MatchView,
          on_move: Callable[[Move], None] | None) -> MatchView:
    if view.status not in ("passing", "playing", "moon_choice"):
        return client.match(view.id)
    kind, chosen, send = _choice(client, bot, view)
    try:
        after = send()
    except (VersionConflict, NotNow):
        return client.match(view.id)  # the match moved on first: look again
    if on_move:
        on_move(Move(kind, chosen, view.round, after.version))
    return after


def _choice(client: Client, bot: Bot, view: MatchView) -> tuple[
        str, tuple[Card, ...] | Card | str, Callable[[], MatchView]]:
    """The bot's move for the phase the match is in, and how to send it."""
    if view.status == "passing":
        # No If-Match: the other seats pass at the same time, and a pass holds whatever they
        # do. A second pass for the seat is refused (already_passed).
        cards = tuple(bot.choose_pass(view))
        return "pass", cards, lambda: client.pass_cards(view.id, cards)
    if view.status == "playing":
        card = bot.choose_play(view)
        return "play", card, lambda: client.play(view.id, card, if_match=view.version)
    choice = bot.choose_moon(view)
    return "moon", choice, lambda: client.choose_moon(view.id, choice, if_match=view.version)


def load_bot(spec: str) -> Bot:
    """A bot from `module:Class` (or `module:factory`), made with no arguments."""
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise ValueError(f"a bot is named module:Class, not {spec!r}")
    made = getattr(importlib.import_module(module_name), attribute)()
    if not isinstance(made, Bot):
        raise TypeError(f"{spec} lacks choose_pass, choose_play or choose_moon")
    return made
