"""How closely the expert's simulated players play as the bots they stand for: in rounds a
bot plays at every seat, at every play with a choice, the card a simulated player would play
from the same position and the same true hands, against the bot's own card. Two simulated
players: by rules of thumb, as every seat plays in the expert's rollouts, and by a one-ply
search over the true hands, as a seat held by the expert plays there when the expert models
it by search (`ExpertPolicy(kin=True)`). Beside them, the bot itself asked again with other
draws of chance: how often a bot that samples deals agrees with itself bounds how well any
model of it can predict it.

    python -m bench model                          # quick: 40 rounds
    python -m bench.model_bench --rounds 300 --seed 11
    python -m bench.model_bench --rounds 40 --seed 11 --bot expert
"""

from __future__ import annotations

import argparse
from collections import Counter
from random import Random

from bench.watching import Watching, play_round
from domain.bots.expert import ExpertPolicy, table_of
from domain.bots.heuristic import HeuristicPolicy
from domain.bots.knowledge import knowledge
from domain.bots.rollout import Table, distinct, out_of, rollout, searched_play, suited
from domain.cards import Card
from domain.commands import Secret
from domain.state import Match
from domain.views import MatchView


def true_table(state: Match, view: MatchView) -> Table:
    """The view's position in the simulation's terms, with every seat's true hand."""
    assert state.round is not None
    table = table_of(view, knowledge(view, read_plays=False))
    table.hands = [suited(card.index for card in hand) for hand in state.round.hands]
    return table


def simulated_card(state: Match, view: MatchView) -> int:
    """The card index a simulated player plays at the view's seat, on the true hands."""
    trace: list[tuple[int, int]] = []
    rollout(view.rules, true_table(state, view), trace)
    return trace[0][1]


def alike(view: MatchView, table: Table, one: int, other: int) -> bool:
    """Whether two cards of the view's seat play alike on `table`: a run with nothing
    between them."""
    assert view.you is not None
    pair = sorted({one, other})
    return len(distinct(view.rules, pair, out_of(table, view.you.seat))) == 1


def kind_of(view: MatchView) -> str:
    assert view.trick is not None and view.you is not None
    if not view.trick.plays:
        return "lead"
    led = view.trick.plays[0].card.suit
    return "follow" if any(card.suit is led for card in view.you.hand) else "discard"


class Compared(Watching):
    """A bot, each of its plays with a choice set beside the simulated players' cards on the
    true hands, which `observe` is shown before every command; a card that plays alike with
    the bot's (of a run with it) counts as the same."""

    def __init__(self, bot: str = "heuristic") -> None:
        super().__init__(ExpertPolicy() if bot == "expert" else HeuristicPolicy())
        self.state: Match | None = None
        self.plays, self.differ = Counter[str](), Counter[str]()
        self.searched_differ = Counter[str]()
        self.again_differ = Counter[str]()  # the bot itself, asked again with other draws
        self.again = Random(0)

    def observe(self, state: Match, secret: Secret) -> None:
        self.state = state

    def seen(self, view: MatchView, card: Card) -> None:
        assert view.you is not None and self.state is not None
        if len(view.you.legal) > 1:
            kind = kind_of(view)
            self.plays[kind] += 1
            table, index = true_table(self.state, view), card.index
            searched = searched_play(view.rules, table, view.you.seat)  # leaves `table` be
            again = self.player.choose_play(view, Random(self.again.random()))
            self.differ[kind] += not alike(view, table, simulated_card(self.state, view), index)
            self.searched_differ[kind] += not alike(view, table, searched, index)
            self.again_differ[kind] += not alike(view, table, again.index, index)


def run(rounds: int, seed: int, bot: str = "heuristic") -> None:
    rng, compared = Random(seed), Compared(bot)
    for number in range(1, rounds + 1):
        play_round(rng, number, [compared] * 4, compared.observe)
    print(f"model: {rounds} rounds of the {bot} bot (seed {seed}), plays with a choice;"
          " the simulated players' cards on the true hands against the bot's")
    plays = compared.plays
    total = sum(plays.values())
    for label, differ in (("rules of thumb", compared.differ),
                          ("one-ply search", compared.searched_differ),
                          ("the bot again, other draws", compared.again_differ)):
        print(f"  by {label}:")
        for kind in ("lead", "follow", "discard"):
            print(f"    {kind:8s} {differ[kind]:5d} of {plays[kind]:6d} differ")
        wrong = sum(differ.values())
        print(f"    all      {wrong:5d} of {total:6d} differ ({100 * wrong / total:.2f}%)")


def main() -> None:
    run(rounds=40, seed=11)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--bot", choices=("heuristic", "expert"), default="heuristic")
    options = parser.parse_args()
    run(options.rounds, options.seed, options.bot)
