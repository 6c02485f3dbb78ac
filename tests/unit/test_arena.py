from random import Random

from cli.arena import chart, run_arena
from domain.bots.base import policy_named
from domain.bots.duplicate import duplicate_deal
from domain.table import deck


def test_a_duplicate_deal_hands_each_bot_every_seats_cards_once():
    rng = Random(3)
    cards = list(deck())
    rng.shuffle(cards)
    result = duplicate_deal((policy_named("random"), policy_named("random")), cards, 1, rng)
    # Each rotation scores 26 points, or 78 when someone shoots the moon.
    assert sum(result.points) in (52, 104, 156)


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
