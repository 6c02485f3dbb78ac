"""Bot turns on Redis + RQ, for several API processes and worker machines.

A worker killed in the middle of a turn must not leave its match stuck. Every queued turn is
also written to a sorted set of pending turns, scored by when it is due; the job clears it
when done. Each `cardems worker` sweeps that set and queues again any turn overdue, under a
new job id; running a turn twice is harmless (the second finds the seat has moved).
"""

from __future__ import annotations

import json
import logging
import time

import redis
from rq import Queue
from rq.exceptions import DuplicateJobError

from workers.dispatch import job_id

log = logging.getLogger(__name__)

QUEUE = "cardems-bots"
PENDING = "cardems:pending-bot-turns"
TURN_TIMEOUT = 60  # seconds a worker may spend on one bot turn before RQ gives up on it
OVERDUE = 5.0  # seconds after which a turn nobody finished is queued again
RESULT_TTL = 600  # how long a finished turn's id is kept, so a late duplicate is refused


class RqDispatcher:
    """Queues each bot turn once (the job id is the turn) for `cardems worker` processes."""

    name = "rq"

    def __init__(self, connection: redis.Redis, store_url: str) -> None:
        self.connection = connection
        self.queue = Queue(QUEUE, connection=connection)
        self.store_url = store_url

    @classmethod
    def from_store_url(cls, store_url: str) -> RqDispatcher:
        if not store_url.startswith(("redis://", "rediss://", "unix://")):
            raise ValueError("--bots rq needs a Redis store: --store redis://HOST:PORT/DB")
        return cls(redis.Redis.from_url(store_url), store_url)

    def enqueue(self, match_id: str, seat: int, version: int, attempt: int = 0) -> None:
        turn = json.dumps([match_id, seat, version, attempt])
        self.connection.zadd(PENDING, {turn: time.time() + OVERDUE})
        suffix = f"_again{attempt}" if attempt else ""
        try:
            self.queue.enqueue_call(
                "workers.jobs.bot_turn",
                args=(self.store_url, match_id, seat, version, attempt),
                job_id=job_id(match_id, seat, version) + suffix, unique=True,
                timeout=TURN_TIMEOUT, result_ttl=RESULT_TTL, failure_ttl=RESULT_TTL)
        except DuplicateJobError:
            log.debug("bot turn %s is queued already", job_id(match_id, seat, version))

    def done(self, match_id: str, seat: int, version: int, attempt: int) -> None:
        self.connection.zrem(PENDING, json.dumps([match_id, seat, version, attempt]))

    def sweep(self, now: float | None = None) -> int:
        """Queue again every overdue turn; how many there were."""
        due = self.connection.zrangebyscore(PENDING, 0, now or time.time())
        for raw in due:
            if self.connection.zrem(PENDING, raw):  # one sweeper wins each turn
                match_id, seat, version, attempt = json.loads(raw)
                log.warning("bot turn %s:%s@%s overdue, queued again", match_id, seat, version)
                self.enqueue(match_id, seat, version, attempt + 1)
        return len(due)

    def close(self) -> None:
        self.connection.close()
