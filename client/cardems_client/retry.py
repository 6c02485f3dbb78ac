"""When to ask again: after a network error, a 429 or a 503, within a bounded patience.

A request is retried only where that is safe: reads always, and moves because every POST the
kit sends carries an `Idempotency-Key`, so a move the service applied before the answer was lost
is answered again, not applied twice.
"""

from __future__ import annotations

import email.utils
import random
import time
from dataclasses import dataclass, field


@dataclass(frozen=True)
class RetryPolicy:
    """How long to keep trying one request, and how far apart.

    Waits grow from `first_wait` by doubling up to `longest_wait`, each drawn at random below
    its bound so that many clients do not come back at once; a `Retry-After` from the service
    is the wait, as it asks. After `patience` seconds the last answer is raised.
    """

    patience: float = 60.0
    first_wait: float = 0.2
    longest_wait: float = 5.0
    statuses: frozenset[int] = field(default_factory=lambda: frozenset({429, 502, 503, 504}))

    def backoff(self, attempt: int) -> float:
        """The wait after the `attempt`-th failure with no word from the service."""
        bound = min(self.longest_wait, self.first_wait * 2 ** (attempt - 1))
        return random.uniform(bound / 2, bound)

    def wait(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return retry_after
        return self.backoff(attempt)


NEVER = RetryPolicy(patience=0.0)


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """A `Retry-After` header's wait in seconds: delay-seconds or an HTTP date."""
    if value is None:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))
