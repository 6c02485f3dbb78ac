"""Bot turns: handed to a dispatcher when a move leaves a bot to act, and made here, on the
bot's pace, by whoever the dispatcher runs them on (a thread beside the API, an RQ worker)."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from random import Random
from typing import Protocol

from domain.bots.base import Policy, bot_command
from domain.bots.levels import policy_named
from domain.cards import Card
from domain.commands import Autoplay, ChooseMoon, Command, Move, PassCards, PlayCard, Secret
from domain.events import AbandonReason
from domain.state import Match
from domain.views import MatchView, seats_to_act, view_for
from service import metrics
from service.commands import Commands
from service.deliveries import Deliveries
from service.errors import VersionConflict
from service.matches import Matches
from service.pacing import instant_text
from service.waiting import AUTOPILOT, BOT_WAIT, bots_only, moved_for, waits_on_bot

log = logging.getLogger(__name__)

THINKING_SHARE = 0.75  # of a paced bot's time goes to thinking; the rest is its margin
LATE = 0.05  # seconds past its due time after which a paced move is recorded as late
LOST_AFTER = 5.0  # seconds past its pace after which a bot turn is taken as lost and handed on


class Dispatcher(Protocol):
    """Hands a bot turn (match, seat, version) to whatever will compute it."""

    name: str

    def enqueue(self, match_id: str, seat: int, version: int, urgent: bool = False) -> None:
        """Queue the turn; `urgent` when a person waits on it (it goes first)."""
        ...

    def analyse(self, match_id: str, number: int) -> None:
        """Queue the analysis of one round, to be computed when no bot turn waits."""
        ...

    def close(self) -> None: ...


Due = tuple[float, float]  # until when a paced bot may think, and when its move is recorded
Made = int  # what a bot turn did: nothing, a move made, or a move held until its due time
NOTHING, MADE, HELD = 0, 1, 2


class BotTurns:
    def __init__(self, matches: Matches, commands: Commands,
                 pace: Mapping[str, float] | None = None, think_slots: int = 2,
                 clock: Callable[[], float] = time.time) -> None:
        self.matches = matches
        self.commands = commands
        self.dispatcher: Dispatcher | None = None
        self._pace = dict(pace or {})
        # Searching bots that think at once: as many for matches with people as for matches
        # of bots alone, so that these never hold up those.
        self._thinking = {urgent: threading.BoundedSemaphore(think_slots)
                          for urgent in (True, False)}
        self._clock = clock
        self.deliveries = Deliveries(clock)  # paced moves, held until their due time

    def close(self) -> None:
        """At a graceful stop: the moves held now are delivered at their time, within the
        slowest pace; none is left for the sweep to make late."""
        self.deliveries.close(drain=max(self._pace.values(), default=0.0))

    def recover(self, overdue_only: bool = True) -> int:
        """Hand on again every match that waits on a bot whose turn is lost: made by no one
        since the move that asked for it (a process killed, restarted, or shut down with the
        turn in hand). A turn still within its pace and `LOST_AFTER` is left alone unless
        `overdue_only` is off (at startup, when this process holds no turn). How many."""
        handed = 0
        for match_id, version in self.matches.store.marked(BOT_WAIT).items():
            if overdue_only and not self._overdue(match_id, int(version)):
                continue
            state = self.matches.load(match_id)
            if waits_on_bot(state):
                self.hand_off(state)
                handed += 1
        return handed

    def _overdue(self, match_id: str, version: int) -> bool:
        at = self.matches.recorded_at(match_id, version)
        slowest = max(self._pace.values(), default=0.0)
        return at is None or self._clock() > at + slowest + LOST_AFTER

    def hand_off(self, state: Match) -> None:
        """Queue a turn for every bot the match now waits for."""
        if self.dispatcher is None:
            return
        for seat in seats_to_act(state):
            if not moved_for(state, seat):
                continue
            try:
                self.dispatcher.enqueue(state.id, seat, state.version,
                                        urgent=not bots_only(state))
            except Exception:  # the move is stored; a failed hand-off must not undo the reply
                log.exception("could not hand seat %s of %s to the bots", seat, state.id)

    def bot_turn(self, match_id: str, seat: int, version: int, rerun: bool = False,
                 delivered: Callable[[], None] | None = None) -> Made:
        """Let the bot in `seat` act if the match still waits for it; harmless if run twice.

        A paced bot chooses now and its move is held until its due time (`HELD`): the caller
        goes on to other turns, and `delivered` is called once the move is stored (or found
        no longer wanted). Otherwise the move is made at once (`MADE`), or not at all.

        A `rerun` is a turn queued again because whoever ran it first went quiet. That one
        may have died after its move was stored but before it handed the match on, so a
        rerun that finds its move made hands the match on from where it stands now.
        """
        state = self.matches.load(match_id)
        # An away person's seat is moved by the autopilot, on the bots' pace.
        away = seat in state.away
        bot = state.seats[seat].bot or (AUTOPILOT if away else None)
        if bot is None or seat not in seats_to_act(state):
            if rerun:
                self.hand_off(state)
            return NOTHING
        if bots_only(state) and state.round is not None \
                and state.round.number > self.commands.fair.bot_rounds:
            self.commands.abandon(match_id, None, AbandonReason.ROUND_LIMIT, state.version)
            return MADE
        due = self._due(match_id, state.version, bot)
        chosen = self._choose(state, seat, bot, due)
        move: Command = Autoplay(seat, chosen) if away else chosen
        if due is None:
            return MADE if self._deliver(match_id, seat, state.version, move, None) else NOTHING

        def deliver() -> None:
            try:
                self._deliver(match_id, seat, state.version, move, due)
            finally:
                if delivered is not None:
                    delivered()

        self.deliveries.at(due[1], deliver)
        return HELD

    def _choose(self, state: Match, seat: int, bot: str, due: Due | None) -> Move:
        """The bot's move, its search cut short at its thinking deadline if it has one."""
        policy = policy_named(bot)
        rng = Random(hashlib.sha256(f"{state.id}:{seat}:{state.version}".encode()).digest())
        secret = self.matches.secret(state.id)
        with metrics.Timer() as thinking:
            chosen = self._think(view_for(state, seat), policy, rng, secret, due,
                                 not bots_only(state))
        metrics.BOT_DECISIONS.labels(bot).observe(thinking.seconds)
        assert isinstance(chosen, PassCards | PlayCard | ChooseMoon), "the seat is waited on"
        return chosen

    def _deliver(self, match_id: str, seat: int, version: int, move: Command,
                 due: Due | None) -> bool:
        """Store the move if the match is still where the bot saw it. True when stored."""
        def on_the_beat() -> str:
            # A paced move is recorded at its due time to the millisecond, not at the moment
            # its write began a little after: a late one (the machine too busy) as it is.
            if due is None or self._clock() > due[1] + LATE:
                return self.matches.now()
            return instant_text(due[1])

        try:
            self.commands.submit(match_id, seat, lambda _: move, expected_version=version,
                                 stamp=on_the_beat)
        except VersionConflict:
            return False  # someone moved first; the turn is handed on again from there
        return True

    def _due(self, match_id: str, version: int, bot: str) -> Due | None:
        """Until when the bot may think, and when its move is recorded: its pace after the
        event it answers. None: no pace, the bot thinks it through and moves at once.

        How long a bot takes to choose depends on its cards (one legal card is chosen at
        once), and the record's time and its arrival on the stream are public; so a paced
        bot's move waits until its due time whatever it held, and a search is cut short in
        time to make it even when the machine is busy.
        """
        pace = self._pace.get(bot, 0.0)
        if pace <= 0:
            return None
        anchor = self.matches.recorded_at(match_id, version)
        if anchor is None:
            return None
        return anchor + pace * THINKING_SHARE, anchor + pace

    def _think(self, view: MatchView, policy: Policy, rng: Random, secret: Secret,
               due: Due | None, urgent: bool) -> Command | None:
        """The bot's command, its search stopped at its thinking deadline if it has one. Only
        a searching bot takes a thinking slot (of its kind: `urgent` when a person waits);
        the others decide in well under a millisecond."""
        stop = due[0] if due is not None else None

        def drive(search: Iterator[Card]) -> Card:
            best = next(search)
            for best in search:  # noqa: B007 - the last card yielded is the answer
                if stop is not None and self._clock() >= stop:
                    break
                # Let the others run between two sampled deals: under green threads a
                # search would otherwise hold every request and stream until it ends.
                time.sleep(0)
            return best

        if not hasattr(policy, "searching"):
            return bot_command(view, policy, rng, secret, drive)
        thinking = self._thinking[urgent]
        if stop is None:
            with thinking:
                return bot_command(view, policy, rng, secret, drive)
        # A turn that cannot get a thinking slot by its deadline decides on one deal.
        slot = thinking.acquire(timeout=max(0.0, stop - self._clock()))
        try:
            return bot_command(view, policy, rng, secret, drive)
        finally:
            if slot:
                thinking.release()
