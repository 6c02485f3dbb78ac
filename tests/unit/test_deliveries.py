"""The timer that holds ready bot moves: each delivered once its time has come, in order of
time, counted while held, and none after it is closed."""

from __future__ import annotations

import time

from harness.http import wait_until
from service.deliveries import Deliveries


def test_moves_are_delivered_in_order_of_time_and_not_before_it():
    delivered: list[tuple[str, float, float]] = []  # name, due, when delivered
    timer = Deliveries()
    start = time.time()
    for name, after in (("late", 0.3), ("early", 0.1), ("now", 0.0)):
        timer.at(start + after,
                 lambda n=name, a=after: delivered.append((n, start + a, time.time())))
    assert timer.held() >= 2
    wait_until(lambda: len(delivered) == 3, timeout=10)
    assert [name for name, _, _ in delivered] == ["now", "early", "late"]
    assert all(at >= due for _, due, at in delivered)
    assert timer.held() == 0


def test_a_move_that_fails_does_not_stop_the_others():
    delivered: list[str] = []
    timer = Deliveries()

    def broken() -> None:
        raise RuntimeError("the store is away")

    timer.at(time.time(), broken)
    timer.at(time.time(), lambda: delivered.append("next"))
    wait_until(lambda: delivered == ["next"], timeout=10)


def test_a_closed_timer_delivers_nothing_more():
    delivered: list[str] = []
    timer = Deliveries()
    timer.at(time.time() + 0.2, lambda: delivered.append("held"))
    thread = timer._thread
    assert thread is not None
    timer.close()
    timer.at(time.time(), lambda: delivered.append("after"))
    assert timer.held() == 0
    thread.join(10)  # the timer's thread ends: nothing is left to deliver anything
    assert not thread.is_alive() and delivered == []


def test_a_graceful_close_delivers_what_falls_due_within_the_drain_at_its_time():
    delivered: list[tuple[str, float, float]] = []
    timer = Deliveries()
    start = time.time()
    for name, after in (("soon", 0.3), ("later", 0.6), ("too late", 30.0)):
        timer.at(start + after,
                 lambda n=name, a=after: delivered.append((n, start + a, time.time())))
    thread = timer._thread
    assert thread is not None
    timer.close(drain=1.0)  # returns once the moves due within a second are delivered
    assert [name for name, _, _ in delivered] == ["soon", "later"]
    assert all(at >= due for _, due, at in delivered), "never before its time"
    timer.at(time.time(), lambda: delivered.append(("after", 0.0, 0.0)))
    assert timer.held() == 0 and not thread.is_alive() and len(delivered) == 2
