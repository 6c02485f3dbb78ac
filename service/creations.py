"""A creation under an Idempotency-Key: claimed before anything is created, so that twins
racing with one key create one match and all get its reply."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, cast

from domain.cards import Card
from domain.events import SeatSpec
from domain.rules import Rules
from eventstore import ConcurrencyError
from service.commands import Commands, new_match_id
from service.errors import StillInProgress
from service.fair_use import check_bot_matches
from service.idempotency import CREATION_TTL, CREATIONS, Idempotency
from service.waiting import bots_alone

CLAIM_PATIENCE = 10.0  # seconds a twin creation waits for the reply of the one that claimed
CLAIM_POLL = 0.02
STALE_CLAIM = 30.0  # a claim this old whose match does not exist was left by a dead process


class Creations:
    def __init__(self, commands: Commands, clock: Callable[[], float] = time.time) -> None:
        self.commands = commands
        self.store = commands.matches.store
        self._clock = clock

    def create_once(self, idempotency: Idempotency, seats: Sequence[SeatSpec], rules: Rules,
                    client_seed: str, decks: Sequence[Sequence[Card]],
                    owner: str = "") -> dict[str, Any]:
        """The creation's reply, the first one's for a key seen in the last CREATION_TTL."""
        request = (seats, rules, client_seed, decks, owner)
        now = self._clock()
        period = int(now // CREATION_TTL)
        for looked in (period, period - 1):  # a key is kept in the period it came in
            stored = self.store.get_meta(CREATIONS, idempotency.slot(None, looked))
            if stored is not None:
                record = idempotency.unseal(stored)
                if now - record["at"] < CREATION_TTL:
                    return self._await(idempotency, looked, record, request)
        if bots_alone(seats):  # refused before the key is claimed
            check_bot_matches(self.store, owner, self.commands.fair)
        match_id = new_match_id()
        claim = idempotency.record(None, at=now, match=match_id)
        slot = idempotency.slot(None, period)
        if self.store.put_meta(CREATIONS, slot, idempotency.seal(claim), if_absent=True):
            return self._create(idempotency, slot, match_id, now, request)
        stored = self.store.get_meta(CREATIONS, slot)
        assert stored is not None
        return self._await(idempotency, period, idempotency.unseal(stored), request)

    def _create(self, idempotency: Idempotency, slot: str, match_id: str, at: float,
                request: tuple[Any, ...]) -> dict[str, Any]:
        seats, rules, client_seed, decks, owner = request
        reply = self.commands.create(seats, rules, client_seed, decks, match_id, owner).reply()
        record = idempotency.record(reply, at=at, match=match_id)
        self.store.put_meta(CREATIONS, slot, idempotency.seal(record))
        return reply

    def _await(self, idempotency: Idempotency, period: int, record: dict[str, Any],
               request: tuple[Any, ...]) -> dict[str, Any]:
        """The reply of the creation that claimed the key, once it is there. A claim left by
        a process that died before creating its match is taken over, for the same match id:
        the append at version 0 lets only one creator through."""
        slot = idempotency.slot(None, period)
        deadline = time.monotonic() + CLAIM_PATIENCE
        while record["reply"] is None:
            stale = self._clock() - record["at"] > STALE_CLAIM
            if stale and self.store.version(record["match"]) == 0:
                try:
                    return self._create(idempotency, slot, record["match"], record["at"],
                                        request)
                except ConcurrencyError:
                    pass  # the first creator woke up and finished: read its reply
            if time.monotonic() > deadline:
                raise StillInProgress("the first request with this Idempotency-Key is still"
                                      " being handled; retry in a moment")
            time.sleep(CLAIM_POLL)
            stored = self.store.get_meta(CREATIONS, slot)
            assert stored is not None
            record = idempotency.unseal(stored)
        return cast(dict[str, Any], record["reply"])
