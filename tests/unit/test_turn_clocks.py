"""Turn clocks in the domain: a timeout makes the seat's move for it, two in a row make it
away, its own move or saying it is back brings it back, and nothing runs out early."""

from __future__ import annotations

import pytest

from domain.commands import Autoplay, ComeBack, PassCards, PlayCard, TimeOut
from domain.decide import decide
from domain.errors import IllegalMove, InvalidCommand, Violation
from domain.events import SeatAway, SeatBack, TurnTimedOut
from domain.rules import Rules
from domain.verify import replay_check
from domain.views import clocks, view_for, view_json
from tests.builders import SECRET, UNBROKEN, create_command, given, hold_round, then

CLOCK = Rules(turn_seconds=30)


def passing():
    state, _ = then(None, create_command(CLOCK))
    return state


def made_for(state, seat):
    """The move the autopilot would make: the lowest legal card, or three cards passed."""
    you = view_for(state, seat).you
    if state.status.value == "passing":
        return PassCards(seat, you.hand[:3], SECRET, "heuristic/1")
    return PlayCard(seat, you.legal[0], SECRET, "heuristic/1")


def time_out(state, seat, now=100.0, started=60.0):
    return then(state, TimeOut(seat, now, started, made_for(state, seat)))


def test_every_seat_waited_on_has_a_clock_from_the_event_that_made_it_wait():
    state = passing()
    assert clocks(state) == tuple((s, 2) for s in range(4))  # the deal is event 2
    hand = view_for(state, 1).you.hand
    state, _ = then(state, PassCards(1, hand[:3], SECRET))
    assert clocks(state) == ((0, 2), (2, 2), (3, 2)), "another's pass resets no clock"
    assert clocks(given(*_events_without_clock())) == ()


def _events_without_clock():
    return decide(None, create_command())


def test_a_timeout_makes_the_move_and_is_recorded_before_it():
    state = passing()
    after, events = time_out(state, 0)
    assert events[0] == TurnTimedOut(0) and events[1].seat == 0 and events[1].bot
    assert after.round.passes[0] is not None and after.timeouts_of(0) == 1
    assert 0 not in after.away


def test_a_clock_does_not_run_out_early_nor_without_a_clock():
    state = passing()
    with pytest.raises(IllegalMove) as early:
        then(state, TimeOut(0, 89.9, 60.0, made_for(state, 0)))
    assert early.value.code is Violation.WRONG_PHASE
    plain = given(*_events_without_clock())
    with pytest.raises(IllegalMove):
        then(plain, TimeOut(0, 1e12, 0.0, made_for(plain, 0)))


def test_the_move_made_for_a_seat_must_be_that_seats_and_by_a_policy():
    state = passing()
    hand = view_for(state, 1).you.hand
    with pytest.raises(InvalidCommand):
        then(state, TimeOut(0, 100.0, 60.0, PassCards(1, hand[:3], SECRET, "heuristic/1")))
    with pytest.raises(InvalidCommand):
        then(state, TimeOut(0, 100.0, 60.0, PassCards(0, hand[:3], SECRET)))


def test_two_timeouts_in_a_row_make_a_seat_away_and_its_own_move_ends_the_run():
    state = hold_round(UNBROKEN, CLOCK)  # seat 0 holds 2C and leads
    state, _ = time_out(state, state.turn)
    assert state.turn == 1
    state = _round_to(state, 0)
    assert state.timeouts_of(0) == 1
    state, events = time_out(state, 0)
    assert events[-1] == SeatAway(0) and 0 in state.away
    assert all(s != 0 for s, _ in clocks(state))
    assert view_json(view_for(state, None))["away"] == [0]


def test_an_away_seat_is_moved_for_and_comes_back():
    state = away_on_its_turn()
    assert 0 in state.away
    with pytest.raises(IllegalMove):  # an away seat has no clock
        time_out(state, 0)
    state, events = then(state, Autoplay(0, made_for(state, 0)))
    assert events[0].seat == 0 and 0 in state.away
    state, events = then(state, ComeBack(0))
    assert events == [SeatBack(0)] and not state.away and state.timeouts_of(0) == 0
    with pytest.raises(IllegalMove) as not_away:
        then(state, ComeBack(0))
    assert not_away.value.code is Violation.NOT_AWAY
    with pytest.raises(IllegalMove) as autoplay:
        then(_round_to(state, 0), Autoplay(0, made_for(_round_to(state, 0), 0)))
    assert autoplay.value.code is Violation.NOT_AWAY


def test_an_away_persons_own_move_brings_the_seat_back():
    state = away_on_its_turn()
    card = view_for(state, 0).you.legal[0]
    state, events = then(state, PlayCard(0, card, SECRET))
    assert events[0] == SeatBack(0) and not state.away


def test_a_seat_back_on_its_own_turn_has_its_clock_from_its_coming_back():
    state = away_on_its_turn()
    assert 0 in state.away and clocks(state) == ()
    state, _ = then(state, ComeBack(0))
    assert clocks(state) == ((0, state.version),)


def away_on_its_turn():
    """Seat 0 timed out on its lead and on its next play: away, and on turn again."""
    state = hold_round(UNBROKEN, CLOCK)
    state, _ = time_out(state, 0)
    state = _round_to(state, 0)
    state, _ = time_out(state, 0)
    return _round_to(state, 0)


def _round_to(state, seat):
    """Everyone else plays its lowest legal card until it is `seat`'s turn."""
    while state.turn != seat:
        mover = state.turn
        state, _ = then(state, PlayCard(mover, view_for(state, mover).you.legal[0], SECRET))
    return state


def test_the_integrity_check_holds_a_timeout_to_its_seats_clock():
    """With the events' recorded times, a timeout recorded before the seat's time was up is
    where the log departs from a fresh decision; one on time, or later, checks."""
    created = decide(None, create_command(CLOCK))  # events 1 and 2: the clock starts at 2
    state = given(*created)
    _, timed_out = time_out(state, 0)  # events 3 and 4
    log = [*created, *timed_out]

    def recorded(timeout_at: float):
        return {1: 0.0, 2: 10.0, 3: timeout_at, 4: timeout_at}.get

    assert replay_check(log, SECRET, recorded=recorded(40.0)).ok  # 30 s after the deal
    assert replay_check(log, SECRET, recorded=recorded(55.5)).ok
    early = replay_check(log, SECRET, recorded=recorded(39.9))
    assert early.first_bad_version == 3 and "wrong_phase" in early.reason
    assert replay_check(log, SECRET).ok, "without the times, the clock is taken as run out"
