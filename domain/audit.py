"""The audit of one trick: for each play, what the player held, what it could play and why not
the rest; how hearts stood; why the winner won."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from domain.cards import spell
from domain.events import CardPlayed, Event, TrickTaken
from domain.evolve import evolve
from domain.legal import forbidden_cards, legal_cards
from domain.state import Match, Round
from domain.views import round_is_public

SUIT_NAMES = {"C": "clubs", "D": "diamonds", "S": "spades", "H": "hearts"}


@dataclass(frozen=True, slots=True)
class Recorded:
    """An event with the version and hash it was stored under."""

    version: int
    hash: str
    event: Event


def trick_audit(log: Sequence[Recorded], round_number: int, trick_number: int,
                now: Match, start: Match | None = None) -> dict[str, Any] | None:
    """The audit of trick `trick_number` of round `round_number`, or None if it was never led.

    `log` follows the state `start` (the match's beginning when None): a snapshot taken just
    before the round's deal spares folding every round before it. Hands and legal cards are
    given only once the round is over (`now` says whether it is).
    """
    state = start
    plays: list[dict[str, Any]] = []
    broken_before: bool | None = None
    broken_in: int | None = None
    taken: tuple[TrickTaken, Recorded] | None = None
    for record in log:
        event = record.event
        rnd = state.round if state else None
        in_round = rnd is not None and rnd.number == round_number
        if state is not None and rnd is not None and in_round:
            if isinstance(event, CardPlayed) and rnd.trick_number == trick_number:
                if not plays:
                    broken_before = rnd.hearts_broken
                plays.append(_play(rnd, state, event, record))
            if isinstance(event, TrickTaken) and event.trick == trick_number:
                taken = (event, record)
        state = evolve(state, event)
        after = state.round
        if in_round and after is not None and after.hearts_broken and broken_in is None \
                and rnd is not None and not rnd.hearts_broken and rnd.trick_number <= trick_number:
            broken_in = rnd.trick_number
        if taken is not None:
            break
    if not plays:
        return None
    public = round_is_public(now, round_number)  # hands are shown once they are everyone's
    return _report(round_number, trick_number, plays, broken_before, broken_in, taken, public)


def _play(rnd: Round, state: Match, event: CardPlayed, record: Recorded) -> dict[str, Any]:
    forbidden = forbidden_cards(rnd, state.rules, event.seat)
    return {
        "seat": event.seat, "card": str(event.card),
        "hand_before": spell(rnd.hands[event.seat]),
        "legal": spell(legal_cards(rnd, state.rules, event.seat)),
        "illegal": {str(card): code.value for card, code in sorted(forbidden.items())},
        "version": record.version, "hash": record.hash,
    }


def _report(round_number: int, trick_number: int, plays: list[dict[str, Any]],
            broken_before: bool | None, broken_in: int | None,
            taken: tuple[TrickTaken, Recorded] | None, public: bool) -> dict[str, Any]:
    led = plays[0]["card"][1]
    if not public:
        plays = [{k: p[k] for k in ("seat", "card", "version", "hash")} for p in plays]
    winner = taken[0].winner if taken else None
    return {
        "round": round_number, "trick": trick_number, "complete": taken is not None,
        "round_over": public, "leader": plays[0]["seat"], "led_suit": SUIT_NAMES[led],
        "winner": winner, "points": taken[0].points if taken else None,
        "why_winner": _why(plays, winner, led) if taken else None,
        "hearts_broken_before": broken_before, "hearts_broken_in": broken_in,
        "plays": plays,
        "taken_version": taken[1].version if taken else None,
    }


def _why(plays: list[dict[str, Any]], winner: int | None, led: str) -> str:
    suit = SUIT_NAMES[led]
    card = next(p["card"] for p in plays if p["seat"] == winner)
    followers = sum(1 for p in plays if p["card"][1] == led)
    if followers == 1:
        return f"{card} led the trick and nobody else played {suit}; there are no trumps"
    return f"{card} is the highest of the {followers} {suit} played, and {suit} were led; " \
           "cards of other suits cannot win, there are no trumps"
