"""The kit's own logic, apart from any server: reading results, naming problems, Retry-After,
and finding a bot."""

from __future__ import annotations

import email.utils

import pytest
from cardems_client import (
    IllegalMove,
    InvalidRequest,
    MatchView,
    NotNow,
    Problem,
    RateLimited,
    Unavailable,
    VersionConflict,
    load_bot,
)
from cardems_client.errors import problem_from
from cardems_client.models import Event, Rules
from cardems_client.retry import RetryPolicy, retry_after_seconds


def test_fields_added_later_are_kept_and_nested_values_typed(server):
    from harness.http import call

    body = call(server.base, "POST", "/v1/matches",
                {"seats": [{"name": n} for n in "ABCD"]}).body
    seen = call(server.base, "GET", f"/v1/matches/{body['id']}", token=body["tokens"]["0"]).body
    view = MatchView.from_json({**seen, "dealt_by": "someone"})
    assert view.extra == {"dealt_by": "someone"}
    assert view.you is not None and view.you.hand == seen["you"]["hand"]
    assert isinstance(view.rules, Rules) and view.scores.total == [0, 0, 0, 0]
    assert Rules.from_json({"end_score": 50, "sevens": True}).extra == {"sevens": True}
    with pytest.raises(TypeError):
        Event.from_json(["not", "an", "object"])  # type: ignore[arg-type]


@pytest.mark.parametrize(("status", "code", "kind"), [
    (422, "must_follow_suit", IllegalMove), (422, "card_not_in_hand", IllegalMove),
    (422, "not_your_turn", NotNow), (422, "already_passed", NotNow),
    (422, "invalid_request", InvalidRequest), (400, "invalid_request", InvalidRequest),
    (409, "version_conflict", VersionConflict), (429, "rate_limited", RateLimited),
    (503, "unavailable", Unavailable), (418, "teapot", Problem),
])
def test_each_problem_is_raised_as_its_kind(status, code, kind):
    problem = problem_from(status, {"code": code, "detail": "why"}, 2.0)
    assert type(problem) is kind and problem.code == code and problem.retry_after == 2.0
    assert str(problem) == f"{status} {code}: why"


def test_a_reply_that_is_no_problem_document_is_still_a_problem():
    problem = problem_from(502, "<html>bad gateway</html>")
    assert problem.code == "unknown" and "bad gateway" in problem.detail


def test_retry_after_in_seconds_or_as_a_date():
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds(None) is None and retry_after_seconds("soon") is None
    assert retry_after_seconds("٣") is None  # digits of another script are no delay
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert retry_after_seconds(date, now=1_000_000) == 30.0
    assert retry_after_seconds(email.utils.formatdate(10, usegmt=True), now=50) == 0.0


def test_waits_grow_to_their_bound_and_retry_after_wins():
    policy = RetryPolicy(first_wait=0.2, longest_wait=1.0)
    assert all(0.1 <= policy.backoff(1) <= 0.2 for _ in range(50))
    assert all(0.5 <= policy.backoff(9) <= 1.0 for _ in range(50))
    assert policy.wait(3, 4.0) == 4.0


def test_a_bot_is_found_by_module_and_class():
    bot = load_bot("cardems_client.bots:LowestCard")
    assert bot.choose_moon(None) == "add_to_others"  # type: ignore[arg-type]
    for spec, error in [("cardems_client.bots", ValueError),
                        ("cardems_client.bots:Nobody", AttributeError),
                        ("no_such_module:Bot", ImportError), ("builtins:object", TypeError)]:
        with pytest.raises(error):
            load_bot(spec)
