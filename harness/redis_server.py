"""A private redis-server for the tests: own port, own folder, durable, killable."""

from __future__ import annotations

import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from harness.http import free_port


def free_cluster_port() -> int:
    """A free port whose cluster bus port (10,000 above it) is free too."""
    rng = random.Random()
    while True:
        port = rng.randrange(20_000, 55_535)
        try:
            for candidate in (port, port + 10_000):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", candidate))
        except OSError:
            continue
        return port


class RedisServer:
    def __init__(self, folder: Path, fsync: str = "always", cluster: bool = False) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed: run `make test`, which installs it")
        self.binary = binary
        self.folder = folder
        self.port = free_cluster_port() if cluster else free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.fsync = fsync  # "always" for events; a queue may use "everysec"
        self.cluster = cluster
        folder.mkdir(parents=True, exist_ok=True)
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir",
             str(self.folder), "--appendonly", "yes", "--appendfsync", self.fsync, "--save", "",
             "--daemonize", "no", "--logfile", str(self.folder / "redis.log"),
             *(["--cluster-enabled", "yes", "--cluster-node-timeout", "1000",
                "--cluster-config-file", str(self.folder / "nodes.conf")]
               if self.cluster else [])],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 20
        while True:
            try:
                if client.ping():
                    break
            except redis.exceptions.BusyLoadingError:
                pass
            except redis.ConnectionError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("redis-server did not start") from None
            time.sleep(0.02)
        client.close()

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL: no chance to flush anything that was not already on disk."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)

    def flush(self) -> None:
        client = redis.Redis.from_url(self.url)
        client.flushall()
        client.close()


@contextmanager
def scratch_redis(prefix: str, fsync: str = "always") -> Iterator[tuple[Path, RedisServer]]:
    """A temporary folder with a private redis-server in it, both gone afterwards."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    server = RedisServer(folder, fsync)
    try:
        yield folder, server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


class RedisCluster:
    """A Redis Cluster of `masters` masters, each with one replica, on free ports in `folder`:
    real nodes that a test may kill -9 and restart."""

    def __init__(self, folder: Path, masters: int = 3) -> None:
        self.nodes = [RedisServer(folder / f"node{i}", cluster=True)
                      for i in range(2 * masters)]
        hosts = [f"127.0.0.1:{node.port}" for node in self.nodes]
        done = subprocess.run(["redis-cli", "--cluster", "create", *hosts, "--cluster-replicas",
                               "1", "--cluster-yes"], capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            self.stop()
            raise RuntimeError(f"redis-cli --cluster create failed: {done.stdout}{done.stderr}")
        self.url = f"redis+cluster://127.0.0.1:{self.nodes[0].port}"
        self.wait_until_ok()

    def info(self, node: RedisServer) -> dict[str, str]:
        client = redis.Redis(port=node.port, decode_responses=True, socket_timeout=2)
        try:
            text = client.execute_command("CLUSTER", "INFO")
        finally:
            client.close()
        return dict(line.split(":", 1) for line in str(text).split() if ":" in line)

    def wait_until_ok(self, timeout: float = 60) -> None:
        """Until every running node says the cluster is ok and every slot is served."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                infos = [self.info(n) for n in self.nodes if n.running]
                if all(i["cluster_state"] == "ok" and i["cluster_slots_ok"] == "16384"
                       for i in infos) and self.replicas_in_sync():
                    return
            except redis.RedisError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the cluster did not come up")
            time.sleep(0.05)

    def replicas_in_sync(self) -> bool:
        """Every running replica's link to its master is up (its first sync is done)."""
        for node in self.nodes:
            if not node.running:
                continue
            client = redis.Redis(port=node.port, decode_responses=True, socket_timeout=2)
            try:
                info = client.info("replication")
            finally:
                client.close()
            if info["role"] == "slave" and info.get("master_link_status") != "up":
                return False
        return True

    def master_of(self, key: str) -> RedisServer:
        client: redis.RedisCluster = redis.RedisCluster(host="127.0.0.1",
                                                         port=self.nodes[0].port)
        try:
            node = client.get_node_from_key(key)
            assert node is not None
            port = node.port
        finally:
            client.close()
        return next(n for n in self.nodes if n.port == port)

    def flush(self) -> None:
        for node in self.nodes:
            if not node.running:
                continue
            client = redis.Redis(port=node.port)
            try:
                if client.execute_command("ROLE")[0] in (b"master", "master"):
                    client.flushall()
            finally:
                client.close()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
