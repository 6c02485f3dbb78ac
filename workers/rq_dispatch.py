"""Bot turns on Redis + RQ, for several API processes and worker machines.

RQ is only the bots' queue. Who owes a move is kept in the schedule of turns owed, written
with the events in the append that made the match wait (`service.waiting`). A worker killed
in the middle of a turn, or with ready moves in hand, leaves that turn overdue there; whoever
sweeps the schedule next (an API process, another worker) claims it in the store and queues
it again under a new job id, `bot_{match}_{seat}_{version}_again{n}`. Running a turn twice is
harmless: the second finds the seat has moved.

The queue cannot live on a Redis Cluster (RQ keeps keys that no hash tag groups): with a
cluster store it is a Redis of its own, which `--queue` names. In any case the queue may live
on a Redis that does not wait for the disk: RQ writes some twenty times per job, and waiting
for an fsync on each costs about a seventh of a bot's reply (docs/performance.md). A queue
that loses its jobs in a crash loses nothing that matters: the schedule, which survived with
the events, shows their turns overdue.

A worker that has just made a bot's move and finds the next move is a bot's too makes that
move itself (`workers.jobs`): always in the same match, in another only while no other turn
waits in the queue; a round trip through RQ costs more than a heuristic bot's whole turn.
Then, for a few seconds, the job takes the turns that come into the queue itself (`take`):
one or two round trips a turn, where RQ's cycle of a job of its own (taking it, marking it
started, its heartbeats, its execution records, clearing them) costs some twenty-five.
"""

from __future__ import annotations

import logging
import re

import redis
from rq import Queue
from rq.exceptions import DuplicateJobError
from rq.job import Job

from service.bootstrap import StoreConfig
from workers.dispatch import Turn, job_id

log = logging.getLogger(__name__)

QUEUE = "cardems-bots"
PERSON_QUEUE = "cardems-bots-person"  # turns a person waits on: workers take these first
ANALYSIS_QUEUE = "cardems-analysis"  # rounds to analyse: workers take these last
TURN_TIMEOUT = 60  # seconds a worker may spend on one bot turn before RQ gives up on it
ROUND_TIMEOUT = 3600  # the same for one round's analysis, bot turns made meanwhile included
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


def _turn_of(job: str) -> Turn | None:
    """The turn a job id names, whatever its attempt; None for an id that is not a turn's."""
    found = JOB_ID.fullmatch(job)
    if found is None:
        return None
    return found["match"], int(found["seat"]), int(found["version"])


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
        self.queue_connection = redis.Redis.from_url(self.queue_url)
        self.queue = Queue(QUEUE, connection=self.queue_connection)
        self.person_queue = Queue(PERSON_QUEUE, connection=self.queue_connection)
        self.analysis_queue = Queue(ANALYSIS_QUEUE, connection=self.queue_connection)
        self._take = self.queue_connection.register_script(TAKE)
        self._retire = self.queue_connection.register_script(RETIRE)

    def enqueue(self, match_id: str, seat: int, version: int, urgent: bool = False,
                attempt: int = 0) -> None:
        """Queue the turn once; `urgent` (a person waits on it) on the queue workers empty
        first. A turn handed on again by a sweep (`attempt` > 0) has an id of its own: the
        sweep that queues it won it in the store, and the first attempt's id may still be
        taken by its dead job."""
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

    def take(self, wait: float = 0.0) -> Turn | None:
        """A turn that waits in the queues (people's first), taken out of RQ's hands: its
        job ends here, unrun, and whoever takes it makes the turn. Should it die first, the
        turn is still owed in the schedule and a sweep queues it again. None if no turn came
        within `wait` seconds."""
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

    def queue_is_idle(self) -> bool:
        """No turn waits for a worker (one may be running). An unreachable queue is not
        idle: the turn must then go through `enqueue`, which writes it pending first."""
        try:
            return self.queue.count == 0 and self.person_queue.count == 0
        except redis.RedisError:
            return False

    def close(self) -> None:
        self.queue_connection.close()
