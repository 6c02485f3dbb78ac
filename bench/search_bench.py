"""How well the expert's search spends its rollouts: its choices, at several budgets, scored
by a far larger search with the same sampling and the same simulated players.

A position's regret is how much worse, in the reference's estimate, the chosen card does
than the reference's best (points: the seat's own score against the others' mean). This
measures the search's noise, not the simulated players' bias: the reference shares those.
"""

from __future__ import annotations

import os
import time
from functools import partial
from multiprocessing import Pool
from random import Random

from domain.bots.base import bot_command
from domain.bots.duplicate import dealt_state
from domain.bots.expert import ExpertPolicy, outcome, table_of
from domain.bots.heuristic import HeuristicPolicy
from domain.bots.knowledge import knowledge
from domain.bots.sampling import Sampler
from domain.cards import Card
from domain.commands import Secret
from domain.decide import decide
from domain.events import RoundScored
from domain.evolve import fold
from domain.rules import Rules
from domain.state import Status
from domain.table import FOUR_SEATS
from domain.views import MatchView, seats_to_act, view_for

POSITIONS = 300
REFERENCE_DEALS = 2500  # per legal card, the same deals for every card
BUDGETS = (400, 800, 1600)


def positions(count: int, seed: int = 7) -> list[MatchView]:
    """Plays with a choice to make, from rounds the heuristic plays (one in four kept, so
    that they spread over many deals); the seats show the heuristic bot, as the reference's
    simulated players take them to be."""
    rng = Random(seed)
    heuristic = HeuristicPolicy()
    found: list[MatchView] = []
    number = 0
    while len(found) < count:
        number += 1
        cards = list(FOUR_SEATS.cards)
        rng.shuffle(cards)
        secret = Secret(rng.randbytes(32))
        state = dealt_state(cards, number, secret, Rules(end_score=10_000), FOUR_SEATS,
                            [heuristic.name] * 4)
        while True:
            view = view_for(state, seats_to_act(state)[0])
            assert view.you is not None
            if view.status is Status.PLAYING and len(view.you.legal) > 1 and rng.random() < .25:
                found.append(view)
            command = bot_command(view, heuristic, rng, secret)
            assert command is not None
            events = decide(state, command)
            if any(isinstance(e, RoundScored) for e in events):
                break
            after = fold(events, state)
            assert after is not None
            state = after
    return found[:count]


def reference(job: tuple[int, MatchView], deals: int = REFERENCE_DEALS) -> dict[Card, float]:
    """Every legal card's mean outcome over `deals` sampled deals."""
    number, view = job
    assert view.you is not None
    rng, me, legal = Random(1000 + number), view.you.seat, sorted(view.you.legal)
    k = knowledge(view)
    start = table_of(view, k)
    sampler = Sampler(view, k)
    totals = dict.fromkeys(legal, 0.0)
    for _ in range(deals):
        hands = sampler.deal(rng)
        for card in legal:
            totals[card] += outcome(view.rules, start, hands, me, card)
    return {card: total / deals for card, total in totals.items()}


def choice(job: tuple[int, int, MatchView]) -> Card:
    budget, number, view = job
    return ExpertPolicy(budget).choose_play(view, Random(50 + number))


def run(count: int = POSITIONS, deals: int = REFERENCE_DEALS) -> None:
    jobs = os.cpu_count() or 1
    print(f"search: the expert's regret over {count} positions, against a search of "
          f"{deals} deals a card")
    views = positions(count)
    with Pool(jobs) as pool:
        start = time.perf_counter()
        values = pool.map(partial(reference, deals=deals), list(enumerate(views)), chunksize=1)
        print(f"  reference searched in {time.perf_counter() - start:.0f} s on {jobs} processes")
        for budget in BUDGETS:
            chosen = pool.map(choice, [(budget, n, v) for n, v in enumerate(views)], chunksize=4)
            regrets = [value[card] - min(value.values())
                       for value, card in zip(values, chosen, strict=True)]
            best = sum(1 for r in regrets if r < 1e-9)  # as good as the best, up to rounding
            print(f"  {budget:5d} rollouts  regret {sum(regrets) / len(regrets):.4f} a decision"
                  f"  best card {best}/{len(regrets)}")


def main() -> None:
    """The quick run `make bench` makes: fewer positions, a smaller reference."""
    run(count=60, deals=1000)


def full() -> None:
    """`python -m bench search-full`: the figures recorded in docs/performance.md."""
    run()
