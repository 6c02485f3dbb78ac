"""Bot turns: handed to a dispatcher when a move leaves a bot to act, and made here, on the
bot's pace, by whoever the dispatcher runs them on (a thread beside the API, an RQ worker)."""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
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
from service.waiting import AUTOPILOT, BOT_WAIT, OwedTurn, bots_only, moved_for, waits_on_bot

log = logging.getLogger(__name__)

THINKING_SHARE = 0.75  # of a paced bot's time goes to thinking; the rest is its margin
LATE = 0.05  # seconds past its due time after which a paced move is recorded as late
LOST_AFTER = 5.0  # seconds past its due time after which a bot turn is taken as lost


class Dispatcher(Protocol):
    """Hands a bot turn (match, seat, version) to whatever will compute it."""

    name: str

    def enqueue(self, match_id: str, seat: int, version: int, urgent: bool = False,
                attempt: int = 0) -> None:
        """Queue the turn; `urgent` when a person waits on it (it goes first); `attempt`,
        how many times it was handed on again, lost by whoever had it."""
        ...

    def analyse(self, match_id: str, number: int) -> None:
        """Queue the analysis of one round, to be computed when no bot turn waits."""
        ...

    def close(self) -> None: ...


Due = tuple[float, float]  # until when a paced bot may think, and when its move is recorded
Made = int  # what a bot turn did: nothing, a move made, or a move held until its due time
NOTHING, MADE, HELD = 0, 1, 2


class BotTurns:
    def __init__(self, matches: Matches, commands: Commands, think_slots: int = 2,
                 clock: Callable[[], float] = time.time) -> None:
        self.matches = matches
        self.commands = commands
        self.dispatcher: Dispatcher | None = None
        # One pace for the due times the appends write and the moves held here.
        self._pace = commands.pace
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
        """Hand on again every bot turn the schedule shows lost: overdue by more than
        `LOST_AFTER` (a process killed, restarted, or shut down with the turn in hand, or a
        queue that lost it). Each goes as its next attempt, claimed in the store first, so
        that of several sweepers one hands it on. With `overdue_only` off (at the start of
        the one process that makes the turns, which holds none yet), every turn owed goes at
        once, as its first attempt. How many."""
        now = self._clock()
        store = self.matches.store
        handed = 0
        for match_id, value in store.due(BOT_WAIT, now - LOST_AFTER if overdue_only
                                         else math.inf).items():
            owed = OwedTurn.parse(value)
            attempt = 0
            if overdue_only:
                again = owed.again(now)
                if not store.put_meta(match_id, BOT_WAIT, again.text(), if_value=value):
                    continue  # moved meanwhile, or another sweeper has it
                attempt = again.attempt
            state = self.matches.load(match_id)
            if state.version == owed.version and waits_on_bot(state):
                self.hand_off(state, attempt)
                handed += 1
        return handed

    def owed(self) -> int:
        """The matches that wait on a bot's move, by the schedule."""
        return len(self.matches.store.due(BOT_WAIT, math.inf))

    def hand_off(self, state: Match, attempt: int = 0) -> None:
        """Queue a turn for every bot the match now waits for (`attempt` > 0: handed on
        again by a sweep)."""
        if self.dispatcher is None:
            return
        for seat in seats_to_act(state):
            if not moved_for(state, seat):
                continue
            try:
                self.dispatcher.enqueue(state.id, seat, state.version,
                                        urgent=not bots_only(state), attempt=attempt)
            except Exception:  # the move is stored; a failed hand-off must not undo the reply
                log.exception("could not hand seat %s of %s to the bots", seat, state.id)

    def bot_turn(self, match_id: str, seat: int, version: int) -> Made:
        """Let the bot in `seat` act if the match still waits for it; harmless if run twice.

        A paced bot chooses now and its move is held until its due time (`HELD`) while the
        caller goes on to other turns; until it is stored, the schedule still shows the turn
        owed, so a process killed with it in hand loses nothing. Otherwise the move is made
        at once (`MADE`), or not at all.
        """
        state = self.matches.load(match_id)
        # An away person's seat is moved by the autopilot, on the bots' pace.
        away = seat in state.away
        bot = state.seats[seat].bot or (AUTOPILOT if away else None)
        if bot is None or seat not in seats_to_act(state):
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

        self.deliveries.at(due[1], partial(self._deliver, match_id, seat, state.version, move,
                                           due))
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
