"""The state of a match: what a fold of its events leaves behind."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple, TypeVar

from domain.cards import Card, Suit
from domain.events import Hand, Scores, SeatSpec
from domain.passing import PassDirection
from domain.rules import Rules
from domain.table import Table

_T = TypeVar("_T")


def evolved(value: _T, **changes: Any) -> _T:
    """A copy of a frozen state value with some fields changed.

    `dataclasses.replace` re-runs `__init__`, which costs more than the rest of a fold step;
    copying the instance dictionary gives the same immutable value several times faster.
    """
    new = object.__new__(type(value))
    fields = new.__dict__
    fields.update(value.__dict__)
    fields.update(changes)
    return new


class Status(StrEnum):
    DEALING = "dealing"  # only between the creation and the first deal, seen in replays
    PASSING = "passing"
    PLAYING = "playing"
    MOON_CHOICE = "moon_choice"
    FINISHED = "finished"
    ABANDONED = "abandoned"  # ended with no winner


# Play and Trick are named tuples rather than dataclasses: one of each is made for every card
# played, and a tuple is built in a third of the time, which a replay feels.
class Play(NamedTuple):
    seat: int
    card: Card


class Trick(NamedTuple):
    """The trick on the table: who led it and the cards played so far."""

    leader: int
    plays: tuple[Play, ...] = ()

    @property
    def led_suit(self) -> Suit | None:
        return self.plays[0].card.suit if self.plays else None


@dataclass(frozen=True, slots=True)
class TakenTrick:
    number: int
    leader: int
    plays: tuple[Play, ...]
    winner: int
    points: int


@dataclass(frozen=True)
class Round:
    number: int
    dealer: int
    pass_direction: PassDirection
    dealt: tuple[Hand, ...]
    hands: tuple[frozenset[Card], ...]
    passes: tuple[Hand | None, ...]
    received: tuple[Hand | None, ...]
    trick: Trick
    taken: tuple[TakenTrick, ...]
    hearts_broken: bool
    points: Scores
    turn: int | None

    @property
    def trick_number(self) -> int:
        """The number (from 1) of the trick on the table."""
        return len(self.taken) + 1


@dataclass(frozen=True)
class Match:
    id: str
    rules: Rules
    table: Table  # how many seats, and the cards in play
    seats: tuple[SeatSpec, ...]
    client_seed: str
    seed_commitment: str
    given_decks: int
    created_at: str
    status: Status
    version: int
    round: Round | None
    totals: Scores
    history: tuple[Scores, ...]
    moon_shooter: int | None = None
    winner: int | None = None
    server_seed: str | None = None
    revealed_decks: tuple[Hand, ...] = ()
    # Turn clocks (rules.turn_seconds): the version of the event since which the match waits
    # on the seats it waits on, the version at which each seat came back (its clock starts
    # again there), the timeouts of each seat in a row, and the seats that are away.
    since: int = 0
    returned: tuple[int, ...] = ()
    timeouts: tuple[int, ...] = ()
    away: frozenset[int] = frozenset()

    @property
    def is_over(self) -> bool:
        """Won or abandoned: no move is left, and every secret of it is revealed."""
        return self.status in (Status.FINISHED, Status.ABANDONED)

    @property
    def rounds_dealt(self) -> int:
        """How many rounds have been dealt, the one in progress included."""
        return 0 if self.round is None else self.round.number

    @property
    def turn(self) -> int | None:
        """The seat to play a card, or None outside the play of a trick."""
        if self.status is Status.PLAYING and self.round is not None:
            return self.round.turn
        return None

    def waiting_since(self, seat: int) -> int:
        """The version of the event from which a seat the match waits on has been waited on:
        the deal for a pass, the last play or trick for a play, the moon for its choice, or
        the seat's coming back if later."""
        return max(self.since, self.returned[seat] if self.returned else 0)

    def timeouts_of(self, seat: int) -> int:
        """The seat's timeouts in a row, since its last move of its own."""
        return self.timeouts[seat] if self.timeouts else 0

    def round_is_over(self, number: int) -> bool:
        """True once round `number` has been played out, so its deal and passes are public."""
        if self.is_over or number <= len(self.history):
            return True
        return self.status is Status.MOON_CHOICE and self.round is not None \
            and self.round.number == number
