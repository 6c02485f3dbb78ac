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

from domain.bots.base import bot_command
from domain.bots.duplicate import dealt_state
from domain.bots.expert import table_of
from domain.bots.heuristic import HeuristicPolicy
from domain.bots.knowledge import knowledge
from domain.bots.rollout import rollout, suited
from domain.commands import PlayCard, Secret
from domain.decide import decide
from domain.events import RoundScored
from domain.evolve import fold
from domain.rules import Rules
from domain.state import Match
from domain.table import FOUR_SEATS
from domain.views import MatchView, seats_to_act, view_for


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


def run(rounds: int, seed: int) -> None:
    rng, heuristic = Random(seed), HeuristicPolicy()
    plays: Counter[str] = Counter()
    differ: Counter[str] = Counter()
    for number in range(1, rounds + 1):
        cards = list(FOUR_SEATS.cards)
        rng.shuffle(cards)
        secret = Secret(rng.randbytes(32))
        state = dealt_state(cards, number, secret, Rules(end_score=10_000))
        while True:
            view = view_for(state, seats_to_act(state)[0])
            command = bot_command(view, heuristic, rng, secret)
            assert command is not None and view.you is not None
            if isinstance(command, PlayCard) and len(view.you.legal) > 1:
                kind = kind_of(view)
                plays[kind] += 1
                differ[kind] += simulated_card(state, view) != command.card.index
            events = decide(state, command)
            if any(isinstance(e, RoundScored) for e in events):
                break
            after = fold(events, state)
            assert after is not None
            state = after
    print(f"model: {rounds} rounds of the heuristic bot (seed {seed}), plays with a choice;"
          " the simulated player's card on the true hands against the bot's")
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
