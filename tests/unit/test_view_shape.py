"""The view's shape is declared once, in openapi.yaml (the contract); the domain's view and
the API's response schema are checked against it, field by field and level by level, so a
field missing from any of the three fails here (marshmallow would drop it without a word)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from marshmallow import Schema, fields

from api.responses import CreatedOut, MatchViewOut, ReplayOut
from domain.views import replay_json, view_for, view_json
from tests.builders import UNBROKEN, after

SPEC = yaml.safe_load((Path(__file__).resolve().parents[2] / "openapi.yaml").read_text())
Shape = dict[str, Any]  # field -> its own shape, or None for a leaf


def _resolve(node: dict) -> dict:
    while "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[1]
        node = SPEC["components"]["schemas"][name]
    return node


def spec_shape(node: dict) -> Shape | None:
    node = _resolve(node)
    for key in ("oneOf", "anyOf"):
        for option in node.get(key, ()):
            shape = spec_shape(option)
            if shape is not None:
                return shape
    if "allOf" in node:
        merged: Shape = {}
        for part in node["allOf"]:
            merged |= spec_shape(part) or {}
        return merged
    if "items" in node:
        return spec_shape(node["items"])
    if "properties" in node:
        return {name: spec_shape(sub) for name, sub in node["properties"].items()}
    return None


def schema_shape(schema: Schema | fields.Field) -> Shape | None:
    if isinstance(schema, Schema):
        return {name: schema_shape(f) for name, f in schema.fields.items()}
    if isinstance(schema, fields.Nested):
        return schema_shape(schema.schema)
    if isinstance(schema, fields.List):
        return schema_shape(schema.inner)
    return None


def data_shape(value: Any) -> Shape | None:
    """The shape of actual data; lists contribute their items' shape (null stays unknown)."""
    if isinstance(value, dict):
        return {k: data_shape(v) for k, v in value.items()}
    if isinstance(value, list):
        shapes = [s for s in (data_shape(v) for v in value) if s is not None]
        return shapes[0] if shapes else None
    return None


def differences(a: Shape | None, b: Shape | None, path: str = "") -> list[str]:
    if a is None or b is None:
        return []  # a leaf, or data that left the subtree empty (null)
    out = [f"{path}{k}: only in the first" for k in a.keys() - b.keys()]
    out += [f"{path}{k}: only in the second" for k in b.keys() - a.keys()]
    for key in a.keys() & b.keys():
        out += differences(a[key], b[key], f"{path}{key}.")
    return out


@pytest.mark.parametrize(("name", "schema"), [
    ("MatchView", MatchViewOut()), ("CreatedMatch", CreatedOut()), ("ReplayView", ReplayOut())])
def test_the_response_schemas_have_exactly_the_fields_of_the_contract(name, schema):
    spec = spec_shape(SPEC["components"]["schemas"][name])
    assert differences(spec, schema_shape(schema)) == []


def test_the_domain_view_has_exactly_the_fields_of_the_contract():
    state = after(UNBROKEN, [(0, "2C"), (1, "AC"), (2, "JD"), (3, "2S"), (1, "2D")])
    spec = spec_shape(SPEC["components"]["schemas"]["MatchView"])
    for viewer in (None, 1, 2):
        view = view_json(view_for(state, viewer))
        assert set(view) == set(spec), viewer  # every field, at the top level too
        assert differences(spec, data_shape(view)) == [], viewer
    replay = replay_json(state, state, 2)
    assert differences(spec_shape(SPEC["components"]["schemas"]["ReplayView"]),
                       data_shape(replay)) == []


def test_the_check_fails_for_a_field_missing_from_any_side():
    spec = spec_shape(SPEC["components"]["schemas"]["MatchView"])
    view = view_json(view_for(after(UNBROKEN, [(0, "2C")]), 1))
    del view["you"]["legal"]
    assert differences(spec, data_shape(view)) == ["you.legal: only in the first"]
    schema = schema_shape(MatchViewOut())
    schema["trick"].pop("leader")
    assert differences(spec, schema) == ["trick.leader: only in the first"]
