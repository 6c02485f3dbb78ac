"""Production serving: gunicorn's gevent workers, each building its own app after the fork.

A green thread per connection: an idle event stream or a half-sent request costs memory, not
one of a few threads. Gunicorn reads each request's head under its keep-alive timeout, so a
client that never finishes its headers is dropped after `header_timeout` seconds; every
socket read and write after that gives up after `io_timeout` seconds of silence, and a whole
body must arrive within `body_timeout` seconds however it trickles in. One client address
may hold at most `per_client` connections to a process: a few slow clients cannot take every
connection the process has.
"""

from __future__ import annotations

import json
import shutil
import socket
import tempfile
import time
from typing import Any

from gunicorn.app.base import BaseApplication
from gunicorn.http.errors import LimitRequestHeaders, LimitRequestLine, ParseException
from gunicorn.workers.base_async import AsyncWorker
from gunicorn.workers.ggevent import GeventWorker

from api.app import Settings, create_app
from api.problems import PROBLEM_JSON, TYPE_BASE
from service import metrics


def _classify(exc: BaseException) -> tuple[int, str, str, str]:
    if isinstance(exc, LimitRequestLine):
        return 414, "URI Too Long", "uri_too_long", "the request line is too long"
    if isinstance(exc, LimitRequestHeaders):
        return 431, "Request Header Fields Too Large", "headers_too_large", \
            "the request headers are too large"
    if isinstance(exc, ParseException):
        return 400, "Bad Request", "invalid_request", "the request is not valid HTTP"
    return 500, "Internal Server Error", "internal_error", "the server failed"


def _problem(status: int, reason: str, code: str, detail: str, headers: str = "") -> bytes:
    """A whole response carrying a problem document, written before or instead of the app's,
    after which the connection closes."""
    body = json.dumps({"type": TYPE_BASE + code, "title": reason, "status": status,
                       "detail": detail, "code": code}).encode()
    head = (f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n{headers}"
            f"Content-Type: {PROBLEM_JSON}\r\nContent-Length: {len(body)}\r\n\r\n")
    return head.encode("latin-1") + body


class GreenWorker(GeventWorker):
    """gunicorn's gevent worker, with a time limit on every socket read and write and on a
    whole body, a cap on each client address's connections, and a problem document instead
    of an HTML page for a request it cannot parse."""

    def init_process(self) -> None:
        self.open_by_client: dict[str, int] = {}
        super().init_process()

    def handle(self, listener: Any, client: socket.socket, addr: Any) -> None:
        assert isinstance(self.app, _Server)
        # gevent's worker only sets the socket blocking, with no time limit, before this.
        client.settimeout(self.app.io_timeout)
        who = addr[0] if isinstance(addr, tuple) else str(addr)
        held = self.open_by_client.get(who, 0)
        if held >= self.app.per_client:
            self._refuse(client)
            return
        self.open_by_client[who] = held + 1  # no green thread runs between read and write
        try:
            AsyncWorker.handle(self, listener, client, addr)
        finally:
            left = self.open_by_client.pop(who) - 1
            if left:
                self.open_by_client[who] = left

    def _refuse(self, client: socket.socket) -> None:
        """A 429 on a connection past the client's cap, sent before its request is read."""
        try:
            client.sendall(_problem(429, "Too Many Requests", "too_many_connections",
                                    "this address holds as many connections to the server as"
                                    " it may; close one, or wait for one to finish",
                                    "Retry-After: 1\r\n"))
            # Closing with the request still unread would reset the connection and lose
            # the reply: say no more, then read what the client sent, briefly.
            client.shutdown(socket.SHUT_WR)
            client.settimeout(1.0)
            for _ in range(16):
                if not client.recv(4096):
                    break
        except OSError:
            self.log.debug("the refused connection went away")
        finally:
            client.close()

    def handle_request(self, listener_name: Any, req: Any, sock: socket.socket,
                       addr: Any) -> Any:
        """The request, its body read against a deadline: every read from the socket may
        wait only for what is left of `body_timeout`, and none starts once it is spent."""
        assert isinstance(self.app, _Server)
        deadline = time.monotonic() + self.app.body_timeout
        io_timeout, unreader = self.app.io_timeout, req.unreader
        plain = unreader.chunk

        def chunk(size_hint: int | None = None) -> bytes:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the body did not arrive in time")
            sock.settimeout(min(io_timeout, left))
            try:
                return bytes(plain(size_hint))
            finally:
                sock.settimeout(io_timeout)

        unreader.chunk = chunk
        try:
            return super().handle_request(listener_name, req, sock, addr)
        finally:
            unreader.chunk = plain  # the next request's head has a deadline of its own

    def handle_error(self, req: Any, client: socket.socket, addr: Any,
                     exc: BaseException) -> None:
        status, reason, code, detail = _classify(exc)
        if status == 500:
            self.log.exception("error handling request")
        else:
            self.log.warning("invalid request: %s", exc)
        try:
            client.sendall(_problem(status, reason, code, detail))
        except OSError:
            self.log.debug("could not send the error response")


class _Server(BaseApplication):
    def __init__(self, settings: Settings, options: dict[str, Any], io_timeout: float,
                 body_timeout: float, per_client: int) -> None:
        self._settings = settings
        self._options = options
        self.io_timeout = io_timeout
        self.body_timeout = body_timeout
        self.per_client = per_client
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        return create_app(self._settings)


def _close_service(server: Any, worker: Any) -> None:
    """In an API process that stops gracefully: its service lets go of what it runs."""
    app = getattr(worker, "wsgi", None)
    service = getattr(app, "extensions", {}).get("cardems")
    if service is not None:
        service.close()


def run_gunicorn(settings: Settings, host: str, port: int, workers: int,
                 connections: int = 10_000, header_timeout: int = 5,
                 io_timeout: float = 30.0, access_log: bool = False,
                 metrics_at: tuple[str, int] | None = None, body_timeout: float = 10.0,
                 per_client: int = 200) -> int:
    options = {"bind": f"{host}:{port}", "workers": workers,
               "worker_class": "api.serving.GreenWorker", "worker_connections": connections,
               # Gunicorn reads each request head under its keep-alive time (whole seconds).
               "keepalive": header_timeout, "graceful_timeout": 5,
               "timeout": 60, "limit_request_line": 8190}
    if access_log:
        options |= {"accesslog": "-", "logger_class": "api.access_log.JsonAccessLog"}
    # The processes count into files of one folder, which the master sums for a scrape; a
    # process that exits leaves its live gauges.
    folder = tempfile.mkdtemp(prefix="cardems-metrics-")
    metrics.use_folder(folder)
    options["child_exit"] = lambda server, worker: metrics.process_gone(worker.pid)
    options["worker_exit"] = _close_service
    if metrics_at:
        # The master answers scrapes from the folder, on the operator's port alone; it
        # starts before any API process is forked, so none of them carries its thread.
        options["when_ready"] = lambda server: metrics.serve(*metrics_at)
    try:
        _Server(settings, options, io_timeout, body_timeout, per_client).run()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0
