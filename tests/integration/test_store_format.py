"""A store written in the old event format (hidden cards hashed in the clear) is refused."""

from __future__ import annotations

import subprocess
import sys

import pytest

from eventstore import NewEvent, StoreError, open_store
from service import MatchService


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
    MatchService(open_store(url))
    MatchService(open_store(url))  # marked: no longer empty-and-unmarked, and not refused


def test_serve_refuses_an_old_store_and_an_unknown_scheme_in_one_line(tmp_path):
    old_store(tmp_path / "old.sqlite3").close()
    for url, words in ((f"sqlite:///{tmp_path / 'old.sqlite3'}", "format 1"),
                       ("ftp://somewhere", "sqlite:///PATH")):
        done = subprocess.run([sys.executable, "-m", "cli.main", "serve", "--store", url],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2
        assert words in done.stderr and done.stderr.count("\n") == 1, done.stderr
