"""The jobs RQ workers run: module-level functions of plain arguments that load what they need."""

from __future__ import annotations

import os
import time
from functools import lru_cache

from eventstore import open_store
from workers.rq_dispatch import RqDispatcher
from workers.service import Game

THINK_ENV = "CARDEMS_BOT_THINK"  # seconds a bot waits before it moves, so people can follow


@lru_cache(maxsize=4)
def _game(store_url: str, queue_url: str) -> tuple[Game, RqDispatcher]:
    """One service per store in a worker process, kept between turns.

    Only a cache: its connections are reused and its cached match states spare a full replay
    per turn, but every load still reads the events after the cached version, so a turn sees
    the match exactly as if it had loaded it from nothing.
    """
    dispatcher = RqDispatcher(store_url, queue_url)
    return Game(open_store(store_url), dispatcher), dispatcher


def bot_turn(store_url: str, match_id: str, seat: int, version: int, attempt: int = 0,
             queue_url: str | None = None) -> bool:
    """Let a bot move if the match still waits for it; run late or twice, it does nothing."""
    game, dispatcher = _game(store_url, queue_url or store_url)
    time.sleep(float(os.environ.get(THINK_ENV, "0")))
    moved = game.bot_turn(match_id, seat, version)
    dispatcher.done(match_id, seat, version, attempt)
    return moved
