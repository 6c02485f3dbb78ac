"""Load with faults: the whole distributed deployment on this machine, a bounded locust run
through it, kill -9 of an API process, a worker and a Redis master during the run, and the
checks after it. The short run is a test (tests/load/test_load_with_faults.py); the long
one is `bench load`, with its figures.

The deployment: a Redis Cluster of three masters and three replicas for the events, a Redis
of its own for the RQ queue, `cardems serve` with several gunicorn processes behind one
port, and several `cardems worker`s.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from domain.events import RoundDealt
from eventstore import StoreError, open_store
from eventstore.redis_store import Buckets
from harness.http import ROOT, Server, a_move, call, children
from harness.redis_server import RedisCluster, RedisServer
from service import decode

LOCUSTFILE = Path(__file__).resolve().parent.parent / "tests" / "load" / "locustfile.py"


class Deployment:
    def __init__(self, folder: Path, api_processes: int = 2, workers: int = 2) -> None:
        self.folder = folder
        self.cluster = RedisCluster(folder / "cluster")
        self.queue = RedisServer(folder / "queue", fsync="everysec")
        self.store_url = self.cluster.url
        self.server = Server("--store", self.store_url, "--queue", self.queue.url,
                             "--workers", str(api_processes), "--pace", "0",
                             "--streams-per-client", "1000", log=folder / "api.log")
        self.workers = [self._worker() for _ in range(workers)]

    def _worker(self) -> subprocess.Popen[bytes]:
        log = (self.folder / "workers.log").open("ab")
        return subprocess.Popen([sys.executable, "-m", "cli.main", "worker", "--store",
                                 self.store_url, "--queue", self.queue.url, "--pace", "0"],
                                cwd=ROOT, stdout=log, stderr=log, start_new_session=True)

    # -- faults ------------------------------------------------------------------------

    def kill_api_process(self) -> str:
        """kill -9 one gunicorn worker process; its master starts another."""
        victim = random.choice(children(self.server.process.pid))
        os.kill(victim, signal.SIGKILL)
        return f"API process {victim}"

    def kill_worker(self) -> str:
        """kill -9 a bot worker and the turn it may be computing, then start a new one."""
        victim = self.workers.pop(random.randrange(len(self.workers)))
        for pid in [*children(victim.pid), victim.pid]:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        victim.wait()
        self.workers.append(self._worker())
        return f"worker {victim.pid}"

    def kill_master(self) -> str:
        """kill -9 a Redis master; once its replica has taken over, start it again (it comes
        back as the new master's replica)."""
        bucket = random.randrange(128)
        victim = self.cluster.master_of(Buckets().indexes()[bucket][0])
        victim.kill()
        self.cluster.wait_until_ok()  # the replica took over
        victim.start()
        self.cluster.wait_until_ok()  # and the old master is its replica, in sync
        return f"Redis master :{victim.port}"

    def stop(self) -> None:
        for worker in self.workers:
            worker.terminate()
        for worker in self.workers:
            try:
                worker.wait(20)
            except subprocess.TimeoutExpired:
                worker.kill()
        self.server.stop()
        self.queue.stop()
        self.cluster.stop()


@dataclass
class Run:
    """What a load run left behind, and what the checks found."""

    folder: Path
    faults: list[tuple[float, str]] = field(default_factory=list)
    started: float = 0.0
    ended: float = 0.0

    def records(self, name: str) -> list[dict[str, Any]]:
        path = self.folder / name
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def stats(self) -> list[dict[str, str]]:
        with (self.folder / "load_stats.csv").open() as rows:
            return list(csv.DictReader(rows))


def run_load(deployment: Deployment, folder: Path, users: int, seconds: int,
             faults: list[tuple[float, Callable[[], str]]], bots_alone: float = 0.25,
             history: bool = False) -> Run:
    """Run locust for `seconds` with `users` people, injecting each fault at its fraction of
    the run; wait for the run to end."""
    run = Run(folder)
    env = {**os.environ, "CARDEMS_LOAD_ACKS": str(folder / "acks.jsonl"),
           "CARDEMS_LOAD_FAILURES": str(folder / "failures.jsonl"),
           "CARDEMS_LOAD_MATCHES": str(folder / "matches.jsonl"),
           "CARDEMS_LOAD_BOTS_ALONE": str(bots_alone)}
    locust = subprocess.Popen(
        [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless", "-u", str(users),
         "-r", str(max(1, users // 5)), "-t", f"{seconds}s", "--host", deployment.server.base,
         "--csv", str(folder / "load"), "--only-summary", "--stop-timeout", "5",
         "--exit-code-on-error", "0", "--loglevel", "WARNING",
         *(["--csv-full-history"] if history else [])],
        cwd=ROOT, env=env, stdout=(folder / "locust.log").open("wb"),
        stderr=subprocess.STDOUT)
    run.started = time.time()
    try:
        for fraction, fault in sorted(faults, key=lambda f: f[0]):
            delay = run.started + fraction * seconds - time.time()
            if delay > 0:
                time.sleep(delay)  # the schedule of the faults: at fixed points of the run
            at = time.time()
            run.faults.append((at, fault()))
        locust.wait(seconds + 120)
    finally:
        if locust.poll() is None:
            locust.kill()
    run.ended = time.time()
    return run


def finish_every_match(base: str, run: Run, timeout: float = 180) -> list[dict[str, Any]]:
    """Every match the load created, played to its end: the people's seats by the first
    legal move, the bots by themselves. The final views."""
    deadline = time.monotonic() + timeout
    finals = []
    for match in run.records("matches.jsonl"):
        token = match.get("token")
        while True:
            if time.monotonic() > deadline:
                seen = call(base, "GET", f"/v1/matches/{match['id']}").body
                raise AssertionError(f"match {match['id']} did not finish: {seen}")
            reply = call(base, "GET", f"/v1/matches/{match['id']}", token=token)
            if reply.status != 200:
                time.sleep(0.1)
                continue
            view = reply.body
            if view["status"] in ("finished", "abandoned"):
                finals.append(view)
                break
            you = view["you"]
            if you is None or you["seat"] not in view["to_act"]:
                time.sleep(0.02)  # a bot's turn
                continue
            path, body = a_move(view)
            call(base, "POST", f"/v1/matches/{match['id']}/{path}", body, token=token)
    return finals


def missing_acknowledged_moves(store_url: str, run: Run) -> list[dict[str, Any]]:
    """The acknowledged moves that the log does not hold."""
    store = open_store(store_url)
    logs: dict[str, list[tuple[int, Any]]] = {}  # match -> (round, event) for each event
    missing = []
    try:
        for ack in run.records("acks.jsonl"):
            if ack["match"] not in logs:
                for _ in range(100):
                    try:
                        logs[ack["match"]] = _with_rounds(decode(e)
                                                          for e in store.read(ack["match"]))
                        break
                    except StoreError:
                        time.sleep(0.1)
            if not any(number == ack["round"] and _is(event, ack)
                       for number, event in logs[ack["match"]]):
                missing.append(ack)
    finally:
        store.close()
    return missing


def _with_rounds(events: Iterable[Any]) -> list[tuple[int, Any]]:
    """Each event with the round it belongs to (a play names no round of its own)."""
    number, out = 0, []
    for event in events:
        if isinstance(event, RoundDealt):
            number = event.round
        out.append((number, event))
    return out


def _is(event: Any, ack: dict[str, Any]) -> bool:
    kind = type(event).__name__
    if getattr(event, "seat", None) != ack["seat"]:
        return False
    if ack["kind"] == "plays":
        return kind == "CardPlayed" and str(event.card) == ack["card"]
    if ack["kind"] == "passes":
        return kind == "PassChosen" and sorted(map(str, event.cards)) == sorted(ack["cards"])
    return kind == "MoonChosen" and event.choice.value == ack["choice"]


def fault_costs(run: Run, window: float = 30.0) -> list[tuple[str, int, float]]:
    """For each fault: the failed requests in the `window` seconds after it (or until the
    next fault), and the seconds from the fault to the last of them."""
    failures = sorted(f["at"] for f in run.records("failures.jsonl"))
    out = []
    for i, (at, name) in enumerate(run.faults):
        until = min(at + window, run.faults[i + 1][0] if i + 1 < len(run.faults) else run.ended)
        inside = [t for t in failures if at <= t < until]
        out.append((name, len(inside), (inside[-1] - at) if inside else 0.0))
    return out


def figures(run: Run) -> str:
    """The run's figures: requests per second, latency per endpoint, what each fault cost."""
    lines = []
    for row in run.stats():
        lines.append(f"  {row['Name']:10s} {int(row['Request Count']):7d} requests"
                     f" {int(row['Failure Count']):5d} failed  {float(row['Requests/s']):7.1f}/s"
                     f"  p50 {row['50%']:>5s} ms  p95 {row['95%']:>5s} ms  p99 {row['99%']:>6s} ms")
    lines += [f"  {name}: {count} failed requests, the last {seconds:.1f} s after the kill"
              for name, count, seconds in fault_costs(run)]
    return "\n".join(lines)
