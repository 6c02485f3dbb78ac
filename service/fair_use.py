"""How much of the machine one caller may take: matches of bots alone running at once (per
client address and in all), and how many rounds such a match may run."""

from __future__ import annotations

from dataclasses import dataclass

from eventstore import EventStore
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


def check_bot_matches(store: EventStore, owner: str, fair: FairUse) -> None:
    """Refuse one more running match of bots alone for `owner` when it would pass a cap."""
    running = store.marked(BOTS_ONLY)
    if sum(1 for who in running.values() if who == owner) >= fair.bot_matches_per_client:
        raise BotMatchesCapped(f"at most {fair.bot_matches_per_client} matches of bots alone"
                               " may run at once for one client", per_client=True)
    if len(running) >= fair.bot_matches:
        raise BotMatchesCapped("as many matches of bots alone run as the server allows",
                               per_client=False)
