"""What a serving process keeps between requests, and what it costs: matches of bots played in
process (SQLite, inline bots, no pace), every reader's view read once each, until every kept
cache is full; Python's own allocations traced after each step.

    python -m bench memory

The kept views are held as the JSON the API sends. Beside them, the same views as dicts are
measured in the same run: what the cache held before it kept JSON.
"""

from __future__ import annotations

import gc
import random
import tempfile
import tracemalloc
from collections.abc import Callable

from domain.events import SeatSpec
from domain.rules import Rules
from domain.views import view_for, view_json
from eventstore import StoreConfig
from harness.http import resident_mib
from service import MatchService
from service.bootstrap import build_service
from service.reads import VIEWS_KEPT
from workers.choice import dispatch_for
from workers.dispatch import InlineDispatcher

STEPS, MATCHES_A_STEP = 6, 150
NO_PACE = {"random": 0.0, "heuristic": 0.0, "expert": 0.0}


def _play(service: MatchService, rng: random.Random, count: int) -> None:
    """`count` matches of 3 to 6 bots played out, then read by each seat and a spectator."""
    bots = service.dispatcher
    assert isinstance(bots, InlineDispatcher)
    for _ in range(count):
        seats = [SeatSpec(f"b{i}", rng.choice(("random", "heuristic")))
                 for i in range(rng.choice((3, 4, 4, 4, 5, 6)))]
        match_id = service.create(seats, Rules(end_score=26)).match.id
        assert bots.wait_idle(120), "the bots did not finish"
        for reader in (None, *range(len(seats))):
            service.view_body(match_id, reader)


def _traced(make: Callable[[], object]) -> int:
    """Bytes that stay allocated after calling `make`, with what it returns."""
    gc.collect()
    before = tracemalloc.get_traced_memory()[0]
    kept = make()
    gc.collect()
    size = tracemalloc.get_traced_memory()[0] - before
    del kept
    return size


def run() -> None:
    folder = tempfile.mkdtemp(prefix="cardems-memory-")
    store = StoreConfig.parse(f"sqlite:///{folder}/memory.sqlite3")
    service = build_service(store, dispatch_for("inline", store, bot_threads=2), pace=NO_PACE)
    rng = random.Random(1)
    reads = service.reads
    print(f"memory: matches of 3 to 6 bots played in process, every view read once; at most"
          f" {VIEWS_KEPT} views kept")
    tracemalloc.start()
    try:
        for step in range(1, STEPS + 1):
            _play(service, rng, MATCHES_A_STEP)
            gc.collect()
            print(f"  {step * MATCHES_A_STEP:4d} matches: {len(reads._views):5d} views kept,"
                  f" traced {tracemalloc.get_traced_memory()[0] / 2**20:6.1f} MiB,"
                  f" resident {resident_mib() or 0:6.1f} MiB (tracing included)")
        kept = reads._views.items()
        keys = [key for key, _ in kept]
        # copies of the kept JSON, measured as the views' dicts are: made afresh
        as_json = _traced(lambda: [bytes(memoryview(body)) for _, (_, body) in kept])
        as_dicts = _traced(lambda: [view_json(view_for(service.load(m), r)) for m, r in keys])
        print(f"  the {len(keys)} kept views: {as_json / 2**20:.1f} MiB as JSON,"
              f" {as_dicts / 2**20:.1f} MiB as dicts ({as_dicts / as_json:.1f} times)")
    finally:
        tracemalloc.stop()
        service.sweeper.stop()
        service.store.close()


def main() -> None:
    run()


if __name__ == "__main__":
    main()
