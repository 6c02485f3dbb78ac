"""The one store interface, its values and the hash chain every backend shares."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

GENESIS_HASH = "0" * 64
MARK = "@"  # a meta key that begins with it is indexed: `EventStore.marked` lists its streams
# A mark that begins with this holds a due time first (epoch seconds, then a space and
# anything else), and the store indexes it by that time too: `EventStore.due` lists the
# streams whose time has come without reading the others.
DUE = MARK + "due:"


def due_time(value: str) -> float:
    """The due time a due mark's value begins with."""
    return float(value.split(" ", 1)[0])


def check_due_mark(key: str, value: str) -> None:
    """ValueError unless a due mark's value (none is "") begins with a finite time."""
    if key.startswith(DUE) and value != "":
        try:
            at = due_time(value)
        except ValueError:
            raise ValueError(f"mark {key!r} must begin with its due time: {value!r}") from None
        if at != at or at in (float("inf"), float("-inf")):
            raise ValueError(f"mark {key!r} must begin with a finite due time: {value!r}")


class StoreError(Exception):
    """The store could not do what was asked (bad URL, unreachable backend)."""


class ConcurrencyError(StoreError):
    """The stream was not at the expected version: nothing was written."""

    def __init__(self, stream: str, expected: int, actual: int) -> None:
        super().__init__(f"stream {stream!r} is at version {actual}, not {expected}")
        self.stream = stream
        self.expected = expected
        self.actual = actual


class CapReached(Exception):
    """An append under a cap found the cap full: nothing was written."""

    def __init__(self, per_value: bool) -> None:
        super().__init__("the cap on this mark's value is reached" if per_value
                         else "the cap on this mark is reached")
        self.per_value = per_value


@dataclass(frozen=True, slots=True)
class Cap:
    """A limit an append checks in the same step as it writes: fewer than `per_value`
    streams marked `key` with `value`, and fewer than `total` marked `key` at all. The store
    counts; what the mark means is the caller's."""

    key: str
    value: str
    per_value: int
    total: int


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append. The hash chain covers `public`, the data as everyone may read it
    (hidden values left out by whoever writes the event); None when that is `data` itself."""

    type: str
    data: Mapping[str, Any]
    recorded_at: str
    public: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class StoredEvent:
    stream: str
    version: int
    type: str
    data: dict[str, Any]
    recorded_at: str
    prev_hash: str
    hash: str


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def chain_hash(prev_hash: str, version: int, type_name: str, data_json: str,
               recorded_at: str) -> str:
    """SHA-256 over the previous hash and the event's canonical JSON."""
    body = f'{{"data":{data_json},"recorded_at":{canonical(recorded_at)},' \
           f'"type":{canonical(type_name)},"version":{version}}}'
    return hashlib.sha256((prev_hash + body).encode()).hexdigest()


def chained(stream: str, events: Sequence[NewEvent], version: int,
            prev_hash: str) -> list[tuple[StoredEvent, str]]:
    """The events as stored after `version`, each with its data's canonical JSON."""
    out = []
    for event in events:
        version += 1
        data_json = canonical(event.data)
        public_json = data_json if event.public is None else canonical(event.public)
        digest = chain_hash(prev_hash, version, event.type, public_json, event.recorded_at)
        out.append((StoredEvent(stream, version, event.type, dict(event.data),
                                event.recorded_at, prev_hash, digest), data_json))
        prev_hash = digest
    return out


class EventStore(Protocol):
    """What every backend offers. Versions count from 1 with no gaps."""

    name: str

    def append(self, stream: str, events: Sequence[NewEvent], expected_version: int,
               meta: Mapping[str, str] | None = None,
               cap: Cap | None = None) -> list[StoredEvent]:
        """Append after `expected_version`, with `meta` written in the same step, or raise
        ConcurrencyError and write nothing. With `cap`, the marks are counted in that same
        step and CapReached raised, writing nothing, when the cap is full."""
        ...

    def read(self, stream: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        """The events with version > `after`, oldest first, at most `limit` of them."""
        ...

    def version(self, stream: str) -> int:
        """How many events the stream holds (0 for none)."""
        ...

    def versions(self, streams: Sequence[str]) -> dict[str, int]:
        """The version of each stream named, in one round trip (0 for none)."""
        ...

    def get_meta(self, stream: str, key: str) -> str | None:
        """A private value kept beside the stream (never part of its events)."""
        ...

    def marked(self, key: str) -> dict[str, str]:
        """Every stream whose meta `key` holds a value other than "", with that value. Only
        for keys that begin with MARK: the store keeps an index of those."""
        ...

    def due(self, key: str, until: float) -> dict[str, str]:
        """Every stream whose due mark `key` (it begins with DUE) holds a due time at or
        before `until`, with the mark's value. Read from the index by due time: the marks
        not yet due are not read."""
        ...

    def put_meta(self, stream: str, key: str, value: str, if_absent: bool = False,
                 if_value: str | None = None) -> bool:
        """Keep a private value beside the stream; with `if_absent`, only if none is there;
        with `if_value`, only if that is the value there now (a compare-and-set: of several
        writers that read the same value, one wins). True when it was written."""
        ...

    def is_empty(self) -> bool:
        """True when no stream holds any event."""
        ...

    def close(self) -> None: ...
