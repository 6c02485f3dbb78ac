"""Bots on real RQ workers in their own processes, behind a real server, on a private Redis."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from rq import Worker

from harness.http import ROOT, Server, a_move, call, children, stop_workers, view_when, wait_until


@pytest.fixture
def deployment(redis_url):
    # Two gunicorn processes on one Redis store; bot turns queued on RQ for two workers.
    server = Server("--store", redis_url, "--workers", "2")
    workers = [subprocess.Popen([sys.executable, "-m", "cli.main", "worker", "--store",
                                 redis_url, "--pace", "0"], cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL) for _ in range(2)]
    try:
        yield server
    finally:
        try:
            stop_workers(workers)
        finally:
            server.stop()


def play_seat_zero_to_the_end(base, match):
    """Seat 0, a person, moves whenever the match waits for it, until the match is over."""
    token = match["tokens"]["0"]
    while True:
        view = view_when(base, match["id"], lambda v: v["status"] == "finished"
                         or 0 in v["to_act"], token, timeout=120)
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
    final = view_when(deployment.base, match["id"], lambda v: v["status"] == "finished",
                      timeout=120)
    assert final["winner"] is not None
    report = call(deployment.base, "GET", f"/v1/matches/{match['id']}/verify").body
    assert report["ok"] and report["deals_ok"]
    log = call(deployment.base, "GET", f"/v1/matches/{match['id']}/events?limit=1000").body
    moves = sum(1 for e in log["events"] if e["type"] in ("CardPlayed", "PassChosen"))
    # A job waits a few seconds for more turns before it ends; once the jobs have ended,
    # finished jobs leave nothing in RQ but the count their worker keeps.
    connection = redis.Redis.from_url(redis_url)
    wait_until(lambda: not any(w.get_current_job_id()
                               for w in Worker.all(connection=connection)), 30)
    assert not connection.keys("rq:job:*")
    workers = Worker.all(connection=connection)
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

    from rq import Queue, Worker

    from eventstore import open_store
    from service.waiting import BOT_WAIT
    from workers.rq_dispatch import PERSON_QUEUE, QUEUE

    def worker() -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "cli.main", "worker", "--store",
                                 redis_url, "--pace", "0.1"], cwd=ROOT,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)

    server = Server("--store", redis_url)
    workers = [worker() for _ in range(2)]
    connection = redis.Redis.from_url(redis_url)
    store = open_store(redis_url)
    queues = [Queue(name, connection=connection) for name in (QUEUE, PERSON_QUEUE)]
    try:
        seats = [{"name": f"b{i}", "bot": "random"} for i in range(4)]
        match = call(server.base, "POST", "/v1/matches",
                     {"seats": seats, "rules": {"end_score": 1}}).body
        # In play only one seat is waited for, so only the sweeper can rescue a lost turn.
        view_when(server.base, match["id"], lambda v: len(v["tricks"]) >= 2, timeout=120)
        # The turn is in a job's hands: owed, in no queue, and a worker has a job. Every
        # worker with a job is killed, so the one that holds the turn is.
        def in_a_turn() -> list[subprocess.Popen]:
            busy = {w.pid for w in Worker.all(connection=connection) if w.get_current_job_id()}
            if busy and store.marked(BOT_WAIT) and not any(q.count for q in queues):
                return [p for p in workers if p.pid in busy]
            return []

        # caught the workers in the middle of a bot turn
        victims = wait_until(in_a_turn, 30, every=0.02)
        for victim in victims:  # the worker and any process of its own
            for pid in [*children(victim.pid), victim.pid]:
                os.kill(pid, signal.SIGKILL)
            victim.wait()
            workers.remove(victim)
            workers.append(worker())
        final = view_when(server.base, match["id"], lambda v: v["status"] == "finished",
                          timeout=180)
        assert final["winner"] is not None
        report = call(server.base, "GET", f"/v1/matches/{match['id']}/verify").body
        assert report["ok"], report
        assert connection.keys("rq:job:*_again*"), "the abandoned turn was queued again"
        assert store.marked(BOT_WAIT) == {}, "the finished match owes nothing"
    finally:
        for process in workers:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(20)
        server.stop()
        connection.close()
        store.close()


def test_bots_on_a_queue_that_crashes_and_loses_its_jobs_still_finish_the_match(redis_url):
    """The queue on its own Redis that does not wait for the disk; kill -9 it mid-match and
    bring it back empty: the turns owed in the schedule kept with the events are queued
    again."""
    import shutil
    import tempfile

    from harness.redis_server import RedisServer

    folder = Path(tempfile.mkdtemp(prefix="cardems-queue-"))
    queue = RedisServer(folder, fsync="everysec")
    server = Server("--store", redis_url, "--queue", queue.url)
    logs = [folder / f"worker-{n}.log" for n in range(2)]
    workers = []
    for log in logs:
        with log.open("w") as stderr:  # the child keeps its own copy
            workers.append(subprocess.Popen(
                [sys.executable, "-m", "cli.main", "worker", "--store", redis_url, "--queue",
                 queue.url, "--pace", "0.02"], cwd=ROOT, stdout=subprocess.DEVNULL,
                stderr=stderr))
    try:
        seats = [{"name": f"b{i}", "bot": "random"} for i in range(4)]
        match = call(server.base, "POST", "/v1/matches",
                     {"seats": seats, "rules": {"end_score": 1}}).body
        view_when(server.base, match["id"], lambda v: len(v["tricks"]) >= 2, timeout=120)
        queue.kill()
        shutil.rmtree(folder / "appendonlydir", ignore_errors=True)  # back with nothing:
        (folder / "dump.rdb").unlink(missing_ok=True)  # every queued job is lost
        stalled = call(server.base, "GET", f"/v1/matches/{match['id']}").body
        queue.start()
        final = view_when(server.base, match["id"], lambda v: v["status"] == "finished",
                          timeout=180)
        assert final["winner"] is not None and stalled["status"] != "finished"
        report = call(server.base, "GET", f"/v1/matches/{match['id']}/verify").body
        assert report["ok"], report
        ended = [log.read_text()[-3000:] for log, w in zip(logs, workers, strict=True)
                 if w.poll() is not None]
        assert not ended, f"the workers rode it out, but one ended: {ended}"
    finally:
        try:
            stop_workers(workers)
        finally:
            server.stop()
            queue.stop()
            shutil.rmtree(folder, ignore_errors=True)


def test_a_lost_turn_is_queued_again_once_under_an_id_of_its_own(redis_url):
    """The turn's first job died (or failed while the store failed over): its id stays
    taken, so handing the turn on again queues nothing. Once overdue in the schedule, the
    turn is claimed by one of the sweepers (two API processes here) and queued again under a
    new id; lost again, it comes back later each time."""
    from rq import Queue

    from domain.events import SeatSpec
    from domain.rules import Rules
    from eventstore import open_store
    from service import MatchService
    from service.bot_turns import LOST_AFTER
    from service.waiting import BOT_WAIT, OwedTurn
    from workers.rq_dispatch import PERSON_QUEUE, RqDispatcher

    queue = Queue(PERSON_QUEUE, connection=redis.Redis.from_url(redis_url))  # Ann waits
    now = [time.time()]
    stores = [open_store(redis_url) for _ in range(2)]
    services = [MatchService(store, lambda _: RqDispatcher(redis_url), clock=lambda: now[0])
                for store in stores]
    try:
        seats = [SeatSpec("Ann"), *(SeatSpec(f"b{i}", "random") for i in range(1, 4))]
        match = services[0].create(seats, Rules()).match
        assert sorted(j.id for j in queue.jobs) == [
            f"bot_{match.id}_{seat}_{match.version}" for seat in (1, 2, 3)]
        for job in queue.jobs:
            queue.remove(job)
            job.set_status("failed")  # the job's id is taken until its trace expires
        services[1].bots.hand_off(match)
        assert queue.count == 0, "the first attempt's ids are taken"
        owed = OwedTurn.parse(stores[0].marked(BOT_WAIT)[match.id])
        now[0] = owed.due + LOST_AFTER - 0.01
        assert [s.bots.recover() for s in services] == [0, 0], "not yet overdue"
        now[0] = owed.due + LOST_AFTER + 0.01
        assert sorted(s.bots.recover() for s in services) == [0, 1], "one sweeper wins"
        assert sorted(j.id for j in queue.jobs) == [
            f"bot_{match.id}_{seat}_{match.version}_again1" for seat in (1, 2, 3)]
        for job in queue.jobs:  # taken, and then its worker went quiet
            queue.remove(job)
        again = OwedTurn.parse(stores[0].marked(BOT_WAIT)[match.id])
        assert again.attempt == 1 and again.due == now[0]
        now[0] = again.due + LOST_AFTER + 0.01
        assert sum(s.bots.recover() for s in services) == 1
        assert {j.id.rsplit("_", 1)[1] for j in queue.jobs} == {"again2"}
        later = OwedTurn.parse(stores[0].marked(BOT_WAIT)[match.id])
        assert later.due > now[0], "given longer than the first time"
    finally:
        for service in services:
            service.close()


def test_a_job_takes_the_turns_that_wait_in_the_queue_people_s_first(redis_url):
    """Under load a job goes on with the turns that wait in the queue, each taken in one round
    trip: the job it was queued as ends there, unrun, and leaves nothing behind but the trace
    of a turn queued again. (The turn stays owed in the schedule until it is made.)"""
    from rq import Queue

    from workers.rq_dispatch import QUEUE, RqDispatcher

    dispatcher = RqDispatcher(redis_url)
    connection = redis.Redis.from_url(redis_url)
    dispatcher.enqueue("m_3", 1, 4)
    dispatcher.enqueue("m_3", 2, 4)
    dispatcher.enqueue("m4", 0, 9, urgent=True)
    dispatcher.enqueue("m_3", 3, 4, attempt=2)
    taken = [dispatcher.take() for _ in range(4)]
    assert taken == [("m4", 0, 9), ("m_3", 1, 4), ("m_3", 2, 4), ("m_3", 3, 4)]
    assert Queue(QUEUE, connection=connection).count == 0
    assert [k.decode() for k in connection.keys("rq:job:*")] == ["rq:job:bot_m_3_3_4_again2"]
    assert connection.hget("rq:job:bot_m_3_3_4_again2", "status") == b"finished"
    began = time.monotonic()
    assert dispatcher.take(wait=0.2) is None
    assert time.monotonic() - began >= 0.15, "it waited for a turn to come"
    dispatcher.close()


def test_a_worker_asked_to_stop_exits_at_once_and_leaves_rq_s_registry(redis_url):
    """SIGTERM to an idle worker: it exits with 0 within seconds and RQ no longer lists it.
    (The listener's race, below, made one such stop in ten take a minute.)"""
    import signal

    connection = redis.Redis.from_url(redis_url)
    for _ in range(4):
        worker = subprocess.Popen([sys.executable, "-m", "cli.main", "worker", "--store",
                                   redis_url], cwd=ROOT, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            # Idle: waiting for a job, its signal handlers in place.
            wait_until(lambda: [w.get_state() for w in Worker.all(connection=connection)]
                       == ["idle"], 30, every=0.02)
            worker.send_signal(signal.SIGTERM)
            assert worker.wait(10) == 0
        finally:
            worker.kill()
            worker.wait()
        assert Worker.all(connection=connection) == []


def test_a_stopping_worker_s_command_listener_ends_soon_whatever_it_read_first(redis_url):
    """RQ stops a worker by unsubscribing it from its commands, then waiting for the thread
    that listens for them. If that thread reads the unsubscription before it is told to stop
    (one stop in ten here), it sleeps out its poll before it ends: a minute with RQ's own
    poll, which held a stopping worker that long."""
    import threading

    from workers.worker import TurnWorker

    worker = TurnWorker(["turns"], connection=redis.Redis.from_url(redis_url))
    worker.subscribe()
    listener, pubsub = worker.pubsub_thread, worker.pubsub
    assert listener is not None and pubsub is not None
    wait_until(lambda: pubsub.subscribed, 10, every=0.01)
    pubsub.unsubscribe()
    # the listener has read the unsubscription: the bad order
    wait_until(lambda: not pubsub.subscribed, 10, every=0.01)
    stopping = threading.Thread(target=listener.stop, daemon=True)
    stopping.start()
    stopping.join(5)
    assert not stopping.is_alive() and not listener.is_alive()


def paced_worker(redis_url: str, pace: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "cli.main", "worker", "--store", redis_url,
                             "--pace", pace], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


BOT_MATCH = {"seats": [{"name": f"b{i}", "bot": "random"} for i in range(4)],
             "rules": {"end_score": 10_000}}


def test_one_worker_keeps_many_paced_matches_moving_at_once(redis_url):
    """Twenty matches of bots at a pace of half a second on one worker. A worker that slept
    through each pace would make two moves a second in all; holding the ready moves while it
    takes other turns, it keeps every match near its pace."""
    server = Server("--store", redis_url)
    workers = [paced_worker(redis_url, "0.5")]
    try:
        matches = [call(server.base, "POST", "/v1/matches", BOT_MATCH).body["id"]
                   for _ in range(20)]

        def versions() -> list[int]:
            return [call(server.base, "GET", f"/v1/matches/{m}").body["version"]
                    for m in matches]

        start = versions()
        # 20 moves in each match: 400 in all, 200 s for a worker asleep through its paces.
        wait_until(lambda: all(v >= s + 20 for v, s in zip(versions(), start, strict=True)),
                   timeout=60, every=0.5)
    finally:
        try:
            stop_workers(workers)
        finally:
            server.stop()


def test_a_worker_killed_with_ready_moves_in_hand_loses_no_turn(redis_url):
    """A long pace, so that the worker is caught holding moves it has chosen; killed, the
    turns it held are made by another, each once, and every chain verifies. No serving
    process runs meanwhile: the new worker's own sweep of the schedule hands them on."""
    import os
    import signal

    from rq import Queue

    from eventstore import open_store
    from workers.rq_dispatch import QUEUE

    server = Server("--store", redis_url)
    workers = [paced_worker(redis_url, "3")]
    connection = redis.Redis.from_url(redis_url)
    store = open_store(redis_url)
    queue = Queue(QUEUE, connection=connection)
    try:
        created = [call(server.base, "POST", "/v1/matches",
                        {**BOT_MATCH, "rules": {"end_score": 1}}).body for _ in range(5)]
        server.stop()
        matches = [match["id"] for match in created]
        before = [match["version"] for match in created]

        def versions() -> list[int]:
            return [store.version(m) for m in matches]

        def holding() -> bool:  # every pass taken off the queue, and none stored
            return queue.count == 0 and versions() == before
        wait_until(holding, 30, every=0.05)
        os.kill(workers[0].pid, signal.SIGKILL)
        workers[0].wait()
        workers = [paced_worker(redis_url, "0.05")]
        wait_until(lambda: all(v > b for v, b in zip(versions(), before, strict=True)), 60)
        server = Server("--store", redis_url)
        for match_id in matches:
            final = view_when(server.base, match_id, lambda v: v["status"] == "finished",
                              timeout=180)
            assert final["winner"] is not None
            report = call(server.base, "GET", f"/v1/matches/{match_id}/verify").body
            assert report["ok"], report
    finally:
        try:
            stop_workers(workers)
        finally:
            server.stop()
            connection.close()
            store.close()
