"""The store for several processes and machines: one Redis stream per match.

Entry ids are `0-<version>`, so a version is an id and a read after a version is a range.
The version check and the append happen in one Lua script. A match's own keys share one hash
tag; the index of marked meta (`MARKS`) is one key for all matches, which Redis Cluster would
need spread across slots.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, cast

import redis

from eventstore.base import (
    GENESIS_HASH,
    MARK,
    ConcurrencyError,
    NewEvent,
    StoredEvent,
    StoreError,
    chained,
)

# KEYS: the events stream, the meta hash, the index of marked meta. ARGV: expected version,
# the hash at that version, the stream's name, the meta pairs count, the meta pairs, then six
# fields per event (version, type, data, recorded_at, prev_hash, hash). The hash check lets
# the client chain from the head it last saw without a round trip to read it first.
APPEND = """
local version = redis.call('XLEN', KEYS[1])
local expected = tonumber(ARGV[1])
if version ~= expected then
  return {'conflict', version}
end
if version > 0 then
  local head = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)[1][2]
  if head[10] ~= ARGV[2] then
    return {'stale', version}
  end
end
local metas = tonumber(ARGV[4])
local i = 5
for _ = 1, metas do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  if string.sub(ARGV[i], 1, 1) == '@' then
    local field = ARGV[i] .. '|' .. ARGV[3]
    if ARGV[i + 1] == '' then
      redis.call('HDEL', KEYS[3], field)
    else
      redis.call('HSET', KEYS[3], field, ARGV[i + 1])
    end
  end
  i = i + 2
end
while i <= #ARGV do
  redis.call('XADD', KEYS[1], '0-' .. ARGV[i], 'type', ARGV[i + 1], 'data', ARGV[i + 2],
             'recorded_at', ARGV[i + 3], 'prev_hash', ARGV[i + 4], 'hash', ARGV[i + 5])
  version = version + 1
  i = i + 6
end
return {'ok', version}
"""


# KEYS: the meta hash, the index of marked meta. ARGV: the key, the value, the index field,
# 1 to write only if absent. The value and its index entry change together.
PUT_MARK = """
if ARGV[4] == '1' and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[2], ARGV[3])
else
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[2])
end
return 1
"""
MARKS = "cardems:marks"  # the index of marked meta: "key|stream" -> value

HEADS_KEPT = 10_000


F = TypeVar("F", bound=Callable[..., Any])


def _store_errors(method: F) -> F:
    """Redis's own errors (unreachable, timed out, read-only) as the store's one error."""

    @functools.wraps(method)
    def translated(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except redis.RedisError as exc:
            raise StoreError(f"redis: {exc}") from exc

    return cast(F, translated)


def _glob(text: str) -> str:
    """`text` matched literally in a Redis glob pattern."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)


def _keys(stream: str) -> tuple[str, str]:
    tag = "cardems:{" + stream + "}"
    return tag + ":events", tag + ":meta"


class RedisStore:
    name = "redis"

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self._append = client.register_script(APPEND)
        self._put_mark = client.register_script(PUT_MARK)
        self._heads: dict[str, tuple[int, str]] = {}  # stream -> (version, hash) last seen

    @classmethod
    def from_url(cls, url: str) -> RedisStore:
        return cls(redis.Redis.from_url(url, decode_responses=True, health_check_interval=30))

    @_store_errors
    def append(self, stream: str, events: Sequence[NewEvent], expected_version: int,
               meta: Mapping[str, str] | None = None) -> list[StoredEvent]:
        head = self._heads.get(stream)
        known = head[1] if head and head[0] == expected_version else None
        outcome, version, stored = self._try_append(stream, events, expected_version, meta,
                                                    known)
        if outcome == "stale":  # our remembered head was not the stored one: read it
            outcome, version, stored = self._try_append(stream, events, expected_version, meta,
                                                        None)
        if outcome != "ok":
            self._heads.pop(stream, None)
            raise ConcurrencyError(stream, expected_version, version)
        if stored:
            self._remember_head(stream, stored[-1].version, stored[-1].hash)
        return stored

    def _try_append(self, stream: str, events: Sequence[NewEvent], expected_version: int,
                    meta: Mapping[str, str] | None,
                    prev_hash: str | None) -> tuple[str, int, list[StoredEvent]]:
        if prev_hash is None:
            prev_hash = self._hash_at(stream, expected_version)
        stored = chained(stream, events, expected_version, prev_hash)
        args: list[Any] = [expected_version, prev_hash, stream, len(meta or {})]
        for key, value in (meta or {}).items():
            args += [key, value]
        for event, data in stored:
            args += [event.version, event.type, data, event.recorded_at, event.prev_hash,
                     event.hash]
        try:
            outcome, version = self._append(keys=[*_keys(stream), MARKS], args=args)
        except redis.RedisError as exc:
            raise StoreError(f"redis append failed: {exc}") from exc
        return str(outcome), int(version), [e for e, _ in stored]

    def _remember_head(self, stream: str, version: int, digest: str) -> None:
        if len(self._heads) > HEADS_KEPT:
            self._heads.clear()
        self._heads[stream] = (version, digest)

    def _hash_at(self, stream: str, version: int) -> str:
        if version == 0:
            return GENESIS_HASH
        entries = self.client.xrange(_keys(stream)[0], f"0-{version}", f"0-{version}")
        if not entries:
            raise ConcurrencyError(stream, version, self.version(stream))
        return str(entries[0][1]["hash"])

    @_store_errors
    def read(self, stream: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        entries = self.client.xrange(_keys(stream)[0], f"0-{after + 1}", "+", count=limit)
        events = [_event(stream, entry_id, fields) for entry_id, fields in entries]
        if events:
            self._remember_head(stream, events[-1].version, events[-1].hash)
        return events

    @_store_errors
    def version(self, stream: str) -> int:
        return int(self.client.xlen(_keys(stream)[0]))

    @_store_errors
    def versions(self, streams: Sequence[str]) -> dict[str, int]:
        names = list(dict.fromkeys(streams))
        pipe = self.client.pipeline(transaction=False)
        for stream in names:
            pipe.xlen(_keys(stream)[0])
        return {stream: int(n) for stream, n in zip(names, pipe.execute(), strict=True)}

    @_store_errors
    def get_meta(self, stream: str, key: str) -> str | None:
        value = self.client.hget(_keys(stream)[1], key)
        return None if value is None else str(value)

    @_store_errors
    def marked(self, key: str) -> dict[str, str]:
        prefix = key + "|"
        return {field[len(prefix):]: str(value)
                for field, value in self.client.hscan_iter(MARKS, match=_glob(prefix) + "*")
                if key.startswith(MARK)}

    @_store_errors
    def put_meta(self, stream: str, key: str, value: str, if_absent: bool = False) -> bool:
        if key.startswith(MARK):
            return bool(self._put_mark(keys=[_keys(stream)[1], MARKS],
                                       args=[key, value, f"{key}|{stream}", int(if_absent)]))
        if if_absent:
            return bool(self.client.hsetnx(_keys(stream)[1], key, value))
        self.client.hset(_keys(stream)[1], key, value)
        return True

    @_store_errors
    def is_empty(self) -> bool:
        for _ in self.client.scan_iter(match="cardems:{*}:events", count=1000, _type="stream"):
            return False
        return True

    def close(self) -> None:
        self.client.close()


def _event(stream: str, entry_id: str, fields: dict[str, str]) -> StoredEvent:
    version = int(entry_id.split("-", 1)[1])
    return StoredEvent(stream, version, fields["type"], json.loads(fields["data"]),
                       fields["recorded_at"], fields["prev_hash"], fields["hash"])
