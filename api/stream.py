"""The live event stream: server-sent events, one per domain event, fed from the store.

A stream holds no thread: under the green-thread worker it is a greenlet waiting on the
process's one watcher (`service.watch`). It is released within a second of its client leaving,
and the streams a process serves are capped in total and per client address.
"""

from __future__ import annotations

import re
import select
import socket
import threading
import time
from collections.abc import Callable, Generator, Iterator
from typing import Any

import orjson
from flask import Blueprint, Flask, Response, current_app, request

from api.matches import bearer, service
from api.problems import BadRequest, problem, unavailable
from api.schemas import MAX_VERSION, StreamQuery
from service import metrics

bp = Blueprint("stream", __name__, url_prefix="/v1/matches")
LAST_EVENT_ID = re.compile(r"[0-9]{1,10}")
CHECK_SECONDS = 1.0  # how often an idle stream looks whether its client is still there
RETRY_AFTER = 5


class StreamSlots:
    """How many streams this process serves, in all and to each client address."""

    def __init__(self, total: int, per_client: int) -> None:
        self.total = total
        self.per_client = per_client
        self._lock = threading.Lock()
        self._open: dict[str, int] = {}

    def take(self, client: str) -> Response | None:
        """A slot for `client`, or the problem document that refuses one."""
        with self._lock:
            if self._open.get(client, 0) >= self.per_client:
                response = problem(429, "rate_limited", "Too many streams",
                                   f"at most {self.per_client} live streams per client")
                response.headers["Retry-After"] = str(RETRY_AFTER)
                return response
            if sum(self._open.values()) >= self.total:
                return unavailable("Too many streams", "the server holds as many live streams"
                                   " as it may; try again shortly", RETRY_AFTER)
            self._open[client] = self._open.get(client, 0) + 1
            return None

    def give_back(self, client: str) -> None:
        with self._lock:
            self._open[client] -= 1
            if not self._open[client]:
                del self._open[client]


def init_app(app: Flask, total: int, per_client: int) -> None:
    app.extensions["cardems.streams"] = StreamSlots(total, per_client)
    app.register_blueprint(bp)


def _slots() -> StreamSlots:
    slots: StreamSlots = current_app.extensions["cardems.streams"]
    return slots


RETRY_MS = 2000  # how soon a reader's own reconnection should come, in milliseconds
OPENED = ": the match's events follow\n\n"  # a comment: every reader skips it


def _message(item: dict[str, Any], retry: bool = False) -> str:
    data = orjson.dumps(item).decode()  # already in the contract's shape, as on the paged log
    head = f"retry: {RETRY_MS}\n" if retry else ""
    return f"{head}id: {item['version']}\nevent: {item['type']}\ndata: {data}\n\n"


def _events(pages: Generator[list[dict[str, Any]], None, None], keepalive: float,
            gone: Callable[[], bool]) -> Iterator[str]:
    # Every block a reader sees either is a comment or carries an event with its data: the
    # reconnection time rides with the first event, for a block of `retry` alone is handed
    # to programs by some SSE readers as an event with empty data.
    try:
        yield OPENED
        said, retry = time.monotonic(), True
        for page in pages:
            if not page:
                if gone():
                    return
                if time.monotonic() - said < keepalive:
                    continue
                page_text = ": keep-alive\n\n"  # keeps proxies from closing an idle line
            else:
                page_text = "".join(_message(item, retry and i == 0)
                                    for i, item in enumerate(page))
                retry = False
            said = time.monotonic()
            yield page_text
    finally:
        pages.close()


def _client_gone() -> Callable[[], bool]:
    """Whether the client has closed its end. A stream's client sends nothing after its
    request, so a socket that turns readable has reached its end (or is misbehaving)."""
    sock = request.environ.get("gunicorn.socket")
    if not isinstance(sock, socket.socket):
        return lambda: False

    def gone() -> bool:
        try:
            poller = select.poll()  # not select.select: it fails on descriptors past 1023
            poller.register(sock, select.POLLIN)
            if not poller.poll(0):
                return False
            return sock.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    return gone


def _resume_point() -> int:
    """Where to start: after Last-Event-ID when a client reconnects, else after `after`."""
    query = StreamQuery().load(request.args.to_dict())
    text = request.headers.get("Last-Event-ID")
    if text is None:
        return int(query["after"])
    if not LAST_EVENT_ID.fullmatch(text):
        raise BadRequest(400, "Last-Event-ID takes an event version of 1 to 10 ASCII digits,"
                              " like 12")
    return min(int(text), MAX_VERSION)


@bp.get("/<match_id>/events/stream")
def stream(match_id: str) -> Response:
    viewer = service().seat_of(match_id, bearer())
    after = _resume_point()
    keepalive = float(current_app.config["SSE_KEEPALIVE"])
    client = request.remote_addr or "?"
    slots = _slots()
    refused = slots.take(client)
    if refused is not None:
        return refused
    pages = service().live(match_id, viewer, after, min(keepalive, CHECK_SECONDS))
    response = Response(_events(pages, keepalive, _client_gone()),
                        mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    metrics.stream_opened()

    def closed() -> None:  # run however the stream ends
        slots.give_back(client)
        metrics.stream_closed()

    response.call_on_close(closed)
    return response
