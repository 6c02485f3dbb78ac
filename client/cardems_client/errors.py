"""The service's problem documents as exceptions, one class per kind of answer a program acts on.

Every problem carries its machine-readable `code`: catch `IllegalMove` to learn which rule
barred a card, `NotNow` when the match moved on before the request landed, `VersionConflict`
when an `If-Match` no longer held.
"""

from __future__ import annotations

from typing import Any


class CardemsError(Exception):
    """Anything this kit raises about the service."""


class GaveUp(CardemsError):
    """The service could not be reached, or kept answering "later", for as long as the retry
    policy allows."""


class Problem(CardemsError):
    """An RFC 9457 problem document the service answered with."""

    def __init__(self, status: int, body: dict[str, Any], retry_after: float | None = None):
        self.status = status
        self.body = body
        self.code: str = str(body.get("code", "unknown"))
        self.title: str = str(body.get("title", ""))
        self.detail: str = str(body.get("detail", ""))
        self.type: str = str(body.get("type", "about:blank"))
        self.retry_after = retry_after
        super().__init__(f"{status} {self.code}: {self.detail or self.title}")

    @property
    def errors(self) -> dict[str, Any]:
        """For an invalid request, each field at fault and what is wrong with it."""
        errors = self.body.get("errors")
        return errors if isinstance(errors, dict) else {}


class InvalidRequest(Problem):
    """A body, field, parameter or header the service refused (400, 422 `invalid_request`)."""


class Unauthorized(Problem):
    """No token, or an unknown one, where a seat's token is needed (401)."""


class Forbidden(Problem):
    """A token of another match (403)."""


class NotFound(Problem):
    """No such match, round, trick or page (404)."""


class VersionConflict(Problem):
    """The match was no longer at the version `If-Match` named (409)."""

    @property
    def version(self) -> int | None:
        version = self.body.get("version")
        return version if isinstance(version, int) else None


class PayloadTooLarge(Problem):
    """A body past the service's limit (413)."""


class IllegalMove(Problem):
    """A move the rules forbid; `code` names the rule (422)."""


class NotNow(Problem):
    """A move out of turn or out of phase (422): the match moved on, or waits on another."""


class RateLimited(Problem):
    """Too many requests (429); `retry_after` says how long to wait."""


class Unavailable(Problem):
    """The service cannot answer now (503); `retry_after` says when to ask again."""


RULE_CODES = frozenset({
    "must_lead_two_of_clubs", "must_follow_suit", "hearts_not_broken",
    "no_points_on_first_trick", "card_not_in_hand", "pass_needs_three_cards",
})
TURN_CODES = frozenset({"not_your_turn", "wrong_phase", "already_passed", "not_away"})
BY_STATUS: dict[int, type[Problem]] = {
    400: InvalidRequest, 401: Unauthorized, 403: Forbidden, 404: NotFound,
    409: VersionConflict, 413: PayloadTooLarge, 429: RateLimited, 503: Unavailable,
}


def problem_from(status: int, body: Any, retry_after: float | None = None) -> Problem:
    """The exception for a response that was not a success."""
    if not isinstance(body, dict):
        body = {"code": "unknown", "title": "Unexpected response", "detail": str(body)[:200]}
    code = body.get("code")
    if code in RULE_CODES:
        kind: type[Problem] = IllegalMove
    elif code in TURN_CODES:
        kind = NotNow
    elif code == "invalid_request":
        kind = InvalidRequest
    else:
        kind = BY_STATUS.get(status, Problem)
    return kind(status, body, retry_after)
