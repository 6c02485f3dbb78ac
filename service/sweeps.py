"""What a serving process or a bot worker does on its own, on a thread of its own: run out
the turn clocks that are due, hand on the bot turns and the analyses that were lost, and
abandon the matches whose people went away. Each reads the schedule of turns owed, by due
time; several processes may sweep at once (a turn is claimed in the store by one of them)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from domain.events import AbandonReason
from service import metrics
from service.analysis import Analyses
from service.bot_turns import BotTurns
from service.clocks import TurnClocks
from service.commands import Commands
from service.errors import VersionConflict
from service.waiting import PEOPLE

log = logging.getLogger(__name__)

TURNS_SECONDS = 2.0  # how often lost bot turns are looked for
CLOCK_SECONDS = 0.25  # how often turn clocks are looked at: a timeout comes this late at most
IDLE_SECONDS = 60.0  # how often idle matches are looked for


def abandon_idle(commands: Commands, clock: Callable[[], float] = time.time) -> int:
    """Abandon every running match with people at the table whose last event is older than
    the idle time: nobody has moved in it since. How many."""
    matches, idle = commands.matches, commands.fair.idle_seconds
    abandoned = 0
    for match_id in matches.store.marked(PEOPLE):
        version = matches.store.version(match_id)
        at = matches.recorded_at(match_id, version)
        if at is None or clock() - at < idle:
            continue
        try:
            commands.abandon(match_id, None, AbandonReason.IDLE, expected_version=version)
            abandoned += 1
        except VersionConflict:
            pass  # someone moved after all
    return abandoned


class Sweeper:
    """Recovers lost bot turns and analyses at once and every TURNS_SECONDS, and abandons
    idle matches every IDLE_SECONDS, until stopped."""

    def __init__(self, bots: BotTurns, commands: Commands, analyses: Analyses) -> None:
        self.bots = bots
        self.commands = commands
        self.analyses = analyses
        self.clocks = TurnClocks(commands)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._turns = True
        self._alone = True

    def start(self, turns: bool = True, alone: bool = True) -> None:
        """Sweep from now on; lost bot turns too if `turns`. `alone`: a process that does
        not share the making of turns (it makes them all, or it serves the API while workers
        make them) hands on every turn owed at first, as it holds none yet, and the lost
        analyses too. RQ workers are not alone: they hand on only the overdue turns, and
        leave the analyses, which nothing claims, to fewer sweepers, so that a round is
        judged twice less often."""
        self._turns = turns
        self._alone = alone
        self._thread = threading.Thread(target=self._run, name="sweeper", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        overdue_only, turns_due, idle_due = not self._alone, 0.0, 0.0
        while not self._stop.is_set():
            try:
                self.clocks.sweep()
                if time.monotonic() >= turns_due:
                    if self._turns:
                        self.bots.recover(overdue_only)
                        if self._alone:
                            self.analyses.recover()
                    overdue_only = True
                    metrics.publish_live()
                    turns_due = time.monotonic() + TURNS_SECONDS
                if time.monotonic() >= idle_due:
                    abandon_idle(self.commands)
                    idle_due = time.monotonic() + IDLE_SECONDS
            except Exception:
                log.exception("sweeping failed; trying again")
            self._stop.wait(CLOCK_SECONDS)
