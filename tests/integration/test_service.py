"""The application service over a real SQLite file: races, versions, tokens, bot turns."""

import threading

import pytest

from domain.errors import IllegalMove, Violation
from domain.events import SeatSpec
from domain.evolve import fold
from domain.rules import Rules
from domain.state import Status
from service import MatchService, decode
from service.errors import Forbidden, Unauthorized, VersionConflict
from workers.dispatch import InlineDispatcher

PEOPLE = [SeatSpec(n) for n in ("Ann", "Bob", "Cid", "Dee")]


def test_four_people_passing_at_the_same_moment_all_succeed(game):
    match = game.create(PEOPLE, Rules()).match
    start = threading.Barrier(4)
    errors = []

    def pass_three(seat):
        start.wait()
        try:
            game.pass_cards(match.id, seat, sorted(match.round.hands[seat])[:3])
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=pass_three, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    after = game.load(match.id)
    assert after.status is Status.PLAYING
    assert after.version == match.version + 5  # four passes and the exchange


def test_a_stale_if_match_is_a_conflict_and_writes_nothing(game):
    match = game.create(PEOPLE, Rules()).match
    game.pass_cards(match.id, 0, sorted(match.round.hands[0])[:3])
    with pytest.raises(VersionConflict):
        game.pass_cards(match.id, 1, sorted(match.round.hands[1])[:3],
                        expected_version=match.version)
    assert game.store.version(match.id) == match.version + 1
    game.pass_cards(match.id, 1, sorted(match.round.hands[1])[:3],
                    expected_version=match.version + 1)


def racing(game, move):
    """A second service on the same store whose next append finds `move` made just before
    it: after it has read the match and decided, as a process racing this one would."""
    made = []

    def the_other_move_lands_first() -> str:
        if not made:
            made.append(move())
        return "2026-12-03T00:00:00.000Z"

    return MatchService(game.store, now=the_other_move_lands_first), made


def test_a_move_that_lost_a_race_is_decided_again_on_the_new_state(game):
    match = game.create(PEOPLE, Rules()).match
    cards = sorted(match.round.hands[0])[:3]
    racer, made = racing(game, lambda: game.pass_cards(match.id, 0, cards))
    with pytest.raises(IllegalMove) as lost:
        racer.pass_cards(match.id, 0, cards)
    assert made and lost.value.code is Violation.ALREADY_PASSED
    assert game.store.version(match.id) == match.version + 1


def test_a_move_that_lost_a_race_to_another_seat_is_applied_after_it(game):
    match = game.create(PEOPLE, Rules()).match
    mine, theirs = (sorted(match.round.hands[s])[:3] for s in (1, 0))
    racer, made = racing(game, lambda: game.pass_cards(match.id, 0, theirs))
    reply = racer.pass_cards(match.id, 1, mine)
    assert made and reply.version == match.version + 2
    assert game.load(match.id).round.passes[1] == tuple(mine)


def test_tokens_open_one_seat_of_one_match(game):
    first = game.create(PEOPLE, Rules())
    second = game.create(PEOPLE, Rules())
    assert game.seat_of(first.match.id, first.tokens[2]) == 2
    assert game.seat_of(first.match.id, None) is None
    with pytest.raises(Forbidden):
        game.seat_of(first.match.id, second.tokens[2])
    with pytest.raises(Unauthorized):
        game.seat_of(first.match.id, "not-a-token")
    stored = game.store.get_meta(first.match.id, "tokens")
    assert all(t not in stored for t in first.tokens.values()), "only hashes are kept"


def test_a_bot_turn_run_twice_or_late_does_nothing_more(game):
    seats = [SeatSpec("Ann"), *(SeatSpec(f"b{i}", "random") for i in range(3))]
    match = game.create(seats, Rules()).match
    assert game.bot_turn(match.id, 1, match.version)
    assert not game.bot_turn(match.id, 1, match.version), "seat 1 has passed already"
    assert not game.bot_turn(match.id, 0, match.version), "seat 0 is a person"
    assert game.store.version(match.id) == match.version + 1


def test_bots_play_on_their_own_until_a_person_must_act(store):
    game = MatchService(store, lambda service: InlineDispatcher(service.bot_turn))
    dispatcher = game.dispatcher
    assert isinstance(dispatcher, InlineDispatcher)
    seats = [SeatSpec(f"b{i}", "heuristic") for i in range(4)]
    match = game.create(seats, Rules(end_score=30)).match
    for _ in range(200):
        dispatcher.wait_idle()
        if game.load(match.id).status is Status.FINISHED:
            break
    final = game.load(match.id)
    assert final.status is Status.FINISHED
    fresh = fold(decode(e) for e in store.read(match.id))
    assert fresh == final, "a replay of the stored log equals the live state"
    dispatcher.close()
