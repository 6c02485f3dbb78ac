"""Refusals and edge values of the domain that no match played by the rules reaches."""

from __future__ import annotations

import copy
import pickle

import pytest

from domain.cards import parse_card
from domain.commands import AbandonMatch, PlayCard, Secret
from domain.decide import MAX_CLIENT_SEED, decide
from domain.errors import IllegalMove, InvalidCommand, Violation
from domain.events import AbandonReason, SeatSpec
from domain.evolve import fold
from domain.sealing import opens, seal, value_at
from domain.shuffle import shuffled_deck
from domain.verify import deals_check, replay_check
from tests.builders import PEOPLE, SECRET, SEED, create_command, random_match


def created_state():
    state = fold(decide(None, create_command()))
    assert state is not None
    return state


@pytest.mark.parametrize(("name", "why"), [
    (" Ann", "no spaces at either end"), ("Ann ", "no spaces at either end"),
    ("Zoe\u0301", "in Unicode normal form C"), ("", "1 to 40 characters"),
])
def test_a_seat_name_that_could_hide_or_imitate_text_is_refused(name, why):
    seats = (SeatSpec(name), *PEOPLE[1:])
    with pytest.raises(InvalidCommand) as error:
        decide(None, create_command(seats=seats))
    assert error.value.field == "seats[0].name" and error.value.reason == why


def test_a_client_seed_past_its_length_is_refused():
    with pytest.raises(InvalidCommand) as error:
        decide(None, create_command(client_seed="x" * (MAX_CLIENT_SEED + 1)))
    assert error.value.field == "client_seed"


@pytest.mark.parametrize("seat", [-1, 4])
def test_a_seat_outside_the_table_is_refused(seat):
    with pytest.raises(InvalidCommand) as error:
        decide(created_state(), AbandonMatch(AbandonReason.BY_SEAT, seat, SECRET))
    assert error.value.field == "seat"


def test_a_move_decided_with_another_secret_is_refused():
    state = created_state()
    with pytest.raises(InvalidCommand, match="commitment"):
        decide(state, AbandonMatch(AbandonReason.BY_SEAT, 0, Secret(bytes(32))))
    deck = shuffled_deck(SEED, "", 1)
    with pytest.raises(InvalidCommand, match="given decks"):
        decide(state, AbandonMatch(AbandonReason.BY_SEAT, 0, Secret(SEED, (deck,))))


def test_an_abandon_needs_a_match_and_a_seat_exactly_when_a_seat_gives_it_up():
    with pytest.raises(IllegalMove) as error:
        decide(None, AbandonMatch(AbandonReason.IDLE, None, SECRET))
    assert error.value.code is Violation.WRONG_PHASE
    state = created_state()
    for reason, seat in [(AbandonReason.BY_SEAT, None), (AbandonReason.IDLE, 2)]:
        with pytest.raises(InvalidCommand):
            decide(state, AbandonMatch(reason, seat, SECRET))
    with pytest.raises(IllegalMove):
        decide(None, PlayCard(0, parse_card("2C"), SECRET))


def test_an_abandoned_log_replays_and_its_deals_recompute():
    _, events, command = random_match(11)
    state = fold(events[:20])
    assert state is not None
    abandoned = decide(state, AbandonMatch(AbandonReason.IDLE, None, command.secret))
    log = [*events[:20], *abandoned]
    assert replay_check(log, command.secret).ok
    assert deals_check(log) is True
    assert deals_check([abandoned[0], *log[1:]]) is False, "a log that does not begin well"


def test_cards_are_values_that_copy_and_pickle_as_themselves():
    queen = parse_card("QS")
    assert repr(queen) == "QS" and str(queen) == "QS"
    assert copy.copy(queen) is queen and copy.deepcopy(queen) is queen
    assert pickle.loads(pickle.dumps(queen)) is queen


def test_a_commitment_opens_only_with_its_salt_and_value():
    sealed = seal(SEED, "r1/hands.0", ["2C", "3C"])
    assert opens(sealed.commitment, sealed.salt, ["2C", "3C"])
    assert not opens(sealed.commitment, sealed.salt, ["2C", "4C"])
    assert not opens(sealed.commitment, "not hex", ["2C", "3C"])
    assert not opens(sealed.commitment, sealed.salt[:-2], ["2C", "3C"])
    assert value_at({"hands": [["2C"]]}, "hands.0") == ["2C"]
    assert value_at({"hands": [["2C"]]}, "hands.1") is None
    assert value_at({"hands": "x"}, "hands.0") is None
