"""What seeing every hand would be worth to the expert's search: its plays chosen on the true
deal instead of sampled ones, and its passes likewise (or, with `--blind-passes`, as the
expert passes), against the heuristic bot in the arena's duplicate deals.

This is not a player the service has: it cheats, and only a bench may. Its search is the
expert's own, card for card and pass for pass, with the same simulated players; only the
deals differ. Since a rollout plays the same on the same deal, one deal a choice is its whole
search. What it reaches bounds what any reading of the hands could give this search: the
rest of the gap lies in how the simulated players play.

    python -m bench sighted                                   # quick: 20 deals
    python -m bench.sighted_bench --deals 1000 --seed 3       # the arena's deals of seed 3
    python -m bench.sighted_bench --deals 1000 --seed 3 --blind-passes
    python -m bench.sighted_bench --deals 1000 --seed 3 --blind-passes --planning
    python -m bench.sighted_bench --deals 1000 --seed 3 --blind-passes --planning --kin-across
    python -m bench.sighted_bench --deals 1000 --seed 3 --blind-passes --planning --kin-across \
        --own-by-rules
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Iterator, Sequence
from random import Random

from bench.figures import interval
from bench.options import deals_parser
from domain.bots.base import Policy
from domain.bots.duplicate import Observer, duplicate_deal, play_hand
from domain.bots.expert import ExpertPolicy, distinct_plays
from domain.bots.heuristic import HeuristicPolicy, carries_moon
from domain.bots.knowledge import Knowledge, knowledge
from domain.bots.pass_search import searched_pass
from domain.bots.rollout import Hand, margin, suited
from domain.bots.sampling import Deals
from domain.cards import Card
from domain.commands import PlayCard, Secret
from domain.decide import decide
from domain.events import RoundScored
from domain.evolve import fold
from domain.state import Match, Round
from domain.table import FOUR_SEATS
from domain.views import MatchView


class Sighted(ExpertPolicy):
    """The expert searching the true deal: the whole state (and the secret, for a planning
    one to play rounds on with) is shown to it by `sight` before every decision."""

    def __init__(self, blind_passes: bool = False) -> None:
        super().__init__(iterations=1)  # one deal a card: the true one
        self.blind_passes = blind_passes
        self.state: Match | None = None
        self.secret: Secret | None = None

    def choose_pass(self, view: MatchView, rng: Random) -> tuple[Card, Card, Card]:
        if self.blind_passes or carries_moon(knowledge(view)):
            return super().choose_pass(view, rng)  # the expert's own, on sampled deals
        dealt = [[card.index for card in hand] for hand in self._round().dealt]
        return searched_pass(view, rng, 1, dealt)

    def deals(self, view: MatchView, k: Knowledge) -> Deals:
        return TrueDeal([suited(card.index for card in hand) for hand in self._round().hands])

    def _round(self) -> Round:
        assert self.state is not None and self.state.round is not None
        return self.state.round


class TrueDeal:
    def __init__(self, hands: list[Hand]) -> None:
        self.hands = hands

    def deal(self, rng: Random) -> list[Hand]:
        return [[list(suit) for suit in hand] for hand in self.hands]


class Planning(Sighted):
    """Seeing every hand, and weighing each card by the round played on from it with its
    own later cards chosen as `Sighted` chooses them and the others' as heuristic bots play
    (as the simulated players play, at 99.8% of plays): what playing its own later cards
    better than a heuristic bot, inside the search, would be worth. With `kin_across`, the
    seat across plays on as `Sighted` too: at the arena's table it holds the same player. With
    `own_by_rules`, its own later cards are played on as a heuristic bot plays them."""

    def __init__(self, blind_passes: bool = False, kin_across: bool = False,
                 own_by_rules: bool = False) -> None:
        super().__init__(blind_passes)
        self.kin_across = kin_across
        self.own_by_rules = own_by_rules

    def searching(self, view: MatchView, rng: Random,
                  values: dict[Card, float] | None = None) -> Iterator[Card]:
        if values is not None:
            raise ValueError("this search keeps no mean outcomes to report")
        assert view.you is not None and self.state is not None and self.secret is not None
        legal = sorted(view.you.legal)
        me = view.you.seat
        cards = distinct_plays(view, knowledge(view), legal) if len(legal) > 1 else legal
        if len(cards) == 1:
            yield cards[0]
            return
        scored = {card: self._played_on(me, card) for card in cards}
        yield min(cards, key=lambda card: (scored[card], card.index))

    def _played_on(self, me: int, card: Card) -> float:
        """`me`'s score against the others' mean once `card` is played and the round
        played on."""
        assert self.state is not None and self.secret is not None
        events = decide(self.state, PlayCard(me, card, self.secret))
        end = next((e for e in events if isinstance(e, RoundScored)), None)
        if end is None:
            after = fold(events, self.state)
            assert after is not None
            seats: list[Policy] = [HeuristicPolicy() for _ in after.seats]
            if not self.own_by_rules:
                seats[me] = Sighted(blind_passes=True)
            if self.kin_across:
                seats[(me + len(seats) // 2) % len(seats)] = Sighted(blind_passes=True)
            end = play_hand(after, seats, Random(0), self.secret, sight(seats))
        scores = end.scores
        return margin(scores, me)


def sight(policies: Sequence[Policy]) -> Observer:
    """An observer that shows the whole state and the secret to every sighted one of
    `policies`."""
    def observe(state: Match, secret: Secret) -> None:
        for policy in policies:
            if isinstance(policy, Sighted):
                policy.state, policy.secret = state, secret
    return observe


def play_deal(task: tuple[int, int, bool, bool, bool, bool]) -> tuple[float, float]:
    """One duplicate deal, drawn as `cardems arena` draws its deal of that number and seed:
    the sighted expert's and the heuristic's points per hand held."""
    seed, number, blind_passes, planning, kin_across, own_by_rules = task
    rng = Random(f"{seed}/{number}")
    cards = list(FOUR_SEATS.cards)
    rng.shuffle(cards)
    player = Planning(blind_passes, kin_across, own_by_rules) if planning \
        else Sighted(blind_passes)
    pair: tuple[Policy, Policy] = (player, HeuristicPolicy())
    result = duplicate_deal(pair, cards, number, rng, observe=sight(pair))
    return result.per_hand(0), result.per_hand(1)


def arena(deals: int, seed: int, jobs: int, first: int = 1, blind_passes: bool = False,
          planning: bool = False, kin_across: bool = False, own_by_rules: bool = False) -> None:
    started = time.monotonic()
    tasks = [(seed, number, blind_passes, planning, kin_across, own_by_rules)
             for number in range(first, first + deals)]
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        results = pool.map(play_deal, tasks, chunksize=4)
    passes = "passing as the expert does" if blind_passes else "passing on the true deal too"
    plans = ", planning its own later plays" if planning and not own_by_rules else ""
    plans += ", its own later plays by rules of thumb" if planning and own_by_rules else ""
    plans += " and the across seat's as its own" if planning and kin_across else ""
    print(f"sighted: {deals} duplicate deals from {first} (seed {seed}), the expert seeing every"
          f" hand at two seats ({passes}{plans}), the heuristic bot at two;"
          f" {time.monotonic() - started:.0f} s on {jobs} processes")
    sighted, ci = interval([r[0] for r in results])
    heuristic, ci_h = interval([r[1] for r in results])
    gap, ci_gap = interval([a - b for a, b in results])
    print(f"  sighted expert {sighted:5.2f} ± {ci:.2f} points a hand")
    print(f"  heuristic      {heuristic:5.2f} ± {ci_h:.2f} points a hand")
    print(f"  difference {gap:+.2f} ± {ci_gap:.2f} a hand; ratio {sighted / heuristic:.2f}")


def main() -> None:
    arena(deals=20, seed=3, jobs=os.cpu_count() or 1)


if __name__ == "__main__":
    parser = deals_parser(__doc__, deals=200, seed=3)
    parser.add_argument("--blind-passes", action="store_true",
                        help="pass as the expert does, on sampled deals")
    parser.add_argument("--planning", action="store_true",
                        help="its own later plays searched too, inside the search")
    parser.add_argument("--kin-across", action="store_true",
                        help="with --planning: the seat across played on as the sighted search")
    parser.add_argument("--own-by-rules", action="store_true",
                        help="with --planning: its own later plays as the heuristic bot's")
    options = parser.parse_args()
    arena(options.deals, options.seed, options.jobs, options.first, options.blind_passes,
          options.planning, options.kin_across, options.own_by_rules)
