"""Fixtures the integration tests share."""

import pytest

from eventstore import open_store


@pytest.fixture(params=["sqlite", "redis"])
def store(request, tmp_path):
    if request.param == "sqlite":
        store = open_store(f"sqlite:///{tmp_path / 'events.sqlite3'}")
    else:
        store = open_store(request.getfixturevalue("redis_url"))
    yield store
    store.close()
