"""A small HTTP client and a real server process for end-to-end tests."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: Any


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None,
         headers: dict[str, str] | None = None, raw: bytes | None = None) -> Reply:
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return _reply(response.status, response.headers, response.read())
    except urllib.error.HTTPError as error:
        return _reply(error.code, error.headers, error.read())


def _reply(status: int, headers: Any, raw: bytes) -> Reply:
    text = raw.decode()
    try:
        body: Any = json.loads(text) if text else None
    except json.JSONDecodeError:
        body = text
    return Reply(status, {k.lower(): v for k, v in headers.items()}, body)


def wait_until(condition: Any, timeout: float = 60.0, every: float = 0.05) -> Any:
    """The first truthy value of `condition()`, asked again and again until `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"still not so after {timeout} s")
        time.sleep(every)


def view_when(base: str, match_id: str, done: Any, token: str | None = None,
              timeout: float = 60.0) -> dict[str, Any]:
    """The match's view (as `token`'s seat, or a spectator's) once `done(view)` holds."""
    def seen() -> Any:
        view = call(base, "GET", f"/v1/matches/{match_id}", token=token).body
        return done(view) and view

    return cast(dict[str, Any], wait_until(seen, timeout))


def stop_workers(workers: list[subprocess.Popen], timeout: float = 20) -> None:
    """SIGTERM to every worker process. One still running `timeout` seconds later is killed,
    so that nothing outlives the test, and the stop fails."""
    for worker in workers:
        worker.terminate()
    deadline = time.monotonic() + timeout
    stuck = []
    for worker in workers:
        try:
            worker.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            stuck.append(worker.pid)
            worker.kill()
            worker.wait()
    assert not stuck, f"workers {stuck} did not stop within {timeout} s of SIGTERM"


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (gunicorn's workers, RQ's work horses)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def resident_mib(pid: int | str = "self") -> float | None:
    """A process's resident memory in MiB, from /proc; None when the process is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return None
    return int(status.split("VmRSS:")[1].split()[0]) / 1024


class Server:
    """`cardems serve` in its own process, on a free port, until stopped."""

    def __init__(self, *args: str, env: dict[str, str] | None = None,
                 python: str = sys.executable, cwd: Path = ROOT,
                 clean_env: bool = False, port: int | None = None,
                 log: Path | None = None) -> None:
        self.port = port or free_port()  # a restart takes the port its clients know
        self.base = f"http://127.0.0.1:{self.port}"
        # The tests create and move far faster than a person: a limit only where they test it.
        limits = {"--create-limit": "1000000/minute", "--move-limit": "1000000/minute",
                  "--check-limit": "1000000/minute",
                  "--bot-matches-per-client": "1000000", "--bot-matches": "1000000",
                  "--connections-per-client": "1000000"}
        generous = [flag for name, value in limits.items() if name not in args
                    for flag in (name, value)]
        command = [python, "-m", "cli.main", "serve", "--port", str(self.port), *generous,
                   *args]
        # A long run logs to a file: a pipe nobody reads would fill and stall the server.
        self.log = log
        self.process = subprocess.Popen(
            command, cwd=cwd, env={**({} if clean_env else os.environ), **(env or {})},
            stdout=subprocess.DEVNULL,
            stderr=log.open("ab") if log else subprocess.PIPE)
        self._wait_ready()

    def _wait_ready(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                if self.log:
                    raise RuntimeError(self.log.read_text(errors="replace"))
                raise RuntimeError(self.process.stderr.read().decode())  # type: ignore[union-attr]
            try:
                if call(self.base, "GET", "/healthz").status == 200:
                    return
            except OSError:
                time.sleep(0.05)
        raise TimeoutError("the server did not start")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def a_move(view: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A legal move for the reader's seat, which the match waits for: (the path under the
    match, the body). It passes its top three cards, plays its lowest legal card, or takes
    the moon from its own score."""
    you = view["you"]
    if view["status"] == "passing":
        return "passes", {"cards": you["hand"][-3:]}
    if view["status"] == "playing":
        return "plays", {"card": you["legal"][0]}
    return "moon", {"choice": "subtract_from_self"}
