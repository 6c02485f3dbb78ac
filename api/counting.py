"""Each request counted by route and status and timed, and its request id: taken from
`X-Request-ID` when the caller sends a sensible one, else made, and sent back."""

from __future__ import annotations

import re
import uuid
from time import perf_counter

from flask import Flask, Response, g, request

from service import metrics

REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
# A label takes a known value or a series would be kept for every made-up method for good.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE",
                     "CONNECT"})


def init_app(app: Flask) -> None:
    @app.before_request
    def started() -> None:
        g.started = perf_counter()
        given = request.headers.get("X-Request-ID", "")
        g.request_id = given if REQUEST_ID.fullmatch(given) else uuid.uuid4().hex

    @app.after_request
    def counted(response: Response) -> Response:
        route = request.url_rule.rule if request.url_rule else "unmatched"
        method = request.method if request.method in METHODS else "other"
        metrics.REQUESTS.labels(route, method, str(response.status_code)).inc()
        # A stream's time is its whole life: it is counted, not timed.
        if "started" in g and response.mimetype != "text/event-stream":
            metrics.LATENCY.labels(route, method).observe(perf_counter() - g.started)
        if response.status_code == 429:
            metrics.RATE_LIMITED.labels(route).inc()
        request_id = g.get("request_id") or uuid.uuid4().hex
        response.headers["X-Request-ID"] = request_id
        # For the access log, which gunicorn writes from the WSGI environment.
        request.environ["cardems.request_id"] = request_id
        request.environ["cardems.match_id"] = (request.view_args or {}).get("match_id")
        return response
