"""`cardems worker`: an RQ worker that computes bot turns from a Redis store."""

from __future__ import annotations

import redis
from rq import Worker

from workers.rq_dispatch import QUEUE


def run_worker(store_url: str, burst: bool = False) -> int:
    connection = redis.Redis.from_url(store_url)
    worker = Worker([QUEUE], connection=connection)
    worker.work(burst=burst, with_scheduler=False)
    return 0
