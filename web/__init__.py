"""The web table: two pages and the plain JavaScript modules they load, all from this server.

The pages hold no rule and no secret of their own: they draw what the API gives their reader
(a seat's token, kept in the tab's session storage, or nothing for a spectator) and send
moves to it. The policy below forbids anything from another origin and any inline script.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Flask, Response, abort, send_from_directory

STATIC = Path(__file__).parent / "static"
MAX_MATCH_ID = 64  # as the contract's matchId
POLICY = "; ".join([
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])

bp = Blueprint("web", __name__, static_folder=STATIC, static_url_path="/web")


@bp.after_request
def guarded(response: Response) -> Response:
    response.headers["Content-Security-Policy"] = POLICY
    # A seat's link carries its token in the fragment, which browsers never send; no page
    # tells another site where its reader came from either.
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers.setdefault("Cache-Control", "no-cache")
    return response


def _page(name: str) -> Response:
    # A page is small and says `no-cache`; If-Match and the like, which mean something on
    # the API, are no reason to refuse it.
    return send_from_directory(STATIC, name, conditional=False, etag=False)


@bp.get("/")
def start() -> Response:
    return _page("start.html")


@bp.get("/m/<match_id>")
def table(match_id: str) -> Response:
    """The table of any match id: the page asks the API for it and says when there is none.
    An id no match can have is a 404 at once, as on the API."""
    if len(match_id) > MAX_MATCH_ID:
        abort(404)
    return _page("table.html")


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
