from random import Random

import pytest

from cli.arena import chart, run_arena
from cli.arena import main as arena_main
from domain.bots.duplicate import duplicate_deal, rotations
from domain.bots.levels import policy_named
from domain.table import FOUR_SEATS, table_for


@pytest.mark.parametrize("seed", range(6))
def test_a_duplicate_deal_hands_each_bot_every_seats_cards_once(seed):
    """The same deterministic bot on both sides plays both rotations alike, so each side
    scores the round's points once over its two turns at every seat: the two sides tie. Were
    a side to keep the same seats in both rotations, it would score what those seats took
    twice, and the sides would differ."""
    rng = Random(seed)
    cards = list(FOUR_SEATS.cards)
    rng.shuffle(cards)
    result = duplicate_deal((policy_named("heuristic"), policy_named("heuristic")), cards, 4,
                            rng)
    assert result.points[0] == result.points[1]
    assert sum(result.points) in (52, 104, 156)  # 26 a rotation, 78 when the moon is shot


def test_an_observer_is_shown_the_whole_state_before_every_command():
    rng = Random(3)
    cards = list(FOUR_SEATS.cards)
    rng.shuffle(cards)
    seen, secrets = [], set()

    def observe(state, secret):
        seen.append(state)
        secrets.add(secret)

    duplicate_deal((policy_named("heuristic"), policy_named("random")), cards, 1, rng,
                   observe=observe)
    assert len(secrets) == 1  # the deal's own secret, which the plays are checked against
    # A passing round: four passes and 52 plays in each of the two rotations.
    assert len(seen) == 2 * (4 + 52)
    # Each seat's three cards leave its hand as it passes and come back passed on; then
    # every play takes one card, the last observed with one card left to play.
    held = [52, 49, 46, 43, *range(52, 0, -1)]
    assert [sum(len(h) for h in state.round.hands) for state in seen] == held + held
    # Every seat shows the bot that holds it, as a match shows it: the two rotations swap.
    assert [s.bot for s in seen[0].seats] == ["heuristic", "random"] * 2
    assert [s.bot for s in seen[-1].seats] == ["random", "heuristic"] * 2


def test_the_arena_runs_with_a_single_deal(capsys):
    assert arena_main("heuristic", "random", 1, seed=2, chart_path=None) == 0
    out = capsys.readouterr().out
    assert "1 duplicate deals" in out and "± 0.00 per hand" in out


def test_the_same_seed_gives_the_same_tournament_whatever_the_processes():
    alone = run_arena("heuristic", "random", 20, seed=5, progress=False)
    assert alone == run_arena("heuristic", "random", 20, seed=5, progress=False, jobs=2)
    assert alone != run_arena("heuristic", "random", 20, seed=6, progress=False)


def test_the_heuristic_bot_beats_the_random_bot_beyond_doubt(tmp_path):
    heuristic, random, differences = run_arena("heuristic", "random", 150, seed=9,
                                               progress=False)
    assert heuristic.per_hand + heuristic.ci95 < random.per_hand - random.ci95
    assert len(differences) == 150
    chart(heuristic, random, tmp_path / "arena.png")
    assert (tmp_path / "arena.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize(("seats", "turns"), [
    (3, ((0, 1, 1), (1, 0, 1), (1, 1, 0))),
    (4, ((0, 1, 0, 1), (1, 0, 1, 0))),
    (5, ((0, 1, 1, 1, 1), (1, 0, 1, 1, 1), (1, 1, 0, 1, 1), (1, 1, 1, 0, 1), (1, 1, 1, 1, 0))),
    (6, ((0, 1, 0, 1, 0, 1), (1, 0, 1, 0, 1, 0))),
])
def test_the_seats_are_rotated_so_each_policy_holds_every_seats_cards_alike(seats, turns):
    assert rotations(seats) == turns
    for seat in range(seats):  # every seat held by each policy equally often
        held = [turn[seat] for turn in turns]
        assert held.count(0) == len(turns) - held.count(1) == sum(t.count(0) for t in turns) \
            // seats


@pytest.mark.parametrize("seats", [3, 5, 6])
def test_a_duplicate_deal_at_any_count_ties_a_bot_with_itself(seats):
    """Each side holds every seat's cards alike, so one deterministic bot on both sides takes
    as many points per hand on each."""
    table = table_for(seats)
    rng = Random(seats)
    cards = list(table.cards)
    rng.shuffle(cards)
    result = duplicate_deal((policy_named("heuristic"), policy_named("heuristic")), cards, 1,
                            rng, table=table)
    assert result.per_hand(0) == pytest.approx(result.per_hand(1))
    assert sum(result.hands) == seats * len(rotations(seats))


def test_the_arena_plays_at_three_seats(capsys):
    assert arena_main("heuristic", "random", 2, seed=2, chart_path=None, jobs=1, seats=3) == 0
    out = capsys.readouterr().out
    assert "2 duplicate deals at 3 seats (6 hands for heuristic, 12 for random)" in out


def test_a_tournament_played_in_parts_adds_up_to_the_whole():
    """Deals are drawn from their numbers, so deals 1-2 and 3-4 played apart are the four
    deals played at once: a long tournament can be continued or shared between machines."""
    whole = run_arena("heuristic", "random", 4, seed=7, progress=False)[2]
    first = run_arena("heuristic", "random", 2, seed=7, progress=False)[2]
    rest = run_arena("heuristic", "random", 2, seed=7, progress=False, first_deal=3)[2]
    assert first + rest == whole
    assert rest != first


def test_the_arena_says_which_deals_it_played(capsys):
    assert arena_main("heuristic", "random", 2, seed=2, chart_path=None, first_deal=5) == 0
    assert "2 duplicate deals (numbers 5 to 6) at 4 seats" in capsys.readouterr().out
