"""The analysis judged in the domain: the verdicts, the options, the losses and the moon."""

from __future__ import annotations

from dataclasses import replace
from random import Random

import pytest

from domain.analysis import (
    Kind,
    Verdict,
    candidate_passes,
    judge,
    judged_json,
    round_decisions,
    seat_summaries,
    verdict_of,
)
from domain.bots.base import bot_command
from domain.bots.duplicate import dealt_state
from domain.bots.heuristic import HeuristicPolicy
from domain.cards import DECK, QUEEN_OF_SPADES, Suit, parse_card
from domain.commands import ChooseMoon, PlayCard
from domain.decide import decide
from domain.events import Event, RoundScored
from domain.evolve import fold
from domain.rules import MoonRule, Rules
from domain.state import Match, Status
from domain.views import seats_to_act, view_for
from tests.builders import SECRET, SUIT_PER_SEAT, hold_round, play_lowest_until_round_ends

FAST = {"play_deals": 160, "pass_deals": 48}  # enough to rank a blunder, quick to run


def _gives_itself_the_queen(state: Match) -> PlayCard | None:
    """The last seat to a spade trick headed below the queen, holding her and a lower
    spade: playing her takes 13 points it could have let go by."""
    rnd = state.round
    if state.status is not Status.PLAYING or rnd is None or len(rnd.trick.plays) != 3:
        return None
    led = rnd.trick.plays[0].card.suit
    top = max(p.card.rank for p in rnd.trick.plays if p.card.suit is led)
    seat = rnd.turn
    assert seat is not None
    spades = [c for c in rnd.hands[seat] if c.suit is Suit.SPADES]
    if led is Suit.SPADES and QUEEN_OF_SPADES in spades and top < QUEEN_OF_SPADES.rank \
            and any(c.rank < top for c in spades):
        return PlayCard(seat, QUEEN_OF_SPADES, SECRET)
    return None


def _round_with_a_blunder() -> tuple[Match, list[tuple[int, Event]], int]:
    """A round played by the heuristic bot in every seat, but for one seat that gives
    itself the queen of spades; the state after the deal, the log, and that play's version."""
    for seed in range(200):
        rng = Random(seed)
        deck = list(DECK)
        rng.shuffle(deck)
        start = dealt_state(deck, 4, SECRET, Rules())  # a round with no pass
        state, log, blunder = start, [], 0
        while True:
            seat = seats_to_act(state)[0]
            command = _gives_itself_the_queen(state) if not blunder else None
            if command is not None:
                blunder = state.version + 1
            command = command or bot_command(view_for(state, seat), HeuristicPolicy(), rng,
                                             SECRET)
            events = decide(state, command)
            log += [(state.version + i, e) for i, e in enumerate(events, start=1)]
            state = fold(events, state)
            if any(isinstance(e, RoundScored) for e in events):
                break
        if blunder:
            return start, log, blunder
    raise AssertionError("no deal in 200 gave a seat the chance")


@pytest.fixture(scope="module")
def blundered():
    start, log, version = _round_with_a_blunder()
    decisions = round_decisions(log, start, 4)
    return decisions, {d.version: judge(d, **FAST) for d in decisions}, version


def test_giving_oneself_the_queen_is_a_blunder_and_the_lower_spades_rank_above_it(blundered):
    _, judged, version = blundered
    queen = judged[version]
    assert queen.decision.chosen is QUEEN_OF_SPADES
    assert queen.verdict is Verdict.BLUNDER and queen.loss >= 3
    ranked = [o.expected for o in queen.options]
    assert ranked == sorted(ranked), "the options are ranked, best first"
    assert queen.best.move is not QUEEN_OF_SPADES and queen.best.move.suit is Suit.SPADES
    assert queen.options[-1].move is QUEEN_OF_SPADES, "the queen is the worst of them"


def test_every_play_weighs_exactly_its_legal_cards_and_its_loss_is_the_difference(blundered):
    decisions, judged, _ = blundered
    plays = [d for d in decisions if d.kind is Kind.PLAY]
    assert len(plays) == 52
    for decision in plays:
        found = judged[decision.version]
        assert decision.view.you is not None
        assert sorted(o.move for o in found.options) == sorted(decision.view.you.legal)
        chosen = next(o for o in found.options if o.move == decision.chosen)
        assert found.loss == round(chosen.expected - found.best.expected, 2) >= 0
        as_json = judged_json(found)
        assert as_json["loss"] == found.loss and as_json["chosen"] == str(decision.chosen)
        if len(found.options) == 1:
            assert found.verdict is Verdict.FORCED and found.loss == 0
        else:
            assert found.verdict is verdict_of(found.loss, False)


def test_the_same_decision_is_judged_the_same_and_other_deals_move_it_little(blundered):
    decisions, judged, version = blundered
    decision = next(d for d in decisions if d.version == version)
    assert judge(decision, **FAST) == judged[version]
    other = judge(decision, **FAST, salt="other deals")
    assert other != judged[version], "the salt draws other deals"
    assert other.verdict is Verdict.BLUNDER


def test_the_judge_plays_people_as_the_expert_does_now_and_then_slipping(blundered):
    """In the rounds played out, the seats held by people now and then slip to a random
    card, as in the expert's own search, and the house's bots play their rules of thumb:
    the same decision among bots, on the same deals, comes out otherwise."""
    decisions, judged, version = blundered
    decision = next(d for d in decisions if d.version == version)
    assert all(spec.bot is None for spec in decision.view.seats)
    bots = tuple(replace(spec, bot="heuristic") for spec in decision.view.seats)
    among_bots = judge(replace(decision, view=replace(decision.view, seats=bots)), **FAST)
    assert among_bots.options != judged[version].options
    assert among_bots.verdict is Verdict.BLUNDER


def test_the_judge_never_reads_a_hidden_card(blundered):
    """The view a decision is judged from is the seat's own: other hands stay unknown."""
    decisions, _, _ = blundered
    for decision in decisions:
        view = decision.view
        assert view.you is not None and view.you.seat == decision.seat
        assert not hasattr(view, "hands")


def test_verdicts_follow_the_thresholds():
    assert verdict_of(0.0, True) is Verdict.FORCED
    assert [verdict_of(x, False) for x in (0, 0.24, 0.25, 0.99, 1, 2.99, 3, 13)] == [
        Verdict.BEST, Verdict.BEST, Verdict.INACCURACY, Verdict.INACCURACY, Verdict.MISTAKE,
        Verdict.MISTAKE, Verdict.BLUNDER, Verdict.BLUNDER]


def _moon_decision(rules: Rules, choice: MoonRule):
    start = hold_round(SUIT_PER_SEAT, rules)
    state, events = play_lowest_until_round_ends(start)
    assert state.status is Status.MOON_CHOICE
    seat = state.moon_shooter
    events += decide(state, ChooseMoon(seat, choice, SECRET))
    log = list(enumerate(events, start=start.version + 1))
    [decision] = [d for d in round_decisions(log, start, 4) if d.kind is Kind.MOON]
    return judge(decision)


def test_a_moon_that_could_end_the_match_in_the_shooters_favour_is_judged_exactly():
    rules = Rules(end_score=20, moon=MoonRule.SHOOTER_CHOICE)
    # Adding 26 to the others ends the match at once, won by the shooter at 0.
    ended = _moon_decision(rules, MoonRule.ADD_TO_OTHERS)
    assert ended.verdict is Verdict.BEST and ended.loss == 0
    missed = _moon_decision(rules, MoonRule.SUBTRACT_FROM_SELF)
    assert missed.best.move is MoonRule.ADD_TO_OTHERS
    assert missed.loss == 26 and missed.verdict is Verdict.BLUNDER


def test_a_moon_that_ends_nothing_is_the_same_either_way():
    judged = _moon_decision(Rules(moon=MoonRule.SHOOTER_CHOICE), MoonRule.SUBTRACT_FROM_SELF)
    assert [o.expected for o in judged.options] == [-26.0, -26.0]
    assert judged.loss == 0 and judged.verdict is Verdict.BEST


def test_the_candidate_passes_hold_the_chosen_one_and_the_experts_own():
    hand = sorted(DECK[:13])
    chosen = tuple(parse_card(c) for c in ("2C", "3C", "4C"))
    candidates = candidate_passes(hand, chosen)
    assert chosen in candidates and len(candidates) == len(set(candidates)) >= 10
    assert all(len(p) == 3 and set(p) <= set(hand) for p in candidates)


def test_a_pass_is_judged_over_its_candidates_with_the_chosen_among_them():
    rng = Random(3)
    deck = list(DECK)
    rng.shuffle(deck)
    state = dealt_state(deck, 1, SECRET, Rules())
    command = bot_command(view_for(state, 0), HeuristicPolicy(), rng, SECRET)
    events = decide(state, command)
    [decision] = round_decisions([(state.version + 1, events[0])], state, 1)
    assert decision.kind is Kind.PASS
    judged = judge(decision, **FAST)
    assert decision.chosen in [o.move for o in judged.options]
    assert judged.verdict is not Verdict.FORCED
    assert judged_json(judged)["chosen"] == [str(c) for c in sorted(decision.chosen)]


def test_seat_summaries_count_the_verdicts():
    decisions = [
        {"seat": 0, "loss": 0.0, "verdict": "best"},
        {"seat": 0, "loss": 4.0, "verdict": "blunder"},
        {"seat": 1, "loss": 0.5, "verdict": "inaccuracy"},
        {"seat": 1, "loss": 1.5, "verdict": "mistake"},
    ]
    summaries = seat_summaries(decisions, 3)
    assert summaries[0] == {"seat": 0, "decisions": 2, "mean_loss": 2.0, "blunders": 1,
                            "mistakes": 0, "inaccuracies": 0}
    assert summaries[1]["mistakes"] == 1 and summaries[1]["inaccuracies"] == 1
    assert summaries[2] == {"seat": 2, "decisions": 0, "mean_loss": 0.0, "blunders": 0,
                            "mistakes": 0, "inaccuracies": 0}
