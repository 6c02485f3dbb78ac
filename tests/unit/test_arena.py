from random import Random

import pytest

from cli.arena import chart, run_arena
from cli.arena import main as arena_main
from domain.bots.base import policy_named
from domain.bots.duplicate import duplicate_deal
from domain.table import FOUR_SEATS


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
