"""Fair use: how often one client address may create matches and make moves.

Flask-Limiter counts, in the store's Redis when the store is one (so that every API process
shares the counts) and in this process's memory otherwise. A request over a limit is a 429
problem document with Retry-After; every limited response carries the RateLimit headers,
and Retry-After only a 429 or a 503, the replies that ask the client to wait.
"""

from __future__ import annotations

from flask import Flask, Response, current_app, request
from flask_limiter import HeaderNames, Limiter
from flask_limiter.util import get_remote_address

from service.bootstrap import StoreConfig

CREATE_LIMIT = "20/minute;200/hour"
MOVE_LIMIT = "600/minute"  # a person moves a few times a minute; a client of four, a bit more
# Audits and verifications cost more than a view: a person reviewing a match asks for a few a
# minute, a page of a finished match for one each.
CHECK_LIMIT = "120/minute"
CHECKS = frozenset({"matches.audit", "matches.verify"})

limiter = Limiter(
    get_remote_address, headers_enabled=True, key_prefix="cardems-limits",
    strategy="moving-window", swallow_errors=True,
    header_name_mapping={HeaderNames.LIMIT: "RateLimit-Limit",
                         HeaderNames.REMAINING: "RateLimit-Remaining",
                         HeaderNames.RESET: "RateLimit-Reset"})


@limiter.request_filter
def _reads() -> bool:
    """Only creations, moves and checks are limited: another read skips the limiter's work at
    once, where resolving that no limit applies to it took a tenth of a view's time."""
    return request.method in ("GET", "HEAD", "OPTIONS") and request.endpoint not in CHECKS


def _create_limit() -> str:
    return str(current_app.config["CARDEMS_CREATE_LIMIT"])


def _move_limit() -> str:
    return str(current_app.config["CARDEMS_MOVE_LIMIT"])


def _check_limit() -> str:
    return str(current_app.config["CARDEMS_CHECK_LIMIT"])


on_create = limiter.limit(_create_limit)
on_move = limiter.shared_limit(_move_limit, scope="moves")
on_check = limiter.shared_limit(_check_limit, scope="checks")


def init_app(app: Flask, store: StoreConfig, create_limit: str = CREATE_LIMIT,
             move_limit: str = MOVE_LIMIT, check_limit: str = CHECK_LIMIT) -> None:
    app.config["CARDEMS_CREATE_LIMIT"] = create_limit
    app.config["CARDEMS_MOVE_LIMIT"] = move_limit
    app.config["CARDEMS_CHECK_LIMIT"] = check_limit
    app.config["RATELIMIT_STORAGE_URI"] = store.limiter_url
    # Flask runs the last registered first: this one sees the limiter's headers.
    app.after_request(_retry_only_when_asked)
    limiter.init_app(app)


def _retry_only_when_asked(response: Response) -> Response:
    """Flask-Limiter writes Retry-After on every limited reply; a client that honours it
    would wait after a success. It belongs to a 429 or a 503 alone. The limiter truncates
    the wait to whole seconds, so with the window shut for less than a second more it asked
    for 0 s, and a client retried into the same 429: a 429 asks for at least a second."""
    if response.status_code not in (429, 503):
        response.headers.pop("Retry-After", None)
    if response.status_code == 429 and response.headers.get("Retry-After") == "0":
        response.headers["Retry-After"] = "1"
    return response
