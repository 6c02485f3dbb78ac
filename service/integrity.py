"""The integrity of one match's log, checked once per event and kept as the log grows.

A `Walk` goes over the stored events in order, a piece at a time: the hash chain and the
commitments, every move decided again, the deals once the match is over. It keeps, besides,
the match as it stood just before each deal (as the fresh decisions that confirm the log
reach it, so nothing is folded twice), so that an audit or a replay folds one round, not
every round before it. A process checks each event once; a
walk older than FRESH_FOR seconds is begun again from the first event, so that an edit made to
the store behind the service's back is found within that time.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence
from typing import Any

from domain.codec import BadEventData, from_data
from domain.commands import Secret
from domain.events import Event, MatchAbandoned, MatchCreated, MatchEnded, RoundDealt
from domain.instants import parse_instant
from domain.sealing import opens, public_form, value_at
from domain.state import Match
from domain.verify import deals_check, replay_check
from eventstore import GENESIS_HASH, StoredEvent, chain_hash
from eventstore.base import canonical

FRESH_FOR = 600.0


def link_holds(event: StoredEvent, version: int, prev_hash: str) -> bool:
    """True when the stored event is number `version`, follows `prev_hash`, hashes to its
    own `hash` over its public form, and every hidden value opens its commitment."""
    digest = chain_hash(prev_hash, event.version, event.type,
                        canonical(public_form(event.data)), event.recorded_at)
    return seals_open(event.data) and event.version == version \
        and event.prev_hash == prev_hash and event.hash == digest


def seals_open(data: dict[str, Any]) -> bool:
    """True when every sealed value in the stored data opens with its stored salt."""
    sealed, salts = data.get("sealed", {}), data.get("salts", {})
    if not isinstance(sealed, dict) or not isinstance(salts, dict):
        return False
    return all(isinstance(c, str) and opens(c, salts.get(path, ""), value_at(data, path))
               for path, c in sealed.items())


class Walk:
    """How far one match's log has been checked, and what the check found."""

    def __init__(self, secret: Secret, started: float) -> None:
        self.lock = threading.Lock()  # one extension at a time; readers wait for it
        self.secret = secret
        self.started = started
        self.version = 0  # events walked
        self._last_hash = GENESIS_HASH
        self.broken: int | None = None  # the first link that does not hold
        self.undecodable: int | None = None
        self._replayed: Match | None = None  # the fresh decisions' state, while they agree
        self.replay_bad: int | None = None
        self.replay_reason: str | None = None
        self._kept: list[Event] = []  # the creation, every deal and the end: the deals check
        self._deals: list[int] = []  # the version of each RoundDealt, in order
        self._before: list[Match | None] = []  # the match just before each of those deals
        self._report: tuple[int, dict[str, Any]] | None = None
        # When each event was recorded, kept only for a match with a turn clock: the check
        # holds each timeout to the clock of its seat.
        self._times: dict[int, float | None] | None = None

    def extend(self, stored: Sequence[StoredEvent]) -> None:
        """Walk on over `stored`, the events after `self.version`, oldest first."""
        events: list[Event] = []
        for event in stored:
            self.version += 1
            if self.broken is None and not link_holds(event, self.version, self._last_hash):
                self.broken = self.version
            self._last_hash = event.hash
            if self.undecodable is None:
                try:
                    decoded = from_data(event.type, event.data)
                except BadEventData:
                    self.undecodable = event.version
                    continue
                events.append(decoded)
                if isinstance(decoded, MatchCreated | RoundDealt | MatchEnded | MatchAbandoned):
                    self._kept.append(decoded)
                if isinstance(decoded, MatchCreated) and decoded.rules.turn_seconds is not None:
                    self._times = {}
            if self._times is not None:
                self._times[event.version] = _instant(event.recorded_at)
        if self.replay_bad is None and events:
            times = self._times
            check = replay_check(events, self.secret, self._replayed, self._dealt,
                                 None if times is None else times.get)
            self._replayed = check.state
            self.replay_bad, self.replay_reason = check.first_bad_version, check.reason

    def _dealt(self, version: int, before: Match | None) -> None:
        """A snapshot for the audits and replays: no deal past a departure gets one, and
        they fold from the first event there."""
        self._deals.append(version)
        self._before.append(before)

    def chain_holds_through(self, version: int) -> bool:
        """True when every link up to `version` (walked already) holds."""
        return self.broken is None or self.broken > version

    def before_deal(self, version: int) -> tuple[int, Match | None]:
        """The latest deal at or before `version` that the walk has a snapshot for, and the
        match just before it: (0, None) for none, to fold from the beginning."""
        i = bisect.bisect_right(self._deals, version) - 1
        if i < 0:
            return 0, None
        return self._deals[i], self._before[i]

    def deal_of(self, round_number: int) -> tuple[int, Match | None] | None:
        """Round `round_number`'s deal (its version and the match before it), if walked:
        rounds are dealt in order, one deal each."""
        if 1 <= round_number <= len(self._deals):
            return self._deals[round_number - 1], self._before[round_number - 1]
        return None

    def report(self) -> dict[str, Any]:
        """What the walk found, made once per version walked (every deal is recomputed for
        it once the match is over)."""
        if self._report is None or self._report[0] != self.version:
            self._report = (self.version, self._made_report())
        return dict(self._report[1])

    def _made_report(self) -> dict[str, Any]:
        replay_bad = self.undecodable or self.replay_bad
        deals = deals_check(self._kept) if replay_bad is None else None
        bad = [v for v in (self.broken, replay_bad) if v is not None]
        return {
            "ok": not bad and deals is not False,
            "events": self.version,
            "chain_ok": self.broken is None,
            "replay_ok": replay_bad is None,
            "deals_ok": deals,
            "first_bad_version": min(bad) if bad else None,
            "reason": _reason(self.broken, self.undecodable, self.replay_reason, bad),
        }


def _instant(text: str) -> float | None:
    try:
        return parse_instant(text)
    except (ValueError, TypeError, AttributeError):
        return None  # a time that does not parse: the chain's check says the event changed


def report(stored: Sequence[StoredEvent], secret: Secret) -> dict[str, Any]:
    """The integrity report of a whole log, walked from its first event."""
    walk = Walk(secret, 0.0)
    walk.extend(stored)
    return walk.report()


def _reason(broken: int | None, undecodable: int | None, replay: str | None,
            bad: list[int]) -> str | None:
    if not bad:
        return None
    if broken is not None and broken == min(bad):
        return "the hash chain breaks here, or a hidden value does not open its commitment:" \
            " the stored event was changed"
    if undecodable is not None:
        return "the stored event does not decode"
    return replay
