"""Which matches wait on a bot, kept with their events so that no restart can lose it.

Every append the service makes writes the mark in the same transaction as the events: the
version at which a bot must act, or "" once none must. `BotTurns.recover` hands every marked
match to the bots again, at startup and whenever a turn is overdue.
"""

from __future__ import annotations

from domain.state import Match
from domain.views import seats_to_act
from eventstore import MARK

BOT_WAIT = MARK + "bot-turn"


def waits_on_bot(state: Match) -> bool:
    return any(state.seats[seat].bot is not None for seat in seats_to_act(state))


def bot_mark(state: Match) -> dict[str, str]:
    """The mark to write with the events that lead to `state`."""
    return {BOT_WAIT: str(state.version) if waits_on_bot(state) else ""}
