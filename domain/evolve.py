"""evolve(state, event) -> state, and the fold of a whole event stream."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from domain.cards import QUEEN_OF_SPADES, TWO_OF_CLUBS, Suit
from domain.events import (
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
    TrickTaken,
    TurnTimedOut,
)
from domain.passing import PassDirection
from domain.state import Match, Play, Round, Status, TakenTrick, Trick, evolved
from domain.table import table_for


class CorruptStream(ValueError):
    """An event that cannot follow the state it is applied to."""


def _swap(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1:])


def _created(state: Match | None, e: MatchCreated) -> Match:
    if state is not None:
        raise CorruptStream("a match is created only once")
    return Match(
        id=e.match_id, rules=e.rules, table=table_for(len(e.seats)), seats=e.seats,
        client_seed=e.client_seed, seed_commitment=e.seed_commitment,
        given_decks=e.given_decks, created_at=e.created_at,
        status=Status.DEALING, version=1, round=None, totals=(0,) * len(e.seats), history=(),
    )


def _holder_of_two_of_clubs(hands: tuple[frozenset, ...]) -> int:
    return next(s for s, h in enumerate(hands) if TWO_OF_CLUBS in h)


def _dealt(m: Match, e: RoundDealt) -> Match:
    hands = tuple(frozenset(h) for h in e.hands)
    holding = e.pass_direction is PassDirection.HOLD
    seats = m.table.seats
    rnd = Round(
        number=e.round, dealer=e.dealer, pass_direction=e.pass_direction, dealt=e.hands,
        hands=hands, passes=(None,) * seats, received=(None,) * seats,
        trick=Trick(leader=_holder_of_two_of_clubs(hands)), taken=(), hearts_broken=False,
        points=(0,) * seats, turn=_holder_of_two_of_clubs(hands) if holding else None,
    )
    status = Status.PLAYING if holding else Status.PASSING
    return evolved(m, round=rnd, status=status, moon_shooter=None, version=m.version + 1,
                   since=m.version + 1)


def _pass_chosen(m: Match, e: PassChosen) -> Match:
    rnd = m.round
    assert rnd is not None
    hands = _swap(rnd.hands, e.seat, rnd.hands[e.seat].difference(e.cards))
    rnd = evolved(rnd, hands=hands, passes=_swap(rnd.passes, e.seat, e.cards))
    return evolved(m, round=rnd, version=m.version + 1, timeouts=_own_move(m, e.seat, e.bot))


def _exchanged(m: Match, e: PassesExchanged) -> Match:
    rnd = m.round
    assert rnd is not None
    hands = tuple(h.union(r) for h, r in zip(rnd.hands, e.received, strict=True))
    leader = _holder_of_two_of_clubs(hands)
    rnd = evolved(rnd, hands=hands, received=e.received, trick=Trick(leader=leader), turn=leader)
    return evolved(m, round=rnd, status=Status.PLAYING, version=m.version + 1,
                   since=m.version + 1)


def _played(m: Match, e: CardPlayed) -> Match:
    # Two of every three events are plays: this spells out what `evolved` does, without its
    # keyword arguments, because that is a fifth of the cost of a replay.
    rnd = m.round
    assert rnd is not None
    card, seat = e.card, e.seat
    plays = rnd.trick.plays
    hands = rnd.hands
    new_round = object.__new__(Round)
    fields = new_round.__dict__
    fields.update(rnd.__dict__)
    fields["hands"] = (*hands[:seat], hands[seat] - {card}, *hands[seat + 1:])
    fields["trick"] = Trick(rnd.trick.leader, (*plays, Play(seat, card)))
    fields["hearts_broken"] = rnd.hearts_broken or card.suit is Suit.HEARTS or (
        card is QUEEN_OF_SPADES and m.rules.queen_breaks_hearts)
    seats = m.table.seats
    fields["turn"] = (seat + 1) % seats if len(plays) < seats - 1 else None
    new_match = object.__new__(Match)
    fields = new_match.__dict__
    fields.update(m.__dict__)
    fields["round"] = new_round
    fields["version"] = fields["since"] = m.version + 1
    if e.bot is None and m.timeouts:
        fields["timeouts"] = _own_move(m, seat, None)
    return new_match


def _trick_taken(m: Match, e: TrickTaken) -> Match:
    rnd = m.round
    assert rnd is not None
    done = TakenTrick(e.trick, rnd.trick.leader, rnd.trick.plays, e.winner, e.points)
    taken = (*rnd.taken, done)
    points = _swap(rnd.points, e.winner, rnd.points[e.winner] + e.points)
    rnd = evolved(rnd, trick=Trick(leader=e.winner), taken=taken, points=points, turn=e.winner)
    return evolved(m, round=rnd, version=m.version + 1, since=m.version + 1)


def _moon_shot(m: Match, e: MoonShot) -> Match:
    return evolved(m, status=Status.MOON_CHOICE, moon_shooter=e.seat, version=m.version + 1,
                   since=m.version + 1)


def _moon_chosen(m: Match, e: MoonChosen) -> Match:
    return evolved(m, version=m.version + 1, timeouts=_own_move(m, e.seat, e.bot))


def _own_move(m: Match, seat: int, bot: str | None) -> tuple[int, ...]:
    """The timeouts in a row after a move by `seat`: a person's own move ends its run."""
    if bot is not None or not m.timeouts or not m.timeouts[seat]:
        return m.timeouts
    return _swap(m.timeouts, seat, 0)


def _timed_out(m: Match, e: TurnTimedOut) -> Match:
    timeouts = m.timeouts or (0,) * m.table.seats
    return evolved(m, version=m.version + 1,
                   timeouts=_swap(timeouts, e.seat, timeouts[e.seat] + 1))


def _away(m: Match, e: SeatAway) -> Match:
    return evolved(m, version=m.version + 1, away=m.away | {e.seat})


def _back(m: Match, e: SeatBack) -> Match:
    timeouts = m.timeouts or (0,) * m.table.seats
    returned = m.returned or (0,) * m.table.seats
    return evolved(m, version=m.version + 1, away=m.away - {e.seat},
                   timeouts=_swap(timeouts, e.seat, 0),
                   returned=_swap(returned, e.seat, m.version + 1))


def _scored(m: Match, e: RoundScored) -> Match:
    return evolved(m, totals=e.totals, history=(*m.history, e.scores), moon_shooter=None,
                   version=m.version + 1)


def _ended(m: Match, e: MatchEnded) -> Match:
    return evolved(m, status=Status.FINISHED, winner=e.winner, server_seed=e.server_seed,
                   revealed_decks=e.decks, version=m.version + 1)


def _abandoned(m: Match, e: MatchAbandoned) -> Match:
    return evolved(m, status=Status.ABANDONED, server_seed=e.server_seed,
                   revealed_decks=e.decks, moon_shooter=None, version=m.version + 1)


_APPLY: dict[type, Callable[[Any, Any], Match]] = {
    MatchCreated: _created, RoundDealt: _dealt, PassChosen: _pass_chosen,
    PassesExchanged: _exchanged, CardPlayed: _played, TrickTaken: _trick_taken,
    MoonShot: _moon_shot, MoonChosen: _moon_chosen, RoundScored: _scored, MatchEnded: _ended,
    MatchAbandoned: _abandoned, TurnTimedOut: _timed_out, SeatAway: _away, SeatBack: _back,
}


def evolve(state: Match | None, event: Event) -> Match:
    """The state after `event`; it trusts the event, which `decide` has already checked."""
    if state is None and not isinstance(event, MatchCreated):
        raise CorruptStream(f"a stream must start with MatchCreated, not {type(event).__name__}")
    try:
        return _APPLY[type(event)](state, event)
    except (AttributeError, AssertionError, IndexError, KeyError, StopIteration,
            TypeError) as exc:
        raise CorruptStream(f"{type(event).__name__} cannot follow this state: {exc}") from exc


def fold(events: Iterable[Event], state: Match | None = None) -> Match | None:
    """The state after every event in order, starting from `state` (None: nothing yet)."""
    iterator = iter(events)
    if state is None:
        first = next(iterator, None)
        if first is None:
            return None
        state = evolve(None, first)
    apply = _APPLY
    event: Event | None = None
    try:  # one guard for the whole loop: a replay is the hot path
        for event in iterator:
            state = apply[type(event)](state, event)
    except (AttributeError, AssertionError, IndexError, KeyError, StopIteration,
            TypeError) as exc:
        raise CorruptStream(f"{type(event).__name__} cannot follow this state: {exc}") from exc
    return state
