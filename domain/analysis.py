"""The analysis: the expert's verdict on every decision of a round that is over.

Each decision is judged from the seat's information set at that moment, never from the cards
hidden from it: the seat's own view (its hand, what it passed and received, every card played
and the voids those plays showed) is all the judge is given, and the unseen cards are dealt
afresh, consistently with that view, as the expert deals them when it searches. Every option
is tried on the same deals, so that only the option differs between them.

An option's `expected` is the seat's score for the round minus the others' mean, averaged
over those deals: lower is better. A decision's `loss` is how much worse the chosen option
did than the best one.

The draws are seeded from the decision's own public record, so the same match analysed twice,
anywhere, gives the same numbers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from random import Random
from typing import Any, TypeVar

from domain.bots.expert import ExpertPolicy, distinct_plays, draw_slips, outcome, table_of
from domain.bots.heuristic import pass_ranking
from domain.bots.knowledge import knowledge
from domain.bots.pass_search import played_out, simulated_passes
from domain.bots.rollout import Hand
from domain.bots.sampling import Sampler
from domain.cards import Card, spell
from domain.events import CardPlayed, Event, MoonChosen, PassChosen, RoundScored
from domain.evolve import evolve
from domain.passing import receiver
from domain.rules import MoonRule
from domain.scoring import jack_taker, match_winner, round_scores
from domain.state import Match
from domain.table import MOON_POINTS
from domain.views import MatchView, view_for

# Sampled deals per play: a quarter for every distinct legal card, the rest for the close
# ones (docs/performance.md has how far two sets of deals move the figures).
PLAY_DEALS = 512
PASS_DEALS = 320  # sampled deals per pass, likewise over the candidate passes
PASS_SHORTLIST = 5  # candidate passes: every three of the five most dangerous cards, and more
CLOSE = 1.5  # options this near the best after the first deals get all of them
SETTLED = MOON_POINTS  # a moon choice that settles the match now is worth a moon either way
JUDGE = ExpertPolicy()  # whose model of the other seats the rounds played out follow


class Kind(StrEnum):
    PASS = "pass"
    PLAY = "play"
    MOON = "moon"


class Verdict(StrEnum):
    FORCED = "forced"
    BEST = "best"
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


# The least loss of each verdict, from the worst down.
THRESHOLDS = ((3.0, Verdict.BLUNDER), (1.0, Verdict.MISTAKE), (0.25, Verdict.INACCURACY))

Move = Card | tuple[Card, ...] | MoonRule
_O = TypeVar("_O")
_D = TypeVar("_D")


@dataclass(frozen=True, slots=True)
class Decision:
    """A decision as its seat faced it: the seat's own view just before the move."""

    version: int  # of the event that recorded the move
    seat: int
    kind: Kind
    trick: int | None
    view: MatchView
    chosen: Move


@dataclass(frozen=True, slots=True)
class Option:
    move: Move
    expected: float


@dataclass(frozen=True, slots=True)
class Judged:
    decision: Decision
    options: tuple[Option, ...]  # best first
    verdict: Verdict

    @property
    def best(self) -> Option:
        return self.options[0]

    @property
    def loss(self) -> float:
        chosen = next(o for o in self.options if o.move == self.decision.chosen)
        return round(chosen.expected - self.best.expected, 2)


def verdict_of(loss: float, forced: bool) -> Verdict:
    if forced:
        return Verdict.FORCED
    return next((v for least, v in THRESHOLDS if loss >= least), Verdict.BEST)


def round_decisions(events: Iterable[tuple[int, Event]], before: Match | None,
                    number: int) -> list[Decision]:
    """Every decision of round `number`, from the log that follows the state `before` (the
    match just before the round's deal, or None for the log from its first event)."""
    state = before
    found: list[Decision] = []
    for version, event in events:
        rnd = state.round if state is not None else None
        if state is not None and rnd is not None and rnd.number == number:
            decision = _decision(state, version, event, rnd.trick_number)
            if decision is not None:
                found.append(decision)
        state = evolve(state, event)
        if isinstance(event, RoundScored) and event.round == number:
            break
    return found


def _decision(state: Match, version: int, event: Event, trick: int) -> Decision | None:
    if isinstance(event, PassChosen):
        return Decision(version, event.seat, Kind.PASS, None, view_for(state, event.seat),
                        tuple(sorted(event.cards)))
    if isinstance(event, CardPlayed):
        return Decision(version, event.seat, Kind.PLAY, trick, view_for(state, event.seat),
                        event.card)
    if isinstance(event, MoonChosen):
        return Decision(version, event.seat, Kind.MOON, None, view_for(state, event.seat),
                        event.choice)
    return None


def judge(decision: Decision, play_deals: int = PLAY_DEALS, pass_deals: int = PASS_DEALS,
          salt: str = "") -> Judged:
    """The decision's options and verdict. `salt` draws other deals: for measuring how
    much the figures move from one set of deals to another."""
    rng = Random(_seed(decision, salt))
    view = decision.view
    if decision.kind is Kind.PLAY:
        scored = _play_options(view, decision.chosen, rng, play_deals)
    elif decision.kind is Kind.PASS:
        scored = _pass_options(view, decision.chosen, rng, pass_deals)
    else:
        scored = _moon_options(view)
    # Rounded first, so that the loss is exactly the difference of the figures shown.
    options = sorted((Option(move, round(value, 2)) for move, value in scored),
                     key=lambda o: (o.expected, _order(o.move)))
    forced = decision.kind is Kind.PLAY and len(options) == 1
    judged = Judged(decision, tuple(options), Verdict.BEST)
    return Judged(decision, judged.options, verdict_of(judged.loss, forced))


def _seed(decision: Decision, salt: str) -> int:
    """Public and the same on any store: the round, the move's version and the seat's hand."""
    assert decision.view.you is not None
    text = f"{salt}{decision.view.round}/{decision.version}/{decision.seat}/" \
           f"{','.join(spell(decision.view.you.hand))}"
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _order(move: Move) -> tuple[int, ...]:
    if isinstance(move, Card):
        return (move.index,)
    if isinstance(move, tuple):
        return tuple(c.index for c in move)
    return (list(MoonRule).index(move),)


# -- plays ------------------------------------------------------------------------------


def _play_options(view: MatchView, chosen: Move, rng: Random,
                  deals: int) -> list[tuple[Move, float]]:
    """Every legal card, each tried on the same deals. Cards that play alike (the expert's
    `distinct_plays`) share one set of rollouts: which of them is played changes nothing."""
    assert view.you is not None
    legal = sorted(view.you.legal)
    k = knowledge(view)
    distinct = distinct_plays(view, k, legal)
    alike: dict[Card, Card] = {}
    for card in legal:
        alike[card] = card if card in distinct else alike[_previous(legal, card)]
    start, sampler, me = table_of(view, k), Sampler(view, k), view.you.seat
    start.noisy = JUDGE.noisy_seats(view)  # the shipped expert's model of the others

    def deal() -> list[Hand]:
        hands = sampler.deal(rng)
        draw_slips(start, rng, JUDGE.slip)  # the same slips for every card tried on these hands
        return hands

    def tried(card: Card, hands: list[Hand]) -> float:
        return outcome(view.rules, start, hands, me, card)

    assert isinstance(chosen, Card)
    means = _two_stages(distinct, alike[chosen], deal, tried, deals)
    return [(card, means[alike[card]]) for card in legal]
def _previous(legal: list[Card], card: Card) -> Card:
    return legal[legal.index(card) - 1]


def _two_stages(options: list[_O], chosen: _O, deal: Callable[[], _D],
                tried: Callable[[_O, _D], float], deals: int) -> dict[_O, float]:
    """Each option's mean over the same deals: a first quarter of them for every option,
    then the rest for the chosen one and those close to the best, whose difference is the
    loss. The options far behind keep a rougher figure, which no verdict turns on."""
    totals = dict.fromkeys(options, 0.0)
    counts = dict.fromkeys(options, 0)
    first = max(1, deals // 4) if len(options) != 2 else deals  # one option: no loss to find
    for _ in range(first):
        hands = deal()
        for option in options:
            totals[option] += tried(option, hands)
    for option in options:
        counts[option] = first
    best = min(totals.values()) / first
    close = [o for o in options if len(options) > 1
             and (o == chosen or totals[o] / first <= best + CLOSE)]
    for _ in range(deals - first):
        hands = deal()
        for option in close:
            totals[option] += tried(option, hands)
            counts[option] += 1
    return {option: totals[option] / counts[option] for option in options}


# -- passes -----------------------------------------------------------------------------


def candidate_passes(hand: Sequence[Card], chosen: Sequence[Card]) -> list[tuple[Card, ...]]:
    """The passes weighed: the chosen one, the heuristic's, the pass that keeps the points
    for a moon, and every three of the most dangerous cards (among which the expert's own
    search chooses)."""
    ranked = pass_ranking(list(hand), keep_points=False)
    keeping = pass_ranking(list(hand), keep_points=True)
    found = {tuple(sorted(chosen)), tuple(sorted(ranked[:3])), tuple(sorted(keeping[:3]))}
    found.update(tuple(sorted(c)) for c in combinations(ranked[:PASS_SHORTLIST], 3))
    return sorted(found, key=lambda p: tuple(c.index for c in p))


def _pass_options(view: MatchView, chosen: Move, rng: Random,
                  deals: int) -> list[tuple[Move, float]]:
    """Each candidate pass played out on the same deals of the other hands: the others pass
    as the expert's simulated players do, then every seat plays the round out."""
    assert view.you is not None and isinstance(chosen, tuple)
    me, seats = view.you.seat, view.table.seats
    hand = sorted(view.you.hand)
    candidates = candidate_passes(hand, chosen)
    unseen = sorted(set(view.table.cards) - set(hand))
    size = view.table.hand_size
    to = [receiver(s, view.pass_direction, view.table) for s in range(seats)]
    chosen_pass = tuple(sorted(chosen))

    def deal() -> tuple[list[list[int]], list[list[int]]]:
        rng.shuffle(unseen)
        others = iter([unseen[i:i + size] for i in range(0, len(unseen), size)])
        held = [[c.index for c in (hand if s == me else next(others))] for s in range(seats)]
        return held, simulated_passes(held, me)

    def tried(candidate: tuple[Card, ...], dealt: tuple[list[list[int]], list[list[int]]],
              ) -> float:
        held, passes = dealt
        passes[me] = [c.index for c in candidate]
        return played_out(view.rules, held, passes, to, me)

    means = _two_stages(candidates, chosen_pass, deal, tried, deals)
    return list(means.items())


# -- the moon ---------------------------------------------------------------------------


def _moon_options(view: MatchView) -> list[tuple[Move, float]]:
    """Exact: both ways of scoring a moon are worth the same against the others' mean (the
    shooter 26 below them), so what tells them apart is whether the match ends now. Ending
    it as the winner is worth a moon more than going on, ending it as a loser a moon less."""
    assert view.you is not None
    me, jack = view.you.seat, jack_taker(view.tricks)
    scored: list[tuple[Move, float]] = []
    for choice in (MoonRule.ADD_TO_OTHERS, MoonRule.SUBTRACT_FROM_SELF):
        scores = round_scores(view.rules, view.round_points, None, jack, choice)
        totals = tuple(t + s for t, s in zip(view.totals, scores, strict=True))
        winner = match_winner(view.rules, totals, scores)
        settled = 0 if winner is None else (-SETTLED if winner == me else SETTLED)
        relative = scores[me] - (sum(scores) - scores[me]) / (len(scores) - 1)
        scored.append((choice, relative + settled))
    return scored


# -- as JSON ----------------------------------------------------------------------------


def move_json(move: Move) -> Any:
    if isinstance(move, Card):
        return str(move)
    if isinstance(move, tuple):
        return [str(c) for c in move]
    return move.value


def judged_json(judged: Judged) -> dict[str, Any]:
    d = judged.decision
    return {
        "version": d.version, "seat": d.seat, "kind": d.kind.value, "trick": d.trick,
        "chosen": move_json(d.chosen),
        "options": [{"move": move_json(o.move), "expected": o.expected}
                    for o in judged.options],
        "best": move_json(judged.best.move), "loss": judged.loss,
        "verdict": judged.verdict.value,
    }


def seat_summaries(decisions: Iterable[dict[str, Any]], seats: int) -> list[dict[str, Any]]:
    """Per seat: how many decisions, the mean loss, and the count of each bad verdict."""
    by_seat: list[list[dict[str, Any]]] = [[] for _ in range(seats)]
    for decision in decisions:
        by_seat[decision["seat"]].append(decision)
    return [{
        "seat": seat, "decisions": len(mine),
        "mean_loss": round(sum(d["loss"] for d in mine) / len(mine), 3) if mine else 0.0,
        "blunders": sum(d["verdict"] == Verdict.BLUNDER for d in mine),
        "mistakes": sum(d["verdict"] == Verdict.MISTAKE for d in mine),
        "inaccuracies": sum(d["verdict"] == Verdict.INACCURACY for d in mine),
    } for seat, mine in enumerate(by_seat)]
