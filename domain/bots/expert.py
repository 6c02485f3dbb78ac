"""The expert: Monte Carlo over the deals consistent with what its seat knows.

For every legal card it plays the same sampled deals out to the end of the round and keeps
the card whose outcome is best on average: its own score against the others' mean, so that
shooting the moon (and stopping one) counts as it should. Deterministic given `rng` and its
iteration budget; how long it may think is the worker's business.
"""

from __future__ import annotations

from random import Random

from domain.bots.heuristic import HeuristicPolicy
from domain.bots.knowledge import knowledge
from domain.bots.rollout import breaks_hearts, rollout
from domain.bots.sampling import sample_hands
from domain.cards import Card
from domain.rules import MoonRule
from domain.table import SEATS
from domain.views import MatchView

DEFAULT_ITERATIONS = 400  # rollouts per decision, shared among the legal cards


class ExpertPolicy:
    name = "expert"
    version = "1"

    def __init__(self, iterations: int = DEFAULT_ITERATIONS) -> None:
        self.iterations = iterations
        self._fallback = HeuristicPolicy()

    def choose_pass(self, view: MatchView, rng: Random) -> tuple[Card, Card, Card]:
        return self._fallback.choose_pass(view, rng)

    def choose_moon(self, view: MatchView, rng: Random) -> MoonRule:
        return self._fallback.choose_moon(view, rng)

    def choose_play(self, view: MatchView, rng: Random) -> Card:
        assert view.you is not None and view.trick is not None
        legal = list(view.you.legal)
        if len(legal) == 1:
            return legal[0]
        me = view.you.seat
        k = knowledge(view)
        plays = [(p.seat, p.card) for p in view.trick.plays]
        totals = dict.fromkeys(legal, 0.0)
        for _ in range(max(1, self.iterations // len(legal))):
            hands = sample_hands(view, k, rng)
            for card in legal:  # the same deal for every card: only the card differs
                after = [set(h) for h in hands]
                after[me].discard(card)
                scores = _play_out(view, after, [*plays, (me, card)])
                others = (sum(scores) - scores[me]) / (SEATS - 1)
                totals[card] += scores[me] - others
        return min(legal, key=lambda c: (totals[c], c.index))


def _play_out(view: MatchView, hands: list[set[Card]], plays: list[tuple[int, Card]],
              ) -> tuple[int, ...]:
    assert view.trick is not None
    points = list(view.round_points)
    taken = list(view.tricks)
    leader = view.trick.leader
    broken = view.hearts_broken or breaks_hearts(plays[-1][1], view.rules)
    return rollout(view.rules, hands, leader, plays, taken, points, broken)
