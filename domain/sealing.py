"""Sealed values: a hidden value enters the public record only as a salted commitment.

A hidden value (a seat's dealt hand, its chosen pass, the cards it received) is named by its
path in the event's data (`hands.2`, `cards`, `received.0`). Its commitment is SHA-256 of a
16-byte salt followed by the value's canonical JSON. The salt is derived from the match's
server seed, so a replay of the log derives the very same one; no one can compute it before
the seed is revealed, and it is shown to a reader only together with the value it opens.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

SALT_BYTES = 16
_SALT_DOMAIN = b"cardems/salt/v1\x00"  # keeps salts apart from the shuffle's HMAC stream


def canonical_json(value: Any) -> str:
    """One spelling per value: sorted keys, no spaces, UTF-8 as is (the chain's too)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class Seal:
    """The salt (hex) and the commitment (hex) of one hidden value."""

    salt: str
    commitment: str


def salt_for(server_seed: bytes, label: str) -> bytes:
    """The salt of the value `label` names; one label per hidden value of a match."""
    return hmac.new(server_seed, _SALT_DOMAIN + label.encode(), hashlib.sha256).digest()[
        :SALT_BYTES]


def commitment(salt: bytes, value: Any) -> str:
    return hashlib.sha256(salt + canonical_json(value).encode()).hexdigest()


def seal(server_seed: bytes, label: str, value: Any) -> Seal:
    salt = salt_for(server_seed, label)
    return Seal(salt.hex(), commitment(salt, value))


def opens(sealed: str, salt_hex: str, value: Any) -> bool:
    """True when `value` with `salt_hex` is what the commitment `sealed` was made of."""
    try:
        salt = bytes.fromhex(salt_hex)
    except (TypeError, ValueError):
        return False
    return len(salt) == SALT_BYTES and hmac.compare_digest(commitment(salt, value), sealed)


# -- paths into an event's data ----------------------------------------------------------

def value_at(data: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path (`hands.2`: the third item of `hands`), or None."""
    node: Any = data
    for part in path.split("."):
        if isinstance(node, Mapping):
            node = node.get(part)
        elif isinstance(node, list) and part.isdecimal() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def put_at(data: Any, path: str, value: Any) -> Any:
    """`data` with `value` at a dotted path that exists in it. Only the containers along the
    path are copied; the rest is shared with `data`, which is left as it was."""
    part, _, rest = path.partition(".")
    if isinstance(data, list):
        items = list(data)
        items[int(part)] = put_at(items[int(part)], rest, value) if rest else value
        return items
    fields = dict(data)
    fields[part] = put_at(fields[part], rest, value) if rest else value
    return fields


def with_hidden(data: Mapping[str, Any], hidden: Iterable[str]) -> dict[str, Any]:
    """The data with the paths in `hidden` set to null and their salts taken out.

    What stays visible keeps its salt (under `salts`, by the same path), so its reader can
    open its commitment; `salts` is left out when it would be empty. Read on every event of
    every page and stream, so it copies only what it changes.
    """
    out: dict[str, Any] = dict(data)
    hidden = set(hidden)
    for path in hidden:
        out = put_at(out, path, None)
    salts = {p: s for p, s in out.pop("salts", {}).items() if p not in hidden}
    if salts:
        out["salts"] = salts
    return out


def public_form(data: Mapping[str, Any]) -> dict[str, Any]:
    """The data with every sealed value hidden: what the hash chain covers."""
    return with_hidden(data, data.get("sealed", {}))
