"""Facts that two layers must agree on, where the layering forbids one shared definition."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import yaml

from domain.bots.levels import BOT_LEVELS, policy_named
from domain.sealing import canonical_json
from eventstore.base import canonical

ROOT = Path(__file__).resolve().parents[2]


def test_the_chain_and_the_seals_spell_json_alike():
    # The store may not import the domain, nor the domain the store: both spell canonical
    # JSON, and a value hashed by one must be spelled the same by the other.
    values = [{"b": 1, "a": [None, True, 2.5, "é ♥ 日本"], "c": {"z": {}, "y": []}},
              "Zoë\u2028", [], {}, 0, -17, "\"quoted\\\\\""]
    for value in values:
        assert canonical(value) == canonical_json(value)
        assert json.loads(canonical(value)) == value


def test_the_bot_levels_are_the_policies_names_and_the_contracts_enum():
    assert [policy_named(level).name for level in BOT_LEVELS] == list(BOT_LEVELS)
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    enum = spec["components"]["schemas"]["SeatIn"]["properties"]["bot"]["enum"]
    assert enum == [*BOT_LEVELS, None]


# Each package and the top-level packages it may import. The edges (api, cli) name the
# domain's values (rules, cards, seats, its errors) as they parse requests, but reach the
# store and the bots only through the service; workers know only the service.
LAYERS = {
    "domain": {"domain"},
    "eventstore": {"eventstore"},
    "service": {"service", "domain", "eventstore"},
    "workers": {"workers", "service"},
    "api": {"api", "service", "domain"},
    "cli": {"cli", "service", "api", "workers", "domain"},
}
ROOTS: dict[str, set[str]] = {}  # no module is excused: the edges pick the adapters
FIRST_PARTY = set(LAYERS) | {"bench", "tests"}


def test_the_layers_depend_one_way():
    wrong = []
    for package, allowed in LAYERS.items():
        for path in sorted((ROOT / package).rglob("*.py")):
            for name in _imports(path):
                top = name.split(".")[0]
                extra = ROOTS.get(str(path.relative_to(ROOT)), set())
                if top in FIRST_PARTY and top not in allowed | extra:
                    wrong.append(f"{path.relative_to(ROOT)} imports {name}")
    assert wrong == []


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names
