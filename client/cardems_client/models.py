"""Typed results: every resource the service returns, with the field names of its JSON.

Cards stay strings as the service spells them (`"QS"`, rank then suit) and seats stay
integers, so a value read from a view can be sent back as it is. Fields the service adds after
this kit was written are kept, untyped, in `extra`; a field it leaves out takes its default.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

Card = str
Seat = int
T = TypeVar("T", bound="Model")

OVER = frozenset({"finished", "abandoned"})


class Model:
    """A dataclass read from the service's JSON."""

    @classmethod
    def from_json(cls: type[T], data: dict[str, Any]) -> T:
        if not isinstance(data, dict):
            raise TypeError(f"{cls.__name__} expects a JSON object, got {type(data).__name__}")
        readers, keeps_extra = _readers_of(cls)
        values = {name: read(value) for name, value in data.items()
                  if (read := readers.get(name)) is not None}
        if keeps_extra:
            values["extra"] = {k: v for k, v in data.items() if k not in readers}
        return cls(**values)


Reader = Callable[[Any], Any]
_READERS: dict[type, tuple[dict[str, Reader], bool]] = {}


def _readers_of(cls: type) -> tuple[dict[str, Reader], bool]:
    """Each field's reader, worked out once a class: a view is read twice a move."""
    found = _READERS.get(cls)
    if found is None:
        hints = get_type_hints(cls)
        names = [f.name for f in dataclasses.fields(cls)]
        found = ({n: _reader(hints[n]) for n in names if n != "extra"}, "extra" in names)
        _READERS[cls] = found
    return found


def _same(value: Any) -> Any:
    return value


def _reader(hint: Any) -> Reader:
    """How to read decoded JSON as the type `hint` names."""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        (option,) = [a for a in get_args(hint) if a is not type(None)]
        inner = _reader(option)
        return _same if inner is _same else lambda v: None if v is None else inner(v)
    if origin is list:
        item = _reader(get_args(hint)[0])
        return list if item is _same else lambda v: [item(x) for x in v]
    if origin is dict:
        value = _reader(get_args(hint)[1])
        return dict if value is _same else lambda v: {k: value(x) for k, x in v.items()}
    if isinstance(hint, type) and issubclass(hint, Model):
        return hint.from_json
    return _same


@dataclass(frozen=True)
class PlayOut(Model):
    """A card on the table, and the seat that played it."""

    seat: Seat
    card: Card


@dataclass(frozen=True)
class Trick(Model):
    """The trick being played: who led, and the cards so far."""

    leader: Seat
    plays: list[PlayOut]


@dataclass(frozen=True)
class TakenTrick(Model):
    """A trick of this round that is complete."""

    number: int
    leader: Seat
    plays: list[PlayOut]
    winner: Seat
    points: int


@dataclass(frozen=True)
class Scores(Model):
    """Points this round so far, totals, and each finished round's scores; one item a seat."""

    round: list[int]
    total: list[int]
    history: list[list[int]]


@dataclass(frozen=True)
class SeatOut(Model):
    seat: Seat
    name: str
    bot: str | None = None


@dataclass(frozen=True)
class Deck(Model):
    """The cards in play at this count of seats."""

    cards: int
    hand_size: int
    removed: list[Card] = field(default_factory=list)


@dataclass(frozen=True)
class Rules(Model):
    end_score: int = 100
    queen_breaks_hearts: bool = False
    points_on_first_trick: bool = False
    moon: str = "add_to_others"
    shoot_the_sun: bool = False
    jack_of_diamonds: bool = False
    tie_break: str = "play_on"
    first_dealer: Seat = 0
    turn_seconds: int | None = None  # a person's time for each move; None: no clock
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class You(Model):
    """What only the token's seat sees: its hand, and the cards it may play now."""

    seat: Seat
    hand: list[Card]
    legal: list[Card] = field(default_factory=list)
    illegal: dict[Card, str] = field(default_factory=dict)
    passed: list[Card] | None = None
    received: list[Card] | None = None


@dataclass(frozen=True)
class MatchView(Model):
    """A match as the caller may see it: a seat's view with its token, else a spectator's."""

    id: str
    version: int
    status: str
    round: int
    pass_direction: str
    dealer: Seat
    turn: Seat | None
    to_act: list[Seat]
    hearts_broken: bool
    trick: Trick | None
    tricks: list[TakenTrick]
    scores: Scores
    seats: list[SeatOut]
    deck: Deck
    seats_passed: list[Seat]
    rules: Rules
    winner: Seat | None
    moon_shooter: Seat | None
    seed_commitment: str
    given_decks: int
    server_seed: str | None
    created_at: str
    you: You | None = None
    # Under a turn clock: each waited-on person seat (as a string) and when its move is due.
    deadlines: dict[str, str] = field(default_factory=dict)
    away: list[Seat] = field(default_factory=list)  # seats whose moves are made for them
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def over(self) -> bool:
        """Finished with a winner, or abandoned: no move will come."""
        return self.status in OVER

    def waits_on(self, seat: Seat) -> bool:
        """Whether the match waits for `seat` to pass, play or choose."""
        return seat in self.to_act


@dataclass(frozen=True)
class CreatedMatch(MatchView):
    """A new match's view, with each person seat's token (shown this once only)."""

    tokens: dict[str, str] = field(default_factory=dict)

    def token(self, seat: Seat) -> str:
        return self.tokens[str(seat)]


@dataclass(frozen=True)
class ReplayView(MatchView):
    """The match as it stood after some number of events; each hand the caller may see now."""

    hands: list[list[Card] | None] = field(default_factory=list)


@dataclass(frozen=True)
class Event(Model):
    """One fact of the match's log, redacted for the caller, with its place in the chain."""

    version: int
    type: str
    data: dict[str, Any]
    recorded_at: str
    hash: str
    prev_hash: str

    @property
    def ends_match(self) -> bool:
        return self.type in ("MatchEnded", "MatchAbandoned")


@dataclass(frozen=True)
class EventPage(Model):
    events: list[Event]
    version: int
    next: str | None = None


@dataclass(frozen=True)
class AuditPlay(Model):
    """One play of an audited trick; hands and legal cards once its round is over."""

    seat: Seat
    card: Card
    version: int
    hash: str
    hand_before: list[Card] | None = None
    legal: list[Card] | None = None
    illegal: dict[Card, str] | None = None


@dataclass(frozen=True)
class TrickAudit(Model):
    """Was each card of a trick allowed, who won it, and why."""

    round: int
    trick: int
    complete: bool
    round_over: bool
    leader: Seat
    led_suit: str
    winner: Seat | None
    points: int | None
    why_winner: str | None
    hearts_broken_before: bool
    hearts_broken_in: int | None
    plays: list[AuditPlay]
    chain_ok: bool


@dataclass(frozen=True)
class IntegrityReport(Model):
    """The service's own check of a match's log: chain, replay and, once over, the deals."""

    ok: bool
    events: int
    chain_ok: bool
    replay_ok: bool
    deals_ok: bool | None
    first_bad_version: int | None
    reason: str | None = None


# A move as the analysis writes it: a card, the three cards of a pass, or a moon choice.
JudgedMove = Any


@dataclass(frozen=True)
class AnalysisOption(Model):
    move: JudgedMove
    expected: float  # the seat's expected points minus the others' mean: lower is better


@dataclass(frozen=True)
class Decision(Model):
    """One decision judged from what its seat knew: its options best first, and the loss."""

    version: int
    seat: Seat
    kind: str  # "pass", "play" or "moon"
    trick: int | None
    chosen: JudgedMove
    options: list[AnalysisOption]
    best: JudgedMove
    loss: float
    verdict: str  # "forced", "best", "inaccuracy", "mistake" or "blunder"


@dataclass(frozen=True)
class AnalysedRound(Model):
    round: int
    decisions: list[Decision]


@dataclass(frozen=True)
class SeatSummary(Model):
    seat: Seat
    decisions: int
    mean_loss: float
    blunders: int
    mistakes: int
    inaccuracies: int


@dataclass(frozen=True)
class Progress(Model):
    done: int
    total: int


@dataclass(frozen=True)
class Analysis(Model):
    """The expert's review of every decision of the rounds that are over."""

    match_id: str
    status: str  # "queued", "running" or "done"
    progress: Progress
    up_to_round: int
    rounds: list[AnalysedRound]
    seats: list[SeatSummary]
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return self.status == "done"


@dataclass(frozen=True)
class Health(Model):
    status: str = "ok"
    extra: dict[str, Any] = field(default_factory=dict)
