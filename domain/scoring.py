"""How a played-out round scores, and when the match is won."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from domain.cards import JACK_OF_DIAMONDS
from domain.events import Scores
from domain.rules import MoonRule, Rules, TieBreak
from domain.state import TakenTrick
from domain.table import MOON_POINTS, Table, table_for

JACK_BONUS = -10


@dataclass(frozen=True, slots=True)
class RoundResult:
    points: Scores
    scores: Scores
    moon: int | None
    sun: int | None
    jack: int | None


def moon_shooter(points: Scores) -> int | None:
    """The seat that took every point of the round, if one did."""
    for seat, taken in enumerate(points):
        if taken == MOON_POINTS:
            return seat
    return None


def sun_shooter(table: Table, tricks: Sequence[TakenTrick]) -> int | None:
    """The seat that took every trick of the round, if one did."""
    winners = {t.winner for t in tricks}
    if len(tricks) == table.tricks and len(winners) == 1:
        return winners.pop()
    return None


def jack_taker(tricks: Sequence[TakenTrick]) -> int | None:
    for trick in tricks:
        if any(p.card is JACK_OF_DIAMONDS for p in trick.plays):
            return trick.winner
    return None


def score_round(rules: Rules, points: Scores, tricks: Sequence[TakenTrick],
                moon_choice: MoonRule | None = None) -> RoundResult:
    """The scores of a round from the points and tricks taken, one entry a seat.

    The sun (every trick of the round) replaces the moon; the moon is scored as `moon_choice`
    when the shooter chose, else as the rules say; the jack of diamonds comes last.
    """
    sun = sun_shooter(table_for(len(points)), tricks) if rules.shoot_the_sun else None
    jack = jack_taker(tricks) if rules.jack_of_diamonds else None
    moon = moon_shooter(points) if sun is None else None
    return RoundResult(points, round_scores(rules, points, sun, jack, moon_choice), moon, sun,
                       jack)


def round_scores(rules: Rules, points: Scores, sun: int | None, jack: int | None,
                 moon_choice: MoonRule | None = None) -> Scores:
    """The scores from the points taken and who took every trick and the jack; the options
    that are off are ignored here, so callers may pass what they know. There are as many
    seats as `points` has entries."""
    sun = sun if rules.shoot_the_sun else None
    moon = moon_shooter(points) if sun is None else None
    if sun is not None:
        scores = [-MOON_POINTS if s == sun else MOON_POINTS for s in range(len(points))]
    elif moon is not None:
        scores = _moon_scores(moon, moon_choice or rules.moon, len(points))
    else:
        scores = list(points)
    if jack is not None and rules.jack_of_diamonds:
        scores[jack] += JACK_BONUS
    return tuple(scores)


def _moon_scores(shooter: int, rule: MoonRule, seats: int) -> list[int]:
    if rule is MoonRule.SUBTRACT_FROM_SELF:
        return [-MOON_POINTS if s == shooter else 0 for s in range(seats)]
    return [0 if s == shooter else MOON_POINTS for s in range(seats)]


def needs_moon_choice(rules: Rules, points: Scores, tricks: Sequence[TakenTrick]) -> int | None:
    """The shooter who must choose how the moon scores, under `moon: shooter_choice`."""
    if rules.moon is not MoonRule.SHOOTER_CHOICE:
        return None
    if rules.shoot_the_sun and sun_shooter(table_for(len(points)), tricks) is not None:
        return None
    return moon_shooter(points)


def match_winner(rules: Rules, totals: Scores, last_round: Scores) -> int | None:
    """The winner once any total reaches the end score and one seat alone is lowest."""
    if max(totals) < rules.end_score:
        return None
    low = min(totals)
    lowest = [s for s, total in enumerate(totals) if total == low]
    if len(lowest) == 1:
        return lowest[0]
    if rules.tie_break is TieBreak.LAST_ROUND:
        best = min(last_round[s] for s in lowest)
        tied = [s for s in lowest if last_round[s] == best]
        if len(tied) == 1:
            return tied[0]
    return None
