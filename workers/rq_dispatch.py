"""Bot turns on Redis + RQ, for several API processes and worker machines.

A worker killed in the middle of a turn must not leave its match stuck. Every queued turn is
also written to a sorted set of pending turns, scored by when it is due; the job clears it
when done. Each `cardems worker` sweeps that set and queues again any turn overdue, under a
new job id; running a turn twice is harmless (the second finds the seat has moved).

The pending set lives with the events, in the store's Redis (one key of the cluster, when the
store is a Redis Cluster), where every write is on disk before it is acknowledged. The queue
cannot live on a cluster (RQ keeps keys that no hash tag groups): with a cluster store it is
a Redis of its own, which `--queue` names. In any case the queue may live on a Redis that
does not wait for the disk: RQ writes some twenty times per job, and waiting for an fsync
on each costs about a seventh of a bot's reply (docs/performance.md). A queue that loses
jobs in a crash loses nothing that matters: the pending set, which survived with the events, has the
sweeper queue them again.

A worker that has just made a bot's move and finds the next move is a bot's too makes that
move itself (`workers.jobs`): always in the same match, in another only while no other turn
waits in the queue; a round trip through RQ costs more than a heuristic bot's whole turn.
The turn it keeps is pending all the same, written in the one transaction that clears the
turn it finished. Then, for a few seconds, the job takes the turns that come into the queue
itself (`take`): one or two round trips a turn, where RQ's cycle of a job of its own (taking
it, marking it started, its heartbeats, its execution records, clearing them) costs some
twenty-five.
"""

from __future__ import annotations

import json
import logging
import re
import time

import redis
from redis.cluster import RedisCluster
from rq import Queue
from rq.exceptions import DuplicateJobError
from rq.job import Job

from service.bootstrap import StoreConfig
from workers.dispatch import job_id

log = logging.getLogger(__name__)

QUEUE = "cardems-bots"
PERSON_QUEUE = "cardems-bots-person"  # turns a person waits on: workers take these first
ANALYSIS_QUEUE = "cardems-analysis"  # rounds to analyse: workers take these last
PENDING = "cardems:pending-bot-turns"
TURN_TIMEOUT = 60  # seconds a worker may spend on one bot turn before RQ gives up on it
ROUND_TIMEOUT = 3600  # the same for one round's analysis, bot turns made meanwhile included
REQUEUE_AFTER = 5.0  # seconds after which a turn nobody finished is queued again
# A finished turn leaves nothing behind in RQ: no result, no registry entry to expire later.
# A duplicate queued after it finished runs and finds the seat has moved. A failed turn, and
# a turn queued again after its worker was lost, are kept a while as a trace for whoever
# looks into it.
RESULT_TTL = 0
TRACE_TTL = 600

PLAIN = ("redis://", "rediss://", "unix://")

Attempt = tuple[str, int, int, int]  # match id, seat, version, attempt (0, then each requeue)
JOB_ID = re.compile(r"bot_(?P<match>.+)_(?P<seat>[0-9]+)_(?P<version>[0-9]+)"
                    r"(?:_again(?P<attempt>[0-9]+))?")

# A job taken out of RQ's hands: its id off the first queue that has one, and its record
# gone (a turn queued again keeps its record as a trace, marked finished). One round trip.
TAKE = """
for _, queue in ipairs(KEYS) do
  local id = redis.call('LPOP', queue)
  if id then
    local job = ARGV[1] .. id
    if string.find(id, '_again', 1, true) then
      redis.call('HSET', job, 'status', 'finished')
      redis.call('EXPIRE', job, ARGV[2])
    else
      redis.call('DEL', job)
    end
    return id
  end
end
return false
"""
# The same for an id already taken off its queue by BLPOP.
RETIRE = """
local job = ARGV[1] .. ARGV[2]
if string.find(ARGV[2], '_again', 1, true) then
  redis.call('HSET', job, 'status', 'finished')
  redis.call('EXPIRE', job, ARGV[3])
else
  redis.call('DEL', job)
end
return 1
"""


def _member(turn: Attempt) -> str:
    return json.dumps(list(turn))


def _turn_of(job: str) -> Attempt | None:
    """The turn a job id names; None for an id that is not a turn's."""
    found = JOB_ID.fullmatch(job)
    if found is None:
        return None
    return (found["match"], int(found["seat"]), int(found["version"]),
            int(found["attempt"] or 0))


def _job_of(turn: Attempt) -> str:
    """The RQ job id of a turn's attempt: the first keeps the turn's own id."""
    match_id, seat, version, attempt = turn
    return job_id(match_id, seat, version) + (f"_again{attempt}" if attempt else "")


class RqDispatcher:
    """Queues each bot turn once (the job id is the turn) for `cardems worker` processes."""

    name = "rq"

    def __init__(self, store: StoreConfig | str, queue_url: str | None = None) -> None:
        store = StoreConfig.of(store)
        on_cluster = store.on_cluster
        if on_cluster and queue_url is None:
            raise ValueError("bots on rq with a Redis Cluster store need a queue Redis of"
                             " their own: --queue redis://HOST:PORT/DB")
        self.store_url = store.url  # what each job carries to its worker
        self.queue_url = queue_url or store.url
        if not store.on_redis or not self.queue_url.startswith(PLAIN):
            raise ValueError("bots on rq need Redis: --store redis://HOST:PORT/DB or"
                             " redis+cluster://HOST:PORT, and --queue a Redis URL")
        self.connection: redis.Redis | RedisCluster  # the pending set: durable
        if on_cluster:  # any node; the store's own options (?wait=...) are not the client's
            self.connection = RedisCluster.from_url(store.client_url)
        else:
            self.connection = redis.Redis.from_url(store.client_url)
        self.queue_connection = redis.Redis.from_url(self.queue_url)
        self.queue = Queue(QUEUE, connection=self.queue_connection)
        self.person_queue = Queue(PERSON_QUEUE, connection=self.queue_connection)
        self.analysis_queue = Queue(ANALYSIS_QUEUE, connection=self.queue_connection)
        self._take = self.queue_connection.register_script(TAKE)
        self._retire = self.queue_connection.register_script(RETIRE)

    def enqueue(self, match_id: str, seat: int, version: int, urgent: bool = False,
                attempt: int = 0) -> None:
        """Queue the turn once; `urgent` (a person waits on it) on the queue workers empty
        first.

        Handing the same turn on again (another API process, a sweep of the matches) neither
        queues a second job nor puts off the turn's due time: were it put off, a turn whose
        job died with its worker, or failed while the store failed over, would never fall
        due, and its job id, still taken by the dead job, would never let it be queued. A
        turn queued again by the sweep (`attempt` > 0) is the only one of its kind, as the
        sweep that queues it won it: it needs no check that its id is free.
        """
        turn = _member((match_id, seat, version, attempt))
        self.connection.zadd(PENDING, {turn: time.time() + REQUEUE_AFTER}, nx=True)
        try:
            (self.person_queue if urgent else self.queue).enqueue_call(
                "workers.jobs.bot_turn",
                args=(self.store_url, match_id, seat, version, attempt, self.queue_url),
                job_id=_job_of((match_id, seat, version, attempt)), unique=attempt == 0,
                timeout=TURN_TIMEOUT, result_ttl=TRACE_TTL if attempt else RESULT_TTL,
                failure_ttl=TRACE_TTL)
        except DuplicateJobError:
            log.debug("bot turn %s is queued already", job_id(match_id, seat, version))

    def analyse(self, match_id: str, number: int) -> None:
        """Queue one round's analysis. Queued again (its worker lost), it may run twice; the
        second finds the round kept and does nothing, and whichever finishes first is kept.
        The store, not the queue, says what is left: the sweep reads it there."""
        self.analysis_queue.enqueue_call(
            "workers.jobs.analyse_round",
            args=(self.store_url, match_id, number, self.queue_url),
            job_id=f"analysis_{match_id}_{number}", timeout=ROUND_TIMEOUT,
            result_ttl=RESULT_TTL, failure_ttl=TRACE_TTL)

    def done(self, turn: Attempt, then: Attempt | None = None) -> None:
        """`turn` is finished; `then`, a turn its worker goes on to make itself, is pending
        from now. One transaction: one write to disk, and never a moment with neither."""
        with self.connection.pipeline(transaction=True) as pipe:
            pipe.zrem(PENDING, _member(turn))
            if then is not None:
                pipe.zadd(PENDING, {_member(then): time.time() + REQUEUE_AFTER})
            pipe.execute()

    def take(self, wait: float = 0.0) -> Attempt | None:
        """A turn that waits in the queues (people's first), taken out of RQ's hands: its
        job ends here, unrun, and whoever takes it makes the turn and then calls `done`.
        Should it die first, the turn is still pending and the sweep queues it again. None if
        no turn came within `wait` seconds."""
        queues = [self.person_queue.key, self.queue.key]
        taken = self._take(keys=queues, args=[Job.redis_job_namespace_prefix, TRACE_TTL])
        if taken is None and wait > 0:
            popped = self.queue_connection.blpop(queues, timeout=wait)
            if popped is None:
                return None
            taken = popped[1]
            self._retire(args=[Job.redis_job_namespace_prefix, taken, TRACE_TTL])
        if taken is None:
            return None
        turn = _turn_of(taken.decode() if isinstance(taken, bytes) else str(taken))
        if turn is None:
            log.error("job %r in the bot queues names no turn; dropped", taken)
        return turn

    def waiting(self) -> dict[str, int]:
        """Jobs queued and not yet taken, by queue (for every process)."""
        return {"person": self.person_queue.count, "bots": self.queue.count}

    def pending(self) -> int:
        """Turns queued or being made, in the store's pending set."""
        return int(self.connection.zcard(PENDING))

    def queue_is_idle(self) -> bool:
        """No turn waits for a worker (one may be running). An unreachable queue is not
        idle: the turn must then go through `enqueue`, which writes it pending first."""
        try:
            return self.queue.count == 0 and self.person_queue.count == 0
        except redis.RedisError:
            return False

    def sweep(self, now: float | None = None) -> int:
        """Queue again every overdue turn that no worker took, or whose worker went quiet;
        how many were queued again. A turn still waiting in the queue is not lost, only
        late: under a load the workers cannot keep up with, queuing it again would only
        lengthen the queue (each copy a job of its own), so it is given more time."""
        now = now or time.time()
        requeued = 0
        for raw in self.connection.zrangebyscore(PENDING, 0, now):
            match_id, seat, version, attempt = json.loads(raw)
            if self._still_queued((match_id, seat, version, attempt)):
                self.connection.zadd(PENDING, {raw: now + REQUEUE_AFTER}, xx=True)
                continue
            if self.connection.zrem(PENDING, raw):  # one sweeper wins each turn
                log.warning("bot turn %s:%s@%s overdue, queued again", match_id, seat, version)
                self.enqueue(match_id, seat, version, attempt=attempt + 1)
                requeued += 1
        return requeued

    def _still_queued(self, turn: Attempt) -> bool:
        """The turn's job waits in its queue. Its status alone does not say so: a worker
        killed between taking the job off the queue and marking it started leaves it
        "queued" in no queue, and such a turn must be queued again."""
        job = _job_of(turn)
        status, origin = self.queue_connection.hmget(Job.key_for(job), ["status", "origin"])
        queues = {q.name: q for q in (self.queue, self.person_queue)}
        queue = queues.get(origin.decode()) if isinstance(origin, bytes) else None
        if status != b"queued" or queue is None:
            return False
        return self.queue_connection.lpos(queue.key, job) is not None

    def close(self) -> None:
        self.connection.close()
        self.queue_connection.close()
