"""Idempotency-Key records: the first response to a POST, kept to answer its retries.

A record lives beside the match's events, scoped to the match and the seat, and is written in
the same store step as the events it answers. A creation's reply holds the new seats' tokens,
which the server otherwise keeps only as hashes; so that record is sealed with a key derived
from the Idempotency-Key itself: only a caller who presents the key again can read it.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

CREATIONS = "$creations"  # the stream whose meta holds sealed creation replies
MAX_KEY = 255


class KeyReused(ValueError):
    """The same Idempotency-Key came back with another body."""


@dataclass(frozen=True, slots=True)
class Idempotency:
    key: str
    body_hash: str

    @classmethod
    def of(cls, key: str, body: Any) -> Idempotency:
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        return cls(key, hashlib.sha256(text.encode()).hexdigest())

    def slot(self, seat: int | None) -> str:
        scope = "create" if seat is None else f"seat{seat}"
        return f"idem:{scope}:{hashlib.sha256(self.key.encode()).hexdigest()}"

    def record(self, reply: dict[str, Any]) -> str:
        return json.dumps({"body_hash": self.body_hash, "reply": reply})

    def replay(self, stored: str) -> dict[str, Any]:
        """The stored reply, or KeyReused when it answered another body."""
        record = json.loads(stored)
        if record["body_hash"] != self.body_hash:
            raise KeyReused("this Idempotency-Key was used with another body")
        return record["reply"]  # type: ignore[no-any-return]

    def _cipher(self) -> AESGCM:
        return AESGCM(hashlib.sha256(b"cardems-sealed-reply:" + self.key.encode()).digest())

    def seal(self, reply: dict[str, Any]) -> str:
        nonce = os.urandom(12)
        sealed = self._cipher().encrypt(nonce, self.record(reply).encode(), None)
        return base64.b64encode(nonce + sealed).decode()

    def unseal(self, stored: str) -> dict[str, Any]:
        raw = base64.b64decode(stored)
        try:
            plain = self._cipher().decrypt(raw[:12], raw[12:], None)
        except InvalidTag:
            raise KeyReused("this Idempotency-Key was used with another body") from None
        return self.replay(plain.decode())
