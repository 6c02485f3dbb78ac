"""The embedded store: one SQLite file in WAL mode, the primary key as the concurrency guard."""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
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
CREATE INDEX IF NOT EXISTS meta_marked ON meta (key) WHERE key LIKE '@%' AND value != '';
"""


VARIABLES_PER_QUERY = 500  # well under SQLite's limit on bound parameters


class SqliteStore:
    """Connections are lent from a small pool, one to a caller at a time, whatever runs the
    callers (threads or green threads); every append is one IMMEDIATE transaction."""

    name = "sqlite"

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._idle: list[sqlite3.Connection] = []
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        with self._connection() as conn:
            _retry_locked(lambda: conn.executescript(SCHEMA))

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = self._open()
        try:
            yield conn
        finally:
            with self._lock:
                if conn in self._all:  # not closed meanwhile
                    self._idle.append(conn)

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, timeout=30,
                               check_same_thread=False)
        _retry_locked(lambda: conn.execute("PRAGMA journal_mode=WAL"))
        conn.execute("PRAGMA synchronous=FULL")  # an acknowledged append survives a crash
        conn.execute("PRAGMA busy_timeout=30000")
        with self._lock:
            self._all.append(conn)
        return conn

    def append(self, stream: str, events: Sequence[NewEvent], expected_version: int,
               meta: Mapping[str, str] | None = None) -> list[StoredEvent]:
        with self._connection() as conn:
            stored = self._append(conn, stream, events, expected_version, meta)
        return stored

    def _append(self, conn: sqlite3.Connection, stream: str, events: Sequence[NewEvent],
                expected_version: int, meta: Mapping[str, str] | None) -> list[StoredEvent]:
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
            raise ConcurrencyError(stream, expected_version, _version(conn, stream)) from None
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return [e for e, _ in stored]

    def read(self, stream: str, after: int = 0, limit: int | None = None) -> list[StoredEvent]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT version, type, data, recorded_at, prev_hash, hash FROM events "
                "WHERE stream = ? AND version > ? ORDER BY version LIMIT ?",
                (stream, after, -1 if limit is None else limit)).fetchall()
        return [StoredEvent(stream, v, t, json.loads(d), at, p, h) for v, t, d, at, p, h in rows]

    def version(self, stream: str) -> int:
        with self._connection() as conn:
            return _version(conn, stream)

    def versions(self, streams: Sequence[str]) -> dict[str, int]:
        found = dict.fromkeys(streams, 0)
        names = list(found)
        with self._connection() as conn:
            for start in range(0, len(names), VARIABLES_PER_QUERY):
                chunk = names[start:start + VARIABLES_PER_QUERY]
                marks = ",".join("?" * len(chunk))
                found.update(conn.execute(
                    f"SELECT stream, MAX(version) FROM events WHERE stream IN ({marks})"
                    " GROUP BY stream", chunk).fetchall())
        return found

    def get_meta(self, stream: str, key: str) -> str | None:
        with self._connection() as conn:
            row = conn.execute("SELECT value FROM meta WHERE stream = ? AND key = ?",
                               (stream, key)).fetchone()
        return None if row is None else row[0]

    def marked(self, key: str) -> dict[str, str]:
        with self._connection() as conn:
            rows = conn.execute("SELECT stream, value FROM meta WHERE key = ? AND key LIKE '@%'"
                                " AND value != ''", (key,)).fetchall()
        return dict(rows)

    def put_meta(self, stream: str, key: str, value: str, if_absent: bool = False) -> bool:
        verb = "INSERT OR IGNORE" if if_absent else "INSERT OR REPLACE"
        with self._connection() as conn:
            cursor = conn.execute(f"{verb} INTO meta VALUES (?, ?, ?)", (stream, key, value))
            return cursor.rowcount == 1

    def is_empty(self) -> bool:
        with self._connection() as conn:
            return conn.execute("SELECT 1 FROM events LIMIT 1").fetchone() is None

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
            self._idle.clear()


def _retry_locked(step: Callable[[], object], attempts: int = 100) -> None:
    """Run `step`, again while the file is locked. Switching to WAL can meet a lock that
    SQLite does not wait out (another connection recovering the log) on a busy machine."""
    for attempt in range(attempts):
        try:
            step()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == attempts - 1:
                raise
            time.sleep(0.01 * (attempt + 1))


def _version(conn: sqlite3.Connection, stream: str) -> int:
    row = conn.execute("SELECT MAX(version) FROM events WHERE stream = ?", (stream,)).fetchone()
    return int(row[0] or 0)
