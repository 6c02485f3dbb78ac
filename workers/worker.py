"""`cardems worker`: an RQ worker that computes bot turns, and sweeps up abandoned ones."""

from __future__ import annotations

import logging
import threading
import time

import redis
from rq import SimpleWorker

from workers.rq_dispatch import QUEUE, RqDispatcher

log = logging.getLogger(__name__)
SWEEP_SECONDS = 1.0
RECONNECT_SECONDS = 1.0


def _sweep_forever(dispatcher: RqDispatcher, stop: threading.Event) -> None:
    while not stop.wait(SWEEP_SECONDS):
        try:
            dispatcher.sweep()
        except redis.RedisError:
            log.exception("sweeping overdue bot turns failed; trying again")


def run_worker(store_url: str, burst: bool = False, queue_url: str | None = None) -> int:
    dispatcher = RqDispatcher(store_url, queue_url)
    connection = redis.Redis.from_url(dispatcher.queue_url)
    stop = threading.Event()
    sweeper = threading.Thread(target=_sweep_forever, args=(dispatcher, stop), daemon=True)
    sweeper.start()
    try:
        while True:
            try:
                # Turns run in this process: a fork per turn would cost more than the turn.
                SimpleWorker([QUEUE], connection=connection).work(burst=burst,
                                                                  with_scheduler=False)
                return 0
            except redis.ConnectionError:
                # The queue's Redis went away mid-job; RQ gives up then. The sweeper has the
                # turn still pending and will queue it again: carry on once Redis is back.
                log.exception("lost the queue's Redis; working again in %s s", RECONNECT_SECONDS)
                if burst:
                    return 1
                time.sleep(RECONNECT_SECONDS)
    finally:
        stop.set()
