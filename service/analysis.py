"""The analysis of a match: asked for once, computed a round at a time by whoever runs the
bots, kept beside the events (never in the stream or its hash chain) and read back by anyone.

What is kept, as private values beside the match's stream:
    analysis            what was asked: the last round covered and its decisions in all
    analysis.round.R    round R's judged decisions, written once (the first to finish wins)
    analysis.progress.R how far round R's computation has come, and when it last moved
and the indexed mark `@analysis` while any round asked for is not yet kept, so that a
restart or a killed worker leaves nothing unfinished: the sweep hands such rounds on again.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from domain.analysis import judge, judged_json, round_decisions, seat_summaries
from domain.events import CardPlayed, MoonChosen, PassChosen, RoundScored
from eventstore import MARK
from service.matches import Matches, decode
from service.metrics import ANALYSED
from service.reads import Reads

log = logging.getLogger(__name__)

ASKED = "analysis"
PENDING = MARK + "analysis"
STALE = 15.0  # seconds a round's computation may go without progress before it is handed on
BEAT = 1.0  # seconds between the progress notes of a round being computed
DECISIONS = (PassChosen, CardPlayed, MoonChosen)

Hand = Callable[[str, int], None]  # gives (match, round) to whoever computes it
Pause = Callable[[], None]  # called between decisions: waits while bot turns go first
Offload = Callable[[Callable[[], Any]], Any]  # runs one decision's judging, and returns it


def at_once(work: Callable[[], Any]) -> Any:
    return work()


def round_key(number: int) -> str:
    return f"analysis.round.{number}"


def progress_key(number: int) -> str:
    return f"analysis.progress.{number}"


class Analyses:
    def __init__(self, matches: Matches, reads: Reads,
                 clock: Callable[[], float] = time.time) -> None:
        self.matches = matches
        self.store = matches.store
        self.reads = reads
        self._clock = clock
        self.hand: Hand | None = None  # set with the service's dispatcher
        self._handed: dict[tuple[str, int], float] = {}  # when this process last handed one

    # -- asking and reading -----------------------------------------------------------------

    def ask(self, match_id: str) -> dict[str, Any]:
        """Ask for every round that is over, or for the rounds over since the last asking;
        asking again otherwise changes nothing. The analysis as it stands."""
        now = self.matches.load(match_id)
        up_to = len(now.history)  # the rounds scored: every secret of them is public
        asked = self._asked(match_id)
        if asked is None or asked["up_to_round"] < up_to:
            total = self._count_decisions(match_id, up_to)
            self.store.put_meta(match_id, ASKED,
                                json.dumps({"up_to_round": up_to, "total": total}))
            if self._missing(match_id, up_to):
                self.store.put_meta(match_id, PENDING, "1")
            for number in self._missing(match_id, up_to):
                self._hand_on(match_id, number)
        report = self.report(match_id)
        assert report is not None
        return report

    def report(self, match_id: str) -> dict[str, Any] | None:
        """The analysis so far; None when nobody has asked for it."""
        asked = self._asked(match_id)
        if asked is None:
            return None
        seats = self.matches.load(match_id).table.seats
        rounds, done, running = [], 0, False
        for number in range(1, asked["up_to_round"] + 1):
            kept = self.store.get_meta(match_id, round_key(number))
            if kept is not None:
                decisions = json.loads(kept)
                rounds.append({"round": number, "decisions": decisions})
                done += len(decisions)
                continue
            progress = self._progress(match_id, number)
            done += int(progress["done"])
            running = running or progress["done"] > 0
        total = asked["total"]
        status = "done" if done >= total and len(rounds) == asked["up_to_round"] else \
            "running" if rounds or running else "queued"
        every = [d for r in rounds for d in r["decisions"]]
        return {"match_id": match_id, "status": status,
                "progress": {"done": min(done, total), "total": total},
                "up_to_round": asked["up_to_round"], "rounds": rounds,
                "seats": seat_summaries(every, seats)}

    # -- computing --------------------------------------------------------------------------

    def compute_round(self, match_id: str, number: int, pause: Pause = lambda: None,
                      offload: Offload = at_once) -> bool:
        """Judge every decision of round `number` and keep them, unless they are kept
        already. True when this call kept them."""
        if self.store.get_meta(match_id, round_key(number)) is not None:
            return False
        asked = self._asked(match_id)
        if asked is None or number > asked["up_to_round"]:
            return False
        before, log_of_round = self.reads.round_log(match_id, number)
        decisions = round_decisions(log_of_round, before, number)
        judged: list[dict[str, Any]] = []
        beat = 0.0
        for decision in decisions:
            pause()
            if self._clock() - beat >= BEAT:
                self._note(match_id, number, len(judged))
                beat = self._clock()
            judged.append(judged_json(offload(partial(judge, decision))))
        kept = self.store.put_meta(match_id, round_key(number), json.dumps(judged),
                                   if_absent=True)
        ANALYSED.labels("kept" if kept else "lost").inc()
        if not self._missing(match_id, asked["up_to_round"]):
            self.store.put_meta(match_id, PENDING, "")
        return kept

    def recover(self) -> int:
        """Hand on again every round asked for that nobody keeps and nobody has moved on for
        STALE seconds (its worker killed, its process restarted). How many."""
        handed = 0
        for match_id in self.store.marked(PENDING):
            asked = self._asked(match_id)
            missing = self._missing(match_id, asked["up_to_round"]) if asked else []
            if not missing:
                self.store.put_meta(match_id, PENDING, "")
            for number in missing:
                last = max(self._progress(match_id, number)["at"],
                           self._handed.get((match_id, number), 0.0))
                if self._clock() - last >= STALE:
                    self._hand_on(match_id, number)
                    handed += 1
        return handed

    # -- what is kept -----------------------------------------------------------------------

    def _hand_on(self, match_id: str, number: int) -> None:
        self._handed[(match_id, number)] = self._clock()
        if self.hand is None:
            return  # no one computes here: the sweep of a process that has bots will
        try:
            self.hand(match_id, number)
        except Exception:
            log.exception("handing on the analysis of %s round %s failed; the sweep will",
                          match_id, number)

    def _asked(self, match_id: str) -> dict[str, int] | None:
        text = self.store.get_meta(match_id, ASKED)
        return json.loads(text) if text else None

    def _missing(self, match_id: str, up_to: int) -> list[int]:
        return [n for n in range(1, up_to + 1)
                if self.store.get_meta(match_id, round_key(n)) is None]

    def _progress(self, match_id: str, number: int) -> dict[str, float]:
        text = self.store.get_meta(match_id, progress_key(number))
        return json.loads(text) if text else {"done": 0, "at": 0.0}

    def _note(self, match_id: str, number: int, done: int) -> None:
        self.store.put_meta(match_id, progress_key(number),
                            json.dumps({"done": done, "at": self._clock()}))

    def _count_decisions(self, match_id: str, up_to: int) -> int:
        """The passes, plays and moon choices of rounds 1 to `up_to`."""
        count = 0
        if up_to > 0:
            for stored in self.store.read(match_id):
                event = decode(stored)
                count += isinstance(event, DECISIONS)
                if isinstance(event, RoundScored) and event.round >= up_to:
                    break
        return count


