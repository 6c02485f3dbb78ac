"""The search's inner loop runs compiled (setup.py): the rollout and the dealing of the unseen
cards. Each compiled module plays and deals card for card as its own source does when the
interpreter runs it: same plays, same scores, same searched cards, same deals."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path
from random import Random
from types import ModuleType

import pytest

import domain.bots.rollout as compiled
import domain.bots.sampling as compiled_sampling
from domain.bots.expert import table_of
from domain.bots.knowledge import knowledge
from domain.views import view_for
from tests.unit.test_reading import passed_across
from tests.unit.test_rollout import OPTIONS, _into_round

COMPILED = (compiled, compiled_sampling)


def _source(module: ModuleType) -> Path:
    return Path(module.__file__ or "").parent / (module.__name__.rsplit(".", 1)[1] + ".py")


def _interpreted(module: ModuleType) -> ModuleType:
    """A compiled module's source, loaded as a module of its own and run by the interpreter."""
    spec = importlib.util.spec_from_file_location(f"{module.__name__}_interpreted",
                                                  _source(module))
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded  # where its dataclasses look themselves up
    spec.loader.exec_module(loaded)
    return loaded


INTERPRETED, INTERPRETED_SAMPLING = (_interpreted(m) for m in COMPILED)
FIELDS = [f.name for f in dataclasses.fields(INTERPRETED.Table)]


@pytest.mark.parametrize(("module", "interpreted"),
                         [(compiled, INTERPRETED), (compiled_sampling, INTERPRETED_SAMPLING)],
                         ids=lambda m: m.__name__)
def test_the_module_in_use_is_compiled_from_its_source_as_it_stands(module, interpreted):
    built, source = Path(module.__file__), _source(module)
    assert built.suffix == ".so", f"{built} is not compiled: run `make install`"
    assert built.stat().st_mtime >= source.stat().st_mtime, (
        f"{source} changed after it was compiled: run `make install`")
    # What the tests below compare: native code on one side, the interpreter's on the other.
    ran = module.rollout if module is compiled else module.Sampler.deal
    source_ran = interpreted.rollout if module is compiled else interpreted.Sampler.deal
    assert not hasattr(ran, "__code__") and hasattr(source_ran, "__code__")


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


def _deal_alike(view, k, whole_pass: bool, seed: int, deals: int) -> None:
    fast = compiled_sampling.Sampler(view, k, whole_pass)
    slow = INTERPRETED_SAMPLING.Sampler(view, k, whole_pass)
    fast_rng, slow_rng = Random(seed), Random(seed)
    for _ in range(deals):
        assert fast.deal(fast_rng) == slow.deal(slow_rng)


@pytest.mark.parametrize("rules", OPTIONS[:2], ids=range(2))
@pytest.mark.parametrize("seed", range(30))
def test_the_compiled_sampler_deals_as_its_source(rules, seed):
    """From any point of a round, both deal the unseen cards alike from the same draws."""
    rng = Random(seed)
    state, _ = _into_round(rules, rng, plays=rng.choice([0, 1, 4, rng.randrange(52)]))
    view = view_for(state, state.round.turn)
    _deal_alike(view, knowledge(view), False, seed, 25)


def test_the_compiled_sampler_redraws_a_passer_whole_hand_as_its_source():
    """The across pass read, the passer's whole hand drawn again until it fits its pass."""
    view = view_for(passed_across("JD QD KD"), 0)
    k = knowledge(view, read_pass=True)
    assert k.pass_read is not None
    _deal_alike(view, k, True, 3, 200)
