"""Instants as the log writes them (2026-12-03T10:00:00.123Z) and as seconds since the epoch.

Pure conversions: the domain reads no clock, but a turn clock's deadline is a recorded time
plus the clock's seconds, written the way every recorded time is.
"""

from __future__ import annotations

from datetime import UTC, datetime


def parse_instant(text: str) -> float:
    """Seconds since the epoch of a recorded_at like 2026-12-03T10:00:00.123Z."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def instant_text(seconds: float) -> str:
    """A recorded_at for an instant, to the nearest millisecond (its inverse above)."""
    millis = round(seconds * 1000)
    moment = datetime.fromtimestamp(millis // 1000, UTC).replace(microsecond=millis % 1000 * 1000)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
