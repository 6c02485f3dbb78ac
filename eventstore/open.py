"""Open a store from its URL: sqlite:///PATH (the embedded default) or redis://HOST:PORT/DB."""

from __future__ import annotations

from eventstore.base import EventStore, StoreError

DEFAULT_STORE = "sqlite:///data/cardems.sqlite3"


def open_store(url: str = DEFAULT_STORE) -> EventStore:
    if url.startswith("sqlite:///"):
        from eventstore.sqlite import SqliteStore

        path, _, query = url.removeprefix("sqlite:///").partition("?")
        if not path:
            raise StoreError("sqlite:///PATH needs a file path")
        commit = "group"
        if query:  # ?commit=each: one transaction per append, the benchmarks' baseline
            key, _, commit = query.partition("=")
            if key != "commit" or commit not in ("group", "each"):
                raise StoreError("sqlite:///PATH takes only ?commit=group or ?commit=each")
        return SqliteStore(path, commit)
    if url.startswith(("redis://", "rediss://", "unix://", "redis+cluster://")):
        from eventstore.redis_store import RedisStore

        return RedisStore.from_url(url)
    raise StoreError(f"unknown store {url!r}: use sqlite:///PATH, redis://HOST:PORT/DB"
                     " or redis+cluster://HOST:PORT")
