"""The expert: Monte Carlo over the deals consistent with what its seat knows, the others'
plays read for the cards they most likely lack (`domain.bots.reading`).

For every legal card it plays the same sampled deals out to the end of the round and keeps
the card whose outcome is best on average: its own score against the others' mean, so that
shooting the moon (and stopping one) counts as it should. The others play the rollouts by
rules of thumb, and those held by people now and then play a legal card at random instead:
nobody can count on a person playing by one set of rules, and the bots' own rules are known.
Cards that play alike are tried once, and rounds of halving put the rollouts where the
choice is close. Deterministic given `rng` and its iteration budget; how long it may think
is its driver's business: the search yields its best card after every sampled deal, and a
driver short of time stops early.
Given `pass_rollouts`, its pass is searched alike: candidate passes played out on shared
sampled deals (`domain.bots.pass_search`).
"""

from __future__ import annotations

from collections.abc import Iterator
from random import Random

from domain.bots.base import to_the_end
from domain.bots.heuristic import HeuristicPolicy, carries_moon
from domain.bots.knowledge import Knowledge, knowledge
from domain.bots.pass_search import searched_pass
from domain.bots.rollout import SLIP, Hand, KinPlayer, Table, distinct, margin, played, rollout
from domain.bots.sampling import Deals, Sampler
from domain.cards import DECK, QUEEN_OF_SPADES, Card
from domain.rules import MoonRule, Rules
from domain.scoring import jack_taker
from domain.views import MatchView

DEFAULT_ITERATIONS = 1600  # rollouts per play, shared among the legal cards
PASS_ROLLOUTS = 1000  # rounds played out per pass, shared among the candidate passes
CLOSE_BATCH = 25  # sampled deals between two looks at whether a close call is settled
SETTLED = 2.0  # a lead of this many standard errors settles a close call
ALIKE = 0.25  # and so does knowing, as surely, that neither leads by more points than this


class ExpertPolicy:
    name = "expert"
    version = "7"

    def __init__(self, iterations: int = DEFAULT_ITERATIONS,
                 pass_rollouts: int = PASS_ROLLOUTS, read_plays: bool = True,
                 close_calls: int = 0, kin: bool = False, plan_own: bool = False,
                 kin_tricks: int | None = None, kin_player: KinPlayer | None = None,
                 read_kin: bool = True, read_pass: bool = False,
                 whole_pass: bool = False, bold_shooters: bool = False,
                 lone_stopper: bool = False, noisy_others: bool = False,
                 noisy_strangers: bool = True, slip: float = SLIP) -> None:
        if not 0 < slip <= 1:
            raise ValueError(f"a slip rate is a probability above zero, not {slip}")
        self.iterations = iterations
        self.pass_rollouts = pass_rollouts
        self.read_plays = read_plays
        self.close_calls = close_calls
        self.kin = kin
        self.plan_own = plan_own
        self.kin_tricks = kin_tricks
        self.kin_player = kin_player
        self.read_kin = read_kin
        self.read_pass = read_pass
        self.whole_pass = whole_pass
        self.bold_shooters = bold_shooters
        self.lone_stopper = lone_stopper
        self.noisy_others = noisy_others
        self.noisy_strangers = noisy_strangers
        self.slip = slip  # how often a noisy seat plays a legal card at random
        self._fallback = HeuristicPolicy()

    def choose_pass(self, view: MatchView, rng: Random) -> tuple[Card, Card, Card]:
        if self.pass_rollouts and not carries_moon(knowledge(view)):
            # The search draws from a copy of `rng`, so that the plays after the pass draw
            # the same chance whichever way it was chosen: two passes then compare on the
            # same play.
            copy = Random()
            copy.setstate(rng.getstate())
            return searched_pass(view, copy, self.pass_rollouts)
        return self._fallback.choose_pass(view, rng)

    def choose_moon(self, view: MatchView, rng: Random) -> MoonRule:
        return self._fallback.choose_moon(view, rng)

    def choose_play(self, view: MatchView, rng: Random) -> Card:
        return to_the_end(self.searching(view, rng))

    def searching(self, view: MatchView, rng: Random,
                  values: dict[Card, float] | None = None) -> Iterator[Card]:
        """The search, one sampled deal at a time: after each, the best card so far; the
        last is the choice. Whoever drives it may stop early and take the latest. `values`,
        when given, receives each distinct card's mean outcome over the deals it was tried
        on, once the search is done (a bench's record of how close the choice was)."""
        assert view.you is not None and view.trick is not None
        legal = sorted(view.you.legal)
        if len(legal) == 1:
            yield legal[0]
            return
        me = view.you.seat
        k = knowledge(view, self.read_plays, 0 if self.read_kin else self.kin_seats(view),
                      self.read_pass)
        alive = distinct_plays(view, k, legal)
        if len(alive) == 1:
            yield alive[0]
            return
        start = table_of(view, k)
        start.kin = self.searching_seats(view)
        start.kin_until = len(view.tricks) + (self.kin_tricks or view.table.hand_size)
        start.kin_player = self.kin_player
        others = ((1 << view.table.seats) - 1) & ~(1 << me)
        if self.bold_shooters:
            # The others may run at the moon on thinner hands than rules of thumb do, so the
            # search sees the moons a stronger shooter makes and what stops them.
            start.bold = others
        if self.lone_stopper:
            # Players who search with random play-outs rarely see a moon coming, so they do
            # not fight one: the search counts on no one but itself to stop a run at the moon.
            start.bystanders = others
        start.noisy = self.noisy_seats(view)
        sampler = self.deals(view, k)
        totals = dict.fromkeys(alive, 0.0)
        tried = dict.fromkeys(alive, 0)
        # Successive halving: each round spends an equal share of the rollouts on the cards
        # still in the running, then drops the worse half, so the close calls among the best
        # cards get the most deals. Every card still in the running has been tried on the
        # same deals, so their totals compare at any moment.
        rounds = (len(alive) - 1).bit_length()
        leads: list[float] = []  # the last two cards' difference, deal by deal
        for left in range(rounds, 0, -1):
            for _ in range(max(1, self.iterations // rounds // len(alive))):
                hands = sampler.deal(rng)
                draw_slips(start, rng, self.slip)
                # The same deal (and slips) for every card: only the card differs.
                scored = [outcome(view.rules, start, hands, me, card) for card in alive]
                for card, score in zip(alive, scored, strict=True):
                    totals[card] += score
                    tried[card] += 1
                if self.close_calls and len(scored) == 2:
                    leads.append(scored[0] - scored[1])
                yield min(alive, key=lambda c: (totals[c], c.index))
            if left > 1:
                alive.sort(key=lambda c: (totals[c], c.index))
                alive = alive[:(len(alive) + 1) // 2]
        if len(alive) == 2 and self.close_calls:
            yield from self._close_call(view, start, sampler, rng, alive, totals, tried, leads)
        if values is not None:
            values.update((card, totals[card] / tried[card]) for card in totals)
        yield min(alive, key=lambda c: (totals[c], c.index))

    def searching_seats(self, view: MatchView) -> int:
        """A bit per seat whose later plays the rollouts make by a one-ply search (or by
        `kin_player`, a model of this bot's play): with `kin`, every other seat the view
        shows held by this same bot (it plays far better than rules of thumb), and with
        `plan_own` its own seat."""
        assert view.you is not None
        bits = 1 << view.you.seat if self.plan_own else 0
        return bits | self.kin_seats(view) if self.kin else bits

    def kin_seats(self, view: MatchView) -> int:
        """A bit per other seat the view shows held by this same bot. Its plays are not a
        rules-of-thumb player's, so without `read_kin` they are not read as one's."""
        return held_by(view, self.name)

    def noisy_seats(self, view: MatchView) -> int:
        """A bit per other seat that the rollouts let slip now and then to a random legal card
        (`Table.noisy`), so that no choice leans on one model of them being exactly right:
        with `noisy_others` every other seat; with `noisy_strangers` every other seat the
        view shows held by a person (or a program playing as one). The house's bots keep the
        model they had: the heuristic bot's own rules of thumb are what the rollouts play."""
        assert view.you is not None
        if self.noisy_others:
            return ((1 << view.table.seats) - 1) & ~(1 << view.you.seat)
        return held_by(view, None) if self.noisy_strangers else 0

    def deals(self, view: MatchView, k: Knowledge) -> Deals:
        """Where the search draws its deals of the unseen cards: all the seat knows. (A
        bench measures what seeing the hands would be worth by overriding it.)"""
        return Sampler(view, k, self.whole_pass)

    def _close_call(self, view: MatchView, start: Table, sampler: Deals, rng: Random,
                    pair: list[Card], totals: dict[Card, float], tried: dict[Card, int],
                    leads: list[float]) -> Iterator[Card]:
        """More deals for the last two cards, `leads` being the first's score less the
        second's on each deal they shared, up to `close_calls` rollouts or until one leads by
        more than the noise of their paired difference."""
        assert view.you is not None
        for _ in range(self.close_calls // (2 * CLOSE_BATCH)):
            if settled(leads):
                return
            for _ in range(CLOSE_BATCH):
                hands = sampler.deal(rng)
                draw_slips(start, rng, self.slip)
                first, second = (outcome(view.rules, start, hands, view.you.seat, card)
                                 for card in pair)
                totals[pair[0]] += first
                totals[pair[1]] += second
                tried[pair[0]] += 1
                tried[pair[1]] += 1
                leads.append(first - second)
                yield min(pair, key=lambda c: (totals[c], c.index))


def settled(leads: list[float]) -> bool:
    """Whether the paired differences `leads` put one card ahead beyond their noise, or show
    that the two are worth the same, near enough that more deals would not pay."""
    n = len(leads)
    if n < 2:
        return True
    mean = sum(leads) / n
    noise = SETTLED * SETTLED * sum((lead - mean) ** 2 for lead in leads) / (n - 1) / n
    return mean * mean > noise or noise < ALIKE * ALIKE


def distinct_plays(view: MatchView, k: Knowledge, legal: list[Card]) -> list[Card]:
    """One card of each run of `legal` cards that play alike: the same suit, no card that
    could still come between them (unseen, or on the table now), and neither worth
    points of its own apart from a heart's. Which of a run is played cannot change a thing."""
    between = k.unseen | {p.card for p in view.trick.plays} if view.trick else k.unseen
    runs = distinct(view.rules, sorted(c.index for c in legal), {c.index for c in between})
    return [Card(i) for i in runs]


def held_by(view: MatchView, bot: str | None) -> int:
    """A bit per other seat the view shows held by `bot`; by None, a person's (or a program
    playing as one)."""
    assert view.you is not None
    return sum(1 << s for s, spec in enumerate(view.seats)
               if s != view.you.seat and spec.bot == bot)


def draw_slips(start: Table, rng: Random, rate: float = SLIP) -> None:
    """A fresh draw per play for the noisy seats of a sampled deal, if there are any, such
    that a noisy seat slips at `rate`. A rollout slips where a draw falls under `SLIP`; drawn
    from [0, SLIP / rate) a draw falls there at `rate`, and is still uniform under `SLIP`,
    as the card it picks needs. At `SLIP` itself the draws are `rng`'s own."""
    if start.noisy:
        scale = SLIP / rate
        start.slips = [rng.random() * scale for _ in range(len(DECK))]


def table_of(view: MatchView, k: Knowledge) -> Table:
    """The round as its seat sees it, in the simulation's terms; the hands are left empty
    (they are what gets sampled)."""
    assert view.trick is not None
    won = [0] * view.table.seats
    for trick in view.tricks:
        won[trick.winner] += 1
    jack = jack_taker(view.tricks)
    plays = [(p.seat, p.card.index) for p in view.trick.plays]
    voids = [sum(1 << suit for suit in shown) for shown in k.voids]
    return Table([], view.trick.leader, plays, list(view.round_points), won, jack,
                 view.hearts_broken, QUEEN_OF_SPADES in k.played, voids)


def outcome(rules: Rules, start: Table, hands: list[Hand], me: int, card: Card) -> float:
    """How `card` does on one sampled deal: `me`'s score against the others' mean."""
    return margin(rollout(rules, played(rules, start, hands, me, card.index)), me)
