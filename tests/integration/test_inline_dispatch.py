"""The inline dispatcher's fairness: turns people wait on are never behind matches of bots
alone, and matches take turns."""

from __future__ import annotations

import threading

from workers.dispatch import InlineDispatcher, TurnQueue


def test_matches_take_turns_in_the_queue():
    queue = TurnQueue()
    for turn in [("a", 0, 1), ("a", 1, 2), ("a", 2, 3), ("b", 0, 1), ("c", 3, 7)]:
        queue.put(turn)
    taken = [queue.take() for _ in range(5)]
    assert taken == [("a", 0, 1), ("b", 0, 1), ("c", 3, 7), ("a", 1, 2), ("a", 2, 3)]
    assert queue.take() is None


def test_a_turn_a_person_waits_on_runs_while_bots_alone_hold_every_thread():
    release = threading.Event()
    ran: list[str] = []
    person_ran = threading.Event()
    bots_running = threading.Semaphore(0)

    def run(match_id: str, seat: int, version: int) -> None:
        ran.append(match_id)
        if match_id == "person":
            person_ran.set()
        else:
            bots_running.release()
            assert release.wait(30), "the test let the bots go"

    dispatcher = InlineDispatcher(run, threads=2)
    try:
        for i in range(6):
            dispatcher.enqueue(f"bots{i}", 0, 1)
        for _ in range(2):  # both threads for bots alone are held
            assert bots_running.acquire(timeout=10)
        dispatcher.enqueue("person", 0, 1, urgent=True)
        assert person_ran.wait(10), "the person's turn waited behind the bots"
        assert sorted(ran) == ["bots0", "bots1", "person"], "two bot threads busy, one person"
        dispatcher.enqueue("bots5", 0, 1)  # still queued: the same turn is not queued twice
        release.set()
        assert dispatcher.wait_idle(10)
        assert sorted(ran) == ["bots0", "bots1", "bots2", "bots3", "bots4", "bots5", "person"]
    finally:
        release.set()
        dispatcher.close()


def test_closing_drops_the_turns_not_begun_and_waits_for_those_running():
    started, release = threading.Event(), threading.Event()
    ran: list[str] = []

    def run(match_id: str, seat: int, version: int) -> None:
        ran.append(match_id)
        started.set()
        release.wait(30)

    dispatcher = InlineDispatcher(run, threads=1)
    dispatcher.enqueue("first", 0, 1)
    dispatcher.enqueue("second", 0, 1)
    assert started.wait(10)
    closing = threading.Thread(target=dispatcher.close)
    closing.start()
    release.set()
    closing.join(30)
    assert not closing.is_alive() and ran == ["first"]
    dispatcher.enqueue("third", 0, 1)  # refused once closed
    assert ran == ["first"] and dispatcher.wait_idle(1)
