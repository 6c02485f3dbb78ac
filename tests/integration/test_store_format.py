"""A store written in the old event format (hidden cards hashed in the clear) is refused."""

from __future__ import annotations

import subprocess
import sys

import pytest

from domain.events import SeatSpec
from domain.rules import Rules
from eventstore import NewEvent, StoreError, open_store
from service import MatchService
from service.matches import EVENT_FORMAT, FORMAT_KEY, FORMAT_STREAM


def old_store(path):
    store = open_store(f"sqlite:///{path}")
    store.append("m1", [NewEvent("MatchCreated", {"match_id": "m1"}, "2026-01-01T00:00:00Z")],
                 0)
    return store


def test_a_store_with_events_and_no_format_mark_is_refused(tmp_path):
    store = old_store(tmp_path / "old.sqlite3")
    with pytest.raises(StoreError, match="format 1"):
        MatchService(store)
    store.close()


def test_a_new_store_is_marked_and_opens_again(tmp_path):
    url = f"sqlite:///{tmp_path / 'new.sqlite3'}"
    first = MatchService(open_store(url))
    assert first.store.get_meta(FORMAT_STREAM, FORMAT_KEY) == EVENT_FORMAT
    first.create([SeatSpec(n) for n in "ABCD"], Rules())
    again = MatchService(open_store(url))  # events and the mark: read, not refused
    assert not again.store.is_empty()


def test_serve_refuses_an_old_store_and_an_unknown_scheme_in_one_line(tmp_path):
    old_store(tmp_path / "old.sqlite3").close()
    for url, words in ((f"sqlite:///{tmp_path / 'old.sqlite3'}", "format 1"),
                       ("ftp://somewhere", "sqlite:///PATH")):
        done = subprocess.run([sys.executable, "-m", "cli.main", "serve", "--store", url],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2
        assert words in done.stderr and done.stderr.count("\n") == 1, done.stderr
