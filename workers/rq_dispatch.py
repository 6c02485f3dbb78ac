"""Bot turns on Redis + RQ, for several API processes and worker machines.

A worker killed in the middle of a turn must not leave its match stuck. Every queued turn is
also written to a sorted set of pending turns, scored by when it is due; the job clears it
when done. Each `cardems worker` sweeps that set and queues again any turn overdue, under a
new job id; running a turn twice is harmless (the second finds the seat has moved).

The pending set lives with the events, in the store's Redis, where every write is on disk
before it is acknowledged. The queue may live on another Redis, one that does not wait for
the disk: RQ writes some twenty times per job, and waiting for an fsync on each costs about
a fifth of a bot's reply time (docs/performance.md). A queue that loses jobs in a crash
loses nothing that matters: the pending set, which survived with the events, has the
sweeper queue them again.
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

    def __init__(self, store_url: str, queue_url: str | None = None) -> None:
        for url in (store_url, queue_url or store_url):
            if not url.startswith(("redis://", "rediss://", "unix://")):
                raise ValueError("bots on rq need Redis: --store redis://HOST:PORT/DB"
                                 " (and --queue, if given, a Redis URL too)")
        self.store_url = store_url
        self.queue_url = queue_url or store_url
        self.connection = redis.Redis.from_url(store_url)  # the pending set: durable
        self.queue_connection = redis.Redis.from_url(self.queue_url)
        self.queue = Queue(QUEUE, connection=self.queue_connection)

    def enqueue(self, match_id: str, seat: int, version: int, attempt: int = 0) -> None:
        turn = json.dumps([match_id, seat, version, attempt])
        self.connection.zadd(PENDING, {turn: time.time() + OVERDUE})
        suffix = f"_again{attempt}" if attempt else ""
        try:
            self.queue.enqueue_call(
                "workers.jobs.bot_turn",
                args=(self.store_url, match_id, seat, version, attempt, self.queue_url),
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
        self.queue_connection.close()
