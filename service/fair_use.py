"""How much of the machine one caller may take: matches of bots alone running at once (per
client address and in all), and how many rounds such a match may run."""

from __future__ import annotations

from dataclasses import dataclass

from eventstore import Cap, CapReached, EventStore
from service.waiting import BOTS_ONLY


@dataclass(frozen=True)
class FairUse:
    bot_matches_per_client: int = 5
    bot_matches: int = 100
    bot_rounds: int = 50  # a match of bots alone is abandoned past its 50th round
    idle_seconds: float = 24 * 3600  # a match whose people do nothing this long is abandoned


class BotMatchesCapped(Exception):
    """No more matches of bots alone now, for this client or for anyone."""

    def __init__(self, detail: str, per_client: bool) -> None:
        super().__init__(detail)
        self.per_client = per_client


def bot_matches_cap(owner: str, fair: FairUse) -> Cap:
    """The cap a creation of bots alone appends under: the store counts the running ones and
    claims the new one in one step, so creations racing in several processes cannot pass it."""
    return Cap(BOTS_ONLY, owner, fair.bot_matches_per_client, fair.bot_matches)


def capped(reached: CapReached, fair: FairUse) -> BotMatchesCapped:
    if reached.per_value:
        return BotMatchesCapped(f"at most {fair.bot_matches_per_client} matches of bots alone"
                                " may run at once for one client", per_client=True)
    return BotMatchesCapped("as many matches of bots alone run as the server allows",
                            per_client=False)


def check_bot_matches(store: EventStore, owner: str, fair: FairUse) -> None:
    """Refuse early, before anything is claimed, one more match of bots alone that would
    pass a cap as things stand; the append under `bot_matches_cap` is what holds the line."""
    running = store.marked(BOTS_ONLY)
    if sum(1 for who in running.values() if who == (owner or "?")) \
            >= fair.bot_matches_per_client:
        raise capped(CapReached(per_value=True), fair)
    if len(running) >= fair.bot_matches:
        raise capped(CapReached(per_value=False), fair)
