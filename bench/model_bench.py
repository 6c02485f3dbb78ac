"""How closely the expert's simulated players play as the heuristic bot: in rounds the
heuristic bot plays, at every play with a choice, the card a simulated player would play from
the same position and the same true hands, against the bot's own card.

    python -m bench model                          # quick: 40 rounds
    python -m bench.model_bench --rounds 300 --seed 11
"""

from __future__ import annotations

import argparse
from collections import Counter
from random import Random

from bench.watching import Watching, play_round
from domain.bots.expert import table_of
from domain.bots.heuristic import HeuristicPolicy
from domain.bots.knowledge import knowledge
from domain.bots.rollout import rollout, suited
from domain.cards import Card
from domain.commands import Secret
from domain.state import Match
from domain.views import MatchView


def simulated_card(state: Match, view: MatchView) -> int:
    """The card index a simulated player plays at the view's seat, on the true hands."""
    assert state.round is not None
    table = table_of(view, knowledge(view, read_plays=False))
    table.hands = [suited(card.index for card in hand) for hand in state.round.hands]
    trace: list[tuple[int, int]] = []
    rollout(view.rules, table, trace)
    return trace[0][1]


def kind_of(view: MatchView) -> str:
    assert view.trick is not None and view.you is not None
    if not view.trick.plays:
        return "lead"
    led = view.trick.plays[0].card.suit
    return "follow" if any(card.suit is led for card in view.you.hand) else "discard"


class Compared(Watching):
    """The heuristic bot, each of its plays with a choice set beside the simulated player's
    card on the true hands, which `observe` is shown before every command."""

    def __init__(self) -> None:
        super().__init__(HeuristicPolicy())
        self.state: Match | None = None
        self.plays, self.differ = Counter[str](), Counter[str]()

    def observe(self, state: Match, secret: Secret) -> None:
        self.state = state

    def seen(self, view: MatchView, card: Card) -> None:
        assert view.you is not None and self.state is not None
        if len(view.you.legal) > 1:
            kind = kind_of(view)
            self.plays[kind] += 1
            self.differ[kind] += simulated_card(self.state, view) != card.index


def run(rounds: int, seed: int) -> None:
    rng, compared = Random(seed), Compared()
    for number in range(1, rounds + 1):
        play_round(rng, number, [compared] * 4, compared.observe)
    print(f"model: {rounds} rounds of the heuristic bot (seed {seed}), plays with a choice;"
          " the simulated player's card on the true hands against the bot's")
    plays, differ = compared.plays, compared.differ
    for kind in ("lead", "follow", "discard"):
        print(f"  {kind:8s} {differ[kind]:5d} of {plays[kind]:6d} differ")
    total, wrong = sum(plays.values()), sum(differ.values())
    print(f"  all      {wrong:5d} of {total:6d} differ ({100 * wrong / total:.2f}%)")


def main() -> None:
    run(rounds=40, seed=11)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    options = parser.parse_args()
    run(options.rounds, options.seed)
