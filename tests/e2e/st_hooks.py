"""Schemathesis hooks: remember the seat tokens of the matches it creates and act with them,
so that fuzzed moves reach the rules instead of stopping at 401. The tokens are given as an
auth provider, so the fuzzer still probes each operation without and with a wrong token."""

from __future__ import annotations

import random
from typing import Any

import schemathesis

TOKENS: dict[str, list[str]] = {}
_pick = random.Random(0)


@schemathesis.hook
def after_call(context: Any, case: Any, response: Any) -> None:
    if case.operation.path == "/v1/matches" and response.status_code == 201:
        body = response.json()
        TOKENS[body["id"]] = list(body["tokens"].values())


@schemathesis.auth(refresh_interval=None, retry_on=[])
class SeatToken:
    """A token of one of the match's seats when the match is known, else one of another."""

    def get(self, case: Any, ctx: Any) -> dict[str, list[str]]:
        return TOKENS

    def set(self, case: Any, data: dict[str, list[str]], ctx: Any) -> None:
        match_id = (case.path_parameters or {}).get("matchId")
        pool = data.get(match_id) or [t for tokens in data.values() for t in tokens]
        token = _pick.choice(pool) if pool else "no-match-created-yet"
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
