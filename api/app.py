"""The app factory: one store, one dispatcher and one service per app, built on request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from flask import Flask, Response, jsonify
from flask.json.provider import DefaultJSONProvider
from flask_swagger_ui import get_swaggerui_blueprint
from werkzeug.routing import IntegerConverter

from api import counting, limits, matches, problems, stream
from api.json_body import MAX_BODY
from api.responses import HealthOut
from service.bootstrap import DEFAULT_STORE, Dispatch, StoreConfig, build_service
from service.fair_use import FairUse
from web import init_app as init_web

# The contract, shipped in the package (api/openapi.yaml links to the one at the top).
OPENAPI = Path(__file__).parent / "openapi.yaml"


@dataclass(frozen=True)
class Settings:
    store: StoreConfig | str = DEFAULT_STORE  # a string is parsed once, here
    dispatch: Dispatch | None = None  # where bot turns run, as the command line chose
    sse_keepalive: float = 15.0
    max_streams: int = 5000  # live streams one API process serves at once
    streams_per_client: int = 100  # of which one client address may hold
    create_limit: str = limits.CREATE_LIMIT  # matches one client address may create
    move_limit: str = limits.MOVE_LIMIT  # moves one client address may make
    check_limit: str = limits.CHECK_LIMIT  # audits and verifications one address may ask for
    fair: FairUse = field(default_factory=FairUse)  # caps on bots alone, idle time
    pace: Mapping[str, float] = field(default_factory=dict)  # none: bots move at once


KEYS = orjson.OPT_NON_STR_KEYS  # a field error's list positions are numbers


class FastJSON(DefaultJSONProvider):
    """Replies written by orjson: they are plain dicts, lists, strings and numbers already in
    the contract's shape, in the order the service gives them."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return orjson.dumps(obj, option=KEYS).decode()

    def response(self, *args: Any, **kwargs: Any) -> Response:
        body = orjson.dumps(self._prepare_response_obj(args, kwargs), option=KEYS)
        return Response(body, mimetype=self.mimetype)


class AsciiInt(IntegerConverter):
    """Numbers in a path in ASCII digits alone (werkzeug's own `\\d` takes any script's)."""

    regex = r"[0-9]+"


def create_app(settings: Settings | None = None) -> Flask:
    settings = settings or Settings()
    app = Flask(__name__)
    app.url_map.converters["int"] = AsciiInt
    app.json = FastJSON(app)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.config["SSE_KEEPALIVE"] = settings.sse_keepalive
    store = StoreConfig.of(settings.store)
    service = build_service(store, settings.dispatch, settings.pace, settings.fair)
    app.extensions["cardems"] = service
    problems.init_app(app)
    counting.init_app(app)
    matches.init_app(app)
    stream.init_app(app, settings.max_streams, settings.streams_per_client)
    limits.init_app(app, store, settings.create_limit, settings.move_limit,
                    settings.check_limit)
    app.register_blueprint(get_swaggerui_blueprint("/docs", "/openapi.yaml"))
    init_web(app)

    @app.get("/healthz")
    def healthz() -> Response:
        return jsonify(HealthOut().dump(service.health()))

    @app.get("/openapi.yaml")
    def openapi() -> Response:
        return Response(OPENAPI.read_text(), mimetype="application/yaml")

    return app
