"""A private redis-server for the tests: own port, own folder, durable, killable."""

from __future__ import annotations

import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import redis

from tests.http import free_port


class RedisServer:
    def __init__(self, folder: Path, fsync: str = "always") -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RuntimeError("redis-server is not installed: run `make test`, which installs it")
        self.binary = binary
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.fsync = fsync  # "always" for events; a queue may use "everysec"
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir",
             str(self.folder), "--appendonly", "yes", "--appendfsync", self.fsync, "--save", "",
             "--daemonize", "no", "--logfile", str(self.folder / "redis.log")],
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
