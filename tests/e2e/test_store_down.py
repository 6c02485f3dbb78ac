"""When the event store stops answering, requests get a 503 problem with Retry-After (not a
500), and the service answers again once the store is back."""

from __future__ import annotations

from harness.http import Server, call
from harness.redis_server import scratch_redis
from tests.e2e.conftest import PEOPLE


def test_a_store_that_stops_answering_is_a_503_and_the_service_recovers():
    with scratch_redis("cardems-down-") as (_, redis):
        server = Server("--store", redis.url, "--bots", "off")
        try:
            created = call(server.base, "POST", "/v1/matches", {"seats": PEOPLE})
            assert created.status == 201
            path = f"/v1/matches/{created.body['id']}/events"
            redis.kill()
            down = call(server.base, "GET", path)
            assert down.status == 503, down.body
            assert down.body["code"] == "unavailable" and down.headers["retry-after"] == "1"
            redis.start()
            assert call(server.base, "GET", path).status == 200
        finally:
            server.stop()
