"""decide(state, command) -> events: every rule check lives here."""

from __future__ import annotations

import hmac
import unicodedata
from collections.abc import Callable
from typing import Any

from domain.cards import Card, penalty, spell
from domain.commands import (
    AbandonMatch,
    Autoplay,
    ChooseMoon,
    ComeBack,
    Command,
    CreateMatch,
    Move,
    PassCards,
    PlayCard,
    Secret,
    TimeOut,
)
from domain.errors import IllegalMove, InvalidCommand, Violation
from domain.events import (
    AbandonReason,
    CardPlayed,
    Event,
    Hand,
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
from domain.evolve import evolve
from domain.legal import play_violation, trick_winner
from domain.passing import PassDirection, pass_direction, passer_to
from domain.rules import MoonRule
from domain.scoring import match_winner, needs_moon_choice, score_round
from domain.sealing import Seal, seal
from domain.shuffle import deal, deck_problem, seed_commitment, shuffled_deck
from domain.state import Match, Round, Status
from domain.table import MAX_SEATS, MIN_SEATS, Table, table_for
from domain.views import seats_to_act

PASS_SIZE = 3
MAX_NAME = 40
MAX_CLIENT_SEED = 256
SEED_BYTES = 32  # the server seed: 32 random bytes, committed to at creation


def decide(state: Match | None, command: Command) -> list[Event]:
    """The events that `command` produces, or IllegalMove / InvalidCommand; nothing else."""
    handler: Callable[[Any, Any], list[Event]] = _DECIDE[type(command)]
    if isinstance(command, PassCards | PlayCard | ChooseMoon) and command.bot is None \
            and state is not None and command.seat in state.away:
        # A move of the person's own, while away, says the person is back.
        back = SeatBack(command.seat)
        return [back, *handler(evolve(state, back), command)]
    return handler(state, command)


def round_deck(secret: Secret, client_seed: str, number: int, table: Table,
               ) -> tuple[Card, ...]:
    """The deck of round `number`: a given deck while they last, then the committed shuffle."""
    if number <= len(secret.decks):
        return secret.decks[number - 1]
    return shuffled_deck(secret.server_seed, client_seed, number, table)


def _seal(secret: Secret, label: str, cards: tuple[Card, ...]) -> Seal:
    """The seal of a group of cards, over exactly the list the event's data shows."""
    return seal(secret.server_seed, label, [str(c) for c in cards])


def _seal_each(secret: Secret, label: str, groups: tuple[tuple[Card, ...], ...],
               ) -> tuple[Seal, ...]:
    return tuple(_seal(secret, f"{label}.{s}", cards) for s, cards in enumerate(groups))


def _deal_round(match: Match, secret: Secret, number: int) -> RoundDealt:
    table = match.table
    dealer = match.rules.dealer_of(number, table.seats)
    hands = deal(round_deck(secret, match.client_seed, number, table), dealer, table)
    return RoundDealt(number, dealer, pass_direction(number, table), hands,
                      _seal_each(secret, f"r{number}/hands", hands))


def _create(state: Match | None, c: CreateMatch) -> list[Event]:
    if state is not None:
        raise IllegalMove(Violation.WRONG_PHASE, "this match already exists")
    _check_seats(c)
    if len(c.secret.server_seed) != SEED_BYTES:
        raise InvalidCommand("server_seed", f"must be {SEED_BYTES} bytes")
    if len(c.client_seed) > MAX_CLIENT_SEED:
        raise InvalidCommand("client_seed", f"at most {MAX_CLIENT_SEED} characters")
    table = table_for(len(c.seats))
    for i, cards in enumerate(c.secret.decks):
        problem = deck_problem(cards, table)
        if problem:
            raise InvalidCommand(f"decks[{i}]", problem)
    created = MatchCreated(c.match_id, c.rules, c.seats, c.client_seed,
                           seed_commitment(c.secret.server_seed), len(c.secret.decks),
                           c.created_at)
    return [created, _deal_round(evolve(None, created), c.secret, 1)]


def _check_seats(c: CreateMatch) -> None:
    if not MIN_SEATS <= len(c.seats) <= MAX_SEATS:
        raise InvalidCommand("seats", f"{MIN_SEATS} to {MAX_SEATS} seats")
    if c.rules.first_dealer >= len(c.seats):
        raise InvalidCommand("rules.first_dealer", f"must be a seat from 0 to {len(c.seats) - 1}")
    for i, seat in enumerate(c.seats):
        problem = name_problem(seat.name)
        if problem:
            raise InvalidCommand(f"seats[{i}].name", problem)


def name_problem(name: str) -> str | None:
    """Why `name` cannot name a seat, or None. A name is shown on every screen beside the
    others, so nothing in it may hide, reorder or imitate other text."""
    if not 1 <= len(name) <= MAX_NAME:
        return f"1 to {MAX_NAME} characters"
    if not name.isprintable():  # control, format (bidirectional overrides), separators
        return "printable characters only: no control or bidirectional-override characters"
    if name != name.strip():
        return "no spaces at either end"
    if unicodedata.normalize("NFC", name) != name:
        return "in Unicode normal form C"
    if unicodedata.category(name[0]).startswith("M"):
        return "no combining mark at the start: it would fall on the text before the name"
    if not any(_shows(char) for char in name):
        return "at least one visible character: this name would render blank"
    return None


# Printable, and drawn as nothing: the fillers of Hangul and the blank of Braille.
BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _shows(char: str) -> bool:
    """True for a character that draws something of its own: a letter, digit, punctuation or
    symbol that is no blank; marks and spaces only modify or separate."""
    return char not in BLANK and unicodedata.category(char)[0] in "LNPS"


def _pass(state: Match | None, c: PassCards) -> list[Event]:
    rnd = _round_in(state, Status.PASSING, "passes are chosen only before the first lead")
    assert state is not None
    _check_seat(state, c.seat)
    if rnd.passes[c.seat] is not None:
        raise IllegalMove(Violation.ALREADY_PASSED, "your pass is chosen and cannot change")
    cards = tuple(sorted(set(c.cards)))
    if len(c.cards) != PASS_SIZE or len(cards) != PASS_SIZE:
        raise IllegalMove(Violation.PASS_NEEDS_THREE_CARDS,
                          f"choose exactly {PASS_SIZE} different cards")
    missing = [card for card in cards if card not in rnd.hands[c.seat]]
    if missing:
        raise IllegalMove(Violation.CARD_NOT_IN_HAND,
                          f"{' '.join(spell(missing))} not in your hand")
    _check_seed(state, c.secret)  # a pass seals but deals nothing: the decks do not matter
    label = f"r{rnd.number}"
    events: list[Event] = [PassChosen(rnd.number, c.seat, cards, c.bot,
                                      _seal(c.secret, f"{label}/pass.{c.seat}/cards", cards))]
    passes = list(rnd.passes)
    passes[c.seat] = cards
    if all(p is not None for p in passes):
        received = _received(passes, rnd.pass_direction, state.table)
        events.append(PassesExchanged(rnd.number, received,
                                      _seal_each(c.secret, f"{label}/received", received)))
    return events


def _received(passes: list[Any], direction: PassDirection, table: Table,
              ) -> tuple[tuple[Card, ...], ...]:
    return tuple(passes[passer_to(seat, direction, table)] for seat in range(table.seats))


def _play(state: Match | None, c: PlayCard) -> list[Event]:
    rnd = _round_in(state, Status.PLAYING, "cards are played once the passes are exchanged")
    assert state is not None
    _check_seat(state, c.seat)
    if rnd.turn != c.seat:
        raise IllegalMove(Violation.NOT_YOUR_TURN, f"it is seat {rnd.turn}'s turn to play")
    violation = play_violation(rnd, state.rules, c.seat, c.card)
    if violation is not None:
        raise IllegalMove(violation, _explain(violation, c.card))
    _check_secret(state, c.secret)
    events: list[Event] = [CardPlayed(c.seat, c.card, c.bot)]
    plays = (*((p.seat, p.card) for p in rnd.trick.plays), (c.seat, c.card))
    if len(plays) < state.table.seats:
        return events
    taken = TrickTaken(rnd.number, rnd.trick_number, trick_winner(plays),
                       sum(penalty(card) for _, card in plays))
    events.append(taken)
    if taken.trick < state.table.tricks:
        return events
    after = evolve(evolve(state, events[0]), taken)
    return events + _end_round(after, c.secret, None)


def _explain(violation: Violation, card: Card) -> str:
    return {
        Violation.CARD_NOT_IN_HAND: f"{card} is not in your hand",
        Violation.MUST_LEAD_TWO_OF_CLUBS: "the first trick is led with 2C",
        Violation.MUST_FOLLOW_SUIT: "you hold the suit led and must follow it",
        Violation.HEARTS_NOT_BROKEN: "hearts may not be led before they are broken",
        Violation.NO_POINTS_ON_FIRST_TRICK:
            "hearts and QS may not be discarded on the first trick while you hold another card",
    }[violation]


def _end_round(m: Match, secret: Secret, choice: MoonRule | None) -> list[Event]:
    rnd = m.round
    assert rnd is not None
    if choice is None:
        shooter = needs_moon_choice(m.rules, rnd.points, rnd.taken)
        if shooter is not None:
            return [MoonShot(rnd.number, shooter)]
    result = score_round(m.rules, rnd.points, rnd.taken, choice)
    totals = tuple(t + s for t, s in zip(m.totals, result.scores, strict=True))
    scored = RoundScored(rnd.number, result.points, result.scores, totals, result.moon,
                         result.sun, result.jack)
    winner = match_winner(m.rules, totals, result.scores)
    if winner is not None:
        return [scored, MatchEnded(winner, totals, secret.server_seed.hex(),
                                   dealt_decks(m, secret))]
    return [scored, _deal_round(m, secret, rnd.number + 1)]


def _choose_moon(state: Match | None, c: ChooseMoon) -> list[Event]:
    rnd = _round_in(state, Status.MOON_CHOICE, "no moon awaits a choice")
    assert state is not None
    if c.seat != state.moon_shooter:
        raise IllegalMove(Violation.NOT_YOUR_TURN, "only the shooter chooses how the moon scores")
    if c.choice is MoonRule.SHOOTER_CHOICE:
        raise InvalidCommand("choice", "choose add_to_others or subtract_from_self")
    _check_secret(state, c.secret)
    chosen = MoonChosen(rnd.number, c.seat, c.choice, c.bot)
    return [chosen, *_end_round(evolve(state, chosen), c.secret, c.choice)]


def _abandon(state: Match | None, c: AbandonMatch) -> list[Event]:
    if state is None:
        raise IllegalMove(Violation.WRONG_PHASE, "there is no such match")
    if state.is_over:
        raise IllegalMove(Violation.WRONG_PHASE, f"the match is {state.status.value} already")
    if (c.reason is AbandonReason.BY_SEAT) != (c.seat is not None):
        raise InvalidCommand("seat", "a seat abandons only by its own choice")
    if c.seat is not None:
        _check_seat(state, c.seat)
        if state.seats[c.seat].bot is not None:
            raise InvalidCommand("seat", "a bot does not abandon")
    _check_secret(state, c.secret)
    return [MatchAbandoned(c.reason, c.seat, state.totals, c.secret.server_seed.hex(),
                           dealt_decks(state, c.secret))]


AWAY_AFTER = 2  # timeouts in a row after which a seat is away


def _time_out(state: Match | None, c: TimeOut) -> list[Event]:
    waited = _person_waited_on(state, c.seat, c.move)
    if c.seat in waited.away:
        raise IllegalMove(Violation.WRONG_PHASE, "an away seat's moves are made without a clock")
    seconds = waited.rules.turn_seconds
    if seconds is None:
        raise IllegalMove(Violation.WRONG_PHASE, "this match has no turn clock")
    if c.now < c.started + seconds:
        raise IllegalMove(Violation.WRONG_PHASE, "the seat's clock has not run out")
    timed_out = TurnTimedOut(c.seat)
    after = evolve(waited, timed_out)
    events: list[Event] = [timed_out, *decide(after, c.move)]
    ended = isinstance(events[-1], MatchEnded)  # the move made for the seat won the match
    if after.timeouts_of(c.seat) >= AWAY_AFTER and not ended:
        events.append(SeatAway(c.seat))
    return events


def _autoplay(state: Match | None, c: Autoplay) -> list[Event]:
    waited = _person_waited_on(state, c.seat, c.move)
    if c.seat not in waited.away:
        raise IllegalMove(Violation.NOT_AWAY, "only an away seat's moves are made for it")
    return decide(waited, c.move)


def _person_waited_on(state: Match | None, seat: int, move: Move) -> Match:
    """The match, if it waits on `seat`, a person's, for a move made for it (by `move`)."""
    if state is None or state.is_over:
        raise IllegalMove(Violation.WRONG_PHASE, "the match is not waiting on anyone")
    _check_seat(state, seat)
    if state.seats[seat].bot is not None:
        raise InvalidCommand("seat", "a bot has no clock")
    if move.seat != seat or move.bot is None:
        raise InvalidCommand("move", "the move made for a seat is that seat's, by a policy")
    if seat not in seats_to_act(state):
        raise IllegalMove(Violation.NOT_YOUR_TURN, "the match is not waiting on this seat")
    return state


def _come_back(state: Match | None, c: ComeBack) -> list[Event]:
    if state is None or state.is_over:
        raise IllegalMove(Violation.WRONG_PHASE, "the match is over")
    _check_seat(state, c.seat)
    if c.seat not in state.away:
        raise IllegalMove(Violation.NOT_AWAY, "this seat is not away")
    return [SeatBack(c.seat)]


def dealt_decks(state: Match, secret: Secret) -> tuple[Hand, ...]:
    """The given decks a match's end reveals: those of the rounds it dealt, and no more. A
    deck never dealt may be another table's next deal (duplicate play shares decks)."""
    return secret.decks[:state.rounds_dealt]


def _round_in(state: Match | None, status: Status, why: str) -> Round:
    if state is None or state.round is None:
        raise IllegalMove(Violation.WRONG_PHASE, "there is no such match")
    if state.status is not status:
        raise IllegalMove(Violation.WRONG_PHASE, f"{why}; the match is {state.status.value}")
    return state.round


def _check_seat(state: Match, seat: int) -> None:
    if not 0 <= seat < state.table.seats:
        raise InvalidCommand("seat", f"a seat is 0 to {state.table.seats - 1}")


def _check_seed(state: Match, secret: Secret) -> None:
    # A wrong seed would seal with salts, or deal rounds, that the commitment does not cover.
    if not hmac.compare_digest(seed_commitment(secret.server_seed), state.seed_commitment):
        raise InvalidCommand("secret", "the secret does not match the match's commitment")


def _check_secret(state: Match, secret: Secret) -> None:
    _check_seed(state, secret)
    if len(secret.decks) != state.given_decks:
        raise InvalidCommand("secret", "the given decks do not match the match")


_DECIDE: dict[type, Callable[[Any, Any], list[Event]]] = {
    CreateMatch: _create, PassCards: _pass, PlayCard: _play, ChooseMoon: _choose_moon,
    AbandonMatch: _abandon, TimeOut: _time_out, Autoplay: _autoplay, ComeBack: _come_back,
}
