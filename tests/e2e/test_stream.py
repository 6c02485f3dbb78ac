"""The live stream with a real streaming client: resumption, keep-alive, redaction."""

from __future__ import annotations

import http.client
import json
import time
from urllib.parse import urlparse

from harness.http import call
from tests.e2e.conftest import PEOPLE, create, view

BOTS = [{"name": f"b{i}", "bot": "heuristic"} for i in range(4)]


class SseClient:
    """Reads server-sent events off a real HTTP connection, one field line at a time."""

    def __init__(self, base: str, path: str, headers: dict[str, str] | None = None) -> None:
        url = urlparse(base)
        self.conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
        self.conn.request("GET", path, headers=headers or {})
        self.response = self.conn.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type").startswith("text/event-stream")

    def next(self) -> tuple[str, dict | None]:
        """The next event as (kind, data): ('event', item), ('comment', None) or ('end', None)."""
        fields: dict[str, str] = {}
        while True:
            raw = self.response.fp.readline()
            if not raw:
                return "end", None
            line = raw.decode().rstrip("\n")
            if line.startswith(":"):
                return "comment", None
            if line == "":
                if "data" in fields:
                    item = json.loads(fields["data"])
                    assert fields["id"] == str(item["version"])
                    assert fields["event"] == item["type"]
                    return "event", item
                fields = {}
                continue
            name, _, value = line.partition(": ")
            fields[name] = value

    def close(self) -> None:
        self.conn.close()


def read_events(client: SseClient, count: int | None = None) -> list[dict]:
    items = []
    while count is None or len(items) < count:
        kind, item = client.next()
        if kind == "end":
            break
        if kind == "event":
            items.append(item)
    return items


def test_a_reconnecting_client_gets_exactly_the_events_it_missed(server):
    match = create(server.base, BOTS, rules={"end_score": 26})
    path = f"/v1/matches/{match['id']}/events/stream"
    first = SseClient(server.base, path)
    seen = read_events(first, 20)
    first.close()
    assert [e["version"] for e in seen] == list(range(1, 21))
    again = SseClient(server.base, path, {"Last-Event-ID": "20"})
    rest = read_events(again)  # the stream ends after the match's last event
    again.close()
    final = view(server.base, match["id"])
    assert final["status"] == "finished"
    assert [e["version"] for e in rest] == list(range(21, final["version"] + 1))
    log = call(server.base, "GET", f"/v1/matches/{match['id']}/events?limit=1000").body
    def key(e):
        return e["version"], e["type"], e["hash"], e["prev_hash"]

    assert [key(e) for e in seen + rest] == [key(e) for e in log["events"]]
    assert seen[1]["data"]["hands"] == [None] * 4, "streamed while the round was secret"
    assert all(log["events"][1]["data"]["hands"]), "public once the match is over"


def test_an_idle_stream_carries_keep_alive_comments(server):
    match = create(server.base)
    client = SseClient(server.base, f"/v1/matches/{match['id']}/events/stream?after=2")
    start = time.monotonic()
    kind, _ = client.next()
    client.close()
    assert kind == "comment" and time.monotonic() - start < 5


def test_the_stream_is_redacted_for_its_reader(server):
    match = create(server.base)
    path = f"/v1/matches/{match['id']}/events/stream"
    for seat in (None, 0, 3):
        token = match["tokens"][str(seat)] if seat is not None else None
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        client = SseClient(server.base, path, headers)
        created, dealt = read_events(client, 2)
        client.close()
        assert created["type"] == "MatchCreated" and dealt["type"] == "RoundDealt"
        shown = [h is not None for h in dealt["data"]["hands"]]
        assert shown == [s == seat for s in range(4)]


def test_a_live_reader_sees_a_move_as_it_happens(server):
    match = create(server.base)
    client = SseClient(server.base, f"/v1/matches/{match['id']}/events/stream?after=2")
    token = match["tokens"]["1"]
    hand = view(server.base, match["id"], token)["you"]["hand"]
    call(server.base, "POST", f"/v1/matches/{match['id']}/passes", {"cards": hand[:3]},
         token=token)
    (item,) = read_events(client, 1)
    client.close()
    assert item["type"] == "PassChosen" and item["data"]["cards"] is None, "secret to others"


def test_a_bad_resume_point_is_a_problem(server):
    match = create(server.base, PEOPLE)
    reply = call(server.base, "GET", f"/v1/matches/{match['id']}/events/stream",
                 headers={"Last-Event-ID": "abc"})
    assert reply.status == 400 and reply.body["code"] == "invalid_request"


def test_a_standard_sse_reader_gets_only_events_with_data_across_reconnections(server):
    """httpx-sse, as a third-party program would use it: every event it hands over carries
    JSON data (a block of `retry` alone came out as an event with empty data), and the
    reconnection time rides with the first event of each connection."""
    import httpx
    import yaml
    from httpx_sse import connect_sse
    from jsonschema import Draft202012Validator

    from harness.http import ROOT

    contract = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    event_schema = Draft202012Validator({**contract, "$ref": "#/components/schemas/Event"})
    match = create(server.base, BOTS, rules={"end_score": 10})
    path = f"{server.base}/v1/matches/{match['id']}/events/stream"
    last, seen = 0, []
    with httpx.Client(timeout=30) as client:
        for _ in range(3):  # three connections, each resuming after the last event read
            with connect_sse(client, "GET", path,
                             headers={"Last-Event-ID": str(last)}) as source:
                for number, sse in enumerate(source.iter_sse()):
                    item = json.loads(sse.data)
                    event_schema.validate(item)  # the contract's Event, as on the paged log
                    assert sse.id == str(item["version"]) and sse.event == item["type"]
                    assert sse.retry == (2000 if number == 0 else None), (number, sse.retry)
                    assert item["version"] == last + 1, "every event once, in order"
                    last = item["version"]
                    seen.append(item)
                    if number == 20:
                        break
            if seen[-1]["type"] in ("MatchEnded", "MatchAbandoned"):
                break
    assert len(seen) > 20


def test_an_idle_stream_opens_with_a_comment_and_no_empty_event(server):
    match = create(server.base, PEOPLE)
    now = view(server.base, match["id"])["version"]
    client = SseClient(server.base, f"/v1/matches/{match['id']}/events/stream?after={now}")
    try:
        first = client.response.readline().decode()  # the body, chunked encoding undone
        assert first.startswith(":"), first
        assert client.response.readline() == b"\n", "a block of the comment alone"
    finally:
        client.close()
