"""Commands: create a match, and a seat's moves; each decided by the domain, then appended."""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.bots.levels import policy_named
from domain.cards import Card
from domain.commands import (
    AbandonMatch,
    Command,
    CreateMatch,
    Secret,
)
from domain.decide import decide
from domain.errors import IllegalMove, Violation
from domain.events import AbandonReason, Event, SeatSpec
from domain.evolve import fold
from domain.rules import Rules
from domain.state import Match
from domain.views import Recorded, view_for, view_json
from eventstore import CapReached, ConcurrencyError
from service.errors import VersionConflict
from service.fair_use import FairUse, bot_matches_cap, capped
from service.idempotency import Idempotency
from service.matches import TOKEN_INDEX, Matches, secret_json, token_hash
from service.pacing import parse_instant
from service.waiting import BOTS_ONLY, bots_alone, clock_marks, marks

RETRIES = 8


def new_match_id() -> str:
    """128 random bits, URL-safe; never with a leading "-", which a command line would take
    for an option (`verify_match.py URL -abc...`)."""
    while (match_id := secrets.token_urlsafe(16)).startswith("-"):
        pass
    return match_id


class Reply:
    """What a move answers: the mover's view after it, at that version. The view is made
    when asked for: a bot's move is answered to nobody."""

    __slots__ = ("_after", "_recorded", "_seat", "_view", "version")

    def __init__(self, version: int, view: dict[str, Any] | None = None,
                 after: Match | None = None, seat: int | None = None,
                 recorded: Recorded | None = None) -> None:
        self.version = version
        self._view, self._after, self._seat = view, after, seat
        self._recorded = recorded

    @property
    def view(self) -> dict[str, Any]:
        if self._view is None:
            assert self._after is not None
            self._view = view_json(view_for(self._after, self._seat), self._recorded)
        return self._view

    def as_record(self) -> dict[str, Any]:
        return {"view": self.view, "version": self.version}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Reply) and self.as_record() == other.as_record()

    __hash__ = None  # type: ignore[assignment]  # equal by value, and not immutable


@dataclass(frozen=True, slots=True)
class Created:
    match: Match
    tokens: dict[int, str]
    recorded: Recorded | None = None

    def reply(self) -> dict[str, Any]:
        """What a creation answers: the spectator's view, the people's tokens (shown only
        here), at the match's version."""
        tokens = {str(seat): token for seat, token in self.tokens.items()}
        view = {**view_json(view_for(self.match, None), self.recorded), "tokens": tokens}
        return {"view": view, "version": self.match.version}


def _replayed(record: dict[str, Any]) -> Reply:
    if "refused" in record:
        raise IllegalMove(Violation(record["refused"]), record["detail"])
    return Reply(record["version"], view=record["view"])


class Commands:
    """Every change to a match goes through here, a bot's as a person's."""

    def __init__(self, matches: Matches, entropy: Callable[[int], bytes] = secrets.token_bytes,
                 on_moved: Callable[[Match], None] = lambda _: None,
                 fair: FairUse | None = None,
                 pace: Mapping[str, float] | None = None) -> None:
        self.matches = matches
        self._entropy = entropy
        # The bots' pace, by level: when the bot turns its appends mark as owed fall due.
        self.pace: Mapping[str, float] = dict(pace or {})
        self.on_moved = on_moved  # hands the match to its bots, if any now must act
        self.fair = fair or FairUse()

    def create(self, seats: Sequence[SeatSpec], rules: Rules, client_seed: str = "",
               decks: Sequence[Sequence[Card]] = (), match_id: str | None = None,
               owner: str = "") -> Created:
        """A new match: the seed drawn here, the tokens shown once and kept only as hashes.
        `owner` (the client address) counts a match of bots alone against its cap."""
        for seat in seats:
            if seat.bot is not None:
                policy_named(seat.bot)
        alone = bots_alone(seats)
        match_id = match_id or new_match_id()
        secret = Secret(self._entropy(32), tuple(tuple(d) for d in decks))
        command = CreateMatch(match_id, tuple(seats), rules, client_seed, secret,
                              self.matches.now())
        events = decide(None, command)
        tokens = {s: secrets.token_urlsafe(32) for s, spec in enumerate(seats) if spec.bot is None}
        created = fold(events)
        assert created is not None
        at = self.matches.now()  # one time for the events, known to the clock's reckoning
        recorded = self.matches.recorded_by(match_id, 0, at)
        meta = {"secret": secret_json(secret),
                "tokens": json.dumps({token_hash(t): s for s, t in tokens.items()}),
                **marks(created, parse_instant(at), self.pace),
                **clock_marks(created, recorded)}
        cap = None
        if alone:
            meta[BOTS_ONLY] = owner or "?"
            cap = bot_matches_cap(meta[BOTS_ONLY], self.fair)
        try:
            self.matches.append(match_id, events, 0, meta, lambda: at, cap=cap)
        except CapReached as reached:
            raise capped(reached, self.fair) from None
        for token in tokens.values():
            self.matches.store.put_meta(TOKEN_INDEX, token_hash(token), match_id)
        self.matches.remember(created)  # the state just folded: no need to read it back
        self.on_moved(created)
        return Created(created, tokens, recorded)

    def abandon(self, match_id: str, seat: int | None, reason: AbandonReason,
                expected_version: int | None = None,
                idempotency: Idempotency | None = None) -> Reply:
        """End the match unplayed: by a person at the table (`seat`), or by the service."""
        return self.submit(match_id, seat, lambda s: AbandonMatch(reason, seat, s),
                           expected_version, idempotency)

    def submit(self, match_id: str, seat: int | None, command: Callable[[Secret], Command],
               expected_version: int | None = None,
               idempotency: Idempotency | None = None,
               stamp: Callable[[], str] | None = None) -> Reply:
        """Decide and append; on a race, decide again on the new state unless If-Match.

        The reply is the seat's view after the move. With an Idempotency-Key, the reply (or
        the refusal) is stored with the events, and a retry gets it back, appending nothing;
        a retry that lost a race to its original finds the reply on its next pass, before
        If-Match is looked at. `stamp` gives the events' recorded_at (default: now).
        """
        secret = self.matches.secret(match_id)
        slot = idempotency.slot(seat) if idempotency and seat is not None else None
        for _ in range(RETRIES):
            state = self.matches.load(match_id)
            if idempotency and slot:
                stored = self.matches.store.get_meta(match_id, slot)
                if stored is not None:
                    return _replayed(idempotency.replay(stored))
            if expected_version is not None and state.version != expected_version:
                raise VersionConflict(expected_version, state.version)
            events = self._decide(state, command(secret), idempotency, slot)
            reply = self._try_append(state, seat, events, idempotency, slot, stamp)
            if reply is not None:
                return reply
            if expected_version is not None and not slot:
                raise VersionConflict(expected_version, self.matches.store.version(match_id))
        raise VersionConflict(state.version, self.matches.store.version(match_id))

    def _decide(self, state: Match, command: Command, idempotency: Idempotency | None,
                slot: str | None) -> list[Event]:
        """The command's events; a refusal under an Idempotency-Key is kept for its retries."""
        try:
            return decide(state, command)
        except IllegalMove as refusal:
            if idempotency and slot:
                refused = {"refused": refusal.code.value, "detail": refusal.detail}
                self.matches.store.put_meta(state.id, slot, idempotency.record(refused),
                                            if_absent=True)
            raise

    def _try_append(self, state: Match, seat: int | None, events: list[Event],
                    idempotency: Idempotency | None, slot: str | None,
                    stamp: Callable[[], str] | None) -> Reply | None:
        """The mover's reply once the events are stored; None if another move came first."""
        after = fold(events, state)
        assert after is not None
        at = (stamp or self.matches.now)()  # one time for the events, known to the reply
        recorded = self.matches.recorded_by(state.id, state.version, at)
        reply = Reply(after.version, after=after, seat=seat, recorded=recorded)
        meta = {**marks(after, parse_instant(at), self.pace), **clock_marks(after, recorded)}
        if idempotency and slot:
            meta[slot] = idempotency.record(reply.as_record())
        try:
            self.matches.append(state.id, events, state.version, meta, lambda: at)
        except ConcurrencyError:
            return None
        self.matches.remember(after)
        self.on_moved(after)
        return reply
