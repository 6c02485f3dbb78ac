"""The application service: every edge (the HTTP API, the bot workers, the command line)
goes through `MatchService`, so a bot's move and a person's take the same path and meet the
same rules, versions and redaction.

    matches.py      loading and appending a match, what is kept beside its events
    commands.py     creating a match and a seat's moves; creations.py: idempotent creation
    reads.py        views, the log, replays, audits, integrity reports, the live stream
    bot_turns.py    handing turns to bots and making them, on their pace
    analysis.py     the expert's verdict on every decision of the rounds that are over
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any

from domain.cards import Card
from domain.commands import ChooseMoon, ComeBack, PassCards, PlayCard
from domain.events import AbandonReason, SeatSpec
from domain.rules import MoonRule, Rules
from domain.state import Match
from eventstore import EventStore
from service.analysis import Analyses, Offload, Pause, at_once
from service.bot_turns import BotTurns, Dispatcher
from service.commands import Commands, Created, Reply
from service.creations import Creations
from service.fair_use import FairUse
from service.idempotency import Idempotency
from service.matches import Matches, decode, utc_now
from service.reads import Reads, event_item
from service.sweeps import Sweeper

__all__ = ["Created", "Dispatch", "Dispatcher", "MatchService", "Reply", "decode",
           "event_item"]
# Makes the dispatcher of a service being built, from that service (None: no bots run here).
Dispatch = Callable[["MatchService"], Dispatcher | None]


class MatchService:
    """One store's matches: commands, reads and bot turns, with one dispatcher for the bots."""

    def __init__(self, store: EventStore, dispatch: Dispatch | None = None,
                 now: Callable[[], str] = utc_now,
                 entropy: Callable[[int], bytes] = secrets.token_bytes,
                 clock: Callable[[], float] = time.time,
                 pace: Mapping[str, float] | None = None, think_slots: int = 2,
                 cache_size: int = 512, fair: FairUse | None = None) -> None:
        self.matches = Matches(store, now, cache_size)
        self.commands = Commands(self.matches, entropy, fair=fair, pace=pace)
        self.creations = Creations(self.commands, clock)
        self.reads = Reads(self.matches, clock)
        self.bots = BotTurns(self.matches, self.commands, think_slots, clock)
        self.commands.on_moved = self.bots.hand_off
        self.analyses = Analyses(self.matches, self.reads, clock)
        self.sweeper = Sweeper(self.bots, self.commands, self.analyses)
        # The dispatcher runs this service's own bot turns and analyses, so it is made from
        # the service, once, as the last step of building it: nothing is rewired later.
        self._dispatcher = dispatch(self) if dispatch is not None else None
        self.bots.dispatcher = self._dispatcher
        if self._dispatcher is not None:
            self.analyses.hand = self._dispatcher.analyse

    @property
    def store(self) -> EventStore:
        return self.matches.store

    @property
    def dispatcher(self) -> Dispatcher | None:
        return self._dispatcher

    def close(self) -> None:
        """Stop what runs on its own and let go of the store, at a graceful stop: the sweeps,
        the held moves (each delivered at its time first: a pace at most), the dispatcher,
        the store."""
        self.sweeper.stop()
        self.bots.close()
        if self.dispatcher is not None:
            self.dispatcher.close()
        self.store.close()

    def health(self) -> dict[str, str]:
        return {"status": "ok", "store": self.store.name,
                "bots": self.dispatcher.name if self.dispatcher else "off"}

    # -- commands -----------------------------------------------------------------------

    def create(self, seats: Sequence[SeatSpec], rules: Rules, client_seed: str = "",
               decks: Sequence[Sequence[Card]] = (), match_id: str | None = None,
               owner: str = "") -> Created:
        return self.commands.create(seats, rules, client_seed, decks, match_id, owner)

    def create_match(self, seats: Sequence[SeatSpec], rules: Rules, client_seed: str,
                     decks: Sequence[Sequence[Card]],
                     idempotency: Idempotency | None = None, owner: str = "") -> dict[str, Any]:
        """The creation's reply (`view` with the tokens, `version`): once per key, if given.
        `owner`, the caller's address, counts matches of bots alone against its cap."""
        if idempotency is None:
            return self.create(seats, rules, client_seed, decks, owner=owner).reply()
        return self.creations.create_once(idempotency, seats, rules, client_seed, decks, owner)

    def pass_cards(self, match_id: str, seat: int, cards: Sequence[Card],
                   expected_version: int | None = None,
                   idempotency: Idempotency | None = None) -> Reply:
        return self.commands.submit(match_id, seat,
                                    lambda secret: PassCards(seat, tuple(cards), secret),
                                    expected_version, idempotency)

    def play_card(self, match_id: str, seat: int, card: Card,
                  expected_version: int | None = None,
                  idempotency: Idempotency | None = None) -> Reply:
        return self.commands.submit(match_id, seat, lambda secret: PlayCard(seat, card, secret),
                                    expected_version, idempotency)

    def choose_moon(self, match_id: str, seat: int, choice: MoonRule,
                    expected_version: int | None = None,
                    idempotency: Idempotency | None = None) -> Reply:
        return self.commands.submit(match_id, seat,
                                    lambda secret: ChooseMoon(seat, choice, secret),
                                    expected_version, idempotency)

    def come_back(self, match_id: str, seat: int, expected_version: int | None = None,
                  idempotency: Idempotency | None = None) -> Reply:
        """An away seat's person is back: its clock runs again (422 not_away otherwise)."""
        return self.commands.submit(match_id, seat, lambda _: ComeBack(seat),
                                    expected_version, idempotency)

    def abandon(self, match_id: str, seat: int, expected_version: int | None = None,
                idempotency: Idempotency | None = None) -> Reply:
        """A person at the table gives the match up: it ends with no winner."""
        return self.commands.abandon(match_id, seat, AbandonReason.BY_SEAT, expected_version,
                                     idempotency)

    def bot_turn(self, match_id: str, seat: int, version: int) -> int:
        """MADE, HELD (its move waits for its due time) or NOTHING."""
        return self.bots.bot_turn(match_id, seat, version)

    # -- the analysis ---------------------------------------------------------------------

    def ask_analysis(self, match_id: str) -> dict[str, Any]:
        """Ask for the analysis of every round that is over; the analysis as it stands."""
        return self.analyses.ask(match_id)

    def analysis(self, match_id: str) -> dict[str, Any] | None:
        """The analysis so far, or None if nobody asked for it."""
        self.matches.load(match_id)
        return self.analyses.report(match_id)

    def analyse_round(self, match_id: str, number: int, pause: Pause = lambda: None,
                      offload: Offload = at_once) -> bool:
        """Judge and keep one round's decisions, calling `pause` between them; `offload`
        runs each decision's judging (where it holds nothing else up)."""
        return self.analyses.compute_round(match_id, number, pause, offload)

    # -- reads --------------------------------------------------------------------------

    def load(self, match_id: str) -> Match:
        return self.matches.load(match_id)

    def seat_of(self, match_id: str, token: str | None) -> int | None:
        return self.matches.seat_of(match_id, token)

    def view_body(self, match_id: str, viewer: int | None) -> tuple[bytes, int]:
        """The view as JSON, kept per version for the readers who poll it."""
        return self.reads.view_body(match_id, viewer)

    def events(self, match_id: str, viewer: int | None, after: int = 0,
               limit: int = 100) -> tuple[list[dict[str, Any]], Match]:
        return self.reads.events(match_id, viewer, after, limit)

    def live(self, match_id: str, viewer: int | None, after: int,
             keepalive: float) -> Generator[list[dict[str, Any]], None, None]:
        return self.reads.live(match_id, viewer, after, keepalive)

    def replay(self, match_id: str, version: int, viewer: int | None) -> dict[str, Any]:
        return self.reads.replay(match_id, version, viewer)

    def audit(self, match_id: str, round_number: int, trick_number: int) -> dict[str, Any]:
        return self.reads.audit(match_id, round_number, trick_number)

    def verify(self, match_id: str) -> dict[str, Any]:
        return self.reads.verify(match_id)
