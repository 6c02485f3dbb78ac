"""Lost bot turns, found again from the marks the store keeps with the events."""

from __future__ import annotations

import time

from domain.events import SeatSpec
from domain.rules import Rules
from eventstore import open_store
from harness.http import wait_until
from service import MatchService
from service.waiting import BOT_WAIT
from workers.dispatch import InlineDispatcher

BOTS = [SeatSpec(f"r{i}", "random") for i in range(4)]
PERSON = [SeatSpec("Ann"), *BOTS[1:]]


def test_a_turn_nobody_holds_is_handed_on_once_overdue_and_at_startup_at_once(tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'e.sqlite3'}")
    now = [time.time()]
    game = MatchService(store, clock=lambda: now[0], pace={"random": 2.0})
    # Created with no dispatcher: the turns are marked, and nobody computes them.
    bots = game.create(BOTS, Rules()).match.id
    person = game.create(PERSON, Rules()).match.id
    assert store.marked(BOT_WAIT) == {bots: "2", person: "2"}
    # A process with bots starts on the same store.
    game = MatchService(store, lambda service: InlineDispatcher(service.bot_turn, 2),
                        clock=lambda: now[0], pace={"random": 2.0})
    dispatcher = game.dispatcher
    assert dispatcher is not None
    try:
        assert game.bots.recover() == 0, "within its pace and the grace, a turn is left be"
        now[0] += 2.0 + 5.0 + 1
        assert game.bots.recover() == 2, "past them, both matches are handed on"
        # Paced, each move is held until its due time (long past, on this clock).
        wait_until(lambda: game.load(bots).version > 2 and game.load(person).version > 2, 30)
        waiting = dict(store.marked(BOT_WAIT))
        assert person not in waiting or int(waiting[person]) > 2
        # At startup nothing is held by this process: everything marked goes at once.
        assert game.bots.recover(overdue_only=False) == len(store.marked(BOT_WAIT))
    finally:
        dispatcher.close()
        store.close()
