"""The rollout runs compiled (setup.py), and the compiled module plays card for card as its
own source does when the interpreter runs it: same plays, same scores, same searched cards."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path
from random import Random
from types import ModuleType

import pytest

import domain.bots.rollout as compiled
from domain.bots.expert import table_of
from domain.bots.knowledge import knowledge
from domain.views import view_for
from tests.unit.test_rollout import OPTIONS, _into_round

SOURCE = Path(compiled.__file__).parent / "rollout.py"


def _interpreted() -> ModuleType:
    """The rollout's source, loaded as a module of its own and run by the interpreter."""
    spec = importlib.util.spec_from_file_location("rollout_interpreted", SOURCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # where its dataclass looks itself up
    spec.loader.exec_module(module)
    return module


INTERPRETED = _interpreted()
FIELDS = [f.name for f in dataclasses.fields(INTERPRETED.Table)]


def test_the_rollout_in_use_is_compiled_from_its_source_as_it_stands():
    built = Path(compiled.__file__)
    assert built.suffix == ".so", f"{built} is not compiled: run `make install`"
    assert built.stat().st_mtime >= SOURCE.stat().st_mtime, (
        f"{SOURCE} changed after it was compiled: run `make install`")
    assert not INTERPRETED.__file__.endswith(".so")


def _copies(table: compiled.Table) -> tuple[compiled.Table, object]:
    """Two independent copies of `table`: one for each module's own Table."""
    values = {name: getattr(table, name) for name in FIELDS}
    return (compiled.Table(**{n: _deep(v) for n, v in values.items()}),
            INTERPRETED.Table(**{n: _deep(v) for n, v in values.items()}))


def _deep(value: object) -> object:
    if isinstance(value, list):
        return [_deep(v) for v in value]
    return value


@pytest.mark.parametrize("rules", OPTIONS, ids=range(len(OPTIONS)))
@pytest.mark.parametrize("seed", range(30))
def test_the_compiled_rollout_plays_as_its_source(rules, seed):
    """Tables of every kind of simulated seat: searching, bold, bystanding and noisy ones, a
    round at any point of its tricks."""
    rng = Random(seed)
    state, _ = _into_round(rules, rng, plays=rng.choice([0, 1, 4, rng.randrange(52)]))
    seat = state.round.turn
    view = view_for(state, seat)
    table = table_of(view, knowledge(view))
    table.hands = [compiled.hand_of(state.round.hands[s]) for s in range(4)]
    table.kin = (0, 0b0101, 0b1111)[seed % 3]
    table.kin_until = rng.choice([52, 5, 9])
    table.bold = seed % 16
    table.bystanders = seed * 7 % 16
    table.noisy = seed * 5 % 16
    table.slips = [rng.random() * 2 * compiled.SLIP for _ in range(52)]
    fast, slow = _copies(table)
    assert compiled.searched_play(rules, fast, seat) == INTERPRETED.searched_play(
        rules, slow, seat)
    assert compiled.thumb_play(rules, fast, seat) == INTERPRETED.thumb_play(rules, slow, seat)
    assert compiled.losers(fast.hands, seat) == INTERPRETED.losers(slow.hands, seat)
    fast_trace: list[tuple[int, int]] = []
    slow_trace: list[tuple[int, int]] = []
    assert compiled.rollout(rules, fast, fast_trace) == INTERPRETED.rollout(
        rules, slow, slow_trace)
    assert fast_trace == slow_trace and fast_trace
