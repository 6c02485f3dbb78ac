"""Put a service together: its store, and the dispatcher its bot turns go to. The one place
that knows which adapters exist; the edges ask it for a ready service."""

from __future__ import annotations

from collections.abc import Mapping

from eventstore import StoreError, open_store
from eventstore.open import DEFAULT_STORE
from service import MatchService, metrics
from service.bot_turns import Dispatcher
from service.fair_use import FairUse
from service.matches import ensure_format

BOT_DISPATCHERS = ("inline", "rq", "off")
__all__ = ["BOT_DISPATCHERS", "DEFAULT_STORE", "build_service", "store_problem"]


def build_service(store_url: str, bots: str = "inline", queue_url: str | None = None,
                  pace: Mapping[str, float] | None = None,
                  bot_threads: int = 16, fair: FairUse | None = None) -> MatchService:
    """A service on the store at `store_url`, its bot turns run `bots`: on a thread pool in
    this process (inline), queued on Redis for `cardems worker`s (rq), or nowhere (off)."""
    if bots not in BOT_DISPATCHERS:
        raise ValueError(f"unknown bot dispatcher {bots!r}: use {', '.join(BOT_DISPATCHERS)}")
    service = MatchService(open_store(store_url), pace=pace, fair=fair)
    service.dispatcher = _dispatcher(service, bots, store_url, queue_url, bot_threads)
    # RQ workers sweep the turns pending in their queue. A turn that never became pending (its
    # hand-off failed while the store's Redis failed over) is found here, from the match's own
    # mark, once it is overdue; queuing it twice is harmless (one job id per turn).
    service.sweeper.start(turns=bots != "off")
    return service


def store_problem(url: str) -> str | None:
    """Why the store at `url` cannot be served (a bad URL, an unreachable backend, an old
    event format), or None when it can: checked once before any worker starts."""
    try:
        store = open_store(url)
    except StoreError as exc:
        return str(exc)
    try:
        ensure_format(store)
    except StoreError as exc:
        return str(exc)
    finally:
        store.close()
    return None


def _dispatcher(service: MatchService, bots: str, store_url: str, queue_url: str | None,
                bot_threads: int) -> Dispatcher | None:
    if bots == "inline":
        from workers.dispatch import InlineDispatcher

        inline = InlineDispatcher(service.bot_turn, bot_threads)
        metrics.on_scrape("bot turns", metrics.bot_turn_gauges(inline.waiting, inline.pending))
        return inline
    if bots == "rq":
        from workers.rq_dispatch import RqDispatcher

        rq = RqDispatcher(store_url, queue_url)
        metrics.on_scrape("bot turns", metrics.bot_turn_gauges(rq.waiting, rq.pending),
                          across="livemax")
        return rq
    return None
