"""Turn clocks for people (rules.turn_seconds): when a clock runs out, the seat's move is made
for it and the timeout recorded; after two in a row the seat is away.

Each append of a match with a clock writes, beside its events, when the first clock that runs
now runs out (`waiting.CLOCK`), in the schedule of turns owed. The store indexes it by that
time, so a sweep reads only the clocks that have run out, and a restart of every process
loses none: whoever sweeps next finds it overdue.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from random import Random

from domain.bots.base import bot_command
from domain.bots.levels import policy_named
from domain.commands import Move, Secret, TimeOut
from domain.errors import IllegalMove
from domain.state import Match
from domain.views import clock_times, clocks, view_for
from service.commands import Commands
from service.errors import VersionConflict
from service.waiting import AUTOPILOT, CLOCK

log = logging.getLogger(__name__)



def autopilot_move(state: Match, seat: int, secret: Secret) -> Move:
    """The move the autopilot makes for `seat`: the heuristic bot's, its draws seeded by the
    match, the seat and the version, so that it is the same whoever makes it."""
    seed = hashlib.sha256(f"{state.id}:{seat}:{state.version}:autopilot".encode()).digest()
    move = bot_command(view_for(state, seat), policy_named(AUTOPILOT), Random(seed), secret)
    assert move is not None, "the match waits on the seat"
    return move


class TurnClocks:
    """Runs out the clocks that are due: the timeout and the autopilot's move, as one append
    after the version the clock ran out at (a move that lands first wins)."""

    def __init__(self, commands: Commands, clock: Callable[[], float] = time.time) -> None:
        self.commands = commands
        self.matches = commands.matches
        self._clock = clock

    def sweep(self) -> int:
        """Every clock due now, run out. How many."""
        now, ran_out = self._clock(), 0
        for match_id in self.matches.store.due(CLOCK, now):
            ran_out += self.run_out(match_id, now)
        return ran_out

    def run_out(self, match_id: str, now: float) -> int:
        """The clocks of one match that have run out by `now`, one after the other."""
        ran_out = 0
        while (found := self._due(match_id, now)) is not None:
            state, seat, started = found

            def timeout(secret: Secret, state: Match = state, seat: int = seat,
                        started: float = started) -> TimeOut:
                return TimeOut(seat, now, started, autopilot_move(state, seat, secret))

            try:
                self.commands.submit(match_id, None, timeout, expected_version=state.version)
            except VersionConflict:
                continue  # the seat (or another) moved first: look again
            except IllegalMove as refused:
                log.warning("clock of seat %s in %s not run out: %s", seat, match_id, refused)
                return ran_out
            ran_out += 1
        return ran_out

    def _due(self, match_id: str, now: float) -> tuple[Match, int, float] | None:
        state = self.matches.load(match_id)
        times = clock_times(clocks(state), state.rules.turn_seconds,
                            self.matches.recorded_by(match_id))
        for seat, (started, due) in times.items():
            if now >= due:
                return state, seat, started
        return None
