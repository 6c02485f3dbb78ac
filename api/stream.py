"""The live event stream: server-sent events, one per domain event, fed from the store."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Flask, Response, current_app, request

from api.matches import bearer, service
from api.problems import BadRequest
from api.responses import EventOut
from api.schemas import MAX_VERSION, StreamQuery

bp = Blueprint("stream", __name__, url_prefix="/v1/matches")
LAST_EVENT_ID = re.compile(r"[0-9]{1,10}")
EVENT = EventOut()


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


def _message(item: dict[str, Any]) -> str:
    data = json.dumps(EVENT.dump(item))
    return f"id: {item['version']}\nevent: {item['type']}\ndata: {data}\n\n"


def _events(pages: Iterator[list[dict[str, Any]]]) -> Iterator[str]:
    yield "retry: 2000\n\n"
    for page in pages:
        if not page:
            yield ": keep-alive\n\n"  # keeps proxies from closing an idle connection
        for item in page:
            yield _message(item)


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
    body = _events(service().live(match_id, viewer, after, keepalive))
    return Response(body, mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
