"""`cardems worker`: an RQ worker that computes bot turns and analyses, and sweeps the
schedule for the turns that were lost (its service's sweeper, as every process that runs
bots)."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from types import FrameType

import redis
from rq import Queue, SimpleWorker
from rq.exceptions import StopRequested
from rq.job import Job

from service.bootstrap import StoreConfig
from service.pacing import DEFAULT_PACE
from workers.jobs import STOPPING, close_all, configure, start
from workers.rq_dispatch import ANALYSIS_QUEUE, PERSON_QUEUE, QUEUE

log = logging.getLogger(__name__)
RECONNECT_SECONDS = 1.0
LISTEN_SECONDS = 0.5  # how long a stopping worker may wait for its command listener


class TurnWorker(SimpleWorker):
    """Turns run in this process: a fork per turn would cost more than the turn. Remembers
    whether it was asked to stop, since RQ's `work` returns alike when it gives up."""

    stop_asked = False
    in_job = False

    def execute_job(self, job: Job, queue: Queue) -> None:
        self.in_job = True
        try:
            super().execute_job(job, queue)
        finally:
            self.in_job = False

    def subscribe(self) -> None:
        """As RQ's, but the thread that listens for commands to this worker wakes every
        LISTEN_SECONDS, not every 60 s. When the worker stops, RQ unsubscribes and then waits
        for that thread to end. If the thread reads the unsubscription before it is told to
        stop, it sleeps until its next wake, so one stop in ten here took a minute."""
        self.pubsub = self.connection.pubsub()
        self.pubsub.subscribe(**{self.pubsub_channel_name: self.handle_payload})
        self.pubsub_thread = self.pubsub.run_in_thread(
            sleep_time=LISTEN_SECONDS, daemon=True,
            exception_handler=self._pubsub_exception_handler)

    def request_stop(self, signum: int, frame: FrameType | None) -> None:
        self.stop_asked = True
        STOPPING.set()  # the job under way ends after the turn in hand
        super().request_stop(signum, frame)
        if not self.in_job:
            # RQ waits for the job it believes under way; but a job whose ending failed
            # (its queue's Redis lost meanwhile) leaves it believing so while it waits for
            # the next job, and a stop would then wait as long as that.
            raise StopRequested()


def run_worker(store: StoreConfig, burst: bool = False, queue_url: str | None = None,
               pace: Mapping[str, float] | None = None) -> int:
    configure(pace if pace is not None else DEFAULT_PACE)
    _, relay = start(store, queue_url)
    connection = redis.Redis.from_url(relay.rq.queue_url)
    try:
        while True:
            try:
                # The queue of turns people wait on first, analyses last: RQ empties its
                # queues in order. Made inside the `try`: a worker names itself on the
                # queue's Redis, which may still be down.
                worker = TurnWorker([PERSON_QUEUE, QUEUE, ANALYSIS_QUEUE],
                                    connection=connection)
                worker.work(burst=burst, with_scheduler=False)
                if burst or worker.stop_asked:
                    return 0
                # RQ quits on an error it does not handle, such as losing the queue's Redis
                # while it records a finished job.
                log.error("the worker stopped by itself; working again in %s s",
                          RECONNECT_SECONDS)
            except redis.ConnectionError:
                # The queue's Redis went away mid-job. The turn is still owed in the schedule
                # and a sweep will queue it again: carry on once Redis is back.
                log.exception("lost the queue's Redis; working again in %s s", RECONNECT_SECONDS)
                if burst:
                    return 1
            time.sleep(RECONNECT_SECONDS)
    finally:
        close_all()
        connection.close()
