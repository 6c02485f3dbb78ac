"""Idempotency-Key records: the first response to a POST, kept to answer its retries.

A move's record lives beside the match's events, scoped to the match and the seat, and is
written in the same store step as the events it answers: only the seat's token holder can ask
for it. A creation has no token yet, so its key is the only thing that tells one caller from
another: the key must carry at least 128 bits of entropy, its record is sealed with a key
derived from the Idempotency-Key itself (only a caller who presents the key again can read it),
and records are kept for CREATION_TTL seconds.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import os
import string
from dataclasses import dataclass
from typing import Any, cast

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

CREATIONS = "$creations"  # the stream whose meta holds sealed creation records
MAX_KEY = 255
CREATION_TTL = 24 * 3600
MIN_CREATION_BITS = 128
MIN_DISTINCT = 8  # a long key of few symbols repeated is no secret

# The smallest usual alphabet a key's characters fall in, and the bits each character holds.
_ALPHABETS = (
    (frozenset(string.digits), math.log2(10)),
    (frozenset(string.hexdigits), 4.0),
    (frozenset(string.ascii_letters + string.digits + "-_+/="), 6.0),
)
_SEPARATORS = frozenset("-")


class KeyReused(ValueError):
    """The same Idempotency-Key came back with another body."""


class WeakKey(ValueError):
    """A creation key that someone else could guess."""


def creation_key_bits(key: str) -> float:
    """An upper bound on the entropy of `key`: its length times the bits a character of the
    smallest usual alphabet holding it can carry. Hyphens (as in a UUID) count for nothing."""
    symbols = [c for c in key if c not in _SEPARATORS]
    used = set(symbols)
    if len(used) < MIN_DISTINCT:
        return 0.0
    per_char = next((bits for alphabet, bits in _ALPHABETS if used <= alphabet),
                    math.log2(95))
    return len(symbols) * per_char


def check_creation_key(key: str) -> None:
    bits = creation_key_bits(key)
    if bits < MIN_CREATION_BITS:
        raise WeakKey(
            f"an Idempotency-Key that creates a match must carry at least {MIN_CREATION_BITS}"
            " bits of entropy, so that no one can guess another caller's: use a random UUID,"
            " 32 hex digits or 22 base64url characters")


@dataclass(frozen=True, slots=True)
class Idempotency:
    key: str
    body_hash: str

    @classmethod
    def of(cls, key: str, body: Any) -> Idempotency:
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        return cls(key, hashlib.sha256(text.encode()).hexdigest())

    def slot(self, seat: int | None, period: int | None = None) -> str:
        """Where the record is kept: per seat for a move, per period of CREATION_TTL for a
        creation (a key is looked up in the period now and the one before)."""
        digest = hashlib.sha256(self.key.encode()).hexdigest()
        scope = f"create:{period}" if seat is None else f"seat{seat}"
        return f"idem:{scope}:{digest}"

    def record(self, reply: dict[str, Any] | None, **extra: Any) -> str:
        return json.dumps({"body_hash": self.body_hash, "reply": reply, **extra})

    def replay(self, stored: str) -> dict[str, Any]:
        """The stored reply, or KeyReused when it answered another body."""
        return cast(dict[str, Any], self.opened(stored)["reply"])

    def opened(self, stored: str) -> dict[str, Any]:
        """The whole stored record, or KeyReused when it was made for another body."""
        record: dict[str, Any] = json.loads(stored)
        if record["body_hash"] != self.body_hash:
            raise KeyReused("this Idempotency-Key was used with another body")
        return record

    def _cipher(self) -> AESGCM:
        return AESGCM(hashlib.sha256(b"cardems-sealed-reply:" + self.key.encode()).digest())

    def seal(self, record: str) -> str:
        nonce = os.urandom(12)
        sealed = self._cipher().encrypt(nonce, record.encode(), None)
        return base64.b64encode(nonce + sealed).decode()

    def unseal(self, stored: str) -> dict[str, Any]:
        """The sealed record, or KeyReused when it was not sealed for this key and body."""
        raw = base64.b64decode(stored)
        try:
            plain = self._cipher().decrypt(raw[:12], raw[12:], None)
        except InvalidTag:
            raise KeyReused("this Idempotency-Key was used with another body") from None
        return self.opened(plain.decode())
