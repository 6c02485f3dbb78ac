"""Matches as event streams: load (from a cache and the events after it), append (sealed
values left out of the hash), and what is kept beside the events (the secret, token hashes)."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from domain.cards import parse_card
from domain.codec import event_type, from_data, to_data
from domain.commands import Secret
from domain.events import Event
from domain.evolve import fold
from domain.sealing import public_form
from domain.state import Match
from eventstore import Cap, ConcurrencyError, EventStore, NewEvent, StoredEvent, StoreError
from eventstore.kept import Kept
from service import metrics
from service.errors import Forbidden, MatchNotFound, Unauthorized
from service.pacing import parse_instant
from service.watch import Watcher

TOKEN_INDEX = "$tokens"  # a stream of its own: token hash -> match id, for 401 against 403
FORMAT_STREAM, FORMAT_KEY = "$store", "format"
# 2: hidden values enter the hash chain only as salted commitments (`sealed`, `salts`).
EVENT_FORMAT = "2"


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def decode(stored: StoredEvent) -> Event:
    return from_data(stored.type, stored.data)


def ensure_format(store: EventStore) -> None:
    """Refuse a store written in another event format; mark a new one with ours.

    Events of format 1 hashed hidden cards in the clear, so their chain cannot be shown
    without giving the cards away: such a store is refused, not migrated.
    """
    found = store.get_meta(FORMAT_STREAM, FORMAT_KEY)
    if found == EVENT_FORMAT:
        return
    if found is None and store.is_empty():
        store.put_meta(FORMAT_STREAM, FORMAT_KEY, EVENT_FORMAT, if_absent=True)
        if store.get_meta(FORMAT_STREAM, FORMAT_KEY) == EVENT_FORMAT:
            return
        found = store.get_meta(FORMAT_STREAM, FORMAT_KEY)
    raise StoreError(f"this {store.name} store holds events of format {found or '1'}; this "
                     f"version reads and writes format {EVENT_FORMAT} only: start it on a new "
                     "store (another --store) or keep the old version for the old one")


def secret_json(secret: Secret) -> str:
    return json.dumps({"server_seed": secret.server_seed.hex(),
                       "decks": [[str(c) for c in d] for d in secret.decks]})


def _secret_from(text: str) -> Secret:
    data = json.loads(text)
    return Secret(bytes.fromhex(data["server_seed"]),
                  tuple(tuple(parse_card(c) for c in d) for d in data["decks"]))


class Matches:
    """One store's matches, with their states, secrets and token hashes kept per process."""

    def __init__(self, store: EventStore, now: Callable[[], str] = utc_now,
                 cache_size: int = 512) -> None:
        ensure_format(store)
        self.store = store
        self.now = now
        self._states: Kept[str, Match] = Kept(cache_size)
        self._tokens: Kept[str, dict[str, int]] = Kept(cache_size)
        self._secrets: Kept[str, Secret] = Kept(cache_size)
        self.watcher = Watcher(store)

    def load(self, match_id: str) -> Match:
        """The match now: the kept state and only the events after it."""
        return self.load_with_news(match_id)[0]

    def load_with_news(self, match_id: str) -> tuple[Match, list[StoredEvent]]:
        """The match now, and the events read to bring the kept state up to it."""
        cached = self._states.get(match_id)
        stored = self.store.read(match_id, after=cached.version if cached else 0)
        if cached is None and not stored:
            raise MatchNotFound(match_id)
        state = fold((decode(e) for e in stored), cached)
        assert state is not None
        self.remember(state)
        return state, stored

    def recorded_at(self, match_id: str, version: int) -> float | None:
        """When event `version` of the match was recorded (seconds since the epoch), or None
        if there is no such event."""
        event = self.store.read(match_id, after=version - 1, limit=1)
        return parse_instant(event[0].recorded_at) if event else None

    def recorded_by(self, match_id: str, stored: int | None = None,
                    at: str | None = None) -> Callable[[int], float | None]:
        """When each event of the match was recorded, read once a version when asked: a turn
        clock's reckoning asks, and no other. Events past version `stored`, about to be
        appended, are recorded `at`."""
        known: dict[int, float | None] = {}

        def recorded(version: int) -> float | None:
            if version in known:
                return known[version]
            if at is not None and stored is not None and version > stored:
                known[version] = parse_instant(at)
            else:
                known[version] = self.recorded_at(match_id, version)
            return known[version]

        return recorded

    def remember(self, state: Match) -> None:
        self._states.put(state.id, state, replaces=lambda known: known.version < state.version)

    def seat_of(self, match_id: str, token: str | None) -> int | None:
        """The seat a bearer token sits in (None: a spectator), else Unauthorized/Forbidden."""
        if match_id not in self._states:
            self.load(match_id)  # raises MatchNotFound, before any word about the token
        if token is None:
            return None
        digest = token_hash(token)
        for known, seat in self._seat_tokens(match_id).items():
            if hmac.compare_digest(known, digest):
                return seat
        if self.store.get_meta(TOKEN_INDEX, digest) is not None:
            raise Forbidden("this token belongs to another match")
        raise Unauthorized("unknown token")

    def _seat_tokens(self, match_id: str) -> dict[str, int]:
        """Token hash -> seat."""
        return self._tokens.get_or_load(match_id, lambda: json.loads(
            self.store.get_meta(match_id, "tokens") or "{}"))

    def secret(self, match_id: str) -> Secret:
        def read() -> Secret:
            text = self.store.get_meta(match_id, "secret")
            if text is None:
                raise MatchNotFound(match_id)
            return _secret_from(text)

        return self._secrets.get_or_load(match_id, read)

    def append(self, match_id: str, events: Sequence[Event], expected: int,
               meta: dict[str, str] | None = None,
               stamp: Callable[[], str] | None = None,
               cap: Cap | None = None) -> list[StoredEvent]:
        """Append with the version check (and `cap`, counted in the same step); the hash
        chain covers each event's public form."""
        at = (stamp or self.now)()
        new = []
        for event in events:
            data = to_data(event)
            new.append(NewEvent(event_type(event), data, at, public_form(data)))
        try:
            stored = self.store.append(match_id, new, expected, meta, cap)
        except ConcurrencyError:
            metrics.APPENDS.labels(self.store.name, "conflict").inc()
            raise
        metrics.APPENDS.labels(self.store.name, "ok").inc()
        if stored:
            self.watcher.appended(match_id, stored[-1].version)
        return stored
