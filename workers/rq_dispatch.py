"""Bot turns on Redis + RQ, for several API processes and worker machines."""

from __future__ import annotations

import logging

import redis
from rq import Queue
from rq.exceptions import DuplicateJobError

from workers.dispatch import job_id

log = logging.getLogger(__name__)

QUEUE = "cardems-bots"
TURN_TIMEOUT = 60  # seconds a worker may spend on one bot turn before RQ gives up on it
RESULT_TTL = 600  # how long a finished turn's id is kept, so a late duplicate is refused


class RqDispatcher:
    """Queues each bot turn once (the job id is the turn) for `cardems worker` processes."""

    name = "rq"

    def __init__(self, connection: redis.Redis, store_url: str) -> None:
        self.queue = Queue(QUEUE, connection=connection)
        self.store_url = store_url

    @classmethod
    def from_store_url(cls, store_url: str) -> RqDispatcher:
        if not store_url.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("--bots rq needs a Redis store: --store redis://HOST:PORT/DB")
        return cls(redis.Redis.from_url(store_url), store_url)

    def enqueue(self, match_id: str, seat: int, version: int) -> None:
        try:
            self.queue.enqueue_call(
                "workers.jobs.bot_turn", args=(self.store_url, match_id, seat, version),
                job_id=job_id(match_id, seat, version), unique=True, timeout=TURN_TIMEOUT,
                result_ttl=RESULT_TTL, failure_ttl=RESULT_TTL)
        except DuplicateJobError:
            log.debug("bot turn %s is queued already", job_id(match_id, seat, version))

    def close(self) -> None:
        self.queue.connection.close()
