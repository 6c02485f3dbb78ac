"""What a person or a bot asks of a match, in the imperative."""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.cards import Card
from domain.events import AbandonReason, Hand, SeatSpec
from domain.rules import MoonRule, Rules


@dataclass(frozen=True, slots=True)
class Secret:
    """What decides the deals and stays hidden until the match ends: the seed, any given decks."""

    server_seed: bytes = field(repr=False)
    decks: tuple[Hand, ...] = field(default=(), repr=False)


@dataclass(frozen=True, slots=True)
class CreateMatch:
    match_id: str
    seats: tuple[SeatSpec, ...]
    rules: Rules
    client_seed: str
    secret: Secret
    created_at: str


@dataclass(frozen=True, slots=True)
class PassCards:
    """Set three cards aside; the secret seals them (and the exchange, if this pass is last)."""

    seat: int
    cards: tuple[Card, ...]
    secret: Secret
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play a card; the secret is needed in case the play ends a round and deals the next."""

    seat: int
    card: Card
    secret: Secret
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class ChooseMoon:
    seat: int
    choice: MoonRule
    secret: Secret
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class AbandonMatch:
    """End the match unplayed: a person at the table gives it up (`seat`), or the service
    does (no seat) when its people stay away or bots alone play on too long."""

    reason: AbandonReason
    seat: int | None
    secret: Secret


Move = PassCards | PlayCard | ChooseMoon


@dataclass(frozen=True, slots=True)
class TimeOut:
    """A person's turn clock ran out: record it and make `move` for the seat (the autopilot's
    choice). `now` and `started`, seconds since the epoch, come from the caller's clock and
    the recorded time of the event the seat has been waited on since."""

    seat: int
    now: float
    started: float
    move: Move


@dataclass(frozen=True, slots=True)
class Autoplay:
    """Make `move` for a seat that is away, on the bots' pace."""

    seat: int
    move: Move


@dataclass(frozen=True, slots=True)
class ComeBack:
    """The person of an away seat is back."""

    seat: int


Command = (CreateMatch | PassCards | PlayCard | ChooseMoon | AbandonMatch | TimeOut | Autoplay
           | ComeBack)
