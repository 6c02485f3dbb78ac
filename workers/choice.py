"""Which dispatcher runs a service's bot turns: the composition the edges pick by name."""

from __future__ import annotations

from service import MatchService, metrics
from service.bootstrap import Dispatch, StoreConfig
from service.bot_turns import Dispatcher

BOT_DISPATCHERS = ("inline", "rq", "off")


def dispatch_for(bots: str, store: StoreConfig, queue_url: str | None = None,
                 bot_threads: int = 16) -> Dispatch:
    """How to give a service its dispatcher: a thread pool in this process (inline), RQ jobs
    for `cardems worker`s (rq), or none (off: the turns wait in the store's marks)."""
    if bots not in BOT_DISPATCHERS:
        raise ValueError(f"unknown bot dispatcher {bots!r}: use {', '.join(BOT_DISPATCHERS)}")

    def dispatch(service: MatchService) -> Dispatcher | None:
        if bots == "inline":
            from workers.dispatch import InlineDispatcher

            inline = InlineDispatcher(service.bot_turn, bot_threads, service.analyse_round)
            # A move held for its due time is still being made: its thread has let go of it.
            metrics.on_scrape("bot turns", metrics.bot_turn_gauges(
                inline.waiting, lambda: inline.pending() + service.bots.deliveries.held()))
            return inline
        if bots == "rq":
            from workers.rq_dispatch import RqDispatcher

            rq = RqDispatcher(store, queue_url)
            # Owed by the schedule, which every process reads alike.
            metrics.on_scrape("bot turns", metrics.bot_turn_gauges(rq.waiting,
                                                                   service.bots.owed),
                              across="livemax")
            return rq
        return None

    return dispatch
