"""Every failure as one RFC 9457 problem document, mapped in this one place."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify
from marshmallow import ValidationError
from werkzeug.exceptions import HTTPException

from domain.errors import IllegalMove, InvalidCommand
from domain.rules import InvalidRules
from service.errors import (
    Forbidden,
    MatchNotFound,
    NotFound,
    StillInProgress,
    StoreError,
    Unauthorized,
    VersionConflict,
)
from service.fair_use import BotMatchesCapped
from service.idempotency import KeyReused

PROBLEM_JSON = "application/problem+json"
CAPPED_RETRY = 60  # seconds: matches of bots alone take minutes to end
TYPE_BASE = "https://cardems.example/problems/"

_HTTP_CODES = {
    400: "invalid_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
    405: "method_not_allowed", 406: "not_acceptable", 409: "version_conflict",
    413: "payload_too_large", 415: "unsupported_media_type", 422: "invalid_request",
    428: "precondition_required", 429: "rate_limited",
}


class BadRequest(Exception):
    """A request the API cannot read: malformed JSON, a bad header, a wrong content type."""

    def __init__(self, status: int, detail: str, code: str | None = None) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.code = code or _HTTP_CODES.get(status, "invalid_request")


class InvalidFields(Exception):
    """A body whose fields cannot be taken as they are: 422, naming each field."""

    def __init__(self, detail: str, errors: dict[str, Any]) -> None:
        super().__init__(detail)
        self.detail = detail
        self.errors = errors


def problem(status: int, code: str, title: str, detail: str, **extra: Any) -> Response:
    body = {"type": TYPE_BASE + code, "title": title, "status": status, "detail": detail,
            "code": code, **extra}
    response = jsonify(body)
    response.status_code = status
    response.mimetype = PROBLEM_JSON
    return response


def unavailable(title: str, detail: str, retry_after: int = 1) -> Response:
    """A 503: nothing is wrong with the request, it may be sent again after `retry_after` s."""
    response = problem(503, "unavailable", title, detail)
    response.headers["Retry-After"] = str(retry_after)
    return response


def init_app(app: Flask) -> None:
    """Attach the one mapping from every failure to its problem document."""

    @app.errorhandler(BadRequest)
    def bad_request(e: BadRequest) -> Response:
        return problem(e.status, e.code, "Bad request", e.detail)

    @app.errorhandler(InvalidFields)
    def invalid_fields(e: InvalidFields) -> Response:
        return problem(422, "invalid_request", "Invalid request", e.detail, errors=e.errors)

    @app.errorhandler(ValidationError)
    def invalid(e: ValidationError) -> Response:
        return problem(422, "invalid_request", "Invalid request",
                       "some fields are missing, unknown or invalid", errors=e.messages)

    @app.errorhandler(InvalidRules)
    def invalid_rules(e: InvalidRules) -> Response:
        return problem(422, "invalid_request", "Invalid rules", str(e),
                       errors={"rules": {e.option: [e.reason]}})

    @app.errorhandler(InvalidCommand)
    def invalid_command(e: InvalidCommand) -> Response:
        return problem(422, "invalid_request", "Invalid request", str(e),
                       errors={e.field: [e.reason]})

    @app.errorhandler(IllegalMove)
    def illegal(e: IllegalMove) -> Response:
        return problem(422, e.code.value, "Illegal move", e.detail)

    @app.errorhandler(KeyReused)
    def key_reused(e: KeyReused) -> Response:
        return problem(422, "invalid_request", "Idempotency-Key reused", str(e))

    @app.errorhandler(MatchNotFound)
    def not_found(e: MatchNotFound) -> Response:
        return problem(404, "not_found", "Not found", "no match has that id")

    @app.errorhandler(NotFound)
    def nothing_there(e: NotFound) -> Response:
        return problem(404, "not_found", "Not found", str(e))

    @app.errorhandler(Unauthorized)
    def unauthorized(e: Unauthorized) -> Response:
        response = problem(401, "unauthorized", "Unauthorized", str(e))
        response.headers["WWW-Authenticate"] = 'Bearer realm="cardems"'
        return response

    @app.errorhandler(Forbidden)
    def forbidden(e: Forbidden) -> Response:
        return problem(403, "forbidden", "Forbidden", str(e))

    @app.errorhandler(VersionConflict)
    def conflict(e: VersionConflict) -> Response:
        return problem(409, "version_conflict", "Version conflict", str(e),
                       version=e.actual)

    @app.errorhandler(BotMatchesCapped)
    def capped(e: BotMatchesCapped) -> Response:
        if e.per_client:
            response = problem(429, "rate_limited", "Too many matches of bots", str(e))
            response.headers["Retry-After"] = str(CAPPED_RETRY)
            return response
        return unavailable("Too many matches of bots", str(e), CAPPED_RETRY)

    @app.errorhandler(StillInProgress)
    def in_progress(e: StillInProgress) -> Response:
        return unavailable("Still in progress", str(e))

    @app.errorhandler(StoreError)
    def store_unavailable(e: StoreError) -> Response:
        app.logger.warning("event store failed: %s", e)
        return unavailable("Store unavailable",
                           "the event store did not answer; retry in a moment (a move sent"
                           " with an Idempotency-Key is applied at most once)")

    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException) -> Response:
        status = e.code or 500
        code = _HTTP_CODES.get(status, "http_error")
        response = problem(status, code, e.name, e.description or e.name)
        allow = dict(e.get_headers()).get("Allow")
        if allow:  # a 405 names the methods that are allowed
            response.headers["Allow"] = allow
        return response

    @app.errorhandler(Exception)
    def unexpected(e: Exception) -> Response:
        app.logger.exception("unexpected failure")
        return problem(500, "internal_error", "Internal error",
                       "the server failed; the request may not have been applied")
