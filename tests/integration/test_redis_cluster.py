"""The Redis store on a real Redis Cluster of three masters and three replicas, started here:
the whole store contract, one hash slot per script, the buckets spread over every master,
and acknowledged appends that survive the kill -9 of their master."""

from __future__ import annotations

import itertools
import threading
import time

import pytest
from redis.crc import key_slot

from eventstore import NewEvent, StoreError, open_store
from eventstore.redis_store import BUCKETS, Buckets
from harness.http import wait_until
from harness.redis_server import RedisCluster
from tests.integration.store_contract import StoreContract, new


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    cluster = RedisCluster(tmp_path_factory.mktemp("cluster"))
    yield cluster
    cluster.stop()


@pytest.fixture
def url(cluster):
    cluster.wait_until_ok()
    cluster.flush()
    return cluster.url



class TestRedisClusterStore(StoreContract):
    caps_in_one_step = False
    def test_every_key_a_script_touches_is_in_one_slot(self, store):
        for stream in ("abc", "a{b}c", "x" * 40):
            assert len({key_slot(k.encode()) for k in Buckets().keys(stream)}) == 1

    def test_the_buckets_spread_over_every_master(self, store, cluster):
        masters = {cluster.master_of(index).port for index, _ in Buckets().indexes()}
        assert len(masters) == 3
        streams = [f"match{i}" for i in range(60)]
        for stream in streams:
            store.append(stream, new(1), 0, meta={"@people": "1"})
        assert set(store.marked("@people")) == set(streams)
        holders = {cluster.master_of(Buckets().keys(s)[0]).port for s in streams}
        assert len(holders) == 3, "the matches are spread, not on one node"

    def test_an_append_is_acknowledged_once_a_replica_has_it(self, store, url):
        assert store.wait_replicas == 1
        store.append("w", new(1), 0)
        node = store.client.get_node_from_key(store.layout.keys("w")[0])
        replicas = store.client.execute_command("WAIT", 1, 0, target_nodes=node)
        assert int(replicas) >= 1
        # Each master has one replica: asked to reach two, an append is written but never
        # acknowledged, so no caller is told it is safe.
        greedy = open_store(f"{url}?wait=2&wait_ms=100")
        try:
            with pytest.raises(StoreError, match="reached 1 of 2 replicas"):
                greedy.append("w", new(1, 1), 1)
        finally:
            greedy.close()
        assert store.version("w") == 2


def test_a_bad_cluster_url_is_a_store_error():
    with pytest.raises(StoreError, match="wait=REPLICAS"):
        open_store("redis+cluster://127.0.0.1:1?colour=red")


def test_every_acknowledged_append_survives_the_kill_of_its_master(cluster, tmp_path):
    """Writers append to streams on every master; the master of one of them is killed with
    kill -9 mid-burst. Its replica takes over; the killed node comes back as its replica; the
    writers carry on after retrying, and every append that was acknowledged is in the log, in
    order, once and chained. (While a master has no replica, its appends are written but
    not acknowledged: `WAIT` finds no replica to reach.)"""
    cluster.wait_until_ok()
    cluster.flush()
    streams = [f"s{i}" for i in range(9)]
    acknowledged: dict[str, int] = dict.fromkeys(streams, 0)
    victim = cluster.master_of(Buckets().keys(streams[0])[0])
    stop = threading.Event()
    errors: list[str] = []

    def write(stream: str) -> None:
        store = open_store(cluster.url + "?wait_ms=200")
        try:
            while not stop.is_set():
                version = acknowledged[stream]
                try:
                    store.append(stream, [NewEvent("Thing", {"n": version}, "t")], version)
                    acknowledged[stream] = version + 1
                except StoreError as exc:  # unreachable, failing over, or not replicated
                    errors.append(type(exc).__name__)
                    try:
                        acknowledged[stream] = max(version, store.version(stream))
                    except StoreError:
                        time.sleep(0.05)
        finally:
            store.close()

    threads = [threading.Thread(target=write, args=(s,)) for s in streams]
    for thread in threads:
        thread.start()
    _wait_for(lambda: min(acknowledged.values()) >= 20, 30)
    before = dict(acknowledged)
    victim.kill()
    failed_at = time.monotonic()
    _wait_for(lambda: errors, 30)
    victim.start()  # back, and it rejoins as the new master's replica
    _wait_for(lambda: acknowledged[streams[0]] > before[streams[0]] + 20, 60)
    print(f"kill to 20 more acknowledged: {time.monotonic() - failed_at:.1f} s,"
          f" {len(errors)} refusals meanwhile")
    stop.set()
    for thread in threads:
        thread.join(30)
    store = open_store(cluster.url)
    try:
        for stream in streams:
            events = store.read(stream)
            assert len(events) >= acknowledged[stream] >= before[stream]
            assert [e.data["n"] for e in events] == list(range(len(events)))
            assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(events))
    finally:
        store.close()
        cluster.wait_until_ok()


def _wait_for(condition, timeout: float) -> None:
    wait_until(condition, timeout, every=0.01)


def test_there_are_enough_buckets_to_spread_over_many_nodes():
    assert BUCKETS >= 64
    slots = {key_slot(index.encode()) for index, _ in Buckets().indexes()}
    assert len(slots) == BUCKETS


def test_the_service_on_the_cluster_with_bots_on_rq_workers(cluster, redis_url):
    """Two API processes on the cluster store, the bot queue on a Redis of its own, two
    workers: a person plays against three bots, and six bots play a match alone."""
    import subprocess
    import sys

    from harness.http import ROOT, Server, call, stop_workers, view_when
    from tests.integration.test_rq_bots import play_seat_zero_to_the_end

    cluster.wait_until_ok()
    cluster.flush()
    store = cluster.url
    server = Server("--store", store, "--queue", redis_url, "--workers", "2", "--pace", "0")
    workers = [subprocess.Popen([sys.executable, "-m", "cli.main", "worker", "--store", store,
                                 "--queue", redis_url, "--pace", "0"], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for _ in range(2)]
    try:
        assert call(server.base, "GET", "/healthz").body["bots"] == "rq"
        alone = call(server.base, "POST", "/v1/matches", {
            "seats": [{"name": f"b{i}", "bot": "heuristic"} for i in range(6)],
            "rules": {"end_score": 26}}).body
        seats = [{"name": "Ann"}, *({"name": f"b{i}", "bot": "heuristic"} for i in range(3))]
        match = call(server.base, "POST", "/v1/matches",
                     {"seats": seats, "rules": {"end_score": 26}}).body
        play_seat_zero_to_the_end(server.base, match)
        view_when(server.base, alone["id"], lambda v: v["status"] == "finished", timeout=120)
        for match_id in (match["id"], alone["id"]):
            report = call(server.base, "GET", f"/v1/matches/{match_id}/verify").body
            assert report["ok"] and report["deals_ok"], report
    finally:
        try:
            stop_workers(workers)
        finally:
            server.stop()


def test_the_rate_limits_are_counted_on_the_cluster_across_processes(cluster):
    from harness.http import Server, call

    cluster.wait_until_ok()
    cluster.flush()
    server = Server("--store", f"{cluster.url}?wait=1", "--bots", "off", "--workers", "2",
                    "--create-limit", "3/minute")
    try:
        people = {"seats": [{"name": f"p{i}"} for i in range(4)]}
        codes = [call(server.base, "POST", "/v1/matches", people).status for _ in range(6)]
        assert codes == [201, 201, 201, 429, 429, 429], codes
    finally:
        server.stop()
