"""The cap on matches of bots alone holds when many creations race through several API
processes at once: the store counts the running ones and claims the new one in one step."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from harness.http import Server, call

BOTS = [{"name": f"b{i}", "bot": "random"} for i in range(4)]


@pytest.mark.parametrize("backend", ["sqlite", "redis"])
def test_twenty_creations_at_once_through_four_processes_start_five(backend, tmp_path,
                                                                     request):
    store = f"sqlite:///{tmp_path / 'caps.sqlite3'}" if backend == "sqlite" \
        else request.getfixturevalue("redis_url")
    server = Server("--store", store, "--workers", "4", "--bots", "off",
                    "--bot-matches-per-client", "5", "--bot-matches", "1000")
    try:
        def create(_: int) -> int:
            # Each on a connection of its own, so that every process takes some.
            return call(server.base, "POST", "/v1/matches", {"seats": BOTS}).status

        with ThreadPoolExecutor(20) as pool:
            statuses = list(pool.map(create, range(20)))
        assert statuses.count(201) == 5, statuses
        assert statuses.count(429) == 15, statuses
    finally:
        server.stop()
