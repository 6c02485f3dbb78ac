"""Two versions of the expert side by side, each alone among three heuristic bots on the same
hands: a measure sharp enough to keep or drop a change to the expert.

Every deal is played once per seat for each player under test: it sits at that seat and the
heuristic bot at the other three, with the same cards, the same secret and the same draws of
chance. Where two players make the same choices the rounds are the very same, so their
difference is nothing; what remains is the difference their choices make (common random
numbers). The heuristic bot in the players' place, on the same deals, gives each player's
ratio to the heuristic among the same opposition. With `--across`, the seat across from the
player is held by another player than the heuristic bot (an opponent the simulated players
do not model).

    python -m bench duel                                    # quick: 12 deals
    python -m bench.duel_bench --deals 400 --seed 41 expert-4 expert-1600
    python -m bench.duel_bench --deals 150 --seed 59 --across expert-5 expert-5 expert
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable
from itertools import count, islice
from random import Random

from bench.figures import interval
from bench.options import deals_parser
from bench.play_model import fitted_model
from bench.sighted_bench import Planning, Sighted, sight
from domain.bots.base import Policy
from domain.bots.duplicate import dealt_state, play_hand
from domain.bots.expert import ExpertPolicy
from domain.bots.heuristic import HeuristicPolicy
from domain.commands import Secret
from domain.passing import PassDirection, pass_direction
from domain.rules import Rules
from domain.table import FOUR_SEATS

# The players a duel may name: the expert as it ships, and the variants under trial. A
# variant is the expert of its day with one change; those of version 6 are now version 7's.
PLAYERS: dict[str, Callable[[], Policy]] = {
    "heuristic": HeuristicPolicy,
    "expert": ExpertPolicy,
    "expert-close": lambda: ExpertPolicy(close_calls=1600),  # 6, close calls given more
    "expert-close-800": lambda: ExpertPolicy(close_calls=800),  # and at most half as many
    "expert-6": lambda: ExpertPolicy(noisy_strangers=False),  # version 6, as it shipped
    # version 5, as it shipped
    "expert-5": lambda: ExpertPolicy(read_plays=False, noisy_strangers=False),
    # version 4, as it shipped
    "expert-4": lambda: ExpertPolicy(800, 0, read_plays=False, noisy_strangers=False),
    # 4, twice the deals; and 4 with passes searched
    "expert-1600": lambda: ExpertPolicy(1600, 0, read_plays=False, noisy_strangers=False),
    "expert-pass": lambda: ExpertPolicy(800, 1000, read_plays=False, noisy_strangers=False),
    "expert-kin": lambda: ExpertPolicy(kin=True),  # 6, another expert's plays searched
    "expert-kin-own": lambda: ExpertPolicy(kin=True, plan_own=True),  # and its own too
    "expert-kin-1": lambda: ExpertPolicy(kin=True, kin_tricks=1),  # within this trick
    "expert-kin-2": lambda: ExpertPolicy(kin=True, kin_tricks=2),  # this trick and the next
    "expert-kin-160": lambda: ExpertPolicy(160, kin=True),  # a tenth of the deals: equal time
    # 6, another expert's plays by the model fitted to the expert's decisions (bench/play_model)
    "expert-kin-model": lambda: ExpertPolicy(kin=True, kin_player=fitted_model()),
    "expert-kin-model-270": lambda: ExpertPolicy(270, kin=True, kin_player=fitted_model()),
    "expert-kin-model-1": lambda: ExpertPolicy(kin=True, kin_tricks=1, kin_player=fitted_model()),
    "expert-kin-model-2": lambda: ExpertPolicy(kin=True, kin_tricks=2, kin_player=fitted_model()),
    "expert-unread-kin": lambda: ExpertPolicy(read_kin=False),  # 6, another expert not read
    "expert-pass-read": lambda: ExpertPolicy(read_pass=True),  # 6, the pass received read
    # and each sampled hand of the passer checked whole against what it passed
    "expert-pass-whole": lambda: ExpertPolicy(read_pass=True, whole_pass=True),
    # 6, the others simulated as shooting the moon with two cards that may lose, not one
    "expert-bold": lambda: ExpertPolicy(bold_shooters=True),
    # 6, the others simulated as leaving another's run at the moon for it alone to stop
    "expert-lone": lambda: ExpertPolicy(lone_stopper=True),
    # 6 given, plays and passes alike, the rollouts its faster search makes in its former time
    "expert-2000": lambda: ExpertPolicy(2000, 1250),
    # 6, the others simulated as now and then playing a legal card at random
    "expert-noisy": lambda: ExpertPolicy(noisy_others=True),
    # 7, people's seats slipping as often as IS-MCTS's plays differ from rules of thumb
    "expert-slip-80": lambda: ExpertPolicy(slip=0.8),
    "expert-sighted": Sighted,  # 6 seeing every hand: not a player, a bound (bench sighted)
    "expert-sighted-plays": lambda: Sighted(blind_passes=True),  # the same, passing blind
    "expert-planning": lambda: Planning(blind_passes=True),  # and its own later plays searched
}


def play_deal(task: tuple[tuple[str, ...], int, int, str | None],
              ) -> tuple[list[int], list[float]]:
    """One deal: each player's points summed over the four seats it held, and the seconds
    it spent; the heuristic's first, in the players' place."""
    names, seed, number, across = task
    deal_rng = Random(f"duel/{seed}/{number}")
    cards = list(FOUR_SEATS.cards)
    deal_rng.shuffle(cards)
    secret = Secret(deal_rng.randbytes(32))
    opposite = PLAYERS[across]() if across else HeuristicPolicy()
    points: list[int] = []
    spent: list[float] = []
    for name in ("heuristic", *names):
        player = PLAYERS[name]()
        taken, started = 0, time.process_time()
        for seat in range(4):
            seats: list[Policy] = [HeuristicPolicy()] * 4
            seats[(seat + 2) % 4] = opposite
            seats[seat] = player
            state = dealt_state(cards, number, secret, Rules(end_score=10_000), FOUR_SEATS,
                                [s.name for s in seats])
            chance = Random(f"duel/{seed}/{number}/{seat}")  # the same for every player
            taken += play_hand(state, seats, chance, secret, sight(seats)).scores[seat]
        points.append(taken)
        spent.append(time.process_time() - started)
    return points, spent


def duel(names: tuple[str, ...], deals: int, seed: int, jobs: int,
         across: str | None = None, passing: str | None = None) -> None:
    """`passing`, when given, plays only the deals that pass that way (the deal number sets
    the direction): the very deals of a run of them all, for a change that acts on them
    alone, since on the others two players that differ only there play the same."""
    unknown = [n for n in (*names, across or "heuristic") if n not in PLAYERS]
    if unknown:
        raise SystemExit(f"unknown players {unknown}; known: {', '.join(PLAYERS)}")
    numbers = (n for n in count(1) if passing in (None, pass_direction(n, FOUR_SEATS)))
    tasks = [(names, seed, number, across) for number in islice(numbers, deals)]
    started = time.monotonic()
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        results = pool.map(play_deal, tasks)
    hands = 4 * deals
    among = f"{across} across and two heuristic bots" if across else "three heuristic bots"
    which = f" passing {passing}" if passing else ""
    print(f"duel: {deals} deals{which} (seed {seed}), each player at every seat among {among}:"
          f" {hands} hands each; {time.monotonic() - started:.0f} s on {jobs} processes")
    whose = "the table's" if across else "its"
    per_hand = [[r[0][i] / 4 for r in results] for i in range(len(names) + 1)]
    base, _ = interval(per_hand[0])
    print(f"  {'heuristic, in their place':28s} {base:5.2f} points a hand")
    for i, name in enumerate(names, start=1):
        mean, ci = interval(per_hand[i])
        seconds = sum(r[1][i] for r in results) / hands
        print(f"  {name:28s} {mean:5.2f} ± {ci:.2f} a hand, {mean / base:.3f} of the"
              f" heuristic's; {seconds:.2f} s of {whose} thinking a hand")
    for i, first in enumerate(names, start=1):
        for j in range(i + 1, len(names) + 1):
            gap, ci = interval([a - b for a, b in zip(per_hand[i], per_hand[j], strict=True)])
            differ = sum(1 for a, b in zip(per_hand[i], per_hand[j], strict=True) if a != b)
            print(f"  {first} - {names[j - 1]}: {gap:+.3f} ± {ci:.3f} a hand"
                  f" ({differ} of {deals} deals came out differently)")


def main() -> None:
    duel(("expert-5", "expert"), deals=12, seed=12, jobs=os.cpu_count() or 1)


if __name__ == "__main__":
    parser = deals_parser(__doc__, deals=100, seed=1, first=False)
    parser.add_argument("players", nargs="+", help=f"from {', '.join(PLAYERS)}")
    parser.add_argument("--across", default=None,
                        help="the player across the table (default: a heuristic bot)")
    parser.add_argument("--passing", default=None, choices=[d.value for d in PassDirection],
                        help="only the deals that pass this way")
    options = parser.parse_args()
    duel(tuple(options.players), options.deals, options.seed, options.jobs, options.across,
         options.passing)
