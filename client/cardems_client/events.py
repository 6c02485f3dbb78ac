"""The live event iterator: the match's stream, resumed after the last event seen.

The stream can drop (a proxy, a deploy, a restarted server, a 503 while the store is away). The
iterator connects again with `Last-Event-ID` set to the last version it handed out, so the
events come in order, each once, with none missed. It ends after the event that ends the match.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

import httpx
from httpx_sse import connect_sse

from cardems_client.errors import Problem, problem_from
from cardems_client.models import Event
from cardems_client.retry import retry_after_seconds

if TYPE_CHECKING:
    from cardems_client.client import Client

QUIET_FOR = 60.0  # the service says something at least every 15 s; silence past this is a drop


def follow(client: Client, match_id: str, after: int = 0) -> Iterator[Event]:
    path = f"/v1/matches/{match_id}/events/stream"
    last, attempt, started = after, 0, time.monotonic()
    while True:
        failure: Exception | None
        try:
            for event in _connection(client, path, last):
                if event.version <= last:
                    continue
                last, attempt, started = event.version, 0, time.monotonic()
                yield event
                if event.ends_match:
                    return
            reason, retry_after, failure = "closed", None, None
        except httpx.TransportError as error:
            reason, retry_after, failure = type(error).__name__, None, error
        except _Refused as refused:
            reason = str(refused.problem.status)
            retry_after, failure = refused.problem.retry_after, refused.problem
        attempt += 1
        client.pause("GET", path, attempt, started, reason, retry_after,
                     failure or ConnectionError("the stream closed"))


class _Refused(Exception):
    def __init__(self, problem: Problem) -> None:
        self.problem = problem


def _connection(client: Client, path: str, last: int) -> Iterator[Event]:
    headers = client.headers({"Last-Event-ID": str(last)})
    timeout = httpx.Timeout(client.http.timeout.connect, read=QUIET_FOR)
    with connect_sse(client.http, "GET", path, headers=headers, timeout=timeout) as source:
        response = source.response
        if response.status_code >= 400:
            response.read()
            try:
                body = response.json()
            except (json.JSONDecodeError, UnicodeDecodeError):
                body = response.text
            problem = problem_from(response.status_code, body,
                                   retry_after_seconds(response.headers.get("Retry-After")))
            if response.status_code in client.retry.statuses:
                raise _Refused(problem)
            raise problem
        for message in source.iter_sse():
            if message.data:  # comments and keep-alives carry none
                yield Event.from_json(json.loads(message.data))
