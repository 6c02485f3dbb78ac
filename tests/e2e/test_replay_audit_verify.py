"""Replays, trick audits of real disputes, and the integrity report, over HTTP."""

from __future__ import annotations

import pytest

from harness.http import call, view_when
from tests.e2e.conftest import create, view

# One suit per seat: North clubs, East hearts, South spades, West diamonds.
SUITS = ["2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
         "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS", "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"]
PASSES = ["3C 4C 5C", "2H 3H 4H", "2S 3S 4S", "2D 3D 4D"]


def deck(hands: list[str], dealer: int = 0) -> list[str]:
    cards = [h.split() for h in hands]
    return [cards[(dealer + 1 + i) % 4][i // 4] for i in range(52)]


def post(base, match, seat, path, body):
    return call(base, "POST", f"/v1/matches/{match['id']}/{path}", body,
                token=match["tokens"][str(seat)])


@pytest.fixture
def disputed(server):
    """Round 1 after the passes: South holds QS and no club; East holds only clubs and
    hearts."""
    match = create(server.base, decks=[deck(SUITS)])
    for seat, cards in enumerate(PASSES):
        assert post(server.base, match, seat, "passes", {"cards": cards.split()}).status == 200
    return match


def play_out_round(base, match, number):
    while (state := view(base, match["id"]))["round"] == number \
            and state["status"] == "playing":
        seat = state["turn"]
        legal = view(base, match["id"], match["tokens"][str(seat)])["you"]["legal"]
        assert post(base, match, seat, "plays", {"card": legal[0]}).status == 200


def test_the_queen_dispute_i_had_no_clubs_and_was_not_allowed_to_discard_the_queen(
        server, disputed):
    base, match = server.base, disputed
    assert post(base, match, 0, "plays", {"card": "2C"}).status == 200
    assert post(base, match, 1, "plays", {"card": "3C"}).status == 200
    refused = post(base, match, 2, "plays", {"card": "QS"})
    assert refused.status == 422 and refused.body["code"] == "no_points_on_first_trick"
    live = call(base, "GET", f"/v1/matches/{match['id']}/rounds/1/tricks/1").body
    assert not live["round_over"] and all(set(p) == {"seat", "card", "version", "hash"}
                                          for p in live["plays"])
    assert post(base, match, 2, "plays", {"card": "5S"}).status == 200
    play_out_round(base, match, 1)
    audit = call(base, "GET", f"/v1/matches/{match['id']}/rounds/1/tricks/1").body
    south = audit["plays"][2]
    assert south["seat"] == 2 and south["card"] == "5S"
    assert "QS" in south["hand_before"] and not any(c.endswith("C")
                                                      for c in south["hand_before"])
    assert south["illegal"]["QS"] == "no_points_on_first_trick"
    assert all(south["illegal"][h] == "no_points_on_first_trick" for h in ("2H", "3H", "4H"))
    assert "QS" not in south["legal"] and "5S" in south["legal"]
    assert audit["led_suit"] == "clubs" and audit["leader"] == 0
    assert audit["winner"] == 1 and "3C" in audit["why_winner"]
    assert audit["chain_ok"] and audit["complete"] and audit["round_over"]
    log = call(base, "GET", f"/v1/matches/{match['id']}/events?limit=1000").body["events"]
    by_version = {e["version"]: e for e in log}
    for play in audit["plays"]:
        assert by_version[play["version"]]["hash"] == play["hash"]
        assert by_version[play["version"]]["data"]["card"] == play["card"]


def test_the_hearts_dispute_hearts_were_led_before_they_were_broken(server, disputed):
    base, match = server.base, disputed
    for seat, card in [(0, "2C"), (1, "5C"), (2, "5S"), (3, "2S")]:
        assert post(base, match, seat, "plays", {"card": card}).status == 200
    # East won with 5C and holds hearts and clubs; hearts are not broken.
    refused = post(base, match, 1, "plays", {"card": "AH"})
    assert refused.status == 422 and refused.body["code"] == "hearts_not_broken"
    assert post(base, match, 1, "plays", {"card": "4C"}).status == 200
    play_out_round(base, match, 1)
    audit = call(base, "GET", f"/v1/matches/{match['id']}/rounds/1/tricks/2").body
    east = audit["plays"][0]
    assert audit["leader"] == 1 and east["card"] == "4C"
    assert audit["hearts_broken_before"] is False
    hearts = [c for c in east["hand_before"] if c.endswith("H")]
    assert hearts and all(east["illegal"][h] == "hearts_not_broken" for h in hearts)
    broken = [t for t in range(1, 14) if call(
        base, "GET", f"/v1/matches/{match['id']}/rounds/1/tricks/{t}").body[
        "hearts_broken_in"] is not None]
    first = call(base, "GET", f"/v1/matches/{match['id']}/rounds/1/tricks/{broken[0]}").body
    assert first["hearts_broken_in"] == broken[0]
    assert any(p["card"].endswith("H") for p in first["plays"])


def test_an_unknown_round_or_trick_is_a_404_that_says_why(server, disputed):
    for path, why in (("rounds/2/tricks/1", "round 2 is not dealt yet"),
                      ("rounds/1/tricks/1", "round 1 has no trick 1 yet"),
                      ("rounds/1/tricks/14", "4 seats has 13 tricks, not 14")):
        reply = call(server.base, "GET", f"/v1/matches/{disputed['id']}/{path}")
        assert reply.status == 404 and reply.body["code"] == "not_found"
        assert why in reply.body["detail"], reply.body


def test_numbers_outside_the_contracts_bounds_are_a_422_naming_them(server, disputed):
    for path, name in (("rounds/0/tricks/1", "round"), ("rounds/1/tricks/0", "trick"),
                       ("rounds/1/tricks/18", "trick"), ("replay/0", "version")):
        reply = call(server.base, "GET", f"/v1/matches/{disputed['id']}/{path}")
        assert reply.status == 422 and reply.body["code"] == "invalid_request", reply.body
        assert list(reply.body["errors"]) == [name]


def test_a_finished_rounds_missing_trick_says_the_round_is_over(server):
    match = create(server.base, decks=[deck(SUITS)])
    for seat, cards in enumerate(PASSES):
        post(server.base, match, seat, "passes", {"cards": cards.split()})
    play_out_round(server.base, match, 1)
    reply = call(server.base, "GET", f"/v1/matches/{match['id']}/rounds/1/tricks/13")
    assert reply.status == 200 and reply.body["complete"] and reply.body["round_over"]
    reply = call(server.base, "GET", f"/v1/matches/{match['id']}/rounds/1/tricks/14")
    assert reply.status == 404 and "has 13 tricks" in reply.body["detail"]
    assert "yet" not in reply.body["detail"], "a round that is over waits for nothing"


def test_a_replay_shows_each_version_redacted_as_of_now(server, disputed):
    base, match = server.base, disputed
    at_deal = call(base, "GET", f"/v1/matches/{match['id']}/replay/2").body
    assert at_deal["version"] == 2 and at_deal["status"] == "passing"
    assert at_deal["hands"] == [None] * 4, "round 1 is not over: a spectator sees no hand"
    mine = call(base, "GET", f"/v1/matches/{match['id']}/replay/2",
                token=match["tokens"]["2"]).body
    assert mine["hands"][2] == sorted(SUITS[2].split(), key=_order) and mine["you"]["seat"] == 2
    assert [h is None for h in mine["hands"]] == [True, True, False, True]
    first = call(base, "GET", f"/v1/matches/{match['id']}/replay/1").body
    assert first["status"] == "dealing" and first["round"] == 0
    play_out_round(base, match, 1)
    after = call(base, "GET", f"/v1/matches/{match['id']}/replay/2").body
    assert all(after["hands"]), "once the round is over its deal is public"
    now = view(base, match["id"])["version"]
    reply = call(base, "GET", f"/v1/matches/{match['id']}/replay/{now + 1}")
    assert reply.status == 404


def _order(card: str) -> int:
    return "CDSH".index(card[1]) * 13 + "23456789TJQKA".index(card[0])


def test_verify_over_http_checks_every_deal_once_the_match_is_over(server):
    match = create(server.base, [{"name": f"b{i}", "bot": "random"} for i in range(4)],
                   rules={"end_score": 20}, client_seed="audit me")
    view_when(server.base, match["id"], lambda v: v["status"] == "finished", timeout=120)
    report = call(server.base, "GET", f"/v1/matches/{match['id']}/verify").body
    assert report["ok"] and report["deals_ok"] is True and report["chain_ok"]
    assert report["replay_ok"] and report["first_bad_version"] is None
    assert report["events"] == view(server.base, match["id"])["version"]


# North passes its diamonds and receives West's top clubs: it then holds every club, leads
# and takes all thirteen tricks, and every point with them.
MOON = ["2C 3C 4C 5C 6C 7C 8C 9C TC JC 2D 3D 4D", "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH",
        "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS", "QC KC AC 5D 6D 7D 8D 9D TD JD QD KD AD"]
MOON_PASSES = ["2D 3D 4D", "2H 3H 4H", "2S 3S 4S", "QC KC AC"]


def test_the_shooter_chooses_how_the_moon_scores_over_http(server):
    base = server.base
    match = create(base, decks=[deck(MOON)], rules={"moon": "shooter_choice"})
    for seat, cards in enumerate(MOON_PASSES):
        assert post(base, match, seat, "passes", {"cards": cards.split()}).status == 200
    play_out_round(base, match, 1)
    waiting = view(base, match["id"])
    assert waiting["status"] == "moon_choice" and waiting["to_act"] == [0]
    early = post(base, match, 1, "moon", {"choice": "add_to_others"})
    assert early.status == 422 and early.body["code"] == "not_your_turn", early.body
    odd = post(base, match, 0, "moon", {"choice": "shooter_choice"})
    assert odd.status == 422, odd.body
    assert view(base, match["id"])["version"] == waiting["version"], "refusals change nothing"
    chosen = post(base, match, 0, "moon", {"choice": "subtract_from_self"})
    assert chosen.status == 200, chosen.body
    after = view(base, match["id"])
    assert after["round"] == 2 and after["status"] == "passing"
    assert after["scores"]["history"] == [[-26, 0, 0, 0]]
    log = call(base, "GET", f"/v1/matches/{match['id']}/events?limit=1000").body["events"]
    kinds = [e["type"] for e in log]
    assert kinds.index("MoonShot") < kinds.index("MoonChosen") < kinds.index("RoundScored")
    moon = next(e for e in log if e["type"] == "MoonChosen")["data"]
    assert moon["seat"] == 0 and moon["choice"] == "subtract_from_self"


def test_a_seat_abandons_over_http_and_anyone_can_check_the_deals(server):
    base = server.base
    match = create(base)
    assert post(base, match, 0, "passes", {"cards": view(base, match["id"], match["tokens"]["0"])
                                           ["you"]["hand"][:3]}).status == 200
    spectator = call(base, "POST", f"/v1/matches/{match['id']}/abandon", {})
    assert spectator.status == 401
    extra = post(base, match, 1, "abandon", {"why": "bored"})
    assert extra.status == 422, "the body takes no fields"
    assert view(base, match["id"])["status"] == "passing", "refusals change nothing"
    gone = post(base, match, 1, "abandon", {})
    assert gone.status == 200, gone.body
    assert gone.body["status"] == "abandoned" and gone.body["winner"] is None
    assert len(gone.body["server_seed"]) == 64
    late = post(base, match, 2, "passes", {"cards": ["2C", "3C", "4C"]})
    assert late.status == 422 and late.body["code"] == "wrong_phase"
    report = call(base, "GET", f"/v1/matches/{match['id']}/verify").body
    assert report["ok"] and report["deals_ok"] is True, report
    log = call(base, "GET", f"/v1/matches/{match['id']}/events").body["events"]
    assert log[-1]["type"] == "MatchAbandoned"
    assert log[-1]["data"]["reason"] == "by_seat" and log[-1]["data"]["seat"] == 1
