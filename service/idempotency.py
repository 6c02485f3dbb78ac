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
import re
import string
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, cast

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

CREATIONS = "$creations"  # the stream whose meta holds sealed creation records
MAX_KEY = 255
CREATION_TTL = 24 * 3600
MIN_CREATION_BITS = 128
MIN_DISTINCT = 8  # a long key of few symbols repeated is no secret
LONGEST_RUN = 8  # symbols in a row that repeat or count up or down by one
WALK = 7  # keys in a row along a keyboard's row
SHORTEST_PERIOD = 9  # a key that is one block repeated, of at most 8 symbols, is no secret

# The shapes a random key takes, each with its alphabet in order (a symbol's value is its
# place): a UUID, 32 hex digits (128 bits) or more, 22 base64url symbols (132 bits) or more.
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_HEX = "0123456789abcdef"
_BASE64URL = string.ascii_uppercase + string.ascii_lowercase + string.digits + "-_"
# Letter rows only: a row of digits counts up, which the run finds.
_KEYBOARD = ("qwertyuiop", "asdfghjkl", "zxcvbnm", "azertyuiop", "qwertzuiop")


class KeyReused(ValueError):
    """The same Idempotency-Key came back with another body."""


class WeakKey(ValueError):
    """A creation key that someone else could guess."""


def _symbols(key: str) -> list[int] | None:
    """The key's symbols as their places in the alphabet of its shape; None for a key of no
    shape a random generator writes (a UUID, 32 hex digits or more, 22 base64url or more)."""
    if _UUID.fullmatch(key):
        return [_HEX.index(c) for c in key.lower() if c != "-"]
    lowered = key.lower()
    # A key of hex digits alone holds four bits a symbol, whatever alphabet it would fit.
    alphabet, least = (_HEX, 32) if all(c in _HEX for c in lowered) else (_BASE64URL, 22)
    text = lowered if alphabet is _HEX else key
    if len(text) < least or not all(c in alphabet for c in text):
        return None
    return [alphabet.index(c) for c in text]


def _longest_run(values: list[int]) -> int:
    """The most symbols in a row that repeat or count up or down by one (`aaaa`, `0123`)."""
    longest = run = 1
    step: int | None = None
    for before, now in pairwise(values):
        change = now - before
        if change in (-1, 0, 1) and change == step:
            run += 1
        else:
            run = 2 if change in (-1, 0, 1) else 1
            step = change
        longest = max(longest, run)
    return longest


def _too_few_kinds(key: str) -> bool:
    """True for a key whose characters all come from one small set (digits alone, or letters
    of one case, with - or _ between words) and are too few to carry 128 bits from it: a
number or a phrase. A UUID's
    shape is taken as it is (its digits alone come about once in a million)."""
    if _UUID.fullmatch(key):
        return False
    for kind in (string.digits, "abcdef", "ABCDEF", string.ascii_lowercase + "-_",
                 string.ascii_uppercase + "-_"):  # words joined by - or _ are still words
        if all(c in kind for c in key):
            return len(key) * math.log2(len(kind)) < MIN_CREATION_BITS
    return False


def _keyboard_walk(key: str) -> bool:
    """True for WALK keys in a row along a keyboard's row, either way and in one case
    (`qwertyu`, `LKJHGFD`)."""
    rows = [r for row in _KEYBOARD for r in (row, row[::-1], row.upper(), row.upper()[::-1])]
    return any(key[i:i + WALK] in row for i in range(len(key) - WALK + 1) for row in rows)


def _period(values: list[int]) -> int:
    """The length of the shortest block the key repeats (its own length if none)."""
    return next(p for p in range(1, len(values) + 1)
                if all(values[i] == values[i - p] for i in range(p, len(values))))


def guessable(key: str) -> str | None:
    """Why a creation key is not plausibly random, or None. A random UUID, hex or base64url
    key of 128 bits passes, but for a few by chance: by count, one 32-digit hex key in three
    million has no letter (too few kinds), and a run of 9 or a 7-key walk come far more
    rarely. Counting, repeating and keyboard-made keys do not pass."""
    values = _symbols(key)
    if values is None:
        return "it is not a random UUID, 32 or more hex digits, or 22 or more base64url" \
               " characters"
    if len(set(values)) < MIN_DISTINCT:
        return f"it uses fewer than {MIN_DISTINCT} distinct characters"
    if _longest_run(values) > LONGEST_RUN:
        return "it holds a long run of one character or of characters in sequence"
    if _period(values) < SHORTEST_PERIOD:
        return "it repeats a short block"
    if _too_few_kinds(key):
        return "it is made of digits alone or of letters of one case alone, too few of them" \
               " for 128 bits"
    if _keyboard_walk(key):
        return "it walks along a row of the keyboard"
    return None


def check_creation_key(key: str) -> None:
    why = guessable(key)
    if why:
        raise WeakKey(
            f"an Idempotency-Key that creates a match must carry at least {MIN_CREATION_BITS}"
            f" bits of entropy, so that no one can guess another caller's, and this one is"
            f" guessable: {why}. Use a random UUID, 32 hex digits or 22 base64url characters")


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
