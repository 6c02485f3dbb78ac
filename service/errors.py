"""Why the application service refuses a request, beyond the rules of the game."""

from eventstore import StoreError

__all__ = ["Forbidden", "MatchNotFound", "NotFound", "StillInProgress", "StoreError",
           "Unauthorized", "VersionConflict"]


class MatchNotFound(LookupError):
    """No match has that id."""


class NotFound(LookupError):
    """The match exists but the version, round or trick asked for does not (yet)."""


class Unauthorized(PermissionError):
    """The token is unknown."""


class Forbidden(PermissionError):
    """The token belongs to another match, or its seat may not do this."""


class VersionConflict(Exception):
    """The match is not at the version the caller named (If-Match)."""

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(f"the match is at version {actual}, not {expected}")
        self.expected = expected
        self.actual = actual


class StillInProgress(Exception):
    """The first request with this Idempotency-Key has not finished yet: retry shortly."""
