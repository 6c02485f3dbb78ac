"""Bots on real RQ workers in their own processes, behind a real server, on a private Redis."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from rq import Worker

from tests.http import ROOT, Server, a_move, call, children


@pytest.fixture
def deployment(redis_url):
    # Two gunicorn processes on one Redis store; bot turns queued on RQ for two workers.
    server = Server("--store", redis_url, "--workers", "2")
    workers = [subprocess.Popen([sys.executable, "-m", "cli.main", "worker", "--store",
                                 redis_url, "--pace", "0"], cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL) for _ in range(2)]
    yield server
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.wait(20)
    server.stop()


def wait_until(base, match_id, token, done, timeout=120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = call(base, "GET", f"/v1/matches/{match_id}", token=token).body
        if done(view):
            return view
        time.sleep(0.02)
    raise TimeoutError("the bots did not move")


def play_seat_zero_to_the_end(base, match):
    """Seat 0, a person, moves whenever the match waits for it, until the match is over."""
    token = match["tokens"]["0"]
    while True:
        view = wait_until(base, match["id"], token,
                          lambda v: v["status"] == "finished" or 0 in v["to_act"])
        if view["status"] == "finished":
            return
        path, body = a_move(view)
        reply = call(base, "POST", f"/v1/matches/{match['id']}/{path}", body, token=token)
        assert reply.status == 200, reply.body


def test_health_says_the_bots_run_on_rq(deployment):
    assert call(deployment.base, "GET", "/healthz").body == {
        "status": "ok", "store": "redis", "bots": "rq"}


def test_four_bots_play_a_match_to_its_end_on_rq_workers(deployment, redis_url):
    seats = [{"name": f"b{i}", "bot": "heuristic"} for i in range(4)]
    match = call(deployment.base, "POST", "/v1/matches",
                 {"seats": seats, "rules": {"end_score": 26}}).body
    final = wait_until(deployment.base, match["id"], None, lambda v: v["status"] == "finished")
    assert final["winner"] is not None
    report = call(deployment.base, "GET", f"/v1/matches/{match['id']}/verify").body
    assert report["ok"] and report["deals_ok"]
    log = call(deployment.base, "GET", f"/v1/matches/{match['id']}/events?limit=1000").body
    moves = sum(1 for e in log["events"] if e["type"] in ("CardPlayed", "PassChosen"))
    # Finished jobs leave nothing in RQ but the count their worker keeps.
    assert not redis.Redis.from_url(redis_url).keys("rq:job:*")
    workers = Worker.all(connection=redis.Redis.from_url(redis_url))
    jobs = sum(w.successful_job_count for w in workers)
    # A job goes on to its match's next bot move itself: one job a move would make at least
    # as many jobs as moves.
    assert 0 < jobs < moves / 2, (jobs, moves)


def test_a_person_plays_against_three_bots_on_rq_workers(deployment):
    seats = [{"name": "Ann"}, *({"name": f"b{i}", "bot": "heuristic"} for i in range(3))]
    match = call(deployment.base, "POST", "/v1/matches",
                 {"seats": seats, "rules": {"end_score": 26}}).body
    play_seat_zero_to_the_end(deployment.base, match)
    path = f"/v1/matches/{match['id']}"
    log = call(deployment.base, "GET", path + "/events?limit=1000").body["events"]
    bots = {e["data"]["bot"] for e in log if e["type"] == "CardPlayed"}
    assert bots == {None, "heuristic/1"}


def test_a_worker_killed_mid_turn_does_not_leave_the_match_stuck(redis_url):
    import os
    import signal

    from rq import Worker

    server = Server("--store", redis_url)
    workers = [subprocess.Popen([sys.executable, "-m", "cli.main", "worker", "--store",
                                 redis_url, "--pace", "0.3"], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True) for _ in range(2)]
    connection = redis.Redis.from_url(redis_url)
    try:
        seats = [{"name": f"b{i}", "bot": "random"} for i in range(4)]
        match = call(server.base, "POST", "/v1/matches",
                     {"seats": seats, "rules": {"end_score": 1}}).body
        # In play only one seat is waited for, so only the sweeper can rescue a lost turn.
        wait_until(server.base, match["id"], None, lambda v: len(v["tricks"]) >= 2)
        victim = None
        deadline = time.monotonic() + 30
        while victim is None and time.monotonic() < deadline:
            for worker in Worker.all(connection=connection):
                if worker.get_current_job_id() is not None:
                    victim = next((p for p in workers if p.pid == worker.pid), None)
            time.sleep(0.02)
        assert victim is not None, "caught a worker in the middle of a bot turn"
        # The worker and the work horse computing the turn (RQ gives the horse its own session).
        for pid in [*children(victim.pid), victim.pid]:
            os.kill(pid, signal.SIGKILL)
        victim.wait()
        final = wait_until(server.base, match["id"], None,
                           lambda v: v["status"] == "finished", timeout=180)
        assert final["winner"] is not None
        report = call(server.base, "GET", f"/v1/matches/{match['id']}/verify").body
        assert report["ok"], report
        assert connection.keys("rq:job:*_again*"), "the abandoned turn was queued again"
        # The last job clears its turn just after its move finished the match.
        deadline = time.monotonic() + 30
        while connection.zcard("cardems:pending-bot-turns") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert connection.zcard("cardems:pending-bot-turns") == 0
    finally:
        for worker in workers:
            if worker.poll() is None:
                os.killpg(worker.pid, signal.SIGTERM)
                worker.wait(20)
        server.stop()
        connection.close()


def test_bots_on_a_queue_that_crashes_and_loses_its_jobs_still_finish_the_match(redis_url):
    """The queue on its own Redis that does not wait for the disk; kill -9 it mid-match and
    bring it back empty: the pending turns kept with the events are queued again."""
    import shutil
    import tempfile

    from tests.redis_server import RedisServer

    folder = Path(tempfile.mkdtemp(prefix="cardems-queue-"))
    queue = RedisServer(folder, fsync="everysec")
    server = Server("--store", redis_url, "--queue", queue.url)
    workers = [subprocess.Popen([sys.executable, "-m", "cli.main", "worker", "--store",
                                 redis_url, "--queue", queue.url, "--pace", "0.02"], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
               for _ in range(2)]
    try:
        seats = [{"name": f"b{i}", "bot": "random"} for i in range(4)]
        match = call(server.base, "POST", "/v1/matches",
                     {"seats": seats, "rules": {"end_score": 1}}).body
        wait_until(server.base, match["id"], None, lambda v: len(v["tricks"]) >= 2)
        queue.kill()
        shutil.rmtree(folder / "appendonlydir", ignore_errors=True)  # back with nothing:
        (folder / "dump.rdb").unlink(missing_ok=True)  # every queued job is lost
        stalled = call(server.base, "GET", f"/v1/matches/{match['id']}").body
        queue.start()
        final = wait_until(server.base, match["id"], None,
                           lambda v: v["status"] == "finished", timeout=180)
        assert final["winner"] is not None and stalled["status"] != "finished"
        report = call(server.base, "GET", f"/v1/matches/{match['id']}/verify").body
        assert report["ok"], report
        assert all(worker.poll() is None for worker in workers), "the workers rode it out"
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(20)
        server.stop()
        queue.stop()
        shutil.rmtree(folder, ignore_errors=True)


def test_an_overdue_turn_still_waiting_in_the_queue_is_not_queued_again(redis_url):
    """Under more load than the workers can take, turns wait in the queue past their due
    time. Queuing each again would add a job a turn every few seconds and grow the queue
    without end; only a turn that left the queue (its worker went quiet) is queued again."""
    from rq import Queue

    from workers.rq_dispatch import OVERDUE, PENDING, QUEUE, RqDispatcher

    dispatcher = RqDispatcher(redis_url)
    queue = Queue(QUEUE, connection=redis.Redis.from_url(redis_url))
    dispatcher.enqueue("m1", 2, 7)
    later = time.time() + 3 * OVERDUE
    assert dispatcher.sweep(now=later) == 0
    assert queue.count == 1 and dispatcher.pending() == 1
    ((_, due),) = dispatcher.connection.zrange(PENDING, 0, -1, withscores=True)
    assert due == later + OVERDUE, "given more time, not dropped"
    job = queue.jobs[0]
    queue.remove(job)  # a worker took it off the queue and was killed before it said so
    assert job.get_status() == "queued"
    assert dispatcher.sweep(now=later + 2 * OVERDUE) == 1
    assert [j.id for j in queue.jobs] == ["bot_m1_2_7_again1"]
    again = queue.jobs[0]
    queue.remove(again)  # taken, started, and then its worker went quiet
    again.set_status("started")
    assert dispatcher.sweep(now=later + 4 * OVERDUE) == 1
    assert [j.id for j in queue.jobs] == ["bot_m1_2_7_again2"]
    dispatcher.close()


def test_a_turn_whose_job_died_falls_due_though_it_is_handed_on_again_and_again(redis_url):
    """An API process hands on every match that waits too long on a bot, every few seconds.
    When the turn's job failed (the store failing over) or died with its worker, that job's id
    stays taken: the hand-off queues nothing, and must not put off the turn's due time
    either, or the sweep would never queue it again and the match would wait for ever."""
    from rq import Queue

    from workers.rq_dispatch import OVERDUE, PENDING, QUEUE, RqDispatcher

    dispatcher = RqDispatcher(redis_url)
    queue = Queue(QUEUE, connection=redis.Redis.from_url(redis_url))
    dispatcher.enqueue("m2", 1, 4)
    ((member, due),) = dispatcher.connection.zrange(PENDING, 0, -1, withscores=True)
    job = queue.jobs[0]
    queue.remove(job)
    job.set_status("failed")  # the job's id is taken until its trace expires
    for _ in range(3):
        dispatcher.enqueue("m2", 1, 4)  # handed on again: nothing queued, nothing put off
        assert queue.count == 0
        assert dispatcher.connection.zscore(PENDING, member) == due
    assert dispatcher.sweep(now=due + 0.001) == 1
    assert [j.id for j in queue.jobs] == ["bot_m2_1_4_again1"]
    # Handed on again once more: the first attempt is pending again, falls due, and is
    # queued again though a copy of that id still waits (twice in the queue: harmless, the
    # second finds the seat has moved).
    dispatcher.enqueue("m2", 1, 4)
    assert dispatcher.connection.zscore(PENDING, member) is not None
    assert dispatcher.sweep(now=time.time() + 2 * OVERDUE) == 1
    assert [j.id for j in queue.jobs] == ["bot_m2_1_4_again1"] * 2
    dispatcher.close()
