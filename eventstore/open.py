"""A store's URL, parsed once into a typed configuration that every part is given, and the
store opened from it: sqlite:///PATH (the embedded default), redis://HOST:PORT/DB, or
redis+cluster://HOST:PORT."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from eventstore.base import EventStore, StoreError

DEFAULT_STORE = "sqlite:///data/cardems.sqlite3"
SQLITE, REDIS, CLUSTER = "sqlite", "redis", "cluster"
_REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
_CLUSTER_SCHEME = "redis+cluster://"


@dataclass(frozen=True, slots=True)
class StoreConfig:
    """Where the events are kept, and what each part needs of it: the store its backend and
    options, the bots' queue and the rate limits their Redis."""

    url: str  # as given: RQ jobs carry it to the workers, which parse it once again
    kind: str  # SQLITE, REDIS or CLUSTER
    path: str = ""  # SQLite: the file
    commit: str = "group"  # SQLite: a commit per group of appends, or each
    client_url: str = ""  # Redis: what a client connects with (a cluster: any node)
    wait: int = 1  # Redis Cluster: replicas an append waits for
    wait_ms: int = 1000  # Redis Cluster: and for how long at most

    @classmethod
    def parse(cls, url: str) -> StoreConfig:
        """The configuration of `url`, or StoreError saying what is wrong with it."""
        if url.startswith("sqlite:///"):
            return cls._sqlite(url)
        if url.startswith(_REDIS_SCHEMES):
            return cls(url, REDIS, client_url=url)
        if url.startswith(_CLUSTER_SCHEME):
            return cls._cluster(url)
        raise StoreError(f"unknown store {url!r}: use sqlite:///PATH, redis://HOST:PORT/DB"
                         " or redis+cluster://HOST:PORT")

    @classmethod
    def of(cls, store: StoreConfig | str) -> StoreConfig:
        return store if isinstance(store, StoreConfig) else cls.parse(store)

    @classmethod
    def _sqlite(cls, url: str) -> StoreConfig:
        path, _, query = url.removeprefix("sqlite:///").partition("?")
        if not path:
            raise StoreError("sqlite:///PATH needs a file path")
        commit = "group"
        if query:  # ?commit=each: one transaction per append, the benchmarks' baseline
            key, _, commit = query.partition("=")
            if key != "commit" or commit not in ("group", "each"):
                raise StoreError("sqlite:///PATH takes only ?commit=group or ?commit=each")
        return cls(url, SQLITE, path=path, commit=commit)

    @classmethod
    def _cluster(cls, url: str) -> StoreConfig:
        """redis+cluster://HOST:PORT[?wait=N&wait_ms=MS], any node of the cluster."""
        parts = urlsplit(url)
        options = dict(parse_qsl(parts.query))
        unknown = set(options) - {"wait", "wait_ms"}
        if not parts.netloc or unknown or not all(v.isdigit() for v in options.values()):
            raise StoreError("redis+cluster://HOST:PORT takes only ?wait=REPLICAS&wait_ms=MS")
        return cls(url, CLUSTER, client_url=f"redis://{parts.netloc}",
                   wait=int(options.get("wait", 1)), wait_ms=int(options.get("wait_ms", 1000)))

    @property
    def on_redis(self) -> bool:
        return self.kind != SQLITE

    @property
    def on_cluster(self) -> bool:
        return self.kind == CLUSTER

    @property
    def limiter_url(self) -> str:
        """Where the rate limits count: the store's Redis without the store's own options,
        or this process's memory on SQLite."""
        return self.url.split("?")[0] if self.on_redis else "memory://"


def open_store(store: StoreConfig | str = DEFAULT_STORE) -> EventStore:
    config = StoreConfig.of(store)
    if config.kind == SQLITE:
        from eventstore.sqlite import SqliteStore

        return SqliteStore(config.path, config.commit)
    from eventstore.redis_store import RedisStore

    return RedisStore.from_config(config)
