"""Schemathesis hooks: remember the seat tokens of the matches it creates and act with them,
so that fuzzed moves reach the rules instead of stopping at 401. The tokens are given as an
auth provider, so the fuzzer still probes each operation without and with a wrong token."""

from __future__ import annotations

import random
from typing import Any

import schemathesis
from hypothesis import strategies as st

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


# -- hostile input: the classes of request that once got a 500 stay closed --------------

LONE_SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
# Header values travel as bytes: digits beyond Latin-1 go as their UTF-8 bytes, which is how
# a server reads them.
NON_ASCII_DIGITS = st.sampled_from(
    ["\u00b2", "\u00b3", "\u00b9", "\u0661", "\uff11", "\u09e7"]).map(
    lambda d: d.encode("utf-8").decode("latin-1") if ord(d) > 255 else d)


def _nested(value: Any, depth: int) -> Any:
    for _ in range(depth):
        value = [value]
    return value


def _spoiled(body: Any) -> st.SearchStrategy[Any]:
    """The body with one field spoiled: a lone surrogate in a string, or nesting past the
    documented depth, at the top or in place of a field."""
    if not isinstance(body, dict) or not body:
        return st.just(body)
    key = st.sampled_from(sorted(body))
    surrogate = st.tuples(key, st.text(max_size=5), LONE_SURROGATES).map(
        lambda t: {**body, t[0]: t[1] + t[2]})
    deep = st.tuples(key, st.integers(17, 400)).map(
        lambda t: {**body, t[0]: _nested(body[t[0]], t[1])})
    seat_name = st.tuples(st.text(max_size=3), LONE_SURROGATES).map(
        lambda t: {**body, "seats": [{"name": t[0] + t[1]}, *body["seats"][1:]]}
        if isinstance(body.get("seats"), list) and body["seats"] else body)
    return st.one_of(surrogate, deep, seat_name)


@schemathesis.hook
def flatmap_body(context: Any, body: Any) -> st.SearchStrategy[Any]:
    return st.one_of(st.just(body), st.just(body), _spoiled(body))


def _spoiled_digits() -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(st.text("0123456789", max_size=3), NON_ASCII_DIGITS).map("".join),
        st.integers(11, 5000).map(lambda n: "9" * n),
    )


@schemathesis.hook
def flatmap_headers(context: Any, headers: Any) -> st.SearchStrategy[Any]:
    headers = dict(headers or {})
    spoiled = st.tuples(st.sampled_from(["If-Match", "Last-Event-ID"]), _spoiled_digits()).map(
        lambda t: {**headers, t[0]: t[1]})
    return st.one_of(st.just(headers), st.just(headers), spoiled)
