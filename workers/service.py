"""The application service: load a match, decide a command, append, hand bot turns on.

The API and the bot workers both go through here, so a bot's move and a person's move take
the same path and meet the same rules, versions and redaction.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from random import Random
from typing import Any

from domain.audit import Recorded, trick_audit
from domain.bots.base import Policy, bot_command, policy_named
from domain.cards import Card, parse_card, spell
from domain.codec import event_type, from_data, to_data
from domain.commands import ChooseMoon, Command, CreateMatch, PassCards, PlayCard, Secret
from domain.decide import decide
from domain.errors import IllegalMove, Violation
from domain.events import Event, SeatSpec
from domain.evolve import fold
from domain.rules import MoonRule, Rules
from domain.sealing import public_form
from domain.state import Match
from domain.views import MatchView, event_json, seats_to_act, view_for, view_json
from eventstore import ConcurrencyError, EventStore, NewEvent, StoredEvent, StoreError
from workers import integrity
from workers.dispatch import Dispatcher
from workers.errors import (
    Forbidden,
    MatchNotFound,
    NotFound,
    StillInProgress,
    Unauthorized,
    VersionConflict,
)
from workers.idempotency import CREATION_TTL, CREATIONS, Idempotency
from workers.pacing import instant_text, parse_instant

log = logging.getLogger(__name__)

TOKEN_INDEX = "$tokens"  # a stream of its own: token hash -> match id, for 401 against 403
RETRIES = 8
FORMAT_STREAM, FORMAT_KEY = "$store", "format"
# 2: hidden values enter the hash chain only as salted commitments (`sealed`, `salts`).
EVENT_FORMAT = "2"


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


THINKING_SHARE = 0.75  # of a paced bot's time goes to thinking; the rest is its margin
LATE = 0.05  # seconds past its due time after which a paced move is recorded as late
CLAIM_PATIENCE = 10.0  # seconds a twin creation waits for the reply of the one that claimed
CLAIM_POLL = 0.02
STALE_CLAIM = 30.0  # a claim this old whose match does not exist was left by a dead process


def new_match_id() -> str:
    return secrets.token_urlsafe(16)


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Reply:
    """What a move answers: the mover's view after it, at that version."""

    view: dict[str, Any]
    version: int

    def as_record(self) -> dict[str, Any]:
        return {"view": self.view, "version": self.version}


def _replayed(record: dict[str, Any]) -> Reply:
    if "refused" in record:
        raise IllegalMove(Violation(record["refused"]), record["detail"])
    return Reply(record["view"], record["version"])


@dataclass(frozen=True, slots=True)
class Created:
    match: Match
    tokens: dict[int, str]


class Game:
    """Matches as event streams in one store, with bot turns handed to one dispatcher."""

    def __init__(self, store: EventStore, dispatcher: Dispatcher | None = None,
                 now: Callable[[], str] = utc_now,
                 entropy: Callable[[int], bytes] = secrets.token_bytes,
                 clock: Callable[[], float] = time.time,
                 pace: Mapping[str, float] | None = None, think_slots: int = 2,
                 cache_size: int = 512) -> None:
        ensure_format(store)
        self.store = store
        self.dispatcher = dispatcher
        self._now = now
        self._entropy = entropy
        self._clock = clock
        self._pace = dict(pace or {})
        self._thinking = threading.BoundedSemaphore(think_slots)  # bots that think at once
        self._cache: OrderedDict[str, Match] = OrderedDict()
        self._tokens: OrderedDict[str, dict[str, int]] = OrderedDict()
        self._secrets: OrderedDict[str, Secret] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    # -- matches ------------------------------------------------------------------------

    def create_once(self, idempotency: Idempotency, seats: Sequence[SeatSpec], rules: Rules,
                    client_seed: str, decks: Sequence[Sequence[Card]],
                    render: Callable[[Created], dict[str, Any]]) -> dict[str, Any]:
        """Create a match once per Idempotency-Key: a retry, even one that races the first
        request, gets the first reply. The key is claimed before anything is created, so
        simultaneous twins create one match between them."""
        now = self._clock()
        period = int(now // CREATION_TTL)
        for looked in (period, period - 1):
            stored = self.store.get_meta(CREATIONS, idempotency.slot(None, looked))
            if stored is not None:
                record = idempotency.unseal(stored)
                if now - record["at"] < CREATION_TTL:
                    return self._await_creation(idempotency, looked, record, seats, rules,
                                                client_seed, decks, render)
        match_id = new_match_id()
        claim = idempotency.record(None, at=now, match=match_id)
        slot = idempotency.slot(None, period)
        if self.store.put_meta(CREATIONS, slot, idempotency.seal(claim), if_absent=True):
            return self._create_claimed(idempotency, slot, match_id, now, seats, rules,
                                        client_seed, decks, render)
        stored = self.store.get_meta(CREATIONS, slot)
        assert stored is not None
        return self._await_creation(idempotency, period, idempotency.unseal(stored), seats,
                                    rules, client_seed, decks, render)

    def _create_claimed(self, idempotency: Idempotency, slot: str, match_id: str, at: float,
                        seats: Sequence[SeatSpec], rules: Rules, client_seed: str,
                        decks: Sequence[Sequence[Card]],
                        render: Callable[[Created], dict[str, Any]]) -> dict[str, Any]:
        reply = render(self.create(seats, rules, client_seed, decks, match_id))
        record = idempotency.record(reply, at=at, match=match_id)
        self.store.put_meta(CREATIONS, slot, idempotency.seal(record))
        return reply

    def _await_creation(self, idempotency: Idempotency, period: int, record: dict[str, Any],
                        seats: Sequence[SeatSpec], rules: Rules, client_seed: str,
                        decks: Sequence[Sequence[Card]],
                        render: Callable[[Created], dict[str, Any]]) -> dict[str, Any]:
        """The reply of the creation that claimed the key, once it is there. A claim left by
        a process that died before creating its match is taken over, for the same match id:
        the append at version 0 lets only one creator through."""
        slot = idempotency.slot(None, period)
        deadline = time.monotonic() + CLAIM_PATIENCE
        while record["reply"] is None:
            stale = self._clock() - record["at"] > STALE_CLAIM
            if stale and self.store.version(record["match"]) == 0:
                try:
                    return self._create_claimed(idempotency, slot, record["match"],
                                                record["at"], seats, rules, client_seed,
                                                decks, render)
                except ConcurrencyError:
                    pass  # the first creator woke up and finished: read its reply
            if time.monotonic() > deadline:
                raise StillInProgress("the first request with this Idempotency-Key is still"
                                      " being handled; retry in a moment")
            time.sleep(CLAIM_POLL)
            stored = self.store.get_meta(CREATIONS, slot)
            assert stored is not None
            record = idempotency.unseal(stored)
        return record["reply"]  # type: ignore[no-any-return]

    def create(self, seats: Sequence[SeatSpec], rules: Rules, client_seed: str = "",
               decks: Sequence[Sequence[Card]] = (), match_id: str | None = None) -> Created:
        """A new match: the seed drawn here, the tokens shown once and kept only as hashes."""
        for seat in seats:
            if seat.bot is not None:
                policy_named(seat.bot)
        match_id = match_id or new_match_id()
        secret = Secret(self._entropy(32), tuple(tuple(d) for d in decks))
        command = CreateMatch(match_id, tuple(seats), rules, client_seed, secret, self._now())
        events = decide(None, command)
        tokens = {s: secrets.token_urlsafe(32) for s, spec in enumerate(seats) if spec.bot is None}
        meta = {"secret": _secret_json(secret),
                "tokens": json.dumps({token_hash(t): s for s, t in tokens.items()})}
        self._append(match_id, events, 0, meta)
        for token in tokens.values():
            self.store.put_meta(TOKEN_INDEX, token_hash(token), match_id)
        match = self.load(match_id)
        self._hand_to_bots(match)
        return Created(match, tokens)

    def load(self, match_id: str) -> Match:
        """The match now: the cached state and only the events after it."""
        with self._lock:
            cached = self._cache.get(match_id)
        stored = self.store.read(match_id, after=cached.version if cached else 0)
        if cached is None and not stored:
            raise MatchNotFound(match_id)
        state = fold((decode(e) for e in stored), cached)
        assert state is not None
        self._remember(state)
        return state

    def _remember(self, state: Match) -> None:
        with self._lock:
            known = self._cache.get(state.id)
            if known is None or known.version < state.version:
                self._cache[state.id] = state
            self._cache.move_to_end(state.id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def seat_of(self, match_id: str, token: str | None) -> int | None:
        """The seat a bearer token sits in (None: a spectator), else Unauthorized/Forbidden."""
        with self._lock:
            known_match = match_id in self._cache
        if not known_match:
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
        return self._kept(self._tokens, match_id, lambda: json.loads(
            self.store.get_meta(match_id, "tokens") or "{}"))

    # -- moves --------------------------------------------------------------------------

    def pass_cards(self, match_id: str, seat: int, cards: Sequence[Card],
                   expected_version: int | None = None,
                   idempotency: Idempotency | None = None) -> Reply:
        return self.submit(match_id, seat, lambda secret: PassCards(seat, tuple(cards), secret),
                           expected_version, idempotency)

    def play_card(self, match_id: str, seat: int, card: Card,
                  expected_version: int | None = None,
                  idempotency: Idempotency | None = None) -> Reply:
        return self.submit(match_id, seat, lambda secret: PlayCard(seat, card, secret),
                           expected_version, idempotency)

    def choose_moon(self, match_id: str, seat: int, choice: MoonRule,
                    expected_version: int | None = None,
                    idempotency: Idempotency | None = None) -> Reply:
        return self.submit(match_id, seat, lambda secret: ChooseMoon(seat, choice, secret),
                           expected_version, idempotency)

    def submit(self, match_id: str, seat: int, command: Callable[[Secret], Command],
               expected_version: int | None = None,
               idempotency: Idempotency | None = None,
               stamp: Callable[[], str] | None = None) -> Reply:
        """Decide and append; on a race, decide again on the new state unless If-Match.

        The reply is the seat's view after the move. With an Idempotency-Key, the reply (or
        the refusal) is stored with the events, and a retry gets it back, appending nothing.
        `stamp` gives the events' recorded_at (default: now).
        """
        secret = self._secret(match_id)
        slot = idempotency.slot(seat) if idempotency else None
        for _ in range(RETRIES):
            state = self.load(match_id)
            if idempotency and slot:
                stored = self.store.get_meta(match_id, slot)
                if stored is not None:
                    return _replayed(idempotency.replay(stored))
            if expected_version is not None and state.version != expected_version:
                raise VersionConflict(expected_version, state.version)
            try:
                events = decide(state, command(secret))
            except IllegalMove as refusal:
                if idempotency and slot:
                    refused = {"refused": refusal.code.value, "detail": refusal.detail}
                    self.store.put_meta(match_id, slot, idempotency.record(refused),
                                        if_absent=True)
                raise
            after = fold(events, state)
            assert after is not None
            reply = Reply(view_json(view_for(after, seat)), after.version)
            meta = {slot: idempotency.record(reply.as_record())} if idempotency and slot else None
            try:
                self._append(match_id, events, state.version, meta, stamp)
            except ConcurrencyError as race:
                # A retry that raced its original finds the original's reply on the next
                # pass, before If-Match is looked at.
                if expected_version is not None and not slot:
                    raise VersionConflict(expected_version, race.actual) from None
                continue
            self._remember(after)
            self._hand_to_bots(after)
            return reply
        raise VersionConflict(state.version, self.store.version(match_id))

    def verify(self, match_id: str) -> dict[str, Any]:
        """The integrity report, read afresh from the store (never from the cache)."""
        stored = self.store.read(match_id)
        if not stored:
            raise MatchNotFound(match_id)
        return integrity.report(stored, self._secret(match_id))

    def bot_turn(self, match_id: str, seat: int, version: int, rerun: bool = False) -> bool:
        """Let the bot in `seat` act if the match still waits for it; harmless if run twice.

        A `rerun` is a turn queued again because whoever ran it first went quiet. That one
        may have died after its move was stored but before it handed the match on, so a
        rerun that finds its move made hands the match on from where it stands now.
        """
        state = self.load(match_id)
        bot = state.seats[seat].bot
        if bot is None or seat not in seats_to_act(state):
            if rerun:
                self._hand_to_bots(state)
            return False
        policy = policy_named(bot)
        rng = Random(hashlib.sha256(f"{match_id}:{seat}:{state.version}".encode()).digest())
        view = view_for(state, seat)
        due = self._due(match_id, state.version, bot)

        def command(secret: Secret) -> Command:
            chosen = self._think(view, policy, rng, secret, due)
            assert chosen is not None, "the seat was checked to be waited for"
            self._wait_until(due[1] if due else None)
            return chosen

        def on_the_beat() -> str:
            # A paced move is recorded at its due time to the millisecond, not at the moment
            # its write began a little after: a late one (the machine too busy) as it is.
            if due is None or self._clock() > due[1] + LATE:
                return self._now()
            return instant_text(due[1])

        try:
            self.submit(match_id, seat, command, expected_version=state.version,
                        stamp=on_the_beat)
        except VersionConflict:
            return False  # someone moved first; the turn is handed on again from there
        return True

    def _due(self, match_id: str, version: int, bot: str) -> tuple[float, float] | None:
        """Until when the bot may think, and when its move is recorded: its pace after the
        event it answers. None: no pace, the bot thinks it through and moves at once.

        How long a bot takes to choose depends on its cards (one legal card is chosen at
        once), and the record's time and its arrival on the stream are public; so a paced
        bot's move waits until its due time whatever it held, and a search is cut short in
        time to make it even when the machine is busy.
        """
        pace = self._pace.get(bot, 0.0)
        if pace <= 0:
            return None
        last = self.store.read(match_id, after=version - 1, limit=1)
        if not last:
            return None
        anchor = parse_instant(last[0].recorded_at)
        return anchor + pace * THINKING_SHARE, anchor + pace

    def _think(self, view: MatchView, policy: Policy, rng: Random, secret: Secret,
               due: tuple[float, float] | None) -> Command | None:
        """The bot's command, its search stopped at its thinking deadline if it has one."""
        if due is None:
            with self._thinking:
                return bot_command(view, policy, rng, secret)
        stop = due[0]

        def drive(search: Iterator[Card]) -> Card:
            best = next(search)
            for best in search:  # noqa: B007 - the last card yielded is the answer
                if self._clock() >= stop:
                    break
            return best

        # A turn that cannot get a thinking slot by its deadline decides on one deal.
        slot = self._thinking.acquire(timeout=max(0.0, stop - self._clock()))
        try:
            return bot_command(view, policy, rng, secret, drive)
        finally:
            if slot:
                self._thinking.release()

    def _wait_until(self, due: float | None) -> None:
        if due is None:
            return
        while (left := due - self._clock()) > 0:
            time.sleep(left)

    def _hand_to_bots(self, state: Match) -> None:
        if self.dispatcher is None:
            return
        for seat in seats_to_act(state):
            if state.seats[seat].bot is None:
                continue
            try:
                self.dispatcher.enqueue(state.id, seat, state.version)
            except Exception:  # the move is stored; a failed hand-off must not undo the reply
                log.exception("could not hand seat %s of %s to the bots", seat, state.id)

    # -- reading ------------------------------------------------------------------------

    def events(self, match_id: str, viewer: int | None, after: int = 0,
               limit: int = 100) -> tuple[list[dict[str, Any]], Match]:
        """The log after `after` as `viewer` may see it now."""
        now = self.load(match_id)
        page = [e for e in self.store.read(match_id, after, limit) if e.version <= now.version]
        return [self.event_item(e, now, viewer) for e in page], now

    @staticmethod
    def event_item(stored: StoredEvent, now: Match, viewer: int | None) -> dict[str, Any]:
        """One stored event as `viewer` may see it, given the match as it is `now`."""
        return {"version": stored.version, "type": stored.type,
                "data": event_json(decode(stored), now, viewer),
                "recorded_at": stored.recorded_at, "hash": stored.hash,
                "prev_hash": stored.prev_hash}

    def replay(self, match_id: str, version: int, viewer: int | None) -> dict[str, Any]:
        """The view after `version` events, redacted for `viewer` as the match stands now.

        Besides the usual view, `hands` shows each seat's hand at that moment where the viewer
        may see it now: its own, or every hand of a round that is over.
        """
        now = self.load(match_id)
        if not 1 <= version <= now.version:
            raise NotFound(f"the match has {now.version} events, not {version}")
        then = fold(decode(e) for e in self.store.read(match_id, 0, version))
        assert then is not None
        view = view_json(view_for(then, viewer))
        rnd = then.round
        public = rnd is not None and now.round_is_over(rnd.number)
        view["hands"] = [spell(rnd.hands[s]) if rnd and (public or s == viewer) else None
                         for s in range(len(then.seats))]
        return view

    def audit(self, match_id: str, round_number: int, trick_number: int) -> dict[str, Any]:
        """The audit of one trick, with the hash chain checked up to its last event."""
        now = self.load(match_id)
        stored = self.store.read(match_id)
        log = [Recorded(e.version, e.hash, decode(e)) for e in stored]
        report = trick_audit(log, round_number, trick_number, now)
        if report is None:
            raise NotFound(f"round {round_number} has no trick {trick_number} yet")
        last = report.pop("taken_version") or report["plays"][-1]["version"]
        report["chain_ok"] = integrity.first_broken_link(stored[:last]) is None
        return report

    # -- storage ------------------------------------------------------------------------

    def _append(self, match_id: str, events: list[Event], expected: int,
                meta: dict[str, str] | None = None,
                stamp: Callable[[], str] | None = None) -> list[StoredEvent]:
        at = (stamp or self._now)()
        new = []
        for event in events:
            data = to_data(event)
            new.append(NewEvent(event_type(event), data, at, public_form(data)))
        return self.store.append(match_id, new, expected, meta)

    def _secret(self, match_id: str) -> Secret:
        return self._kept(self._secrets, match_id, lambda: self._read_secret(match_id))

    def _read_secret(self, match_id: str) -> Secret:
        text = self.store.get_meta(match_id, "secret")
        if text is None:
            raise MatchNotFound(match_id)
        data = json.loads(text)
        return Secret(bytes.fromhex(data["server_seed"]),
                      tuple(tuple(parse_card(c) for c in d) for d in data["decks"]))

    def _kept(self, cache: OrderedDict[str, Any], match_id: str, load: Callable[[], Any]) -> Any:
        """A per-match value that never changes (secret, token hashes), read once a process."""
        with self._lock:
            if match_id in cache:
                return cache[match_id]
        value = load()
        with self._lock:
            cache[match_id] = value
            while len(cache) > self._cache_size:
                cache.popitem(last=False)
        return value


def decode(stored: StoredEvent) -> Event:
    return from_data(stored.type, stored.data)


def _secret_json(secret: Secret) -> str:
    return json.dumps({"server_seed": secret.server_seed.hex(),
                       "decks": [[str(c) for c in d] for d in secret.decks]})

