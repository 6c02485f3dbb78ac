"""Watching, replaying and auditing at the web table, and what a spectator's page holds:
never a card its reader may not see, in the page or in anything it fetched."""

from __future__ import annotations

import random
import re

from playwright.sync_api import expect

from harness.http import call, wait_until
from tests.web.conftest import WAIT_MS, cards_in, create, one_person, unnamed_controls, view


def truth(base: str, match_id: str) -> dict[int, tuple[int, set[str], bool]]:
    """For every version of a finished match: the round then in progress, the cards played
    in it so far, and whether it was over (read once the match is over, when all is public)."""
    events = call(base, "GET", f"/v1/matches/{match_id}/events?limit=1000").body["events"]
    out: dict[int, tuple[int, set[str], bool]] = {}
    round_number, played, over = 0, set(), False
    for event in events:
        if event["type"] == "RoundDealt":
            round_number, played, over = event["data"]["round"], set(), False
        if event["type"] == "CardPlayed":
            played = played | {event["data"]["card"]}
        if event["type"] in ("RoundScored", "MatchEnded", "MatchAbandoned"):
            over = True
        out[event["version"]] = (round_number, played, over)
    return out


def allowed_in_view(body: dict, known: dict) -> set[str]:
    _, played, over = known[body["version"]]
    return ALL if over else played


ALL = {r + s for r in "23456789TJQKA" for s in "CDHS"}


def allowed_in_event(item: dict, known: dict) -> set[str]:
    """What a live spectator may read in one event: the card it played, or everything once
    its round or the match is over."""
    if item["type"] in ("MatchEnded", "MatchAbandoned", "RoundScored"):
        return ALL
    if item["type"] == "CardPlayed":
        return {item["data"]["card"]}
    return set()


def test_a_spectator_page_never_holds_a_hidden_card(server, open_page):
    rng = random.Random(5)
    match = create(server.base, one_person(), rules={"end_score": 30})
    token = match["tokens"]["0"]
    w = open_page(server.base)
    page = w.page
    page.goto(f"{server.base}/m/{match['id']}")
    page.locator("#seats .seat").first.wait_for()
    expect(page.locator("#hand-area")).to_be_hidden()
    w.assert_accessible("a spectator's table")
    scanned = 0
    while (seen := view(server.base, match["id"], token))["status"] not in ("finished",):
        if seen["to_act"] != [0]:
            wait_until(lambda v=seen["version"]: view(server.base, match["id"])["version"] > v,
                       timeout=WAIT_MS / 1000)
            continue
        # The match waits for the seat the test plays: the spectator's page stands still.
        expect(page.locator("body")).to_have_attribute("data-version", str(seen["version"]))
        played = {p["card"] for t in seen["tricks"] for p in t["plays"]} | {
            p["card"] for p in (seen["trick"] or {"plays": []})["plays"]}
        shown = cards_in(page.content()) | cards_in(page.locator("body").inner_text())
        assert shown <= played, shown - played
        scanned += 1
        if seen["status"] == "passing":
            path, body = "passes", {"cards": rng.sample(seen["you"]["hand"], 3)}
        else:
            path, body = "plays", {"card": rng.choice(seen["you"]["legal"])}
        reply = call(server.base, "POST", f"/v1/matches/{match['id']}/{path}", body,
                     token=token)
        assert reply.status == 200, reply.body
    page.locator("dialog#end[open]").wait_for(timeout=WAIT_MS)
    expect(page.locator("dialog#end .checks li[data-ok='true']")).to_have_count(5)
    assert scanned > 13

    known = truth(server.base, match["id"])
    bodies = w.settled(lambda bodies: any("chain_ok" in b for b in bodies))
    views = [b for b in bodies if "seats" in b and "version" in b]
    assert len(views) > 10
    for body in views:
        assert body["you"] is None
        found = cards_in(str(body))
        assert found <= allowed_in_view(body, known), (body["version"], found)
    items = w.stream_items()
    assert len(items) > 50
    for item in items:
        found = cards_in(str(item["data"]))
        assert found <= allowed_in_event(item, known), (item["version"], item["type"], found)
    assert {b.get("ok") for b in bodies if "chain_ok" in b} == {True}


def test_replay_step_by_step_and_audit_a_trick(server, open_page):
    bots = [{"name": n, "bot": "heuristic"} for n in ("Ann", "Bea", "Cy", "Di")]
    match = create(server.base, bots, rules={"end_score": 20})
    final = wait_until(lambda: (v := view(server.base, match["id"]))["status"] == "finished"
                       and v, timeout=WAIT_MS / 1000)
    w = open_page(server.base)
    page = w.page
    page.goto(f"{server.base}/m/{match['id']}")
    end = page.locator("dialog#end")
    expect(end).to_be_visible()
    expect(end.locator(".checks li[data-ok='true']")).to_have_count(5)
    end.get_by_role("button", name="Replay the match").click()

    bar = page.get_by_role("region", name="Replay")
    expect(bar).to_be_visible()
    last = final["version"]
    event = page.locator("#replay-event")
    expect(event).to_contain_text(f"Event {last} of {last}: ")
    expect(event).to_contain_text("won the match")
    page.keyboard.press("ArrowLeft")
    expect(event).to_contain_text(f"Event {last - 1} of {last}")
    bar.get_by_role("button", name="Step back").click()
    expect(event).to_contain_text(f"Event {last - 2} of {last}")
    page.keyboard.press("Home")
    expect(event).to_contain_text("Event 1 of")
    expect(event).to_contain_text("The match was created.")
    bar.get_by_role("button", name="Step forward").click()
    expect(event).to_contain_text("Round 1 was dealt")

    bar.get_by_label("Round").select_option("1")
    bar.get_by_label("Trick").select_option("3")
    expect(event).to_contain_text("took trick 3")
    version = int(re.search(r"Event (\d+)", event.inner_text()).group(1))
    replay = call(server.base, "GET", f"/v1/matches/{match['id']}/replay/{version}").body
    # The round is over, so every hand shows as it stood, to anyone.
    hands = page.locator("#seats .open-hand")
    expect(hands).to_have_count(4)
    for seat in range(4):
        cards = page.locator(f"#seats .seat[data-seat='{seat}'] .open-hand [data-card]")
        assert cards.evaluate_all("els => els.map(e => e.dataset.card)") == replay["hands"][seat]
    taken = replay["tricks"][-1]
    centre = page.locator("#centre .played")
    assert sorted(centre.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(
        p["card"] for p in taken["plays"])
    expect(page.locator("#centre .played.winning")).to_have_attribute(
        "data-seat", str(taken["winner"]))
    w.shot("replay.png")
    assert unnamed_controls(page) == []

    bar.get_by_role("button", name="Audit this trick").click()
    audit = page.locator("dialog#audit")
    expect(audit).to_be_visible()
    expect(audit.locator("#audit-title")).to_have_text("Round 1, trick 3")
    expected = call(server.base, "GET", f"/v1/matches/{match['id']}/rounds/1/tricks/3").body
    plays = audit.locator(".audit-play")
    expect(plays).to_have_count(4)
    for i, play in enumerate(expected["plays"]):
        block = plays.nth(i)
        expect(block).to_contain_text(play["hash"])
        expect(block).to_contain_text(f"version {play['version']}")
        shown = block.locator(".card-row").first.locator("[data-card]")
        assert shown.evaluate_all("els => els.map(e => e.dataset.card)") == play["hand_before"]
        rules = block.locator(".barred li[data-rule]")
        assert sorted(rules.evaluate_all("els => els.map(e => e.dataset.rule)")) == sorted(
            set(play["illegal"].values()))
    expect(audit).to_contain_text(expected["why_winner"])
    expect(audit).to_contain_text("intact")
    w.shot("audit.png")
    page.keyboard.press("Escape")
    expect(audit).to_be_hidden()
    page.keyboard.press("Escape")
    expect(bar).to_be_hidden()
