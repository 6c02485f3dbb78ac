"""What a match waits on, kept with its events so that no restart can lose it.

Every append the service makes writes these marks in the same transaction as the events, and
the store indexes them: which matches still wait on people, and which matches of bots alone
are running and for whom (read back with `EventStore.marked`); and the one schedule of turns
owed, each with its due time (read back by that time with `EventStore.due`): a bot's move,
due its pace after the event it answers, and a person's turn clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from domain.events import SeatSpec
from domain.state import Match
from domain.views import Recorded, clock_times, clocks, seats_to_act
from eventstore import DUE, MARK, EventStore

BOT_WAIT = DUE + "bot-turn"  # a bot's move owed: `OwedTurn`
PEOPLE = MARK + "people"  # "1" while a match with people at the table runs
BOTS_ONLY = MARK + "bots-only"  # who created a running match of bots alone
CLOCK = DUE + "turn-clock"  # when the first running turn clock runs out (epoch seconds)
AUTOPILOT = "heuristic"  # the policy that moves for a person who timed out or is away
# The marks of the schedule as they were before it was indexed by time (the version a bot
# owes a move at; a clock's due time), carried over once at startup.
EARLIER = {MARK + "bot-turn": BOT_WAIT, MARK + "turn-clock": CLOCK}
RETRY_STEP = 5.0  # seconds a turn handed on again gets, more for each time it was
RETRY_MOST = 60.0


@dataclass(frozen=True, slots=True)
class OwedTurn:
    """A bot's move a match waits on: when it is due, the version it answers, and how many
    times a sweep handed it on again because nobody made it (0 at first)."""

    due: float
    version: int
    attempt: int = 0

    @classmethod
    def parse(cls, text: str) -> OwedTurn:
        due, version, attempt = text.split()
        return cls(float(due), int(version), int(attempt))

    def text(self) -> str:
        return f"{self.due!r} {self.version} {self.attempt}"

    def again(self, now: float) -> OwedTurn:
        """The turn handed on again at `now`: its next attempt, given a little longer each
        time, so that a load that keeps the turns waiting in a queue is not doubled by them."""
        attempt = self.attempt + 1
        return OwedTurn(now + min(RETRY_STEP * (attempt - 1), RETRY_MOST), self.version,
                        attempt)


def moved_for(state: Match, seat: int) -> bool:
    """A seat whose moves are not a person's: a bot's, or an away person's autopilot's."""
    return state.seats[seat].bot is not None or seat in state.away


def waits_on_bot(state: Match) -> bool:
    return any(moved_for(state, seat) for seat in seats_to_act(state))


def bots_alone(seats: Sequence[SeatSpec]) -> bool:
    return all(seat.bot is not None for seat in seats)


def bots_only(state: Match) -> bool:
    return bots_alone(state.seats)


def pace_of(state: Match, pace: Mapping[str, float]) -> float:
    """The pace of the slowest seat the match waits on that a bot or the autopilot moves."""
    return max((pace.get(state.seats[seat].bot or AUTOPILOT, 0.0)
                for seat in seats_to_act(state) if moved_for(state, seat)), default=0.0)


def marks(state: Match, at: float, pace: Mapping[str, float]) -> dict[str, str]:
    """The marks to write with the events that lead to `state`, recorded `at`."""
    owed = OwedTurn(at + pace_of(state, pace), state.version) if waits_on_bot(state) else None
    out = {BOT_WAIT: owed.text() if owed else ""}
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


def carry_over(store: EventStore) -> int:
    """The schedule's marks in their earlier form, written in this one: a bot's move owed is
    due at once (nobody holds it after a restart), a clock keeps its time. How many."""
    carried = 0
    for earlier, key in EARLIER.items():
        for match_id, value in store.marked(earlier).items():
            now = OwedTurn(0.0, int(value)).text() if key == BOT_WAIT else value
            store.put_meta(match_id, key, now, if_absent=True)
            store.put_meta(match_id, earlier, "")
            carried += 1
    return carried
