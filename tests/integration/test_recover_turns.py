"""Lost bot turns, found again in the schedule of turns owed that the store keeps with the
events, and claimed there by one sweeper."""

from __future__ import annotations

import time

from domain.events import SeatSpec
from domain.rules import Rules
from domain.views import seats_to_act
from harness.http import wait_until
from service import MatchService
from service.bot_turns import LOST_AFTER
from service.waiting import BOT_WAIT, OwedTurn
from workers.dispatch import InlineDispatcher

BOTS = [SeatSpec(f"r{i}", "random") for i in range(4)]
PERSON = [SeatSpec("Ann"), *BOTS[1:]]


class Recorder:
    """A dispatcher that only writes down what it is given."""

    name = "recorder"

    def __init__(self) -> None:
        self.turns: list[tuple[str, int, int, int]] = []

    def enqueue(self, match_id: str, seat: int, version: int, urgent: bool = False,
                attempt: int = 0) -> None:
        self.turns.append((match_id, seat, version, attempt))

    def analyse(self, match_id: str, number: int) -> None:
        pass

    def close(self) -> None:
        pass


def owed(store, match_id: str) -> OwedTurn:
    return OwedTurn.parse(store.marked(BOT_WAIT)[match_id])


def test_a_turn_is_due_its_bots_pace_after_the_move_that_asked_for_it(store):
    game = MatchService(store, pace={"random": 2.0, "heuristic": 0.5})
    bots = game.create(BOTS, Rules()).match
    person = game.create(PERSON, Rules()).match
    for match in (bots, person):
        at = game.matches.recorded_at(match.id, match.version)
        assert at is not None
        assert owed(store, match.id) == OwedTurn(at + 2.0, match.version, 0)
    assert store.due(BOT_WAIT, time.time() - 60) == {}
    assert set(store.due(BOT_WAIT, time.time() + 2.5)) == {bots.id, person.id}
    # Ann passes last: the match waits on nobody's bot, and the schedule says so.
    unpaced = MatchService(store)
    for seat in (1, 2, 3):
        assert unpaced.bot_turn(person.id, seat, unpaced.load(person.id).version)
    waiting = unpaced.load(person.id)
    assert tuple(seats_to_act(waiting)) == (0,) and person.id not in store.marked(BOT_WAIT)


def test_a_turn_nobody_holds_is_handed_on_once_overdue_and_at_startup_at_once(store):
    now = [time.time()]
    game = MatchService(store, clock=lambda: now[0], pace={"random": 2.0})
    # Created with no dispatcher: the turns are owed, and nobody computes them.
    bots = game.create(BOTS, Rules()).match.id
    person = game.create(PERSON, Rules()).match.id
    # A process with bots starts on the same store.
    game = MatchService(store, lambda service: InlineDispatcher(service.bot_turn, 2),
                        clock=lambda: now[0], pace={"random": 2.0})
    dispatcher = game.dispatcher
    assert dispatcher is not None
    try:
        assert game.bots.recover() == 0, "within its pace and the grace, a turn is left be"
        now[0] += 2.0 + LOST_AFTER + 1
        assert game.bots.recover() == 2, "past them, both matches are handed on"
        # Paced, each move is held until its due time (long past, on this clock).
        wait_until(lambda: game.load(bots).version > 2 and game.load(person).version > 2, 30)
        # One reading of the schedule: the match may move on, and its mark go, between two.
        waiting = store.marked(BOT_WAIT)
        assert person not in waiting or OwedTurn.parse(waiting[person]).version > 2
        # At startup nothing is held by this process: everything owed goes at once (the
        # bots stopped first, so that no match moves on meanwhile).
        dispatcher.close()
        game.bots.deliveries.close(drain=0)
        assert game.bots.recover(overdue_only=False) == len(store.marked(BOT_WAIT)) > 0
    finally:
        dispatcher.close()


def test_of_sweepers_racing_for_an_overdue_turn_one_hands_it_on_and_later_ones_wait_longer(
        store):
    now = [time.time()]
    match = MatchService(store).create(BOTS, Rules()).match.id
    first = owed(store, match)
    recorders = [Recorder() for _ in range(3)]
    sweepers = [MatchService(store, lambda _, r=r: r, clock=lambda: now[0]) for r in recorders]
    now[0] = first.due + LOST_AFTER + 0.5
    assert sorted(s.bots.recover() for s in sweepers) == [0, 0, 1], "one sweeper wins"
    handed = [t for r in recorders for t in r.turns]
    assert handed == [(match, seat, first.version, 1) for seat in range(4)]
    again = owed(store, match)
    assert again == OwedTurn(now[0], first.version, 1)
    # Lost again: the next attempt comes later each time, so that turns kept waiting in a
    # queue by a load the workers cannot take are not queued again and again.
    waits = []
    for attempt in (2, 3, 4):
        before = owed(store, match)
        now[0] = before.due + LOST_AFTER - 0.01
        assert sum(s.bots.recover() for s in sweepers) == 0
        now[0] = before.due + LOST_AFTER + 0.01
        assert sum(s.bots.recover() for s in sweepers) == 1
        assert owed(store, match).attempt == attempt
        waits.append(owed(store, match).due - now[0])
    assert waits[0] < waits[1] < waits[2]


def test_a_mover_that_dies_before_handing_on_leaves_the_next_turn_owed(store):
    seats = [SeatSpec(f"b{i}", "heuristic") for i in range(4)]
    match = MatchService(store).create(seats, Rules()).match
    died = MatchService(store)  # moves, then "dies": nothing is handed on
    for seat in range(4):
        assert died.bot_turn(match.id, seat, match.version + seat)
    played = died.load(match.id)
    assert owed(store, match.id).version == played.version, "owed from the same append"
    recorder = Recorder()
    now = time.time() + LOST_AFTER + 1
    game = MatchService(store, lambda _: recorder, clock=lambda: now)
    assert game.bots.recover() == 1
    assert recorder.turns == [(match.id, s, played.version, 1) for s in seats_to_act(played)]
    # A duplicate of a pass already made does nothing (any seat but the one to lead now).
    passed = next(s for s in range(4) if s not in seats_to_act(played))
    assert not game.bot_turn(match.id, passed, match.version + passed)
    assert len(recorder.turns) == 1 and game.load(match.id).version == played.version


def test_the_schedule_written_before_it_had_times_is_carried_over(store):
    from service.waiting import CLOCK, carry_over

    store.append("old-bot", [], 0, meta={"@bot-turn": "7"})
    store.append("old-clock", [], 0, meta={"@turn-clock": "1234.5"})
    assert carry_over(store) == 2
    assert store.due(BOT_WAIT, 0.0) == {"old-bot": "0.0 7 0"}, "due at once"
    assert store.due(CLOCK, 1234.5) == {"old-clock": "1234.5"}
    assert store.marked("@bot-turn") == {} and store.marked("@turn-clock") == {}
    assert carry_over(store) == 0
