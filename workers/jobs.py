"""The jobs RQ workers run: module-level functions of plain arguments that load what they need."""

from __future__ import annotations

from eventstore import open_store
from workers.rq_dispatch import RqDispatcher
from workers.service import Game


def bot_turn(store_url: str, match_id: str, seat: int, version: int) -> bool:
    """Let a bot move if the match still waits for it; run late or twice, it does nothing."""
    store = open_store(store_url)
    dispatcher = RqDispatcher.from_store_url(store_url)
    try:
        return Game(store, dispatcher).bot_turn(match_id, seat, version)
    finally:
        dispatcher.close()
        store.close()
