"""One set of expectations that every event store backend must meet."""

from __future__ import annotations

import multiprocessing
import time

import pytest

from eventstore import (
    GENESIS_HASH,
    Cap,
    CapReached,
    ConcurrencyError,
    NewEvent,
    chain_hash,
    open_store,
)
from eventstore.base import canonical


def new(n: int, start: int = 0) -> list[NewEvent]:
    return [NewEvent("Thing", {"n": start + i, "text": "é"}, f"2026-12-02T12:00:{i:02d}Z")
            for i in range(n)]


def append_later(url: str, stream: str, delay: float) -> None:
    """In another process: wait, then append one event."""
    time.sleep(delay)
    store = open_store(url)
    store.append(stream, new(1), store.version(stream))
    store.close()


def append_capped(url: str, owner: str, streams: list[str], start, outcomes) -> None:
    """In another process: wait for the start, then try each new stream under a cap."""
    store = open_store(url)
    start.wait(30)
    for stream in streams:
        try:
            store.append(stream, new(1), 0, {"@running": owner}, Cap("@running", owner, 3, 5))
            outcomes.put("ok")
        except CapReached as reached:
            outcomes.put("value" if reached.per_value else "all")
    store.close()


class StoreContract:
    """Subclasses provide a `url` fixture: the address of an empty store of their backend."""

    @pytest.fixture
    def store(self, url):
        store = open_store(url)
        yield store
        store.close()

    # Whether the store counts a cap in the very step of the append (not on a cluster).
    caps_in_one_step = True

    def test_an_append_under_a_cap_is_refused_when_its_value_or_all_are_full(self, store):
        def start(stream: str, owner: str) -> None:
            store.append(stream, new(1), 0, {"@running": owner}, Cap("@running", owner, 2, 3))

        start("a1", "ann")
        start("a2", "ann")
        with pytest.raises(CapReached) as full:
            start("a3", "ann")
        assert full.value.per_value and store.version("a3") == 0
        assert store.get_meta("a3", "@running") is None
        start("b1", "bob")
        with pytest.raises(CapReached) as full:
            start("b2", "bob")
        assert not full.value.per_value and store.version("b2") == 0
        store.append("a1", new(1), 1, {"@running": ""})  # a1 ends: a place is free again
        start("b2", "bob")
        store.put_meta("b1", "@running", "")  # and so it is when the mark is put alone
        start("a3", "ann")
        assert store.marked("@running") == {"a2": "ann", "a3": "ann", "b2": "bob"}

    def test_a_cap_counts_marks_written_before_any_cap_was_asked(self, store):
        store.append("old", new(1), 0, {"@running": "ann"})
        store.put_meta("older", "@running", "ann")
        with pytest.raises(CapReached):
            store.append("new", new(1), 0, {"@running": "ann"}, Cap("@running", "ann", 2, 9))
        store.append("new", new(1), 0, {"@running": "ann"}, Cap("@running", "ann", 3, 9))

    def test_processes_racing_under_a_cap_never_pass_it(self, store, url):
        context = multiprocessing.get_context("spawn")
        start, outcomes = context.Event(), context.Queue()
        racers = [context.Process(target=append_capped,
                                  args=(url, f"owner{i % 2}", [f"r{i}-{j}" for j in range(3)],
                                        start, outcomes)) for i in range(4)]
        for racer in racers:
            racer.start()
        start.set()
        for racer in racers:
            racer.join(60)
            assert racer.exitcode == 0
        results = [outcomes.get(timeout=10) for _ in range(12)]
        running = store.marked("@running")
        assert results.count("ok") == len(running)
        if self.caps_in_one_step:
            assert len(running) == 5
            assert max(list(running.values()).count(o) for o in ("owner0", "owner1")) == 3
        else:  # the count is read apart: racers may overshoot, by one each at most
            assert 5 <= len(running) <= 5 + len(racers)

    def test_an_append_made_by_another_process_is_seen_by_versions_and_read(self, store,
                                                                              url):
        store.append("s", new(1), 0)
        writer = multiprocessing.get_context("spawn").Process(
            target=append_later, args=(url, "s", 0.0))
        writer.start()
        writer.join(60)
        assert writer.exitcode == 0
        assert store.versions(["s"]) == {"s": 2}
        assert [e.version for e in store.read("s", after=1)] == [2]

    def test_a_new_stream_is_empty_at_version_zero(self, store):
        assert store.version("s") == 0
        assert store.read("s") == []

    def test_appends_number_events_from_one_without_gaps(self, store):
        first = store.append("s", new(2), 0)
        second = store.append("s", new(3, 2), 2)
        assert [e.version for e in first + second] == [1, 2, 3, 4, 5]
        assert [e.version for e in store.read("s")] == [1, 2, 3, 4, 5]
        assert store.version("s") == 5

    def test_reading_after_a_version_with_a_limit_pages_through(self, store):
        store.append("s", new(10), 0)
        assert [e.version for e in store.read("s", after=3, limit=4)] == [4, 5, 6, 7]
        assert [e.data["n"] for e in store.read("s", after=8)] == [8, 9]
        assert store.read("s", after=10) == []

    def test_a_stale_expected_version_raises_and_writes_nothing(self, store):
        store.append("s", new(2), 0)
        for stale in (0, 1, 3):
            with pytest.raises(ConcurrencyError) as error:
                store.append("s", new(1), stale, meta={"k": "v"})
            assert error.value.actual == 2
        assert store.version("s") == 2
        assert store.get_meta("s", "k") is None

    def test_streams_are_independent(self, store):
        store.append("a", new(2), 0)
        store.append("b", new(1), 0)
        assert store.version("a") == 2 and store.version("b") == 1

    def test_the_versions_of_many_streams_come_in_one_call(self, store):
        store.append("v-a", new(3), 0)
        store.append("v-b", new(1), 0)
        names = [f"v-none-{i}" for i in range(1200)]  # more than one query's parameters
        found = store.versions(["v-a", "v-b", *names, "v-a"])
        assert found["v-a"] == 3 and found["v-b"] == 1
        assert set(found) == {"v-a", "v-b", *names}
        assert not any(found[n] for n in names)
        assert store.versions([]) == {}

    def test_marked_meta_is_indexed_with_the_append_and_unmarked_by_an_empty_value(self, store):
        store.append("m-a", new(1), 0, meta={"@waits": "1", "plain": "x"})
        store.append("m-b", new(2), 0, meta={"@waits": "2"})
        store.append("m-c", new(1), 0, meta={"@other": "9"})
        assert store.marked("@waits") == {"m-a": "1", "m-b": "2"}
        store.append("m-a", new(1), 1, meta={"@waits": ""})
        assert store.marked("@waits") == {"m-b": "2"}
        assert store.put_meta("m-c", "@waits", "7")
        assert not store.put_meta("m-c", "@waits", "8", if_absent=True)
        assert store.marked("@waits") == {"m-b": "2", "m-c": "7"}
        store.put_meta("m-b", "@waits", "")
        assert store.marked("@waits") == {"m-c": "7"}
        assert store.marked("@other") == {"m-c": "9"}
        assert store.marked("plain") == {}, "only keys that begin with @ are indexed"
        with pytest.raises(ConcurrencyError):
            store.append("m-a", new(1), 0, meta={"@waits": "5"})
        assert "m-a" not in store.marked("@waits"), "a refused append marks nothing"

    def test_due_marks_are_read_by_their_time_and_only_once_due(self, store):
        store.append("d-a", new(1), 0, meta={"@due:turn": "100.5 3 0", "@waits": "1"})
        store.append("d-b", new(1), 0, meta={"@due:turn": "250 1 2"})
        store.append("d-c", new(1), 0, meta={"@due:clock": "90"})
        assert store.due("@due:turn", 99.9) == {}
        assert store.due("@due:turn", 100.5) == {"d-a": "100.5 3 0"}
        assert store.due("@due:turn", 1e12) == {"d-a": "100.5 3 0", "d-b": "250 1 2"}
        assert store.due("@due:clock", 1e12) == {"d-c": "90"}
        assert store.marked("@due:turn") == {"d-a": "100.5 3 0", "d-b": "250 1 2"}
        assert store.due("@waits", 1e12) == {}, "only due marks are scheduled"
        # Moved on by an append, a put and cleared: the schedule follows the value.
        store.append("d-a", new(1), 1, meta={"@due:turn": "400 4 0"})
        assert store.put_meta("d-b", "@due:turn", "50 1 3")
        assert store.due("@due:turn", 300) == {"d-b": "50 1 3"}
        store.append("d-b", new(1), 1, meta={"@due:turn": ""})
        assert store.due("@due:turn", 1e12) == {"d-a": "400 4 0"}
        with pytest.raises(ConcurrencyError):
            store.append("d-c", new(1), 0, meta={"@due:clock": "1"})
        assert store.due("@due:clock", 1e12) == {"d-c": "90"}, "a refused append moves nothing"
        for bad in ("soon", "nan 1", "inf"):
            with pytest.raises(ValueError):
                store.put_meta("d-c", "@due:clock", bad)
            with pytest.raises(ValueError):
                store.append("d-c", new(1), 1, meta={"@due:clock": bad})
        assert store.version("d-c") == 1 and store.get_meta("d-c", "@due:clock") == "90"

    def test_a_mark_set_if_it_holds_a_value_has_one_winner(self, store):
        store.append("c-a", new(1), 0, meta={"@due:turn": "10 1 0", "plain": "x"})
        assert store.put_meta("c-a", "@due:turn", "20 1 1", if_value="10 1 0")
        assert not store.put_meta("c-a", "@due:turn", "21 1 1", if_value="10 1 0")
        assert store.get_meta("c-a", "@due:turn") == "20 1 1"
        assert store.due("@due:turn", 15) == {} and store.due("@due:turn", 20) == {
            "c-a": "20 1 1"}
        assert not store.put_meta("c-b", "@due:turn", "1 1 1", if_value="")
        assert store.get_meta("c-b", "@due:turn") is None, "no value is not the empty one"
        assert store.put_meta("c-a", "plain", "y", if_value="x")
        assert not store.put_meta("c-a", "plain", "z", if_value="x")
        assert store.get_meta("c-a", "plain") == "y" and store.marked("plain") == {}

    def test_every_event_is_chained_to_the_one_before(self, store):
        store.append("s", new(3), 0)
        store.append("s", new(2), 3)
        prev = GENESIS_HASH
        for e in store.read("s"):
            assert e.prev_hash == prev
            assert e.hash == chain_hash(prev, e.version, e.type, canonical(e.data), e.recorded_at)
            prev = e.hash

    def test_data_reads_back_exactly(self, store):
        data = {"cards": ["QS", "2C"], "nested": {"a": None, "b": [1, 2]}, "name": "Zoë ♥"}
        store.append("s", [NewEvent("T", data, "t")], 0)
        (event,) = store.read("s")
        assert (event.type, event.data, event.recorded_at) == ("T", data, "t")

    def test_meta_is_written_with_the_append_and_kept_beside_the_stream(self, store):
        store.append("s", new(1), 0, meta={"secret": "x"})
        assert store.get_meta("s", "secret") == "x"
        assert store.put_meta("s", "other", "y")
        assert store.get_meta("s", "other") == "y"
        assert not store.put_meta("s", "other", "z", if_absent=True)
        assert store.get_meta("s", "other") == "y"
        assert store.put_meta("s", "other", "z")
        assert store.get_meta("s", "other") == "z"
        assert store.get_meta("t", "secret") is None
