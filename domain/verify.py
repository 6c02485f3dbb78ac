"""Check a stored log against the rules: re-decide every move, recompute every deal.

The log is read as the commands that produced it (a creation, a pass, a play, a moon choice);
each is decided again on the state the log had reached, and what comes out must be the events
that were stored, to the letter: derived facts (trick winners, points, scores, the winner)
included.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from domain.commands import (
    AbandonMatch,
    Autoplay,
    ChooseMoon,
    ComeBack,
    Command,
    CreateMatch,
    Move,
    PassCards,
    PlayCard,
    Secret,
    TimeOut,
)
from domain.decide import decide, round_deck
from domain.errors import IllegalMove, InvalidCommand
from domain.events import (
    CardPlayed,
    Event,
    MatchAbandoned,
    MatchCreated,
    MatchEnded,
    MoonChosen,
    PassChosen,
    RoundDealt,
    SeatBack,
    TurnTimedOut,
)
from domain.evolve import CorruptStream, evolve
from domain.shuffle import deal, seed_commitment
from domain.state import Match
from domain.table import table_for
from domain.views import Recorded


@dataclass(frozen=True, slots=True)
class ReplayCheck:
    first_bad_version: int | None
    reason: str | None
    state: Match | None

    @property
    def ok(self) -> bool:
        return self.first_bad_version is None


def _command_for(events: Sequence[Event], i: int, state: Match | None, secret: Secret,
                 version: int, recorded: Recorded | None) -> Command | None:
    """The command that produced the events from `events[i]` (version `version`) on, given
    the state before."""
    event = events[i]
    following = events[i + 1] if i + 1 < len(events) else None
    if isinstance(event, TurnTimedOut) and following is not None:
        move = _move_for(following, secret)
        if move is None:
            return None
        return TimeOut(event.seat, *_clock_of(state, event.seat, version, recorded), move)
    if isinstance(event, SeatBack):
        own = _move_for(following, secret) if following is not None else None
        if own is not None and own.bot is None and own.seat == event.seat:
            return own  # a move of the person's own, which brought the seat back
        return ComeBack(event.seat)
    move = _move_for(event, secret)
    if move is not None and move.bot is not None and state is not None \
            and move.seat in state.away and state.seats[move.seat].bot is None:
        return Autoplay(move.seat, move)
    if move is not None:
        return move
    return _other_command(event, secret)


def _clock_of(state: Match | None, seat: int, version: int,
              recorded: Recorded | None) -> tuple[float, float]:
    """When a timeout was recorded and when the seat's clock had started, from the events'
    recorded times: a timeout recorded before the seat's time was up is refused by the
    fresh decision like any move out of turn. Without the times, the clock is taken as run
    out."""
    if recorded is None or state is None:
        return math.inf, 0.0
    now, started = recorded(version), recorded(state.waiting_since(seat))
    if now is None or started is None:
        return math.inf, 0.0
    return now, started


def _move_for(event: Event, secret: Secret) -> Move | None:
    if isinstance(event, PassChosen):
        return PassCards(event.seat, event.cards, secret, event.bot)
    if isinstance(event, CardPlayed):
        return PlayCard(event.seat, event.card, secret, event.bot)
    if isinstance(event, MoonChosen):
        return ChooseMoon(event.seat, event.choice, secret, event.bot)
    return None


def _other_command(event: Event, secret: Secret) -> Command | None:
    if isinstance(event, MatchCreated):
        return CreateMatch(event.match_id, event.seats, event.rules, event.client_seed, secret,
                           event.created_at)
    if isinstance(event, MatchAbandoned):
        return AbandonMatch(event.reason, event.seat, secret)
    return None


def replay_check(events: Sequence[Event], secret: Secret, start: Match | None = None,
                 on_deal: Callable[[int, Match | None], None] | None = None,
                 recorded: Recorded | None = None) -> ReplayCheck:
    """The first version at which the log departs from a fresh decision, if any. `events`
    follow the state `start` (a check already made up to its version, or the beginning), so
    that a log that grows is checked once, a piece at a time. `on_deal(version, state)` is
    told the match as it stood just before each deal the check has confirmed. `recorded`
    (when event N was recorded) lets the check hold each timeout to its seat's clock."""
    state = start
    first = start.version + 1 if start else 1  # the version of events[0]
    i = 0
    while i < len(events):
        command = _command_for(events, i, state, secret, first + i, recorded)
        if command is None:
            return ReplayCheck(first + i, f"{type(events[i]).__name__} does not follow a move",
                               state)
        try:
            expected = decide(state, command)
        except (IllegalMove, InvalidCommand) as refusal:
            reason = refusal.code.value if isinstance(refusal, IllegalMove) else "invalid"
            return ReplayCheck(first + i, f"the move was not allowed ({reason})", state)
        for offset, event in enumerate(expected):
            stored = events[i + offset] if i + offset < len(events) else None
            if stored != event:
                name = type(event).__name__
                return ReplayCheck(first + i + offset, f"{name} differs from a fresh replay",
                                   state)
        try:
            for offset, event in enumerate(expected):
                if on_deal is not None and isinstance(event, RoundDealt):
                    on_deal(first + i + offset, state)
                state = evolve(state, event)
        except CorruptStream as exc:
            return ReplayCheck(first + i, str(exc), state)
        i += len(expected)
    return ReplayCheck(None, None, state)


def deals_check(events: Sequence[Event]) -> bool | None:
    """Once the match is over, every deal recomputed from the revealed seed; None before."""
    if not events or not isinstance(events[-1], MatchEnded | MatchAbandoned):
        return None
    created, ended = events[0], events[-1]
    if not isinstance(created, MatchCreated):
        return False
    seed = bytes.fromhex(ended.server_seed)
    if seed_commitment(seed) != created.seed_commitment:
        return False
    secret = Secret(seed, ended.decks)
    table = table_for(len(created.seats))
    dealt = 0
    for event in events:
        if isinstance(event, RoundDealt):
            deck = round_deck(secret, created.client_seed, event.round, table)
            hands = deal(deck, event.dealer, table)
            if hands != event.hands:
                return False
            dealt = event.round
    # The decks of the rounds dealt, no fewer (a dealt round would go unchecked) and no more.
    return len(ended.decks) == min(created.given_decks, dealt)
