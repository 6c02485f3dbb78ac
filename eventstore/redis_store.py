"""The store for several processes and machines: one Redis stream per match.

Entry ids are `0-<version>`, so a version is an id and a read after a version is a range.
The version check and the append happen in one Lua script, which also keeps the index of
marked meta in step, so every key it touches must live in one hash slot. On one Redis a
match's own keys share a hash tag and the index is one key. On Redis Cluster
(`redis+cluster://`) the matches are spread over `BUCKETS` hash tags, each with an index of its
own: a match's keys and its bucket's index share a slot, and the buckets spread over the
cluster's nodes. There an append is acknowledged only once `WAIT` has seen it reach a replica
(`?wait=0` turns that off; docs/deploy.md says what each costs and risks).
"""

from __future__ import annotations

import functools
import json
import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, cast

import redis
from redis.cluster import RedisCluster

from eventstore.base import (
    DUE,
    GENESIS_HASH,
    MARK,
    Cap,
    CapReached,
    ConcurrencyError,
    NewEvent,
    StoredEvent,
    StoreError,
    chained,
    check_due_mark,
)
from eventstore.kept import Kept
from eventstore.open import StoreConfig

# Shared by the scripts: the counts of marks kept beside their index ("key|value" and "key|"
# for all values), for the appends that check a cap. A store written before the counts
# existed has them built from the index the first time a cap is checked ('#built').
COUNTING = """
local function recount(index, counts, key, field, new)
  if redis.call('HEXISTS', counts, '#built') == 0 then
    return
  end
  local old = redis.call('HGET', index, field)
  if old then
    redis.call('HINCRBY', counts, key .. '|' .. old, -1)
    redis.call('HINCRBY', counts, key .. '|', -1)
  end
  if new ~= '' then
    redis.call('HINCRBY', counts, key .. '|' .. new, 1)
    redis.call('HINCRBY', counts, key .. '|', 1)
  end
end
local function build(index, counts)
  if redis.call('HEXISTS', counts, '#built') == 1 then
    return
  end
  redis.call('DEL', counts)
  local all = redis.call('HGETALL', index)
  for j = 1, #all, 2 do
    local key = string.match(all[j], '^(.*)|[^|]*$')
    redis.call('HINCRBY', counts, key .. '|' .. all[j + 1], 1)
    redis.call('HINCRBY', counts, key .. '|', 1)
  end
  redis.call('HSET', counts, '#built', 1)
end
-- A due mark is also in the schedule, a sorted set of index fields by due time: its value
-- begins with that time.
local function schedule(due, key, field, value)
  if string.sub(key, 1, 5) ~= '@due:' then
    return
  end
  if value == '' then
    redis.call('ZREM', due, field)
  else
    redis.call('ZADD', due, tonumber(string.match(value, '^[^ ]+')), field)
  end
end
"""

# KEYS: the events stream, the meta hash, the index of marked meta, the counts of marks, the
# schedule of due marks. ARGV: expected version, the hash at that version, the stream's name,
# the cap (its key, its value, the most streams of that value, the most in all; an empty key
# for none), the meta pairs count, the meta pairs, then six fields per event (version, type,
# data, recorded_at, prev_hash, hash). The hash check lets the client chain from the head it
# last saw without a round trip to read it first.
APPEND = COUNTING + """
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
if ARGV[4] ~= '' then
  build(KEYS[3], KEYS[4])
  local mine = redis.call('HGET', KEYS[3], ARGV[4] .. '|' .. ARGV[3])
  local same = tonumber(redis.call('HGET', KEYS[4], ARGV[4] .. '|' .. ARGV[5]) or '0')
  local all = tonumber(redis.call('HGET', KEYS[4], ARGV[4] .. '|') or '0')
  if mine then
    all = all - 1
    if mine == ARGV[5] then same = same - 1 end
  end
  if same >= tonumber(ARGV[6]) then
    return {'capped-value', version}
  end
  if all >= tonumber(ARGV[7]) then
    return {'capped', version}
  end
end
local metas = tonumber(ARGV[8])
local i = 9
for _ = 1, metas do
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
  if string.sub(ARGV[i], 1, 1) == '@' then
    local field = ARGV[i] .. '|' .. ARGV[3]
    recount(KEYS[3], KEYS[4], ARGV[i], field, ARGV[i + 1])
    if ARGV[i + 1] == '' then
      redis.call('HDEL', KEYS[3], field)
    else
      redis.call('HSET', KEYS[3], field, ARGV[i + 1])
    end
    schedule(KEYS[5], ARGV[i], field, ARGV[i + 1])
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


# KEYS: the meta hash, the index of marked meta, the counts of marks, the schedule of due
# marks (the last three kept for a mark only). ARGV: the key, the value, the index field, the
# condition ('' none, 'absent' only if there is no value, 'equal' only if the value is
# ARGV[5]). The value, its index entry, its place in the schedule and the counts change
# together.
PUT_MARK = COUNTING + """
if ARGV[4] == 'absent' and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  return 0
end
if ARGV[4] == 'equal' and redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[5] then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if string.sub(ARGV[1], 1, 1) ~= '@' then
  return 1
end
recount(KEYS[2], KEYS[3], ARGV[1], ARGV[3], ARGV[2])
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[2], ARGV[3])
else
  redis.call('HSET', KEYS[2], ARGV[3], ARGV[2])
end
schedule(KEYS[4], ARGV[1], ARGV[3], ARGV[2])
return 1
"""
MARKS = "cardems:marks"  # the index of marked meta: "key|stream" -> value
SCHEDULE = "cardems:due"  # the due marks' index fields, scored by due time
BUCKETS = 128  # hash tags the matches are spread over on a cluster

HEADS_KEPT = 10_000
# Entries a listing of the marks asks for a round trip: Redis's default of ten made a listing
# of 20,000 marks a quarter of a second (`bench schedule`).
SCAN_COUNT = 1000


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


class OneNode:
    """Keys on a single Redis: a match's own keys under its own hash tag, one index."""

    events_pattern = "cardems:{*}:events"
    counts_in_one_step = True  # one script may touch every key on one node

    def keys(self, stream: str) -> tuple[str, str, str, str, str]:
        """The stream's events, its meta, and the index of marks, their counts and the
        schedule of due marks that its append keeps."""
        tag = "cardems:{" + stream + "}"
        return tag + ":events", tag + ":meta", MARKS, MARKS + ":counts", SCHEDULE

    def indexes(self) -> list[tuple[str, str]]:
        """Each index of marks with its schedule."""
        return [(MARKS, SCHEDULE)]


class Buckets:
    """Keys on Redis Cluster: each match in one of BUCKETS hash tags, beside that bucket's
    index of marks, so that one script can touch them all."""

    events_pattern = "cardems:{b*}:m:*:events"
    counts_in_one_step = False  # a bucket's counts are not the cluster's

    def keys(self, stream: str) -> tuple[str, str, str, str, str]:
        tag = f"cardems:{{b{zlib.crc32(stream.encode()) % BUCKETS}}}"
        return (f"{tag}:m:{stream}:events", f"{tag}:m:{stream}:meta", f"{tag}:marks",
                f"{tag}:marks:counts", f"{tag}:due")

    def indexes(self) -> list[tuple[str, str]]:
        return [(f"cardems:{{b{bucket}}}:marks", f"cardems:{{b{bucket}}}:due")
                for bucket in range(BUCKETS)]


class RedisStore:
    name = "redis"

    def __init__(self, client: redis.Redis | RedisCluster, layout: OneNode | Buckets | None = None,
                 wait_replicas: int = 0, wait_ms: int = 1000) -> None:
        self.client = client
        self.layout = layout or OneNode()
        self.wait_replicas = wait_replicas  # replicas an append must reach to be acknowledged
        self.wait_ms = wait_ms
        scripting = cast(redis.Redis, client)  # a cluster registers scripts alike (per slot)
        self._append = scripting.register_script(APPEND)
        self._put_mark = scripting.register_script(PUT_MARK)
        self._heads: Kept[str, tuple[int, str]] = Kept(HEADS_KEPT)  # (version, hash) last seen

    @classmethod
    def from_config(cls, config: StoreConfig) -> RedisStore:
        if config.on_cluster:
            try:
                client: RedisCluster = RedisCluster.from_url(config.client_url,
                                                             decode_responses=True)
            except redis.RedisError as exc:
                raise StoreError(f"redis cluster at {config.client_url}: {exc}") from exc
            return cls(client, Buckets(), config.wait, config.wait_ms)
        return cls(redis.Redis.from_url(config.client_url, decode_responses=True,
                                        health_check_interval=30))

    def _events(self, stream: str) -> str:
        return self.layout.keys(stream)[0]

    def _meta(self, stream: str) -> str:
        return self.layout.keys(stream)[1]

    @_store_errors
    def append(self, stream: str, events: Sequence[NewEvent], expected_version: int,
               meta: Mapping[str, str] | None = None,
               cap: Cap | None = None) -> list[StoredEvent]:
        if cap is not None and not self.layout.counts_in_one_step:
            self._check_cap_apart(stream, cap)
            cap = None
        head = self._heads.get(stream)
        known = head[1] if head and head[0] == expected_version else None
        outcome, version, stored = self._try_append(stream, events, expected_version, meta,
                                                    known, cap)
        if outcome == "stale":  # our remembered head was not the stored one: read it
            outcome, version, stored = self._try_append(stream, events, expected_version, meta,
                                                        None, cap)
        if outcome.startswith("capped"):
            raise CapReached(per_value=outcome == "capped-value")
        if outcome != "ok":
            self._heads.pop(stream)
            raise ConcurrencyError(stream, expected_version, version)
        if self.wait_replicas:
            self._replicated(stream)
        if stored:
            self._remember_head(stream, stored[-1].version, stored[-1].hash)
        return stored

    def _check_cap_apart(self, stream: str, cap: Cap) -> None:
        """On a cluster the marks of all streams are in no one slot, so no script can count
        them with the append: the count is read first, and creations racing past it in
        several processes may overshoot the cap by as many."""
        marked = {s: v for s, v in self.marked(cap.key).items() if s != stream}
        if sum(1 for value in marked.values() if value == cap.value) >= cap.per_value:
            raise CapReached(per_value=True)
        if len(marked) >= cap.total:
            raise CapReached(per_value=False)

    def _try_append(self, stream: str, events: Sequence[NewEvent], expected_version: int,
                    meta: Mapping[str, str] | None, prev_hash: str | None,
                    cap: Cap | None = None) -> tuple[str, int, list[StoredEvent]]:
        if prev_hash is None:
            prev_hash = self._hash_at(stream, expected_version)
        stored = chained(stream, events, expected_version, prev_hash)
        limit = [cap.key, cap.value, cap.per_value, cap.total] if cap else ["", "", 0, 0]
        args: list[Any] = [expected_version, prev_hash, stream, *limit, len(meta or {})]
        for key, value in (meta or {}).items():
            check_due_mark(key, value)
            args += [key, value]
        for event, data in stored:
            args += [event.version, event.type, data, event.recorded_at, event.prev_hash,
                     event.hash]
        try:
            outcome, version = self._append(keys=list(self.layout.keys(stream)), args=args)
        except redis.RedisError as exc:
            raise StoreError(f"redis append failed: {exc}") from exc
        return str(outcome), int(version), [e for e, _ in stored]

    def _replicated(self, stream: str) -> None:
        """Return once the append has reached `wait_replicas` replicas of its master; else
        StoreError, so the caller is not told it is safe (it may still be kept)."""
        assert isinstance(self.client, RedisCluster)
        node = self.client.get_node_from_key(self._events(stream))
        reached = int(self.client.execute_command("WAIT", self.wait_replicas, self.wait_ms,
                                                  target_nodes=node))
        if reached < self.wait_replicas:
            raise StoreError(f"the append reached {reached} of {self.wait_replicas} replicas "
                             f"in {self.wait_ms} ms")

    def _remember_head(self, stream: str, version: int, digest: str) -> None:
        self._heads.put(stream, (version, digest))

    def _hash_at(self, stream: str, version: int) -> str:
        if version == 0:
            return GENESIS_HASH
        entries = self.client.xrange(self._events(stream), f"0-{version}", f"0-{version}")
        if not entries:
            raise ConcurrencyError(stream, version, self.version(stream))
        return str(entries[0][1]["hash"])

    @_store_errors
    def read(self, stream: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        entries = self.client.xrange(self._events(stream), f"0-{after + 1}", "+", count=limit)
        events = [_event(stream, entry_id, fields) for entry_id, fields in entries]
        if events:
            self._remember_head(stream, events[-1].version, events[-1].hash)
        return events

    @_store_errors
    def version(self, stream: str) -> int:
        return int(self.client.xlen(self._events(stream)))

    @_store_errors
    def versions(self, streams: Sequence[str]) -> dict[str, int]:
        names = list(dict.fromkeys(streams))
        pipe = self.client.pipeline(transaction=False)
        for stream in names:
            pipe.xlen(self._events(stream))
        return {stream: int(n) for stream, n in zip(names, pipe.execute(), strict=True)}

    @_store_errors
    def get_meta(self, stream: str, key: str) -> str | None:
        value = self.client.hget(self._meta(stream), key)
        return None if value is None else str(value)

    @_store_errors
    def marked(self, key: str) -> dict[str, str]:
        if not key.startswith(MARK):
            return {}
        prefix = key + "|"
        indexes = [index for index, _ in self.layout.indexes()]
        if len(indexes) == 1:
            found = self.client.hscan_iter(indexes[0], match=_glob(prefix) + "*", count=SCAN_COUNT)
        else:  # one round trip per node for every bucket
            pipe = self.client.pipeline(transaction=False)
            for index in indexes:
                pipe.hgetall(index)
            found = (pair for index in pipe.execute() for pair in index.items())
        return {field[len(prefix):]: str(value) for field, value in found
                if field.startswith(prefix)}

    @_store_errors
    def due(self, key: str, until: float) -> dict[str, str]:
        """Two round trips (one per node on a cluster): the fields due from each schedule,
        then their values from the index beside it."""
        if not key.startswith(DUE):
            return {}
        prefix = key + "|"
        indexes = self.layout.indexes()
        pipe = self.client.pipeline(transaction=False)
        for _, schedule in indexes:
            pipe.zrangebyscore(schedule, "-inf", repr(until))
        fields = [[f for f in found if f.startswith(prefix)] for found in pipe.execute()]
        pipe = self.client.pipeline(transaction=False)
        asked = [(index, names) for (index, _), names in zip(indexes, fields, strict=True)
                 if names]
        for index, names in asked:
            pipe.hmget(index, names)
        values = pipe.execute() if asked else []
        return {field[len(prefix):]: str(value)
                for (_, names), found in zip(asked, values, strict=True)
                for field, value in zip(names, found, strict=True) if value}

    @_store_errors
    def put_meta(self, stream: str, key: str, value: str, if_absent: bool = False,
                 if_value: str | None = None) -> bool:
        if key.startswith(MARK) or if_value is not None:
            check_due_mark(key, value)
            _, meta, index, counts, schedule = self.layout.keys(stream)
            condition = "absent" if if_absent else "equal" if if_value is not None else ""
            return bool(self._put_mark(keys=[meta, index, counts, schedule],
                                       args=[key, value, f"{key}|{stream}", condition,
                                             if_value or ""]))
        if if_absent:
            return bool(self.client.hsetnx(self._meta(stream), key, value))
        self.client.hset(self._meta(stream), key, value)
        return True

    @_store_errors
    def is_empty(self) -> bool:
        for _ in self.client.scan_iter(match=self.layout.events_pattern, count=1000,
                                       _type="stream"):
            return False
        return True

    def close(self) -> None:
        self.client.close()


def _event(stream: str, entry_id: str, fields: dict[str, str]) -> StoredEvent:
    version = int(entry_id.split("-", 1)[1])
    return StoredEvent(stream, version, fields["type"], json.loads(fields["data"]),
                       fields["recorded_at"], fields["prev_hash"], fields["hash"])
