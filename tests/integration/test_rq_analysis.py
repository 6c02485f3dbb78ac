"""The analysis on real RQ workers in their own processes: shared a round a job, and finished
by another worker when the one judging a round is killed."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys

import redis
from rq import Worker

from eventstore import open_store
from harness.http import ROOT, Server, call, children, stop_workers, wait_until
from service.analysis import round_key
from tests.e2e.conftest import PEOPLE, create
from tests.e2e.test_analysis import decks, play_to_round


def worker(redis_url: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "cli.main", "worker", "--store", redis_url,
                             "--pace", "0"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def kill(process: subprocess.Popen) -> None:
    for pid in [*children(process.pid), process.pid]:
        os.kill(pid, signal.SIGKILL)
    process.wait()


def test_a_worker_killed_mid_round_leaves_it_to_another_and_each_round_is_kept_once(
        redis_url):
    server = Server("--store", redis_url, "--pace", "0")
    assert call(server.base, "GET", "/healthz").body["bots"] == "rq"
    workers = [worker(redis_url) for _ in range(2)]
    connection = redis.Redis.from_url(redis_url)
    store = open_store(redis_url)
    try:
        match = create(server.base, seats=PEOPLE, decks=decks(24, 4))
        play_to_round(server.base, match, 4, random.Random(24))  # three rounds over
        path = f"/v1/matches/{match['id']}/analysis"
        assert call(server.base, "POST", path, {}).status == 202

        def judging() -> dict[int, Worker]:
            """Workers in the middle of a round, by their process."""
            return {w.pid: w for w in Worker.all(connection=connection)
                    if (w.get_current_job_id() or "").startswith("analysis_")}

        # Both workers share the match: each takes a round of its own.
        busy = wait_until(lambda: len(b := judging()) == 2 and b, 60, every=0.02)
        rounds = {int(w.get_current_job_id().rsplit("_", 1)[1]) for w in busy.values()}
        assert len(rounds) == 2
        victim = next(p for p in workers if p.pid in busy)
        lost = int(busy[victim.pid].get_current_job_id().rsplit("_", 1)[1])
        kill(victim)
        workers.remove(victim)
        workers.append(worker(redis_url))

        def done() -> dict | None:
            reply = call(server.base, "GET", path)
            return reply.body if reply.body["status"] == "done" else None

        analysis = wait_until(done, 240, every=0.2)
        assert analysis["up_to_round"] == 3
        assert [r["round"] for r in analysis["rounds"]] == [1, 2, 3]
        assert all(len(r["decisions"]) >= 56 for r in analysis["rounds"])
        assert analysis["progress"]["done"] == analysis["progress"]["total"]
        lost_round = analysis["rounds"][lost - 1]["decisions"]
        assert [d["version"] for d in lost_round] == sorted(d["version"] for d in lost_round)
        # Kept once: asking again hands nothing on, and the kept rounds stay as they are.
        kept = {n: store.get_meta(match["id"], round_key(n)) for n in (1, 2, 3)}
        assert call(server.base, "POST", path, {}).body == analysis
        assert not [w for w in Worker.all(connection=connection)
                    if (w.get_current_job_id() or "").startswith("analysis_")]
        again = {n: store.get_meta(match["id"], round_key(n)) for n in (1, 2, 3)}
        assert again == kept and all(kept.values())
    finally:
        stop_workers([process for process in workers if process.poll() is None])
        server.stop()
        store.close()
        connection.close()

