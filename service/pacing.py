"""A bot's pace: when its move may be recorded, so that its timing tells nothing of its cards."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from domain.bots.levels import BOT_LEVELS
from domain.instants import instant_text, parse_instant

__all__ = ["DEFAULT_PACE", "instant_text", "parse_instant", "parse_pace"]


DEFAULT_PACE: Mapping[str, float] = MappingProxyType(
    {"random": 0.5, "heuristic": 0.5, "expert": 1.0})
"""Seconds from the event a bot answers to its move being recorded, per level. The expert's
slowest decisions take a few hundred milliseconds on a loaded machine; its pace is above that
so that its moves come on the beat whatever it holds."""


def parse_pace(spec: str) -> dict[str, float]:
    """`0.8` (every level) or `random=0.2,expert=1.5` (those levels; others keep the default).
    ValueError when it is neither."""
    spec = spec.strip()
    if "=" not in spec:
        seconds = _seconds(spec)
        return dict.fromkeys(BOT_LEVELS, seconds)
    pace = dict(DEFAULT_PACE)
    for part in spec.split(","):
        level, _, value = part.partition("=")
        if level.strip() not in BOT_LEVELS:
            raise ValueError(f"no bot level {level.strip()!r}: use {', '.join(BOT_LEVELS)}")
        pace[level.strip()] = _seconds(value)
    return pace


def _seconds(text: str) -> float:
    value = float(text)
    if not 0 <= value <= 60:
        raise ValueError("a pace is 0 to 60 seconds")
    return value
