"""Reads: every view, event page, replay, audit, integrity report and live stream of a match,
each as its reader may see it now (the domain's views decide what that is)."""

from __future__ import annotations

import time
from collections.abc import Callable, Generator
from typing import Any

import orjson

from domain.audit import Recorded, trick_audit
from domain.events import Event
from domain.evolve import fold
from domain.state import Match
from domain.views import replay_json, stored_event_json, view_for, view_json
from eventstore import StoredEvent
from eventstore.kept import Kept
from service.errors import MatchNotFound, NotFound
from service.integrity import FRESH_FOR, Walk
from service.matches import Matches, decode

VIEWS_KEPT = 4096  # (match, reader) views kept; a table of four and its spectators is five
WALKS_KEPT = 256  # matches whose checked log (and snapshots before each deal) are kept
ROUND_EVENTS = 400  # more events than any round holds, from its deal to the next one


class Reads:
    def __init__(self, matches: Matches, clock: Callable[[], float] = time.monotonic) -> None:
        self.matches = matches
        self.store = matches.store
        self._clock = clock
        self._walks: Kept[str, Walk] = Kept(WALKS_KEPT)
        # The last view each reader of a match was given, as its JSON, and its version:
        # readers poll a match far more often than it moves, and spectators share one view.
        # Kept as JSON, the 4,096 views take about a fifth of the memory they take as
        # objects (a view's 3 KB of JSON is about 16 KB of dicts and lists; `bench memory`).
        self._views: Kept[tuple[str, int | None], tuple[int, bytes]] = Kept(VIEWS_KEPT)

    def view_body(self, match_id: str, viewer: int | None) -> tuple[bytes, int]:
        """The same view as the JSON the API sends, and its version; kept for the next
        reader of the same version."""
        match = self.matches.load(match_id)
        key = (match_id, viewer)
        kept = self._views.get(key)
        if kept is not None and kept[0] == match.version:
            return kept[1], match.version
        # orjson's bytes keep the whole buffer they were written into (8 KB for a 3 KB
        # view); the copy holds the JSON alone.
        view = view_json(view_for(match, viewer), self.matches.recorded_by(match_id))
        body = bytes(memoryview(orjson.dumps(view)))
        self._views.put(key, (match.version, body))
        return body, match.version

    def events(self, match_id: str, viewer: int | None, after: int = 0,
               limit: int = 100) -> tuple[list[dict[str, Any]], Match]:
        """The log after `after` as `viewer` may see it now. A reader who keeps up (a live
        stream) asks for what loading the match has just read: it is not read twice."""
        now, fresh = self.matches.load_with_news(match_id)
        if fresh and fresh[0].version <= after + 1:
            page = [e for e in fresh if e.version > after][:limit]
        else:
            page = [e for e in self.store.read(match_id, after, limit)
                    if e.version <= now.version]
        return [event_item(e, now, viewer) for e in page], now

    def live(self, match_id: str, viewer: int | None, after: int,
             keepalive: float) -> Generator[list[dict[str, Any]], None, None]:
        """The log after `after`, then each new event as it is appended, a page at a time; an
        empty page when `keepalive` seconds pass with nothing new. Ends after the last event
        of a finished match."""
        while True:
            items, now = self.events(match_id, viewer, after)
            if items:
                after = items[-1]["version"]
                yield items
                continue
            if now.is_over and after >= now.version:
                return
            # Idle: wait on the watcher alone, and read the store only once it has news.
            while not self.matches.watcher.wait(match_id, after, keepalive):
                yield []

    def replay(self, match_id: str, version: int, viewer: int | None) -> dict[str, Any]:
        """The view after `version` events, redacted for `viewer` as the match stands now:
        folded from the snapshot before the latest deal, not from the first event."""
        now = self.matches.load(match_id)
        if not 1 <= version <= now.version:
            raise NotFound(f"the match has {now.version} events, not {version}")
        walk = self._walked(match_id)
        with walk.lock:
            deal, before = walk.before_deal(version)
        after = deal - 1 if deal else 0
        then = fold((decode(e) for e in self.store.read(match_id, after, version - after)),
                    before)
        assert then is not None
        return replay_json(then, now, viewer, self.matches.recorded_by(match_id))

    def audit(self, match_id: str, round_number: int, trick_number: int) -> dict[str, Any]:
        """The audit of one trick, with the hash chain checked up to its last event; folded
        from the snapshot before the round's deal, so it costs one round whatever the
        match's length."""
        now = self.matches.load(match_id)
        walk = self._walked(match_id)
        with walk.lock:
            found = walk.deal_of(round_number)
        if found is None and round_number > now.rounds_dealt:
            raise NotFound(f"round {round_number} is not dealt yet; the match has dealt"
                           f" {now.rounds_dealt}")
        deal, before = found or (0, None)
        stored = self.store.read(match_id, deal - 1, ROUND_EVENTS) if deal \
            else self.store.read(match_id)
        log = [Recorded(e.version, e.hash, decode(e)) for e in stored]
        report = trick_audit(log, round_number, trick_number, now, before)
        if report is None:
            raise NotFound(_no_trick(now, round_number, trick_number))
        last = report.pop("taken_version") or report["plays"][-1]["version"]
        with walk.lock:
            report["chain_ok"] = walk.chain_holds_through(last)
        return report

    def round_log(self, match_id: str, number: int) -> tuple[Match | None, list[tuple[int, Event]]]:
        """The match just before round `number`'s deal, and the events from that deal on
        (as many as any round holds), decoded with their versions."""
        walk = self._walked(match_id)
        with walk.lock:
            found = walk.deal_of(number)
        if found is None:
            raise NotFound(f"round {number} is not dealt")
        deal, before = found
        # No snapshot when the log failed its check before this deal: fold from the first.
        after = deal - 1 if before is not None else 0
        stored = self.store.read(match_id, after, deal - 1 - after + ROUND_EVENTS)
        return before, [(e.version, decode(e)) for e in stored]

    def verify(self, match_id: str) -> dict[str, Any]:
        """The integrity report: each event checked once by this process (and again from
        the first once the walk is FRESH_FOR old), the new ones read from the store."""
        walk = self._walked(match_id)
        with walk.lock:
            return walk.report()

    def _walked(self, match_id: str) -> Walk:
        """The match's walk, brought up to the store's last event."""
        walk = self._walks.get(match_id)
        if walk is None or self._clock() - walk.started > FRESH_FOR:
            walk = Walk(self.matches.secret(match_id), self._clock())
            self._walks.put(match_id, walk)
        with walk.lock:
            walk.extend(self.store.read(match_id, after=walk.version))
            if walk.version == 0:
                raise MatchNotFound(match_id)
        return walk


def _no_trick(now: Match, round_number: int, trick_number: int) -> str:
    tricks = now.table.hand_size
    if trick_number > tricks:
        return f"a round at {now.table.seats} seats has {tricks} tricks, not {trick_number}"
    if now.round_is_over(round_number):
        return f"round {round_number} is over and had {tricks} tricks"
    return f"round {round_number} has no trick {trick_number} yet"


def event_item(stored: StoredEvent, now: Match, viewer: int | None) -> dict[str, Any]:
    """One stored event as `viewer` may see it, given the match as it is `now`."""
    return {"version": stored.version, "type": stored.type,
            "data": stored_event_json(stored.type, stored.data, now, viewer),
            "recorded_at": stored.recorded_at, "hash": stored.hash,
            "prev_hash": stored.prev_hash}
