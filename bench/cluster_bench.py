"""Redis Cluster figures: appends on a 3-master, 3-replica cluster with and without waiting
for a replica, beside one Redis, in one run; how long an append acknowledged without waiting
is on its master alone (the window a failover can lose); and how long a shard takes to accept
appends again after its master is killed."""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from pathlib import Path

import redis

from bench.store_bench import SPAWN, EventFlag, appends
from eventstore import NewEvent, StoreError, open_store
from eventstore.redis_store import Buckets
from harness.redis_server import RedisCluster, RedisServer, scratch_redis


def failover_seconds(cluster: RedisCluster, wait: int) -> tuple[float, float]:
    """Kill -9 the master of a stream: seconds until an append to it is acknowledged again,
    and until its node, started again at once, is back in sync as a replica."""
    url = f"{cluster.url}?wait={wait}&wait_ms=200"
    store = open_store(url)
    stream = f"failover-{wait}"
    store.append(stream, [NewEvent("T", {}, "t")], 0)
    victim = cluster.master_of(Buckets().keys(stream)[0])
    victim.kill()
    killed = time.monotonic()
    restarted = False
    while True:
        try:
            store.append(stream, [NewEvent("T", {}, "t")], store.version(stream))
            break
        except StoreError:
            if wait and not restarted and time.monotonic() - killed > 3:
                victim.start()  # with wait=1 nothing is acknowledged until a replica is back
                restarted = True
            time.sleep(0.01)
    acknowledged = time.monotonic() - killed
    if not restarted:
        victim.start()
    cluster.wait_until_ok()
    store.close()
    return acknowledged, time.monotonic() - killed


def replica_of(master: RedisServer) -> redis.Redis:
    """A connection to the replica of `master` that may read its keys."""
    with redis.Redis(port=master.port, decode_responses=True) as client:
        info = client.info("replication")
    replica = redis.Redis(host=info["slave0"]["ip"], port=info["slave0"]["port"])
    replica.execute_command("READONLY")
    return replica


def replication_lag(cluster: RedisCluster, samples: int, busy: int) -> dict[str, float]:
    """Appends acknowledged without waiting (wait=0), each followed at once by polling the
    replica of its master until the event is there: how long each acknowledged event was on
    one machine only, while `busy` other processes append to the cluster. The same poll of
    the master (one round trip, the measurement's floor) is taken beside it."""
    store = open_store(f"{cluster.url}?wait=0")
    stream = f"lag-{busy}-{time.time_ns()}"
    key = Buckets().keys(stream)[0]
    master = cluster.master_of(key)
    replica = replica_of(master)
    on_master = redis.Redis(port=master.port)
    stop = SPAWN.Event()
    others = [SPAWN.Process(target=_keep_appending,
                            args=(cluster.url, f"{stream}-busy-{i}", stop))
              for i in range(busy)]
    for other in others:
        other.start()
    time.sleep(1.0 + 0.2 * busy)  # the other clients under way
    lags, floor = [], []
    try:
        for version in range(samples):
            store.append(stream, [NewEvent("T", {"n": version}, "t")], version)
            acknowledged = time.perf_counter()
            while replica.xlen(key) <= version:
                if time.perf_counter() - acknowledged > 10:
                    raise RuntimeError("the replica did not get the event within 10 s")
            lags.append(time.perf_counter() - acknowledged)
            start = time.perf_counter()
            on_master.xlen(key)
            floor.append(time.perf_counter() - start)
    finally:
        stop.set()
        for other in others:
            other.join()
        store.close()
        replica.close()
        on_master.close()
    lags.sort()
    return {"p50 ms": 1000 * statistics.median(lags),
            "p99 ms": 1000 * lags[int(len(lags) * 0.99) - 1],
            "max ms": 1000 * lags[-1], "floor ms": 1000 * statistics.median(floor)}


def _keep_appending(url: str, stream: str, stop: EventFlag) -> None:
    store = open_store(f"{url}?wait=0")
    version = 0
    while not stop.is_set():
        store.append(stream, [NewEvent("T", {}, "t")], version)
        version += 1
    store.close()


def run() -> None:
    folder = Path(tempfile.mkdtemp(prefix="cardems-cluster-"))
    cluster = RedisCluster(folder / "cluster")
    try:
        with scratch_redis("cardems-bench-") as (_, redis):
            print("cluster: appends of one event (every node fsyncs every write), one Redis"
                  " against a 3+3 cluster, acknowledged at once (wait=0) or once a replica"
                  " has it (wait=1)")
            for clients, count in ((1, 2000), (16, 300)):
                rows = [("one redis", redis.url),
                        ("cluster wait=0", f"{cluster.url}?wait=0"),
                        ("cluster wait=1", f"{cluster.url}?wait=1")]
                figures = {}
                for name, url in rows:
                    cluster.flush()  # each row writes the same streams afresh
                    figures[name] = appends(url, clients, count)
                for name, fig in figures.items():
                    print(f"  {name:15s} {clients:2d} clients {fig['appends/s']:8,.0f} appends/s"
                          f"  p50 {fig['p50 ms']:6.2f} ms  p99 {fig['p99 ms']:6.2f} ms")
                base = figures["cluster wait=0"]
                waited = figures["cluster wait=1"]
                print(f"  wait=1 / wait=0 at {clients} clients: appends/s"
                      f" x{waited['appends/s'] / base['appends/s']:.2f},"
                      f" p50 x{waited['p50 ms'] / base['p50 ms']:.2f}")
        print("cluster: how long an append acknowledged with wait=0 is on its master alone"
              " (polling its replica until the event is there)")
        for busy in (0, 8):
            lag = replication_lag(cluster, samples=1000, busy=busy)
            print(f"  {busy:2d} other clients appending: p50 {lag['p50 ms']:.2f} ms"
                  f"  p99 {lag['p99 ms']:.2f} ms  max {lag['max ms']:.2f} ms"
                  f"  (one poll of the master: {lag['floor ms']:.2f} ms)")
        for wait in (0, 1):
            acknowledged, whole = failover_seconds(cluster, wait)
            print(f"  kill -9 of a master, wait={wait}: appends acknowledged again after"
                  f" {acknowledged:.1f} s; node back as a replica after {whole:.1f} s")
    finally:
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    run()


if __name__ == "__main__":
    main()
