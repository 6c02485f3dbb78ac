"""The embedded store: one SQLite file in WAL mode, the primary key as the concurrency guard.

Writes go through group commit (`eventstore.group_commit`): the appends that wait at once, from
the threads of a process, share one transaction and one fsync, and each is acknowledged once
it is on disk. Between processes a lock file hands the write lock on in turn, so that a process
waiting to write sleeps in the kernel until its turn, not in SQLite's polling busy handler.
Under gevent the transaction blocks the loop, so appends gather only while the process waits
for that lock (docs/deploy.md).
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

from eventstore.base import (
    DUE,
    GENESIS_HASH,
    Cap,
    CapReached,
    ConcurrencyError,
    NewEvent,
    StoredEvent,
    chained,
    check_due_mark,
)
from eventstore.group_commit import GroupCommit, Write

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
CREATE INDEX IF NOT EXISTS meta_due ON meta (key, CAST(value AS REAL))
    WHERE key LIKE '@due:%' AND value != '';
"""


VARIABLES_PER_QUERY = 500  # well under SQLite's limit on bound parameters


COMMITS = ("group", "each")


class SqliteStore:
    """Reads borrow connections from a small pool, one to a caller at a time, whatever runs
    the callers (threads or green threads). Writes are grouped (`commit="group"`, the
    default) or each its own IMMEDIATE transaction (`"each"`, the baseline the benchmarks
    measure group commit against)."""

    name = "sqlite"

    def __init__(self, path: str | Path, commit: str = "group") -> None:
        if commit not in COMMITS:
            raise ValueError(f"commit is one of {', '.join(COMMITS)}")
        self.path = str(path)
        self.commit = commit
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._idle: list[sqlite3.Connection] = []
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._writing: _Writing | None = None
        self._making = threading.Lock()
        with self._connection() as conn:
            _retry_locked(lambda: conn.executescript(SCHEMA))

    @property
    def group(self) -> GroupCommit | None:
        """This process's group commit (made again in a forked child), or None."""
        if self.commit != "group":
            return None
        writing = self._writing
        if writing is None or writing.pid != os.getpid():
            with self._making:  # one writer per process, however many threads ask at once
                writing = self._writing
                if writing is None or writing.pid != os.getpid():
                    writing = self._writing = _Writing(self)
        return writing.group

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
               meta: Mapping[str, str] | None = None,
               cap: Cap | None = None) -> list[StoredEvent]:
        for key, value in (meta or {}).items():
            check_due_mark(key, value)
        step = partial(_append_rows, stream=stream, events=events,
                       expected_version=expected_version, meta=meta or {}, cap=cap)
        return list(self._write(step))

    def _write(self, step: Callable[[sqlite3.Connection], Any]) -> Any:
        group = self.group
        if group is not None:
            return group.run(step)
        with self._connection() as conn:  # one transaction of its own
            conn.execute("BEGIN IMMEDIATE")
            try:
                result = step(conn)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return result

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

    def due(self, key: str, until: float) -> dict[str, str]:
        # A due mark's value begins with its time: SQLite reads the number it begins with
        # as the REAL it casts to, and the index holds that cast.
        if not key.startswith(DUE):
            return {}
        with self._connection() as conn:
            rows = conn.execute("SELECT stream, value FROM meta WHERE key = ?"
                                " AND key LIKE '@due:%' AND value != ''"
                                " AND CAST(value AS REAL) <= ?", (key, until)).fetchall()
        return dict(rows)

    def put_meta(self, stream: str, key: str, value: str, if_absent: bool = False,
                 if_value: str | None = None) -> bool:
        check_due_mark(key, value)
        verb = "INSERT OR IGNORE" if if_absent else "INSERT OR REPLACE"

        def step(conn: sqlite3.Connection) -> bool:
            if if_value is not None:
                cursor = conn.execute("UPDATE meta SET value = ? WHERE stream = ? AND key = ?"
                                      " AND value = ?", (value, stream, key, if_value))
            else:
                cursor = conn.execute(f"{verb} INTO meta VALUES (?, ?, ?)",
                                      (stream, key, value))
            return cursor.rowcount == 1

        return bool(self._write(step))

    def is_empty(self) -> bool:
        with self._connection() as conn:
            return conn.execute("SELECT 1 FROM events LIMIT 1").fetchone() is None

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
            self._idle.clear()
            writing, self._writing = self._writing, None
        if writing is not None and writing.pid == os.getpid():
            writing.close()


class _Writing:
    """One process's writer: its connection, its hold on the lock file, its group commit."""

    def __init__(self, store: SqliteStore) -> None:
        self.pid = os.getpid()
        self.conn = store._open()
        with store._lock:
            store._all.remove(self.conn)  # not lent to readers
        memory = store.path == ":memory:"
        self.lock_fd = None if memory else os.open(store.path + "-writer.lock",
                                                   os.O_RDWR | os.O_CREAT, 0o644)
        self.group = GroupCommit(self.commit)

    def commit(self, batch: list[Write]) -> None:
        """The batch in one transaction, each write in a savepoint of its own."""
        conn = self.conn
        self._take_turn()
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                for write in batch:
                    conn.execute("SAVEPOINT one_write")
                    try:
                        write.result = write.step(conn)
                    except Exception as exc:
                        conn.execute("ROLLBACK TO one_write")
                        write.error = exc
                    conn.execute("RELEASE one_write")
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        finally:
            if self.lock_fd is not None:
                fcntl.flock(self.lock_fd, fcntl.LOCK_UN)

    def _take_turn(self) -> None:
        """The lock file, in turn with the other processes. Under gevent only a wait for it
        goes to a real thread (the transaction, fsync included, runs in the green thread):
        when every commit went there, a person's trick among 80 expert matches took 150 ms,
        and 10 ms once it did not (`bench fair`)."""
        if self.lock_fd is None:
            return
        try:
            fcntl.flock(self.lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            _off_the_loop(partial(fcntl.flock, self.lock_fd, fcntl.LOCK_EX))

    def close(self) -> None:
        self.conn.close()
        if self.lock_fd is not None:
            os.close(self.lock_fd)


def _off_the_loop(wait: Callable[[], object]) -> None:
    """Runs `wait` where it blocks nothing else: on a real thread of gevent's pool when green
    threads are in charge of this one, else right here."""
    try:
        from gevent import get_hub, monkey
    except ImportError:  # pragma: no cover - gevent is a dependency of the server
        wait()
        return
    if monkey.is_module_patched("threading"):
        get_hub().threadpool.apply(wait)
    else:
        wait()


def _append_rows(conn: sqlite3.Connection, *, stream: str, events: Sequence[NewEvent],
                 expected_version: int, meta: Mapping[str, str],
                 cap: Cap | None = None) -> list[StoredEvent]:
    """One append inside the caller's transaction: the version check, the cap, the rows,
    the meta. The transaction holds the write lock, so no other process counts meanwhile."""
    row = conn.execute(
        "SELECT version, hash FROM events WHERE stream = ? ORDER BY version DESC LIMIT 1",
        (stream,)).fetchone()
    version, prev_hash = row if row else (0, GENESIS_HASH)
    if version != expected_version:
        raise ConcurrencyError(stream, expected_version, version)
    if cap is not None:
        _check_cap(conn, stream, cap)
    stored = chained(stream, events, version, prev_hash)
    try:
        conn.executemany(
            "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(e.stream, e.version, e.type, data, e.recorded_at, e.prev_hash, e.hash)
             for e, data in stored])
    except sqlite3.IntegrityError:  # another connection got there first
        raise ConcurrencyError(stream, expected_version, version + 1) from None
    conn.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?, ?)",
                     [(stream, k, v) for k, v in meta.items()])
    return [e for e, _ in stored]


def _check_cap(conn: sqlite3.Connection, stream: str, cap: Cap) -> None:
    same, marked = conn.execute(
        "SELECT COALESCE(SUM(value = ?), 0), COUNT(*) FROM meta"
        " WHERE key = ? AND key LIKE '@%' AND value != '' AND stream != ?",
        (cap.value, cap.key, stream)).fetchone()
    if same >= cap.per_value:
        raise CapReached(per_value=True)
    if marked >= cap.total:
        raise CapReached(per_value=False)


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
