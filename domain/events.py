"""Every fact of a match, in the past tense. A match is nothing but these, in order."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from domain.cards import Card
from domain.passing import PassDirection
from domain.rules import MoonRule, Rules
from domain.sealing import Seal

Hand = tuple[Card, ...]
Scores = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """Who sits in a seat: a person's name, or a bot's name and policy."""

    name: str
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class MatchCreated:
    match_id: str
    rules: Rules
    seats: tuple[SeatSpec, ...]
    client_seed: str
    seed_commitment: str
    given_decks: int
    created_at: str


@dataclass(frozen=True, slots=True)
class RoundDealt:
    """A round's deal: secret to each seat until the round is over; `seals[s]` seals hand s."""

    round: int
    dealer: int
    pass_direction: PassDirection
    hands: tuple[Hand, ...]
    seals: tuple[Seal, ...] = ()


@dataclass(frozen=True, slots=True)
class PassChosen:
    """A seat set three cards aside: secret to it until the exchange, then to its receiver."""

    round: int
    seat: int
    cards: Hand
    bot: str | None = None
    seal: Seal | None = None


@dataclass(frozen=True, slots=True)
class PassesExchanged:
    """All four passes handed over at once; `received[s]` is secret to seat s."""

    round: int
    received: tuple[Hand, ...]
    seals: tuple[Seal, ...] = ()


@dataclass(frozen=True, slots=True)
class CardPlayed:
    seat: int
    card: Card
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class TrickTaken:
    round: int
    trick: int
    winner: int
    points: int


@dataclass(frozen=True, slots=True)
class MoonShot:
    """Under `moon: shooter_choice`, the shooter must now choose how the moon scores."""

    round: int
    seat: int


@dataclass(frozen=True, slots=True)
class MoonChosen:
    round: int
    seat: int
    choice: MoonRule
    bot: str | None = None


@dataclass(frozen=True, slots=True)
class RoundScored:
    """`points` are the raw points taken; `scores` what each seat adds after moon, sun, jack."""

    round: int
    points: Scores
    scores: Scores
    totals: Scores
    moon: int | None
    sun: int | None
    jack: int | None


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """The match is won; the seed (and any given decks) are revealed for anyone to check."""

    winner: int
    totals: Scores
    server_seed: str
    decks: tuple[Hand, ...]


class AbandonReason(StrEnum):
    BY_SEAT = "by_seat"  # a person at the table gave it up
    IDLE = "idle"  # its people did not act for too long
    ROUND_LIMIT = "round_limit"  # a match of bots alone reached its most rounds


@dataclass(frozen=True, slots=True)
class MatchAbandoned:
    """The match ends with no winner; the seed (and any given decks) are revealed as at a
    win, so every deal dealt so far can be checked."""

    reason: AbandonReason
    seat: int | None  # who gave it up, for BY_SEAT
    totals: Scores
    server_seed: str
    decks: tuple[Hand, ...]


@dataclass(frozen=True, slots=True)
class TurnTimedOut:
    """A person's turn clock ran out; the move that follows is made for the seat."""

    seat: int


@dataclass(frozen=True, slots=True)
class SeatAway:
    """A seat timed out twice in a row: its moves are made for it until it is back."""

    seat: int


@dataclass(frozen=True, slots=True)
class SeatBack:
    """An away seat's person is back: its clock runs again."""

    seat: int


Event = (
    MatchCreated | RoundDealt | PassChosen | PassesExchanged | CardPlayed | TrickTaken
    | MoonShot | MoonChosen | RoundScored | MatchEnded | MatchAbandoned | TurnTimedOut
    | SeatAway | SeatBack
)

EVENT_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (MatchCreated, RoundDealt, PassChosen, PassesExchanged, CardPlayed, TrickTaken,
                MoonShot, MoonChosen, RoundScored, MatchEnded, MatchAbandoned, TurnTimedOut,
                SeatAway, SeatBack)
}
