"""What a match waits on, kept with its events so that no restart can lose it.

Every append the service makes writes these marks in the same transaction as the events, and
the store indexes them: which matches wait on a bot (and since which version), which still
wait on people, and which matches of bots alone are running and for whom. The sweepers and
the caps read them back with `EventStore.marked`.
"""

from __future__ import annotations

from collections.abc import Sequence

from domain.events import SeatSpec
from domain.state import Match
from domain.views import Recorded, clock_times, clocks, seats_to_act
from eventstore import MARK

BOT_WAIT = MARK + "bot-turn"  # the version at which a bot must act
PEOPLE = MARK + "people"  # "1" while a match with people at the table runs
BOTS_ONLY = MARK + "bots-only"  # who created a running match of bots alone
CLOCK = MARK + "turn-clock"  # when the first running turn clock runs out (epoch seconds)
AUTOPILOT = "heuristic"  # the policy that moves for a person who timed out or is away


def moved_for(state: Match, seat: int) -> bool:
    """A seat whose moves are not a person's: a bot's, or an away person's autopilot's."""
    return state.seats[seat].bot is not None or seat in state.away


def waits_on_bot(state: Match) -> bool:
    return any(moved_for(state, seat) for seat in seats_to_act(state))


def bots_alone(seats: Sequence[SeatSpec]) -> bool:
    return all(seat.bot is not None for seat in seats)


def bots_only(state: Match) -> bool:
    return bots_alone(state.seats)


def marks(state: Match) -> dict[str, str]:
    """The marks to write with the events that lead to `state`."""
    out = {BOT_WAIT: str(state.version) if waits_on_bot(state) else ""}
    if not bots_only(state):
        out[PEOPLE] = "" if state.is_over else "1"
    elif state.is_over:
        out[BOTS_ONLY] = ""
    return out


def clock_marks(state: Match, recorded: Recorded) -> dict[str, str]:
    """The clock's mark to write with the events that lead to `state`; none for a match
    with no clock, so that the others never touch the index."""
    if state.rules.turn_seconds is None:
        return {}
    times = clock_times(clocks(state), state.rules.turn_seconds, recorded)
    return {CLOCK: repr(min(due for _, due in times.values())) if times else ""}
