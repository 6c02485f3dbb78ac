"""Which Idempotency-Keys may create a match: random ones of 128 bits, and nothing a person
or a program would write by hand."""

from __future__ import annotations

import uuid
from random import Random

import pytest

from service.idempotency import guessable


def test_random_keys_of_every_usual_shape_pass():
    rng = Random(2026)
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for _ in range(20_000):
        keys = [str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                str(uuid.UUID(int=rng.getrandbits(128), version=4)).upper(),
                f"{rng.getrandbits(128):032x}",
                "".join(rng.choice(alphabet) for _ in range(22))]
        for key in keys:
            assert guessable(key) is None, key


@pytest.mark.parametrize(("key", "why"), [
    ("abcdefghijklmnopqrstuvwxyz", "run"),
    ("0123456789abcdef0123456789abcdef", "run"),
    ("ABCDEFGHIJKLMNOPQRSTUV", "run"),
    ("12345678-9abc-4def-8123-456789abcdef", "run"),
    ("zyxwvutsrqponmlkjihgfedcba", "run"),
    ("0c9f6a3e5b7d41e2aaaaaaaaaa3b5a7f", "run"),
    ("deadbeefdeadbeefdeadbeefdeadbeef", "distinct"),
    ("00000000-0000-0000-0000-000000000000", "distinct"),
    ("0c9f6a3e0c9f6a3e0c9f6a3e0c9f6a3e", "block"),
    ("correcthorsebatterystaple", "case"),
    ("73829104657382910465738291046573", "case"),
    ("qwertyuiopASDFGHJKLzxcvbnm", "keyboard"),
    ("create-my-match-please-now", "case"),
    ("0c9f6a3e5b7d41e28a4f9c1d2e3b5a7", "UUID"),  # 31 hex digits: 124 bits
    ("Jq3v9XkT2mLr8WcZp5NhY", "UUID"),  # 21 base64url characters: 126 bits
])
def test_keys_anyone_could_guess_are_refused_and_say_why(key, why):
    found = guessable(key)
    assert found is not None and why.lower() in found.lower(), found
