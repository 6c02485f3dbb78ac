"""Why the domain refuses a command: typed errors that carry the rule's code."""

from __future__ import annotations

from enum import StrEnum


class Violation(StrEnum):
    """The rule codes the API answers with: one per way a move can be illegal."""

    MUST_LEAD_TWO_OF_CLUBS = "must_lead_two_of_clubs"
    MUST_FOLLOW_SUIT = "must_follow_suit"
    HEARTS_NOT_BROKEN = "hearts_not_broken"
    NO_POINTS_ON_FIRST_TRICK = "no_points_on_first_trick"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    PASS_NEEDS_THREE_CARDS = "pass_needs_three_cards"
    ALREADY_PASSED = "already_passed"
    NOT_AWAY = "not_away"


class IllegalMove(Exception):
    """A move the rules forbid. The detail never names a card the mover may not see."""

    def __init__(self, code: Violation, detail: str) -> None:
        super().__init__(f"{code.value}: {detail}")
        self.code = code
        self.detail = detail


class InvalidCommand(ValueError):
    """A command that is malformed before any rule applies (bad seats, decks, secret)."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason
