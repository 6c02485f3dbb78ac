"""Several processes racing on the same streams, and crashes in the middle of a burst."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import threading
from collections import Counter
from pathlib import Path

import pytest

from eventstore import GENESIS_HASH, ConcurrencyError, NewEvent, chain_hash, open_store
from eventstore.base import canonical
from harness.http import wait_until
from tests.integration.store_workers import (
    append_beside_a_ticker,
    burst,
    burst_together,
    race,
)

SPAWN = multiprocessing.get_context("spawn")


@pytest.fixture(params=["sqlite", "redis"])
def url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'race.sqlite3'}"
    return request.getfixturevalue("redis_url")


def run_writers(url, streams, writers, appends, folder):
    paths = [str(folder / f"acks-{w}.txt") for w in range(writers)]
    procs = [SPAWN.Process(target=race, args=(url, streams, appends, w, paths[w]))
             for w in range(writers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)
        assert p.exitcode == 0
    return [line.split() for path in paths for line in Path(path).read_text().splitlines()]


def assert_chain(events):
    prev = GENESIS_HASH
    for e in events:
        assert e.prev_hash == prev
        assert e.hash == chain_hash(prev, e.version, e.type, canonical(e.data), e.recorded_at)
        prev = e.hash


def test_eight_processes_racing_on_one_stream_lose_nothing_and_double_nothing(url, tmp_path):
    lines = run_writers(url, ["one"], writers=8, appends=200, folder=tmp_path)
    acks = [line for line in lines if line[0] == "ack"]
    assert len(acks) == 1600
    store = open_store(url)
    events = store.read("one")
    assert [e.version for e in events] == list(range(1, 1601)), "no gap, no duplicate"
    by_version = {e.version: (e.data["writer"], e.data["i"]) for e in events}
    for _, _, version, writer, i in acks:
        assert by_version[int(version)] == (int(writer), int(i)), "every ack is stored as acked"
    assert Counter(by_version.values()).most_common(1)[0][1] == 1, "nothing written twice"
    losses = [line for line in lines if line[0] == "lost"]
    assert all(int(v) < 1600 for _, _, v in losses)
    assert_chain(events)
    store.close()


def test_racing_on_many_streams_at_once_keeps_every_stream_whole(url, tmp_path):
    streams = [f"s{i}" for i in range(6)]
    lines = run_writers(url, streams, writers=6, appends=100, folder=tmp_path)
    acks = [line for line in lines if line[0] == "ack"]
    store = open_store(url)
    total = 0
    for stream in streams:
        events = store.read(stream)
        assert [e.version for e in events] == list(range(1, len(events) + 1))
        assert len(events) == sum(1 for a in acks if a[1] == stream)
        assert_chain(events)
        total += len(events)
    assert total == 600
    store.close()


def start_bursts(url, stream, writers, folder):
    paths = [str(folder / f"burst-{w}.txt") for w in range(writers)]
    # Daemons: a test that fails before it kills them must not leave them writing on.
    procs = [SPAWN.Process(target=burst, args=(url, stream, w, paths[w]), daemon=True)
             for w in range(writers)]
    for p in procs:
        p.start()
    return procs, paths


def acked(paths):
    out = {}
    for path in paths:
        if not os.path.exists(path):
            continue
        for line in Path(path).read_text().splitlines():
            parts = line.split()
            if len(parts) == 4 and len(parts[3]) == 64:  # a line cut by the kill is no ack
                out[int(parts[0])] = (int(parts[1]), int(parts[2]), parts[3])
    return out


def wait_for_acks(paths, writers: int, each: int = 20, timeout: float = 120.0) -> None:
    """Until every writer has had `each` appends acknowledged: the crash then comes in the
    middle of a burst however slow the machine is."""
    def counts() -> list[int]:
        out = [0] * writers
        for writer, _, _ in acked(paths).values():
            out[writer] += 1
        return out

    wait_until(lambda: min(counts()) >= each, timeout, every=0.02)


def check_after_crash(store, acks):
    events = store.read("burst")
    assert acks, "the burst acknowledged something before the crash"
    assert [e.version for e in events] == list(range(1, len(events) + 1))
    by_version = {e.version: e for e in events}
    for version, (writer, i, digest) in acks.items():
        stored = by_version[version]
        assert (stored.data["writer"], stored.data["i"], stored.hash) == (writer, i, digest)
    assert_chain(events)


def test_a_killed_redis_server_keeps_every_acknowledged_append(redis_server, tmp_path):
    redis_server.flush()
    procs, paths = start_bursts(redis_server.url, "burst", 4, tmp_path)
    wait_for_acks(paths, 4)
    redis_server.kill()
    for p in procs:
        p.join(30)
        if p.is_alive():
            p.kill()
    acks = acked(paths)
    redis_server.start()
    store = open_store(redis_server.url)
    check_after_crash(store, acks)
    store.close()


def test_writers_killed_mid_burst_leave_sqlite_whole(tmp_path):
    url = f"sqlite:///{tmp_path / 'crash.sqlite3'}"
    procs, paths = start_bursts(url, "burst", 4, tmp_path)
    wait_for_acks(paths, 4)
    for p in procs:
        os.kill(p.pid, signal.SIGKILL)
    for p in procs:
        p.join()
    acks = acked(paths)
    conn = sqlite3.connect(tmp_path / "crash.sqlite3")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()
    store = open_store(url)
    check_after_crash(store, acks)
    store.append("burst", [], store.version("burst"))
    store.close()


@pytest.mark.parametrize("green", [False, True], ids=["threads", "green-threads"])
def test_sixteen_writers_of_one_process_killed_mid_burst_lose_no_acknowledged_append(
        tmp_path, green):
    url = f"sqlite:///{tmp_path / 'group.sqlite3'}"
    writers = 16
    proc = SPAWN.Process(target=burst_together, args=(url, "burst", writers, str(tmp_path),
                                                      green), daemon=True)
    proc.start()
    paths = [str(tmp_path / f"burst-{w}.txt") for w in range(writers)]
    wait_for_acks(paths, writers, each=5)
    os.kill(proc.pid, signal.SIGKILL)
    proc.join()
    acks = acked(paths)
    store = open_store(url)
    check_after_crash(store, acks)
    store.close()


def test_sixteen_threads_racing_on_one_stream_share_commits_and_lose_nothing(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'threads.sqlite3'}")
    acks: list[tuple[int, int, int]] = []
    losses = Counter()
    start = threading.Barrier(16)

    def writer(w: int) -> None:
        start.wait()
        for i in range(60):
            while True:
                version = store.version("one")
                try:
                    stored = store.append("one", [NewEvent("Raced", {"w": w, "i": i}, "t")],
                                          version)
                except ConcurrencyError:
                    losses[w] += 1
                    continue
                acks.append((stored[0].version, w, i))
                break

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = store.read("one")
    assert [e.version for e in events] == list(range(1, 961))
    assert sorted(acks) == sorted((e.version, e.data["w"], e.data["i"]) for e in events)
    assert_chain(events)
    group = store.group
    assert group.writes == 960 + sum(losses.values())
    assert group.batches < group.writes, "appends that came together were committed together"
    store.close()


def test_in_one_batch_a_stale_append_fails_alone(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'batch.sqlite3'}")
    outcomes: dict[str, object] = {}
    start = threading.Barrier(12)

    def writer(name: str, stream: str) -> None:
        start.wait()
        try:
            store.append(stream, [NewEvent("Raced", {"by": name}, "t")], 0)
            outcomes[name] = "ok"
        except ConcurrencyError as exc:
            outcomes[name] = exc

    names = [(f"same-{i}", "same") for i in range(6)] + [(f"own-{i}", f"own-{i}")
                                                          for i in range(6)]
    threads = [threading.Thread(target=writer, args=pair) for pair in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    same = [outcomes[f"same-{i}"] for i in range(6)]
    assert same.count("ok") == 1
    assert all(isinstance(o, ConcurrencyError) and o.actual == 1 for o in same if o != "ok")
    assert all(outcomes[f"own-{i}"] == "ok" for i in range(6))
    assert [e.data["by"] for e in store.read("same")] == [
        f"same-{same.index('ok')}"]
    store.close()


def test_a_green_thread_process_waiting_for_another_s_turn_keeps_serving(tmp_path):
    """While another process holds the SQLite file's writer lock, a gevent process's append
    waits for its turn on a real thread: the process's other green threads go on (here a
    ticker), and the append lands once the lock is free."""
    import fcntl

    path = tmp_path / "turns.sqlite3"
    url = f"sqlite:///{path}"
    open_store(url).close()  # the schema, before the lock is taken
    lock = os.open(f"{path}-writer.lock", os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(lock, fcntl.LOCK_EX)
    proc = SPAWN.Process(target=append_beside_a_ticker, args=(url, str(tmp_path)), daemon=True)
    proc.start()
    ticks, appended = tmp_path / "ticks.txt", tmp_path / "appended.txt"
    try:
        # half a second of ticks: the event loop goes on while the append waits
        wait_until(lambda: ticks.exists() and len(ticks.read_bytes()) >= 50, 60, every=0.02)
        assert not appended.exists(), "the append went ahead of the lock's holder"
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)
        os.close(lock)
    proc.join(60)
    assert proc.exitcode == 0 and appended.read_text() == "ok"
    store = open_store(url)
    assert [e.type for e in store.read("waited")] == ["Waited"]
    store.close()
