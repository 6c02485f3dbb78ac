"""The refusals and checks that guard the rest: each must fail loudly for what it names."""

from __future__ import annotations

from dataclasses import replace
from random import Random

import pytest

from domain.audit import Recorded, trick_audit
from domain.bots.autoplay import play_out
from domain.bots.levels import policy_named
from domain.cards import DECK, parse_card
from domain.codec import BadEventData, from_data, to_data
from domain.commands import PlayCard, Secret
from domain.decide import decide
from domain.errors import IllegalMove, InvalidCommand, Violation
from domain.events import CardPlayed, MatchEnded, RoundDealt, TrickTaken
from domain.evolve import CorruptStream, evolve, fold
from domain.legal import legal_cards
from domain.rules import Rules
from domain.shuffle import shuffled_deck
from domain.state import Status
from domain.verify import deals_check, replay_check
from tests.builders import (
    PEOPLE,
    SECRET,
    SEED,
    SUIT_PER_SEAT,
    create_command,
    created,
    deck_for,
    hold_round,
    random_match,
)

# --- creation ----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [b"", bytes(16), bytes(33)])
def test_a_server_seed_that_is_not_32_bytes_is_refused(seed):
    with pytest.raises(InvalidCommand) as error:
        decide(None, create_command(seed=seed))
    assert error.value.field == "server_seed"


@pytest.mark.parametrize("seats", [PEOPLE[:2], PEOPLE + PEOPLE[:3], ()])
def test_a_creation_with_fewer_than_three_or_more_than_six_seats_is_refused(seats):
    with pytest.raises(InvalidCommand) as error:
        decide(None, create_command(seats=seats))
    assert error.value.field == "seats"


def test_a_given_deck_missing_a_card_or_holding_one_twice_is_refused_by_position():
    full = shuffled_deck(SEED, "", 1)
    for bad in (full[:51], (*full[:51], full[0]), (*full, full[0])):
        with pytest.raises(InvalidCommand) as error:
            decide(None, create_command(decks=(full, bad)))
        assert error.value.field == "decks[1]"


def test_a_match_is_created_only_once():
    state = fold(decide(None, create_command()))
    with pytest.raises(IllegalMove) as error:
        decide(state, create_command())
    assert error.value.code is Violation.WRONG_PHASE


# --- events that cannot be read or cannot follow ------------------------------------------


def test_event_data_of_an_unknown_type_or_missing_a_field_is_bad_event_data():
    _, events, _ = random_match(1, Rules(end_score=1))
    data = to_data(events[0])
    with pytest.raises(BadEventData, match="unknown event type"):
        from_data("CardsShuffled", data)
    with pytest.raises(BadEventData, match="MatchCreated"):
        from_data("MatchCreated", {k: v for k, v in data.items() if k != "seats"})
    with pytest.raises(BadEventData):
        from_data("CardPlayed", {**to_data(next(e for e in events
                                                 if isinstance(e, CardPlayed))), "card": "1X"})


def test_a_stream_that_does_not_start_with_a_creation_or_creates_twice_is_corrupt():
    _, events, _ = random_match(2, Rules(end_score=1))
    with pytest.raises(CorruptStream, match="must start with MatchCreated"):
        fold(events[1:])
    with pytest.raises(CorruptStream, match="created only once"):
        evolve(fold(events[:1]), events[0])


def test_an_event_that_cannot_follow_the_state_is_corrupt_in_fold_and_in_evolve():
    _, events, _ = random_match(3, Rules(end_score=1))
    first_play = next(i for i, e in enumerate(events) if isinstance(e, CardPlayed))
    with pytest.raises(CorruptStream, match="CardPlayed cannot follow"):
        fold([events[0], events[first_play]])  # a play before any deal
    with pytest.raises(CorruptStream, match="cannot follow"):
        evolve(fold(events[:1]), events[first_play])


# --- the integrity check --------------------------------------------------------------------


def test_an_honest_log_replays_exactly_and_its_deals_recompute():
    state, events, command = random_match(4, Rules(end_score=30))
    check = replay_check(events, command.secret)
    assert check.ok and check.state == state
    assert deals_check(events) is True
    assert deals_check(events[:-1]) is None, "no verdict on the deals before the seed is out"


def test_a_move_that_was_not_allowed_is_found_at_its_version():
    _, events, command = random_match(5, Rules(end_score=1))
    i = next(i for i, e in enumerate(events) if isinstance(e, CardPlayed))
    lead = events[i]
    assert isinstance(lead, CardPlayed)
    before = fold(events[:i])
    assert before is not None and before.round is not None
    # The first lead must be the two of clubs: lead another card of the same hand instead.
    other = next(c for c in before.round.hands[lead.seat] if c != lead.card)
    forged = [*events[:i], replace(lead, card=other), *events[i + 1:]]
    check = replay_check(forged, command.secret)
    assert check.first_bad_version == i + 1
    assert check.reason == "the move was not allowed (must_lead_two_of_clubs)"


def test_a_derived_fact_that_differs_from_a_fresh_decision_is_found():
    _, events, command = random_match(6, Rules(end_score=1))
    i = next(i for i, e in enumerate(events) if isinstance(e, TrickTaken))
    taken = events[i]
    assert isinstance(taken, TrickTaken)
    forged = [*events[:i], replace(taken, winner=(taken.winner + 1) % 4), *events[i + 1:]]
    check = replay_check(forged, command.secret)
    assert (check.first_bad_version, check.reason) == (i + 1, "TrickTaken differs from a "
                                                              "fresh replay")


def test_a_log_with_an_event_no_move_explains_or_cut_short_is_found():
    _, events, command = random_match(7, Rules(end_score=1))
    stray = [*events[:2], events[1]]  # a second deal that no move produced
    check = replay_check(stray, command.secret)
    assert (check.first_bad_version, check.reason) == (3, "RoundDealt does not follow a move")
    cut = events[:1]  # the creation without the deal it always brings
    assert replay_check(cut, command.secret).first_bad_version == 2


def test_a_replay_under_another_seed_fails_at_the_first_deal():
    _, events, _ = random_match(8, Rules(end_score=1))
    check = replay_check(events, Secret(bytes(32)))
    assert check.first_bad_version == 1  # the commitment itself differs


def test_deals_that_do_not_come_from_the_revealed_seed_fail():
    _, events, _ = random_match(9, Rules(end_score=1))
    ended = events[-1]
    assert isinstance(ended, MatchEnded)
    wrong_seed = [*events[:-1], replace(ended, server_seed=bytes(32).hex())]
    assert deals_check(wrong_seed) is False
    i = next(i for i, e in enumerate(events) if isinstance(e, RoundDealt) and e.round == 1)
    dealt = events[i]
    assert isinstance(dealt, RoundDealt)
    swapped = (dealt.hands[1], dealt.hands[0], *dealt.hands[2:])
    forged = [*events[:i], replace(dealt, hands=swapped), *events[i + 1:]]
    assert deals_check(forged) is False


def test_given_decks_are_checked_against_the_deals_and_their_count():
    deck = deck_for(SUIT_PER_SEAT)
    command = create_command(Rules(end_score=1), decks=(deck,))


    _, events = play_out(command, [policy_named("random")] * 4, Random(1))
    assert deals_check(events) is True
    assert replay_check(events, command.secret).ok
    ended = events[-1]
    assert isinstance(ended, MatchEnded)
    assert deals_check([*events[:-1], replace(ended, decks=())]) is False
    other = tuple(reversed(deck))
    assert deals_check([*events[:-1], replace(ended, decks=(other,))]) is False


def test_a_match_that_ends_reveals_only_the_decks_of_the_rounds_it_dealt():
    """Duplicate play shares decks between tables: a deck never dealt here may be another
    table's next deal, so the end never shows it."""
    rng = Random(3)
    decks = tuple(tuple(rng.sample(DECK, 52)) for _ in range(6))
    command = create_command(Rules(end_score=30), decks=decks)
    state, events = play_out(command, [policy_named("heuristic")] * 4, rng)
    ended = events[-1]
    assert isinstance(ended, MatchEnded)
    dealt = state.rounds_dealt
    assert 1 < dealt < len(decks), "the match must end before its given decks run out"
    assert ended.decks == decks[:dealt]
    assert deals_check(events) is True and replay_check(events, command.secret).ok
    # One deck too many is as wrong as one too few.
    assert deals_check([*events[:-1], replace(ended, decks=decks[:dealt + 1])]) is False
    assert deals_check([*events[:-1], replace(ended, decks=decks[:dealt - 1])]) is False


# --- the trick audit as a unit ---------------------------------------------------------------


def _log(events):
    return [Recorded(v, f"h{v}", e) for v, e in enumerate(events, start=1)]


def test_the_audit_mid_round_shows_only_what_everyone_sees_and_why_the_winner_won():
    state = hold_round(SUIT_PER_SEAT)
    events = list(fold_events(state))
    for seat, card in [(0, "2C"), (1, "2H"), (2, "2S"), (3, "2D")]:
        new = decide(state, PlayCard(seat, parse_card(card), SECRET))
        events += new
        state = fold(new, state)
    report = trick_audit(_log(events), 4, 1, state)
    assert report is not None and report["complete"] and report["winner"] == 0
    assert report["round_over"] is False, "the round is still being played"
    assert set(report["plays"][0]) == {"seat", "card", "version", "hash"}, "no hand mid-round"
    assert report["why_winner"] == "2C led the trick and nobody else played clubs; " \
                                   "there are no trumps"
    assert trick_audit(_log(events), 4, 2, state) is None, "trick 2 was never led"
    assert trick_audit(_log(events), 3, 1, state) is None, "no such round in the log"


def test_the_audit_once_the_round_is_over_names_the_rule_against_each_barred_card():
    state = hold_round(SUIT_PER_SEAT, Rules(end_score=1))  # the round ends the match
    events = list(fold_events(state))
    plays = [(0, "2C"), (1, "QH"), (2, "2S"), (3, "2D")]
    for seat, card in plays:
        new = decide(state, PlayCard(seat, parse_card(card), SECRET))
        events += new
        state = fold(new, state)
    while state.status is Status.PLAYING:
        seat = state.round.turn

        card = min(legal_cards(state.round, state.rules, seat))
        new = decide(state, PlayCard(seat, card, SECRET))
        events += new
        state = fold(new, state)
    report = trick_audit(_log(events), 4, 1, state)
    assert report is not None and report["round_over"] is True
    first = report["plays"][0]
    assert first["hand_before"][0] == "2C" and first["legal"] == ["2C"]
    assert first["illegal"]["3C"] == "must_lead_two_of_clubs"
    east, south = report["plays"][1], report["plays"][2]
    assert east["card"] == "QH" and east["illegal"] == {}, "only hearts: any may go"
    assert len(east["legal"]) == 13
    assert south["illegal"] == {"QS": "no_points_on_first_trick"}
    assert "QS" not in south["legal"] and len(south["legal"]) == 12
    assert report["points"] == 1 and report["winner"] == 0


def fold_events(state):
    """The events that built a hold-round state from builders (creation and deal)."""

    yield created(state.rules)
    assert state.round is not None
    r = state.round
    yield RoundDealt(r.number, r.dealer, r.pass_direction, r.dealt)
