"""The expert against an outside reference: OpenSpiel's information-set MCTS (its C++ bot,
random rollouts), on the same deals, one round a deal.

Duplicate deals: each deal is played with the expert alone at each seat against three
IS-MCTS bots, and the mirror, IS-MCTS alone at each seat against three experts. Every hand is
so held by both players, each alone against three of the other, and the luck of the cards
cancels in the difference. OpenSpiel's hearts state mirrors every action: after each one the
two engines must agree on whose turn it is, on the legal cards, and at the end on the scores.

Each IS-MCTS decision is a fresh bot searched in a fork of a waiting process
(`bench.forked_search`), so that a seed and a state give one search: OpenSpiel's bot alone
does not repeat for a seed. Run as `python -m bench.ismcts_bench`, the command starts again
with the address space laid out alike every run, and then gives the same figures each time
it is run from the same checkout.

OpenSpiel's hearts bot cannot choose a pass once another seat has passed (its resampling of
the hidden cards fails there), so an IS-MCTS pass is searched on a copy of the deal turned so
that its seat passes first: the same hand, direction and knowledge.

Run `make bench-ismcts` (installs open-spiel, a bench-only extra; the server never needs it)
for the quick run, or `.venv/bin/python -m bench ismcts-full` for the full one; a run of
one's own choosing with `.venv/bin/python -m bench.ismcts_bench --deals 60 --simulations 4000
--seed 3300`. `--expert NAME` plays a variant `bench duel` knows; with `--versus NAME` too,
the two each play alone against IS-MCTS on the same deals, paired: IS-MCTS searches alike
wherever the two players' rounds are alike. `--expert expert-sighted` is a bound, not a
player: the expert's search shown every hand (`bench sighted`), for what the same opposition
could come to were the hidden cards known.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from random import Random
from typing import Any

from bench.duel_bench import PLAYERS
from bench.figures import interval, quantile
from bench.forked_search import ForkedSearch, fixed_layout
from bench.model_bench import alike, simulated_card, true_table
from bench.sighted_bench import sight
from domain.bots.base import Policy, bot_command
from domain.bots.duplicate import dealt_state
from domain.cards import DECK, QUEEN_OF_SPADES, Card, parse_card, penalty
from domain.commands import PassCards, PlayCard, Secret
from domain.decide import decide
from domain.events import RoundScored, TrickTaken
from domain.evolve import fold
from domain.legal import legal_cards
from domain.passing import pass_direction
from domain.rules import Rules
from domain.state import Match, Status
from domain.views import seats_to_act, view_for

RULES = Rules()  # Cardems's own: the queen does not break hearts, no points on trick 1
OPEN_SPIEL_RULES = {"qs_breaks_hearts": False, "must_break_hearts": True,
                    "no_pts_on_first_trick": True, "can_lead_any_club": False,
                    "jd_bonus": False, "avoid_all_tricks_bonus": False,
                    "can_lead_hearts_instead_of_qs": False, "pass_cards": True}
RANKS = "23456789TJQKA"
SUITS = "CDHS"  # OpenSpiel's order: a card's action is rank * 4 + suit
# OpenSpiel's pass chance outcomes, by our pass directions (round 1 left, 2 right, 3 across,
# 4 hold).
PASS_OUTCOME = {"left": 1, "across": 2, "right": 3, "hold": 0}
SECRET = Secret(bytes(32))
QUICK = {"deals": 3, "simulations": (2000,), "seed": 2812, "expert": "expert"}
FULL = {"deals": 100, "simulations": (2000, 10000), "seed": 2800, "expert": "expert"}
UCT_C = 2.0


def action_of(card: Card) -> int:
    text = str(card)
    return RANKS.index(text[0]) * 4 + SUITS.index(text[1])


def card_of(action: int) -> Card:
    return parse_card(RANKS[action // 4] + SUITS[action % 4])


@dataclass(frozen=True)
class Played:
    """A round's outcome: the scores (after a moon), who took the queen, who shot the moon."""

    scores: tuple[int, ...]
    queen: int
    moon: int | None


@dataclass
class Takes:
    """Where one kind of hand's points came from: the queen, hearts, or a moon shot against
    it; and the moons it shot."""

    hands: int = 0
    queens: int = 0
    hearts: int = 0
    shot_against: int = 0
    shot: int = 0

    def count(self, played: Played, seat: int) -> None:
        self.hands += 1
        if played.moon is not None:
            self.shot += played.moon == seat
            self.shot_against += played.moon != seat
            return
        queen = played.queen == seat
        self.queens += queen
        self.hearts += played.scores[seat] - queen * penalty(QUEEN_OF_SPADES)

    def line(self) -> str:
        return (f"{self.hands} hands: the queen {self.queens / self.hands:.1%} of them, hearts "
                f"{self.hearts / self.hands:.2f} a hand, moons shot against it "
                f"{self.shot_against} ({26 * self.shot_against / self.hands:.2f} a hand), "
                f"moons it shot {self.shot}")


@dataclass
class Clock:
    """Each side's decision times, in seconds."""

    times: dict[str, list[float]] = field(default_factory=lambda: {"expert": [],
                                                                    "ismcts": []})

    def timed(self, side: str, decide_now: Callable[[], Any]) -> Any:
        start = time.perf_counter()
        got = decide_now()
        self.times[side].append(time.perf_counter() - start)
        return got


@dataclass
class Likeness:
    """How IS-MCTS's plays at the expert's table compare with a rules-of-thumb player's from
    the same position and true hands, the expert's model of a stranger: at plays with a
    choice, how often the two differ, and how often a legal card at random would differ. The
    first over the second is the slip rate (`domain.bots.rollout.SLIP`) at which that model
    differs from rules of thumb as often as IS-MCTS does. Cards that play alike (a run with
    nothing between) count as the same."""

    plays: int = 0
    differ: int = 0
    at_random: float = 0.0

    def compare(self, state: Match, seat: int, card: Card) -> None:
        view = view_for(state, seat)
        assert view.you is not None
        legal = [c.index for c in view.you.legal]
        if len(legal) < 2:
            return
        table, thumb = true_table(state, view), simulated_card(state, view)
        self.plays += 1
        self.differ += not alike(view, table, thumb, card.index)
        self.at_random += 1 - sum(alike(view, table, thumb, c) for c in legal) / len(legal)

    def line(self) -> str:
        if not self.plays:
            return "IS-MCTS at the expert's table: no plays with a choice"
        return (f"IS-MCTS at the expert's table, {self.plays} plays with a choice: rules of "
                f"thumb would play otherwise in {self.differ / self.plays:.1%}, a card at "
                f"random in {self.at_random / self.plays:.1%}; the slip rate that differs as "
                f"often, {self.differ / self.at_random:.2f}")


class Reference:
    """OpenSpiel's hearts and its IS-MCTS bot at one budget. Each decision is a fresh bot
    seeded from the round's seed and the number of actions so far, searched in a fork that
    starts from the same memory each time (`bench.forked_search`): a round replayed with the
    same choices gets the same IS-MCTS decisions."""

    def __init__(self, simulations: int, seed: int) -> None:
        import pyspiel  # a bench-only extra

        self.game = pyspiel.load_game("hearts", OPEN_SPIEL_RULES)
        self.seed = seed
        self.searches = ForkedSearch(self.game, partial(_bot, pyspiel, simulations))

    def reseed(self, seed: int) -> None:
        """The seed of the decisions to come (any integer: each decision's own is
        reduced to the bot's range)."""
        self.seed = seed

    def step(self, state: Any) -> tuple[int, float]:
        """IS-MCTS's action at `state`, and the seconds its search took."""
        history = state.history()
        actions, seconds = self.searches.search(self._seed_at(history), history)
        return actions[0], seconds

    def _seed_at(self, history: Sequence[int]) -> int:
        return (self.seed * 1_000_003 + len(history)) % 2**31

    def dealt(self, hands: Sequence[Sequence[Card]], direction: str) -> Any:
        """OpenSpiel's state after the pass direction and the deal: the k-th card dealt goes
        to player k mod 4."""
        state = self.game.new_initial_state()
        state.apply_action(PASS_OUTCOME[direction])
        ordered = [sorted(hand, key=action_of) for hand in hands]
        for k in range(52):
            state.apply_action(action_of(ordered[k % 4][k // 4]))
        return state

    def pass_of(self, hands: Sequence[Sequence[Card]], direction: str,
                seat: int) -> tuple[tuple[Card, ...], float]:
        """IS-MCTS's pass for `seat`, searched on the deal turned so that the seat passes
        first, and the seconds it took."""
        turned = [hands[(seat + i) % 4] for i in range(4)]
        history = self.dealt(turned, direction).history()
        actions, seconds = self.searches.search(self._seed_at(history), history, steps=3)
        return tuple(card_of(a) for a in actions), seconds


def _bot(pyspiel: Any, simulations: int, seed: int) -> Any:
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    return pyspiel.ISMCTSBot(seed, evaluator, UCT_C, simulations, -1,
                             pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)


def alone(seat: int, who: str) -> list[str]:
    """`who` ("expert" or "ismcts") at `seat`, the other at the rest."""
    other = "ismcts" if who == "expert" else "expert"
    return [who if s == seat else other for s in range(4)]


def play_round(deck: Sequence[Card], number: int, side: Sequence[str],
               reference: Reference, clock: Clock, rng: Random,
               expert: Policy, likeness: Likeness | None = None) -> Played:
    """One round, each seat played by its `side` ("expert" or "ismcts"). Both engines step
    together. `likeness`, when given, compares IS-MCTS's plays at a table with the expert
    with a rules-of-thumb player's."""
    state: Match = dealt_state(deck, number, SECRET, RULES)
    assert state.round is not None
    show = sight([expert])
    hands = [tuple(h) for h in state.round.hands]
    direction = pass_direction(number).value
    mirror = reference.dealt(hands, direction)
    queen = -1
    while True:
        seat = mirror.current_player()
        _agree(state, mirror, seat)
        if side[seat] == "expert":
            show(state, SECRET)  # the whole state, to a player that is a bound seeing it
            command = clock.timed("expert", partial(
                bot_command, view_for(state, seat), expert, rng, SECRET))
        elif state.status is Status.PASSING:
            cards, seconds = reference.pass_of(hands, direction, seat)
            clock.times["ismcts"].append(seconds)
            command = PassCards(seat, cards, SECRET, "ismcts")
        else:
            action, seconds = reference.step(mirror)
            clock.times["ismcts"].append(seconds)
            command = PlayCard(seat, card_of(action), SECRET, "ismcts")
            if likeness is not None and "expert" in side:
                likeness.compare(state, seat, command.card)
        assert isinstance(command, PassCards | PlayCard)
        for card in command.cards if isinstance(command, PassCards) else (command.card,):
            mirror.apply_action(action_of(card))
        events = decide(state, command)
        queen = next((e.winner for e in events if isinstance(e, TrickTaken)
                      and e.points >= penalty(QUEEN_OF_SPADES)), queen)
        scored = [e for e in events if isinstance(e, RoundScored)]
        if scored:
            assert mirror.is_terminal(), "both rounds end together"
            scores = scored[0].scores
            assert list(mirror.returns()) == [26.0 - s for s in scores], \
                ("scores", mirror.returns(), scores)
            return Played(tuple(scores), queen, scored[0].moon)
        after = fold(events, state)
        assert after is not None
        state = after


def _agree(state: Match, mirror: Any, seat: int) -> None:
    """The two engines wait on the same seat, which may play the same cards."""
    assert state.round is not None
    assert seat in seats_to_act(state), ("turn", seat, seats_to_act(state))
    theirs = sorted(card_of(a) for a in mirror.legal_actions())
    if state.status is Status.PASSING:
        assert theirs == sorted(state.round.hands[seat]), "the hand to pass from"
    else:
        assert state.round.turn == seat, ("turn", seat, state.round.turn)
        assert theirs == sorted(legal_cards(state.round, state.rules, seat)), "legal cards"


@dataclass
class Tally:
    """A run's points, deal by deal (four hands each), and where they came from."""

    per_deal: list[tuple[int, int]] = field(default_factory=list)  # the expert's, IS-MCTS's
    at_home: list[int] = field(default_factory=list)  # IS-MCTS's at a table of its own
    takes: dict[str, Takes] = field(default_factory=lambda: {
        "the expert alone": Takes(), "IS-MCTS alone": Takes(),
        "IS-MCTS at its own table": Takes()})


def dealt(deals: int, seed: int) -> Iterator[tuple[int, list[Card], int]]:
    """Each deal's index, cards and round number (every pass direction, and the hold, in
    turn), from a generator of their own: what the players draw changes none of them."""
    deals_rng = Random(seed)
    for d in range(deals):
        deck = list(DECK)
        deals_rng.shuffle(deck)
        yield d, deck, 1 + d % 4


def run(deals: int, simulations: int, seed: int, expert_name: str = "expert") -> None:
    clock = Clock()
    reference = Reference(simulations, seed)
    likeness = Likeness()
    play = partial(play_round, reference=reference, clock=clock, rng=Random(seed + 1),
                   expert=PLAYERS[expert_name](), likeness=likeness)
    tally = Tally()
    started = time.perf_counter()
    for d, deck, number in dealt(deals, seed):
        alone_points = {"expert": 0, "ismcts": 0}
        for k, (seat, who) in enumerate((s, w) for s in range(4) for w in ("expert", "ismcts")):
            reference.reseed(seed * 1_000_003 + d * 9 + k)
            played = play(deck, number, alone(seat, who))
            tally.takes["the expert alone" if who == "expert" else "IS-MCTS alone"].count(
                played, seat)
            alone_points[who] += played.scores[seat]
        tally.per_deal.append((alone_points["expert"], alone_points["ismcts"]))
        reference.reseed(seed * 1_000_003 + d * 9 + 8)
        home = play(deck, number, ["ismcts"] * 4)
        for seat in range(4):
            tally.takes["IS-MCTS at its own table"].count(home, seat)
        tally.at_home.append(sum(home.scores))
    print(f"  {expert_name} against IS-MCTS {simulations} simulations, {deals} deals (seed "
          f"{seed}), {4 * deals} hands each, {time.perf_counter() - started:.0f} s")
    report(tally, clock)
    print(f"    {likeness.line()}")


def report(tally: Tally, clock: Clock) -> None:
    per_deal, at_home = tally.per_deal, tally.at_home
    hands = 4 * len(per_deal)
    expert_total = sum(e for e, _ in per_deal)
    ismcts_total = sum(i for _, i in per_deal)
    gap, half = interval([(e - i) / 4 for e, i in per_deal])
    e_mean, e_half = interval([e / 4 for e, _ in per_deal])
    i_mean, i_half = interval([i / 4 for _, i in per_deal])
    print(f"    points a hand: expert {e_mean:.2f} \u00b1 {e_half:.2f}, IS-MCTS "
          f"{i_mean:.2f} \u00b1 {i_half:.2f}; expert - IS-MCTS {gap:+.2f} \u00b1 {half:.2f}")
    ratio = expert_total / ismcts_total if ismcts_total else float("nan")
    print(f"    the expert takes {ratio:.2f} of IS-MCTS's points, each alone against three "
          f"of the other")
    same, same_half = interval([(e - h) / 4 for (e, _), h in zip(per_deal, at_home,
                                                                 strict=True)])
    print(f"    against the same three IS-MCTS: the expert {expert_total / hands:.2f} a hand, "
          f"IS-MCTS itself {sum(at_home) / hands:.2f} ({expert_total / sum(at_home):.2f}; "
          f"{same:+.2f} \u00b1 {same_half:.2f})")
    for who, takes in tally.takes.items():
        print(f"    {who}, {takes.line()}")
    for side, times in clock.times.items():
        print(f"    {side:7s} decision p50 {quantile(times, 0.5) * 1000:.0f} ms, p95 "
              f"{quantile(times, 0.95) * 1000:.0f} ms over {len(times)} decisions")


def paired_run(deals: int, simulations: int, seed: int, first: str, second: str) -> None:
    """Two players, each alone at every seat against three IS-MCTS, on the same deals with
    the same draws of chance on both sides: IS-MCTS is reseeded alike before each round, and
    the player draws from a generator seeded by the deal and seat. Each IS-MCTS search
    repeats for its seed and state (`Reference`), so as in `bench duel` a round stays alike
    until the two players choose differently, and the difference carries only the noise of
    what followed their different choices."""
    reference = Reference(simulations, seed)
    # Held by place, not name: a player against itself plays twice, a check that the pairing
    # makes rounds alike.
    names = (first, second if second != first else f"{second} again")
    players = (PLAYERS[first](), PLAYERS[second]())
    clock = Clock()
    points: tuple[list[int], list[int]] = ([], [])
    takes = (Takes(), Takes())
    differ = 0
    started = time.perf_counter()
    for d, deck, number in dealt(deals, seed):
        rounds = {}
        for side, player in enumerate(players):
            deal_points = 0
            for seat in range(4):
                chance = seed * 1_000_003 + d * 4 + seat
                reference.reseed(chance)
                played = play_round(deck, number, alone(seat, "expert"), reference, clock,
                                    Random(chance), player)
                rounds[side, seat] = played
                takes[side].count(played, seat)
                deal_points += played.scores[seat]
            points[side].append(deal_points)
        differ += any(rounds[0, s] != rounds[1, s] for s in range(4))
        if (d + 1) % 10 == 0:  # a long run shows how far it has come
            print(f"    {d + 1} deals, {time.perf_counter() - started:.0f} s", flush=True)
    print(f"  {first} and {second}, each alone against IS-MCTS {simulations} simulations, "
          f"{deals} deals (seed {seed}), {4 * deals} hands each, "
          f"{time.perf_counter() - started:.0f} s")
    for name, got, took in zip(names, points, takes, strict=True):
        mean, half = interval([p / 4 for p in got])
        print(f"    {name}: {mean:.2f} \u00b1 {half:.2f} a hand; {took.line()}")
    gap, half = interval([(a - b) / 4 for a, b in zip(*points, strict=True)])
    print(f"    {names[0]} - {names[1]}: {gap:+.2f} \u00b1 {half:.2f} a hand; {differ} of {deals} "
          f"deals came out differently")


def _ready() -> bool:
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("bench ismcts needs OpenSpiel: `make bench-ismcts` installs it (a bench extra)")
        return False
    return True


def main(settings: dict[str, Any] = QUICK) -> None:
    if not _ready():
        return
    print("ismcts: the expert against OpenSpiel's IS-MCTS, duplicate deals, one round each")
    for simulations in settings["simulations"]:
        if settings.get("versus"):
            paired_run(settings["deals"], simulations, settings["seed"], settings["expert"],
                       settings["versus"])
        else:
            run(settings["deals"], simulations, settings["seed"], settings["expert"])


def full() -> None:
    main(FULL)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=QUICK["deals"])
    parser.add_argument("--simulations", type=int, nargs="+", default=QUICK["simulations"])
    parser.add_argument("--seed", type=int, default=QUICK["seed"])
    parser.add_argument("--expert", default="expert",
                        help="the player against IS-MCTS, a name `bench duel` knows")
    parser.add_argument("--versus", help="a second player, each alone against IS-MCTS on the "
                        "same deals, paired (no mirror, no table of four)")
    options = parser.parse_args()
    if not fixed_layout():
        print("  (the address space cannot be fixed here: IS-MCTS repeats within this run, "
              "not from one run to the next)")
    main({"deals": options.deals, "simulations": options.simulations, "seed": options.seed,
          "expert": options.expert, "versus": options.versus})
