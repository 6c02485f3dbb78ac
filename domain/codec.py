"""Events to plain JSON data and back, exactly."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from domain.cards import Card, parse_card
from domain.events import (
    EVENT_TYPES,
    AbandonReason,
    CardPlayed,
    Event,
    MatchAbandoned,
    MatchCreated,
    MatchEnded,
    MoonChosen,
    MoonShot,
    PassChosen,
    PassesExchanged,
    RoundDealt,
    RoundScored,
    SeatAway,
    SeatBack,
    SeatSpec,
    TrickTaken,
    TurnTimedOut,
)
from domain.passing import PassDirection
from domain.rules import MoonRule, Rules
from domain.sealing import Seal

Data = dict[str, Any]


class BadEventData(ValueError):
    """Stored data that does not decode into the event type it claims to be."""


def _cards(cards: Sequence[Card]) -> list[str]:
    return [str(c) for c in cards]


def _hand(texts: Sequence[str]) -> tuple[Card, ...]:
    return tuple(parse_card(t) for t in texts)


def _sealed(seals: Sequence[tuple[str, Seal]]) -> Data:
    """The commitments (shown to everyone) and salts (shown with their values) by path."""
    return {"sealed": {path: s.commitment for path, s in seals},
            "salts": {path: s.salt for path, s in seals}}


def _each(name: str, seals: Sequence[Seal]) -> list[tuple[str, Seal]]:
    return [(f"{name}.{i}", s) for i, s in enumerate(seals)]


def _seal_at(d: Data, path: str) -> Seal | None:
    if path not in d["sealed"]:
        return None
    return Seal(d["salts"][path], d["sealed"][path])


def _seals_of(d: Data, name: str) -> tuple[Seal, ...]:
    seals = [_seal_at(d, f"{name}.{i}") for i in range(len(d[name]))]
    return tuple(s for s in seals if s is not None)


def _rules_data(rules: Rules) -> Data:
    """The rules as a creation records them: a match with no clock is recorded as it was
    before clocks existed, so that every older log decides again to the same events."""
    data = rules.to_json()
    if data["turn_seconds"] is None:
        del data["turn_seconds"]
    return data


def _seat_data(seat: SeatSpec) -> Data:
    return {"name": seat.name, "bot": seat.bot}


_ENCODE: dict[type, Callable[[Any], Data]] = {
    MatchCreated: lambda e: {
        "match_id": e.match_id, "rules": _rules_data(e.rules),
        "seats": [_seat_data(s) for s in e.seats], "client_seed": e.client_seed,
        "seed_commitment": e.seed_commitment, "given_decks": e.given_decks,
        "created_at": e.created_at},
    RoundDealt: lambda e: {
        "round": e.round, "dealer": e.dealer, "pass_direction": e.pass_direction.value,
        "hands": [_cards(h) for h in e.hands], **_sealed(_each("hands", e.seals))},
    PassChosen: lambda e: {
        "round": e.round, "seat": e.seat, "cards": _cards(e.cards), "bot": e.bot,
        **_sealed([("cards", e.seal)] if e.seal else [])},
    PassesExchanged: lambda e: {
        "round": e.round, "received": [_cards(h) for h in e.received],
        **_sealed(_each("received", e.seals))},
    CardPlayed: lambda e: {"seat": e.seat, "card": str(e.card), "bot": e.bot},
    TrickTaken: lambda e: {
        "round": e.round, "trick": e.trick, "winner": e.winner, "points": e.points},
    MoonShot: lambda e: {"round": e.round, "seat": e.seat},
    MoonChosen: lambda e: {
        "round": e.round, "seat": e.seat, "choice": e.choice.value, "bot": e.bot},
    RoundScored: lambda e: {
        "round": e.round, "points": list(e.points), "scores": list(e.scores),
        "totals": list(e.totals), "moon": e.moon, "sun": e.sun, "jack": e.jack},
    MatchEnded: lambda e: {
        "winner": e.winner, "totals": list(e.totals), "server_seed": e.server_seed,
        "decks": [_cards(d) for d in e.decks]},
    MatchAbandoned: lambda e: {
        "reason": e.reason.value, "seat": e.seat, "totals": list(e.totals),
        "server_seed": e.server_seed, "decks": [_cards(d) for d in e.decks]},
    TurnTimedOut: lambda e: {"seat": e.seat},
    SeatAway: lambda e: {"seat": e.seat},
    SeatBack: lambda e: {"seat": e.seat},
}

_DECODE: dict[type, Callable[[Data], Event]] = {
    MatchCreated: lambda d: MatchCreated(
        d["match_id"], Rules.from_mapping(d["rules"], len(d["seats"])),
        tuple(SeatSpec(s["name"], s["bot"]) for s in d["seats"]), d["client_seed"],
        d["seed_commitment"], d["given_decks"], d["created_at"]),
    RoundDealt: lambda d: RoundDealt(
        d["round"], d["dealer"], PassDirection(d["pass_direction"]),
        tuple(_hand(h) for h in d["hands"]), _seals_of(d, "hands")),
    PassChosen: lambda d: PassChosen(d["round"], d["seat"], _hand(d["cards"]), d["bot"],
                                     _seal_at(d, "cards")),
    PassesExchanged: lambda d: PassesExchanged(
        d["round"], tuple(_hand(h) for h in d["received"]), _seals_of(d, "received")),
    CardPlayed: lambda d: CardPlayed(d["seat"], parse_card(d["card"]), d["bot"]),
    TrickTaken: lambda d: TrickTaken(d["round"], d["trick"], d["winner"], d["points"]),
    MoonShot: lambda d: MoonShot(d["round"], d["seat"]),
    MoonChosen: lambda d: MoonChosen(d["round"], d["seat"], MoonRule(d["choice"]), d["bot"]),
    RoundScored: lambda d: RoundScored(
        d["round"], tuple(d["points"]), tuple(d["scores"]), tuple(d["totals"]), d["moon"],
        d["sun"], d["jack"]),
    MatchEnded: lambda d: MatchEnded(
        d["winner"], tuple(d["totals"]), d["server_seed"], tuple(_hand(h) for h in d["decks"])),
    MatchAbandoned: lambda d: MatchAbandoned(
        AbandonReason(d["reason"]), d["seat"], tuple(d["totals"]), d["server_seed"],
        tuple(_hand(h) for h in d["decks"])),
    TurnTimedOut: lambda d: TurnTimedOut(d["seat"]),
    SeatAway: lambda d: SeatAway(d["seat"]),
    SeatBack: lambda d: SeatBack(d["seat"]),
}


def event_type(event: Event) -> str:
    return type(event).__name__


def to_data(event: Event) -> Data:
    """The event's fields as JSON-ready data (its type name travels beside it)."""
    return _ENCODE[type(event)](event)


def from_data(type_name: str, data: Data) -> Event:
    """The event of type `type_name` from its data, or BadEventData."""
    cls = EVENT_TYPES.get(type_name)
    if cls is None:
        raise BadEventData(f"unknown event type {type_name!r}")
    try:
        return _DECODE[cls](data)
    except (KeyError, TypeError, ValueError) as exc:
        raise BadEventData(f"{type_name}: {exc}") from exc
