"""What the service counts, in Prometheus's text format, for the operator alone.

The figures are served on a port of their own (`serve`), never on the API's: how long a bot
thought tells whether it had a choice, which nobody at a table may learn.

Under gunicorn every API process counts for itself and the counts meet in files
(prometheus-client's multiprocess mode): `cardems serve` names the folder before its
processes start (`use_folder`), and the master process answers a scrape with the sum. A
process that is not served so (a test's app, the development server, a worker) counts in
memory. Names follow Prometheus's conventions; every label takes one of a few known values
(route labels are URL rules, never raw paths; methods outside HTTP's own are `other`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from time import perf_counter
from typing import Literal

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
    values,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import REGISTRY, Collector

FOLDER = "PROMETHEUS_MULTIPROC_DIR"
FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

REQUESTS = Counter("cardems_http_requests", "HTTP requests answered",
                   ["route", "method", "status"])
LATENCY = Histogram("cardems_http_request_seconds", "Time to answer an HTTP request",
                    ["route", "method"], buckets=FAST)
APPENDS = Counter("cardems_appends", "Appends to the event store", ["store", "outcome"])
BOT_DECISIONS = Histogram("cardems_bot_decision_seconds", "Time a bot took to choose",
                          ["level"], buckets=FAST)
OPEN_STREAMS = Gauge("cardems_open_streams", "Live event streams open", ["kind"],
                     multiprocess_mode="livesum")
RATE_LIMITED = Counter("cardems_rate_limited", "Requests refused by a rate or stream limit",
                       ["limit"])
ANALYSED = Counter("cardems_analysed_rounds",
                   "Rounds judged for an analysis: kept, or lost to another that kept first",
                   ["outcome"])

Across = Literal["livesum", "livemax"]
_live: dict[str, tuple[Callable[[], Iterable[GaugeMetricFamily]], Across]] = {}
_published: dict[str, Gauge] = {}


def use_folder(folder: str) -> None:
    """Count in files under `folder` from now on (set before the processes fork)."""
    os.environ[FOLDER] = folder
    values.ValueClass = values.get_value_class()


def process_gone(pid: int) -> None:
    """A served process has exited: its live gauges leave the sum."""
    if os.environ.get(FOLDER):
        multiprocess.mark_process_dead(pid)


def on_scrape(name: str, read: Callable[[], Iterable[GaugeMetricFamily]],
              across: Across = "livesum") -> None:
    """`read` gives gauges measured at each scrape (queue depth, turns pending); a later
    `read` of the same name replaces it (an app made again in the same process). Under
    gunicorn, `across` says how the master joins the processes' figures: `livesum` for
    counts of each process's own, `livemax` for a figure every process reads alike."""
    _live[name] = (read, across)


def publish_live() -> None:
    """Under gunicorn the master answers scrapes and reads nothing of its processes but
    their files: each process writes its live gauges there now and then (its sweeper does,
    every few seconds)."""
    if not os.environ.get(FOLDER):
        return
    for read, across in list(_live.values()):
        for family in read():
            for sample in family.samples:
                gauge = _published.get(family.name)
                if gauge is None:
                    gauge = _published[family.name] = Gauge(
                        family.name, family.documentation, list(sample.labels),
                        multiprocess_mode=across, registry=None)
                (gauge.labels(**sample.labels) if sample.labels else gauge).set(sample.value)


def bot_turn_gauges(waiting: Callable[[], dict[str, int]],
                    pending: Callable[[], int]) -> Callable[[], Iterable[GaugeMetricFamily]]:
    def read() -> Iterable[GaugeMetricFamily]:
        queued = GaugeMetricFamily("cardems_bot_turns_queued",
                                   "Bot turns waiting for a worker, by queue", labels=["queue"])
        try:
            for queue, count in waiting().items():
                queued.add_metric([queue], count)
            total = pending()
        except Exception:  # a queue that cannot be reached is said by the absent figure
            return
        yield queued
        yield GaugeMetricFamily("cardems_bot_turns_pending",
                                "Bot turns queued or being made", value=total)

    return read


class _Live(Collector):
    """The gauges read at scrape time."""

    def collect(self) -> Iterable[GaugeMetricFamily]:
        for read, _ in list(_live.values()):
            yield from read()


_LIVE = _Live()
REGISTRY.register(_LIVE)


def scraped() -> CollectorRegistry:
    """What a scrape reads: this process's figures, or under gunicorn the files of every
    served process (their live gauges included, as they last published them)."""
    if not os.environ.get(FOLDER):
        return REGISTRY
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)
    return registry


def exposition() -> bytes:
    """Every metric, summed over the served processes when there are several."""
    return generate_latest(scraped())


def serve(host: str, port: int) -> None:
    """Answer scrapes on `host:port` from a thread of this process, until it exits."""
    start_http_server(port, addr=host, registry=scraped())


def stream_opened() -> None:
    OPEN_STREAMS.labels("events").inc()


def stream_closed() -> None:
    OPEN_STREAMS.labels("events").dec()


class Timer:
    """`with Timer() as t: ...; t.seconds`."""

    def __enter__(self) -> Timer:
        self.start = perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = perf_counter() - self.start
