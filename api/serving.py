"""Production serving: gunicorn's gevent workers, each building its own app after the fork.

A green thread per connection: an idle event stream or a half-sent request costs memory, not
one of a few threads. Gunicorn reads each request's head under its keep-alive timeout, so a
client that never finishes its headers is dropped after `header_timeout` seconds; every
socket read and write after that gives up after `io_timeout` seconds of silence.
"""

from __future__ import annotations

import json
import shutil
import socket
import tempfile
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


class GreenWorker(GeventWorker):
    """gunicorn's gevent worker, with a time limit on every socket read and write, and a
    problem document instead of an HTML page for a request it cannot parse."""

    def handle(self, listener: Any, client: socket.socket, addr: Any) -> None:
        assert isinstance(self.app, _Server)
        # gevent's worker only sets the socket blocking, with no time limit, before this.
        client.settimeout(self.app.io_timeout)
        AsyncWorker.handle(self, listener, client, addr)

    def handle_error(self, req: Any, client: socket.socket, addr: Any,
                     exc: BaseException) -> None:
        status, reason, code, detail = _classify(exc)
        if status == 500:
            self.log.exception("error handling request")
        else:
            self.log.warning("invalid request: %s", exc)
        body = json.dumps({"type": TYPE_BASE + code, "title": reason, "status": status,
                           "detail": detail, "code": code}).encode()
        head = (f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
                f"Content-Type: {PROBLEM_JSON}\r\nContent-Length: {len(body)}\r\n\r\n")
        try:
            client.sendall(head.encode("latin-1") + body)
        except OSError:
            self.log.debug("could not send the error response")


class _Server(BaseApplication):
    def __init__(self, settings: Settings, options: dict[str, Any], io_timeout: float) -> None:
        self._settings = settings
        self._options = options
        self.io_timeout = io_timeout
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        return create_app(self._settings)


def run_gunicorn(settings: Settings, host: str, port: int, workers: int,
                 connections: int = 10_000, header_timeout: int = 5,
                 io_timeout: float = 30.0, access_log: bool = False,
                 metrics_at: tuple[str, int] | None = None) -> int:
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
    if metrics_at:
        # The master answers scrapes from the folder, on the operator's port alone; it
        # starts before any API process is forked, so none of them carries its thread.
        options["when_ready"] = lambda server: metrics.serve(*metrics_at)
    try:
        _Server(settings, options, io_timeout).run()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0
