"""The embedded store: one SQLite file in WAL mode, the primary key as the concurrency guard."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from eventstore.base import GENESIS_HASH, ConcurrencyError, NewEvent, StoredEvent, chained

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    stream TEXT NOT NULL,
    version INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (stream, version)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
    stream TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (stream, key)
) WITHOUT ROWID;
"""


POLL_SECONDS = 0.2  # how soon a waiter sees an append made by another process

_appended: dict[str, threading.Condition] = {}
_appended_lock = threading.Lock()


def _condition(path: str) -> threading.Condition:
    """One condition per database file in this process, notified after every append."""
    with _appended_lock:
        return _appended.setdefault(path, threading.Condition())


class SqliteStore:
    """A connection per thread; every append is one IMMEDIATE transaction."""

    name = "sqlite"

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._connect().executescript(SCHEMA)
        self._appended = _condition(str(Path(self.path).resolve()) if self.path != ":memory:"
                                    else f":memory:{id(self)}")

    def _connect(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=30,
                                   check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")  # an acknowledged append survives a crash
            conn.execute("PRAGMA busy_timeout=30000")
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    def append(self, stream: str, events: Sequence[NewEvent], expected_version: int,
               meta: Mapping[str, str] | None = None) -> list[StoredEvent]:
        conn = self._connect()
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute(
                "SELECT version, hash FROM events WHERE stream = ? ORDER BY version DESC LIMIT 1",
                (stream,)).fetchone()
            version, prev_hash = row if row else (0, GENESIS_HASH)
            if version != expected_version:
                raise ConcurrencyError(stream, expected_version, version)
            stored = chained(stream, events, version, prev_hash)
            conn.executemany(
                "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(e.stream, e.version, e.type, data, e.recorded_at, e.prev_hash, e.hash)
                 for e, data in stored])
            conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?, ?)",
                             [(stream, k, v) for k, v in (meta or {}).items()])
            conn.execute("COMMIT")
        except sqlite3.IntegrityError:
            conn.execute("ROLLBACK")
            raise ConcurrencyError(stream, expected_version, self.version(stream)) from None
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        with self._appended:
            self._appended.notify_all()
        return [e for e, _ in stored]

    def read(self, stream: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        rows = self._connect().execute(
            "SELECT version, type, data, recorded_at, prev_hash, hash FROM events "
            "WHERE stream = ? AND version > ? ORDER BY version LIMIT ?",
            (stream, after, -1 if limit is None else limit)).fetchall()
        return [StoredEvent(stream, v, t, json.loads(d), at, p, h) for v, t, d, at, p, h in rows]

    def wait_for(self, stream: str, after: int, timeout: float) -> list[StoredEvent]:
        deadline = time.monotonic() + timeout
        while True:
            events = self.read(stream, after)
            remaining = deadline - time.monotonic()
            if events or remaining <= 0:
                return events
            with self._appended:
                self._appended.wait(min(remaining, POLL_SECONDS))

    def version(self, stream: str) -> int:
        row = self._connect().execute(
            "SELECT MAX(version) FROM events WHERE stream = ?", (stream,)).fetchone()
        return row[0] or 0

    def get_meta(self, stream: str, key: str) -> str | None:
        row = self._connect().execute(
            "SELECT value FROM meta WHERE stream = ? AND key = ?", (stream, key)).fetchone()
        return None if row is None else row[0]

    def put_meta(self, stream: str, key: str, value: str, if_absent: bool = False) -> bool:
        verb = "INSERT OR IGNORE" if if_absent else "INSERT OR REPLACE"
        cursor = self._connect().execute(f"{verb} INTO meta VALUES (?, ?, ?)",
                                         (stream, key, value))
        return cursor.rowcount == 1

    def is_empty(self) -> bool:
        return self._connect().execute("SELECT 1 FROM events LIMIT 1").fetchone() is None

    def close(self) -> None:
        with self._lock:
            for conn in self._connections:
                conn.close()
            self._connections.clear()
        self._local = threading.local()
