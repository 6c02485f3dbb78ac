"""What one viewer may know of a match: the only way out of the domain towards anyone.

Who may see what: everyone sees every card played, trick winners, points, totals, the pass
direction, which seats have passed and whose turn it is; only seat s sees its own
hand, its pass, the cards it received and its legal cards; a round's deal and passes become
public once the round is over, and the server seed once the match is over.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from domain.cards import Card, sorted_cards, spell
from domain.codec import from_data, to_data
from domain.errors import Violation
from domain.events import (
    Event,
    Hand,
    PassChosen,
    PassesExchanged,
    RoundDealt,
    Scores,
    SeatSpec,
)
from domain.instants import instant_text
from domain.legal import forbidden_cards
from domain.passing import PassDirection, receiver
from domain.rules import Rules
from domain.sealing import with_hidden
from domain.state import Match, Round, Status, TakenTrick, Trick
from domain.table import Table, table_for


@dataclass(frozen=True, slots=True)
class SeatView:
    """What only one seat knows: its hand, its legal cards, its pass in and out."""

    seat: int
    hand: Hand
    legal: Hand
    illegal: tuple[tuple[Card, Violation], ...]  # each other card of the hand, and its rule
    passed: Hand | None
    received: Hand | None


@dataclass(frozen=True, slots=True)
class MatchView:
    id: str
    version: int
    status: Status
    round: int
    pass_direction: PassDirection
    dealer: int
    turn: int | None
    to_act: tuple[int, ...]
    hearts_broken: bool
    trick: Trick | None
    tricks: tuple[TakenTrick, ...]
    round_points: Scores
    totals: Scores
    history: tuple[Scores, ...]
    seats: tuple[SeatSpec, ...]
    seats_passed: tuple[int, ...]
    rules: Rules
    winner: int | None
    moon_shooter: int | None
    seed_commitment: str
    given_decks: int
    server_seed: str | None
    created_at: str
    you: SeatView | None
    away: tuple[int, ...] = ()
    # Under a turn clock: each person seat the match waits on, not away, and the version of
    # the event its clock runs from (its deadline is that event's recorded time plus the
    # clock, which the caller knows and the domain does not).
    clocks: tuple[tuple[int, int], ...] = ()

    @property
    def table(self) -> Table:
        """The count of seats and the cards in play, which every view shows alike."""
        return table_for(len(self.seats))


def seats_to_act(m: Match) -> tuple[int, ...]:
    """The seats the match waits for: passers, the seat on turn, or the moon's shooter."""
    rnd = m.round
    if rnd is None or m.is_over:
        return ()
    if m.status is Status.PASSING:
        return tuple(s for s in range(m.table.seats) if rnd.passes[s] is None)
    if m.status is Status.MOON_CHOICE:
        return (m.moon_shooter,) if m.moon_shooter is not None else ()
    return (rnd.turn,) if rnd.turn is not None else ()


def view_for(m: Match, viewer: int | None) -> MatchView:
    """The match as `viewer` (a seat, or None for a spectator) may see it."""
    rnd = m.round or _not_dealt(m)
    hidden_trick = m.is_over or m.status in (Status.DEALING, Status.PASSING)
    return MatchView(
        id=m.id, version=m.version, status=m.status, round=rnd.number,
        pass_direction=rnd.pass_direction, dealer=rnd.dealer, turn=m.turn,
        to_act=seats_to_act(m), hearts_broken=rnd.hearts_broken,
        # Before the exchange the next leader would tell who holds 2C.
        trick=None if hidden_trick else rnd.trick,
        tricks=rnd.taken, round_points=rnd.points, totals=m.totals, history=m.history,
        seats=m.seats,
        seats_passed=tuple(s for s in range(m.table.seats) if rnd.passes[s] is not None),
        rules=m.rules, winner=m.winner, moon_shooter=m.moon_shooter,
        seed_commitment=m.seed_commitment, given_decks=m.given_decks,
        server_seed=m.server_seed if m.is_over else None,
        created_at=m.created_at, you=None if viewer is None else _seat_view(m, viewer),
        away=tuple(sorted(m.away)), clocks=clocks(m),
    )


def clocks(m: Match) -> tuple[tuple[int, int], ...]:
    """Each seat whose turn clock runs, and the version its clock runs from."""
    if m.rules.turn_seconds is None:
        return ()
    return tuple((seat, m.waiting_since(seat)) for seat in seats_to_act(m)
                 if m.seats[seat].bot is None and seat not in m.away)


def _not_dealt(m: Match) -> Round:
    """The empty round a replay shows between the creation and the first deal."""
    n = m.table.seats
    return Round(0, m.rules.first_dealer, PassDirection.HOLD, ((),) * n, (frozenset(),) * n,
                 (None,) * n, (None,) * n, Trick(m.rules.first_dealer), (), False, (0,) * n,
                 None)


def _seat_view(m: Match, seat: int) -> SeatView:
    rnd = m.round or _not_dealt(m)
    on_turn = m.status is Status.PLAYING and rnd.turn == seat
    barred = forbidden_cards(rnd, m.rules, seat) if on_turn else {}
    legal = rnd.hands[seat] - barred.keys() if on_turn else frozenset()  # the rest of the hand
    return SeatView(seat, tuple(sorted_cards(rnd.hands[seat])), tuple(sorted_cards(legal)),
                    tuple((card, barred[card]) for card in sorted_cards(barred)),
                    rnd.passes[seat], rnd.received[seat])


def _cards_json(cards: Hand | None) -> list[str] | None:
    return None if cards is None else spell(cards)


def _trick_json(trick: Trick) -> dict[str, Any]:
    return {"leader": trick.leader,
            "plays": [{"seat": p.seat, "card": str(p.card)} for p in trick.plays]}


Recorded = Callable[[int], float | None]  # when event N was recorded, if it was


def clock_times(running: tuple[tuple[int, int], ...], seconds: int | None,
                recorded: Recorded) -> dict[int, tuple[float, float]]:
    """Each seat whose clock runs (`clocks`), mapped to when its clock started and when its
    move is due: the one reckoning of deadlines, for views, the store's mark and the sweep."""
    if seconds is None:
        return {}
    times = {}
    for seat, since in running:
        started = recorded(since)
        if started is not None:
            times[seat] = (started, started + seconds)
    return times


def deadlines_json(v: MatchView, recorded: Recorded | None) -> dict[str, str]:
    """Each seat whose clock runs, as a string key, and when its move is due."""
    if recorded is None:
        return {}
    return {str(seat): instant_text(due)
            for seat, (_, due) in clock_times(v.clocks, v.rules.turn_seconds, recorded).items()}


def view_json(v: MatchView, recorded: Recorded | None = None) -> dict[str, Any]:
    """The view as JSON-ready data, in the API's shape. `recorded` tells when an event was
    recorded, for the deadlines of a turn clock."""
    return {
        "id": v.id, "version": v.version, "status": v.status.value, "round": v.round,
        "pass_direction": v.pass_direction.value, "dealer": v.dealer, "turn": v.turn,
        "to_act": list(v.to_act), "hearts_broken": v.hearts_broken,
        "trick": None if v.trick is None else _trick_json(v.trick),
        "tricks": [{"number": t.number, "winner": t.winner, "points": t.points,
                    **_trick_json(Trick(t.leader, t.plays))} for t in v.tricks],
        "scores": {"round": list(v.round_points), "total": list(v.totals),
                   "history": [list(h) for h in v.history]},
        "seats": [{"seat": i, "name": s.name, "bot": s.bot} for i, s in enumerate(v.seats)],
        "deck": {"cards": len(v.table.cards), "hand_size": v.table.hand_size,
                 "removed": spell(v.table.removed)},
        "seats_passed": list(v.seats_passed), "rules": v.rules.to_json(), "winner": v.winner,
        "moon_shooter": v.moon_shooter, "seed_commitment": v.seed_commitment,
        "given_decks": v.given_decks, "server_seed": v.server_seed,
        "created_at": v.created_at, "away": list(v.away),
        "deadlines": deadlines_json(v, recorded) if v.clocks else {},
        "you": None if v.you is None else {
            "seat": v.you.seat, "hand": spell(v.you.hand), "legal": spell(v.you.legal),
            "illegal": {str(card): rule.value for card, rule in v.you.illegal},
            "passed": _cards_json(v.you.passed), "received": _cards_json(v.you.received)},
    }


def round_is_public(now: Match, round_number: int) -> bool:
    """A round's secrets (its deal, passes, every hand in it) are everyone's once it is over.
    Every reader of the past (the log, replays, the trick audit) asks this one question."""
    return now.round_is_over(round_number)


def replay_json(then: Match, now: Match, viewer: int | None,
                recorded: Recorded | None = None) -> dict[str, Any]:
    """The view of the match as it stood `then`, redacted for `viewer` as it stands `now`,
    with `hands`: each seat's hand at that moment where the viewer may see it now (its own,
    or every hand of a round that is over)."""
    view = view_json(view_for(then, viewer), recorded)
    rnd = then.round
    public = rnd is not None and round_is_public(now, rnd.number)
    view["hands"] = [spell(rnd.hands[s]) if rnd and (public or s == viewer) else None
                     for s in range(len(then.seats))]
    return view


def hidden_paths(event: Event, now: Match, viewer: int | None) -> list[str]:
    """The sealed values of `event` that `viewer` may not see, given the match as it is `now`."""
    if not isinstance(event, RoundDealt | PassChosen | PassesExchanged) \
            or round_is_public(now, event.round):
        return []
    if isinstance(event, RoundDealt):
        return [f"hands.{s}" for s in range(len(event.hands)) if s != viewer]
    if isinstance(event, PassChosen):
        may_see = viewer == event.seat or _received_it(now, event.round, event.seat, viewer)
        return [] if may_see else ["cards"]
    return [f"received.{s}" for s in range(len(event.received)) if s != viewer]


def event_json(event: Event, now: Match, viewer: int | None) -> dict[str, Any]:
    """An event's data as `viewer` may see it now: a hidden value is null and its salt left
    out; its commitment (under `sealed`) is shown to everyone."""
    return with_hidden(to_data(event), hidden_paths(event, now, viewer))


# The events that hold sealed values; every other event is the same for every reader.
SEALED_EVENTS = frozenset({"RoundDealt", "PassChosen", "PassesExchanged"})


def stored_event_json(type_name: str, data: dict[str, Any], now: Match,
                      viewer: int | None) -> dict[str, Any]:
    """`event_json` of an event as it is stored (the data `to_data` wrote): an event with
    nothing sealed is its data as it stands, and only one with sealed values is decoded, to
    know its round and seat, and is never written out again."""
    if type_name not in SEALED_EVENTS:
        return data
    return with_hidden(data, hidden_paths(from_data(type_name, data), now, viewer))


def _received_it(now: Match, round_number: int, passer: int, viewer: int | None) -> bool:
    """True when `viewer` has received `passer`'s cards in the round in progress."""
    rnd = now.round
    if viewer is None or rnd is None or rnd.number != round_number:
        return False
    exchanged = rnd.received[viewer] is not None
    return exchanged and receiver(passer, rnd.pass_direction, now.table) == viewer
