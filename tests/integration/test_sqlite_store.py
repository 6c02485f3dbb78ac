import pytest

from eventstore.sqlite import SqliteStore
from tests.integration.store_contract import StoreContract


@pytest.fixture
def store(tmp_path):
    store = SqliteStore(tmp_path / "events.sqlite3")
    yield store
    store.close()


class TestSqliteStore(StoreContract):
    def test_the_file_is_in_wal_mode_with_full_sync(self, store):
        conn = store._connect()
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2
