"""The bots a seat may be given, by name."""

from __future__ import annotations

from domain.bots.base import Policy
from domain.bots.expert import ExpertPolicy
from domain.bots.heuristic import HeuristicPolicy
from domain.bots.random_policy import RandomPolicy


class UnknownPolicy(ValueError):
    """No bot of that name."""


BOT_LEVELS = ("random", "heuristic", "expert")  # the bots a seat may be given, weakest first
POLICIES: dict[str, Policy] = {p.name: p for p in (RandomPolicy(), HeuristicPolicy(),
                                                     ExpertPolicy())}


def policy_named(name: str) -> Policy:
    """The bot of that level, or UnknownPolicy."""
    try:
        return POLICIES[name]
    except KeyError:
        raise UnknownPolicy(f"no bot named {name!r}; known: {', '.join(POLICIES)}") from None
