"""Bot policies: pure functions of a seat's view and an injected random source."""

from __future__ import annotations

from domain.bots.base import Policy, bot_command
from domain.bots.levels import policy_named

__all__ = ["Policy", "bot_command", "policy_named"]
