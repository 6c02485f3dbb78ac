"""The jobs RQ workers run: module-level functions of plain arguments that load what they need."""

from __future__ import annotations

import os
import time

from eventstore import open_store
from workers.rq_dispatch import RqDispatcher
from workers.service import Game

THINK_ENV = "CARDEMS_BOT_THINK"  # seconds a bot waits before it moves, so people can follow


def bot_turn(store_url: str, match_id: str, seat: int, version: int, attempt: int = 0) -> bool:
    """Let a bot move if the match still waits for it; run late or twice, it does nothing."""
    store = open_store(store_url)
    dispatcher = RqDispatcher.from_store_url(store_url)
    try:
        time.sleep(float(os.environ.get(THINK_ENV, "0")))
        moved = Game(store, dispatcher).bot_turn(match_id, seat, version)
        dispatcher.done(match_id, seat, version, attempt)
        return moved
    finally:
        dispatcher.close()
        store.close()
