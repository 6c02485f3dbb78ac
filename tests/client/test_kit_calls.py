"""The kit against a live server: every operation returns its typed result, problems come
back as exceptions carrying their code, and the live iterator hands out each event once."""

from __future__ import annotations

import pytest
from cardems_client import (
    Analysis,
    Client,
    CreatedMatch,
    Forbidden,
    IllegalMove,
    IntegrityReport,
    InvalidRequest,
    MatchView,
    NotFound,
    NotNow,
    ReplayView,
    RetryPolicy,
    TrickAudit,
    Unauthorized,
    VersionConflict,
)
from cardems_client.bots import LowestCard

from harness.http import call

PEOPLE = ["Ann", "Bob", "Cid", "Dee"]


@pytest.fixture
def client(server):
    with Client(server.base) as client:
        yield client


def test_a_whole_match_read_through_typed_results(client):
    # A short match: its every round is judged below.
    match = client.create_match(PEOPLE, rules={"end_score": 10}, client_seed="kit")
    assert isinstance(match, CreatedMatch) and match.status == "passing"
    assert sorted(match.tokens) == ["0", "1", "2", "3"] and match.you is None
    seats = [client.seat(match.token(s)) for s in range(4)]
    mine = seats[0].match(match.id)
    assert isinstance(mine, MatchView) and mine.you is not None and mine.you.seat == 0
    assert len(mine.you.hand) == 13 and mine.rules.end_score == 10 and mine.deck.cards == 52
    assert mine.rules.turn_seconds is None and mine.deadlines == {} and mine.away == []
    assert not mine.extra, "every field of the view is typed"
    _play_out(match, seats)
    final = client.match(match.id)
    assert final.over and final.winner is not None and final.server_seed
    events = list(client.all_events(match.id))
    assert [e.version for e in events] == list(range(1, final.version + 1))
    assert events[0].type == "MatchCreated" and events[-1].ends_match
    page = client.events(match.id, after=3, limit=5)
    assert [e.version for e in page.events] == [4, 5, 6, 7, 8] and page.next
    replay = client.replay(match.id, 10)
    assert isinstance(replay, ReplayView) and replay.version == 10
    assert all(len(hand) for hand in replay.hands if hand is not None)
    audit = client.audit(match.id, 1, 1)
    assert isinstance(audit, TrickAudit) and audit.plays[0].card == "2C" and audit.chain_ok
    assert audit.plays[0].legal == ["2C"]
    report = client.verify(match.id)
    assert isinstance(report, IntegrityReport) and report.ok and report.deals_ok
    assert client.health().status == "ok"
    assert client.link(match.id, "t/k") == f"{client.base_url}/m/{match.id}#token=t%2Fk"
    with pytest.raises(NotFound):
        client.analysis(match.id)
    analysis = client.analysed(match.id, every=0.2)
    assert isinstance(analysis, Analysis) and analysis.done and not analysis.extra
    assert analysis.up_to_round == len(final.scores.history)
    assert analysis.progress.done == analysis.progress.total == sum(
        len(r.decisions) for r in analysis.rounds)
    first = analysis.rounds[0].decisions[0]
    assert first.kind == "pass" and len(first.chosen) == 3 and first.trick is None
    plays = [d for r in analysis.rounds for d in r.decisions if d.kind == "play"]
    assert plays[0].chosen == "2C" and plays[0].verdict == "forced" and plays[0].loss == 0
    assert all(d.options[0].move == d.best for d in plays)
    assert [s.seat for s in analysis.seats] == [0, 1, 2, 3]
    assert client.ask_analysis(match.id) == analysis  # asking again changes nothing


def _play_out(match, seats):
    """Plays every seat from the views alone: the lowest legal card, the top three passed."""
    bot = LowestCard()
    view = seats[0].match(match.id)
    while not view.over:
        for seat in view.to_act:
            mine = seats[seat].match(match.id)
            if mine.status == "passing":
                seats[seat].pass_cards(match.id, bot.choose_pass(mine))
            elif mine.status == "playing":
                seats[seat].play(match.id, bot.choose_play(mine), if_match=mine.version)
            else:
                seats[seat].choose_moon(match.id, bot.choose_moon(mine))
        view = seats[0].match(match.id)


def test_problems_are_exceptions_with_their_code(client, server):
    match = client.create_match(PEOPLE)
    ann = client.seat(match.token(0))
    hand = ann.match(match.id).you.hand
    with pytest.raises(IllegalMove) as illegal:
        ann.pass_cards(match.id, hand[:2])
    assert illegal.value.code == "pass_needs_three_cards" and illegal.value.status == 422
    with pytest.raises(IllegalMove) as not_held:
        ann.pass_cards(match.id, [*hand[:2], next(c for c in _all_cards() if c not in hand)])
    assert not_held.value.code == "card_not_in_hand"
    with pytest.raises(NotNow) as phase:
        ann.play(match.id, hand[0])
    assert phase.value.code == "wrong_phase"
    with pytest.raises(VersionConflict) as stale:
        ann.pass_cards(match.id, hand[:3], if_match=1)
    assert stale.value.code == "version_conflict" and stale.value.version == match.version
    with pytest.raises(NotFound):
        client.match("no-such-match")
    with pytest.raises(NotFound):
        client.audit(match.id, 9, 1)
    with pytest.raises(Unauthorized):
        client.pass_cards(match.id, hand[:3])
    with pytest.raises(NotNow) as not_away:
        ann.come_back(match.id)
    assert not_away.value.code == "not_away"
    other = client.create_match(PEOPLE)
    with pytest.raises(Forbidden):
        client.seat(other.token(0)).pass_cards(match.id, hand[:3])
    with pytest.raises(InvalidRequest) as invalid:
        client.create_match(["Ann", "Bob"])
    assert invalid.value.code == "invalid_request" and invalid.value.errors
    # Nothing above changed the match.
    assert client.match(match.id).version == match.version


def _all_cards():
    return [rank + suit for suit in "CDSH" for rank in "23456789TJQKA"]


def test_a_retried_move_is_applied_once(client, server):
    """The kit's key rides with every retry of a move: the service answers the retry with
    the first response. Shown by sending the same request twice with one key by hand."""
    match = client.create_match(PEOPLE)
    ann = client.seat(match.token(0))
    sent = []
    ann.http.event_hooks["request"].append(lambda request: sent.append(request))
    hand = ann.match(match.id).you.hand
    first = ann.pass_cards(match.id, hand[:3])
    key = sent[-1].headers["Idempotency-Key"]
    again = call(server.base, "POST", f"/v1/matches/{match.id}/passes", {"cards": hand[:3]},
                 token=match.token(0), headers={"Idempotency-Key": key})
    assert again.status == 200 and again.body["version"] == first.version
    assert client.match(match.id).version == first.version
    with pytest.raises(NotNow):
        ann.pass_cards(match.id, hand[:3])
    assert sent[-1].headers["Idempotency-Key"] != key


def test_the_live_iterator_hands_out_each_event_once_in_order(client):
    match = client.create_match(["Ann", *({"name": f"b{i}", "bot": "random"} for i in range(3))],
                                rules={"end_score": 10})
    ann = client.seat(match.token(0))
    seen = []
    for event in ann.follow(match.id, after=0):
        seen.append(event)
        view = ann.match(match.id)
        if view.waits_on(0):
            bot = LowestCard()
            if view.status == "passing":
                ann.pass_cards(match.id, bot.choose_pass(view))
            elif view.status == "playing":
                ann.play(match.id, bot.choose_play(view), if_match=view.version)
            else:
                ann.choose_moon(match.id, bot.choose_moon(view))
    assert [e.version for e in seen] == list(range(1, len(seen) + 1))
    assert seen[-1].ends_match and client.match(match.id).over
    # Ann sees her own hand in the deal, and no one else's.
    dealt = next(e for e in seen if e.type == "RoundDealt")
    assert dealt.data["hands"][0] is not None
    assert all(dealt.data["hands"][s] is None for s in (1, 2, 3))


def test_a_service_that_never_answers_is_given_up_on():
    from cardems_client import GaveUp

    from harness.http import free_port

    client = Client(f"http://127.0.0.1:{free_port()}", retry=RetryPolicy(patience=1.0))
    with pytest.raises(GaveUp):
        client.match("anything")


def test_a_turn_clock_reads_as_typed_fields(client):
    match = client.create_match(PEOPLE, rules={"turn_seconds": 60})
    assert match.rules.turn_seconds == 60 and match.away == []
    assert sorted(match.deadlines) == ["0", "1", "2", "3"] and not match.extra
