"""The integrity report of one match: hash chain, replay, deals."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from domain.codec import BadEventData, from_data
from domain.commands import Secret
from domain.events import Event
from domain.sealing import opens, public_form, value_at
from domain.verify import deals_check, replay_check
from eventstore import GENESIS_HASH, StoredEvent, chain_hash
from eventstore.base import canonical


def first_broken_link(stored: Sequence[StoredEvent]) -> int | None:
    """The first version whose hash does not follow from the one before and its public form,
    or whose hidden values do not open their commitments."""
    prev = GENESIS_HASH
    for number, event in enumerate(stored, start=1):
        digest = chain_hash(prev, event.version, event.type,
                            canonical(public_form(event.data)), event.recorded_at)
        if not seals_open(event.data):
            return number
        if event.version != number or event.prev_hash != prev or event.hash != digest:
            return number
        prev = event.hash
    return None


def seals_open(data: dict[str, Any]) -> bool:
    """True when every sealed value in the stored data opens with its stored salt."""
    sealed, salts = data.get("sealed", {}), data.get("salts", {})
    if not isinstance(sealed, dict) or not isinstance(salts, dict):
        return False
    return all(isinstance(c, str) and opens(c, salts.get(path, ""), value_at(data, path))
               for path, c in sealed.items())


def report(stored: Sequence[StoredEvent], secret: Secret) -> dict[str, Any]:
    broken = first_broken_link(stored)
    events: list[Event] = []
    undecodable = None
    for event in stored:
        try:
            events.append(from_data(event.type, event.data))
        except BadEventData:
            undecodable = event.version
            break
    replay = replay_check(events, secret)
    replay_bad = undecodable or replay.first_bad_version
    deals = deals_check(events) if replay_bad is None else None
    bad = [v for v in (broken, replay_bad) if v is not None]
    return {
        "ok": not bad and deals is not False,
        "events": len(stored),
        "chain_ok": broken is None,
        "replay_ok": replay_bad is None,
        "deals_ok": deals,
        "first_bad_version": min(bad) if bad else None,
        "reason": _reason(broken, undecodable, replay.reason, bad),
    }


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
