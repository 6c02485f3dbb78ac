"""Check a stored log against the rules: re-decide every move, recompute every deal.

The log is read as the commands that produced it (a creation, a pass, a play, a moon choice);
each is decided again on the state the log had reached, and what comes out must be the events
that were stored, to the letter: derived facts (trick winners, points, scores, the winner)
included.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from domain.commands import (
    AbandonMatch,
    ChooseMoon,
    Command,
    CreateMatch,
    PassCards,
    PlayCard,
    Secret,
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
)
from domain.evolve import CorruptStream, evolve
from domain.shuffle import deal, seed_commitment
from domain.state import Match
from domain.table import table_for


@dataclass(frozen=True, slots=True)
class ReplayCheck:
    first_bad_version: int | None
    reason: str | None
    state: Match | None

    @property
    def ok(self) -> bool:
        return self.first_bad_version is None


def _command_for(event: Event, secret: Secret) -> Command | None:
    if isinstance(event, MatchCreated):
        return CreateMatch(event.match_id, event.seats, event.rules, event.client_seed, secret,
                           event.created_at)
    if isinstance(event, PassChosen):
        return PassCards(event.seat, event.cards, secret, event.bot)
    if isinstance(event, CardPlayed):
        return PlayCard(event.seat, event.card, secret, event.bot)
    if isinstance(event, MoonChosen):
        return ChooseMoon(event.seat, event.choice, secret, event.bot)
    if isinstance(event, MatchAbandoned):
        return AbandonMatch(event.reason, event.seat, secret)
    return None


def replay_check(events: Sequence[Event], secret: Secret, start: Match | None = None,
                 on_deal: Callable[[int, Match | None], None] | None = None) -> ReplayCheck:
    """The first version at which the log departs from a fresh decision, if any. `events`
    follow the state `start` (a check already made up to its version, or the beginning), so
    that a log that grows is checked once, a piece at a time. `on_deal(version, state)` is
    told the match as it stood just before each deal the check has confirmed."""
    state = start
    first = start.version + 1 if start else 1  # the version of events[0]
    i = 0
    while i < len(events):
        command = _command_for(events[i], secret)
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
