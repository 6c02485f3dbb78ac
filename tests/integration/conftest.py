"""Fixtures the integration tests share: every one runs on SQLite and on a real Redis."""

import pytest

from eventstore import open_store
from service import MatchService


@pytest.fixture(params=["sqlite", "redis"])
def backend(request, tmp_path):
    """The backend's name and the URL of an empty store of it."""
    if request.param == "sqlite":
        return "sqlite", f"sqlite:///{tmp_path / 'events.sqlite3'}"
    return "redis", request.getfixturevalue("redis_url")


@pytest.fixture
def store(backend):
    store = open_store(backend[1])
    yield store
    store.close()


@pytest.fixture
def game(store):
    return MatchService(store)
