"""Play a match to its end between policies, in memory: for tests, benchmarks and the arena."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from domain.bots.base import Policy, bot_command
from domain.commands import CreateMatch
from domain.decide import decide
from domain.events import Event
from domain.evolve import evolve, fold
from domain.state import Match
from domain.views import seats_to_act, view_for

MAX_EVENTS = 100_000  # a match to 100 ends long before this; a bug must not loop forever


def play_out(create: CreateMatch, policies: Sequence[Policy], rng: Random,
             ) -> tuple[Match, list[Event]]:
    """Every event of the match that `create` starts, each seat played by its policy."""
    events = decide(None, create)
    state = fold(events)
    assert state is not None
    while not state.is_over:
        if len(events) > MAX_EVENTS:
            raise RuntimeError("the match did not end")
        for seat in seats_to_act(state):
            command = bot_command(view_for(state, seat), policies[seat], rng, create.secret)
            assert command is not None
            for event in decide(state, command):
                state = evolve(state, event)
                events.append(event)
            break
    return state, events
