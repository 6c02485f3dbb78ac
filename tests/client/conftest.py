import pytest

from harness.http import Server


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = tmp_path_factory.mktemp("kit") / "cardems.sqlite3"
    server = Server("--store", f"sqlite:///{store}", "--pace", "0")
    yield server
    server.stop()
