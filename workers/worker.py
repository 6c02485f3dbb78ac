"""`cardems worker`: an RQ worker that computes bot turns, and sweeps up abandoned ones."""

from __future__ import annotations

import logging
import threading

import redis
from rq import SimpleWorker

from workers.rq_dispatch import QUEUE, RqDispatcher

log = logging.getLogger(__name__)
SWEEP_SECONDS = 1.0


def _sweep_forever(store_url: str, stop: threading.Event) -> None:
    dispatcher = RqDispatcher.from_store_url(store_url)
    while not stop.wait(SWEEP_SECONDS):
        try:
            dispatcher.sweep()
        except redis.RedisError:
            log.exception("sweeping overdue bot turns failed; trying again")


def run_worker(store_url: str, burst: bool = False) -> int:
    connection = redis.Redis.from_url(store_url)
    stop = threading.Event()
    sweeper = threading.Thread(target=_sweep_forever, args=(store_url, stop), daemon=True)
    sweeper.start()
    try:
        # Turns run in this process: a fork per turn would cost more than the turn itself.
        SimpleWorker([QUEUE], connection=connection).work(burst=burst, with_scheduler=False)
    finally:
        stop.set()
    return 0
