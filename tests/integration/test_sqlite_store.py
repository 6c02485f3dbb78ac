import pytest

from tests.integration.store_contract import StoreContract


@pytest.fixture
def url(tmp_path):
    return f"sqlite:///{tmp_path / 'events.sqlite3'}"



class TestSqliteStore(StoreContract):
    def test_the_file_is_in_wal_mode_with_full_sync(self, store):
        conn = store._open()
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2
