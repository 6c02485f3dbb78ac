"""The analysis at the web table: asked for from the end screen, followed live, and read in
the replay by mouse and by keyboard: the verdict marks, the options, the summary and the
chart."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal

from playwright.sync_api import expect

from harness.http import call, wait_until
from tests.web.conftest import ARTIFACTS, WAIT_MS, create, unnamed_controls, view, words

MARKS = {"blunder": "??", "mistake": "?", "inaccuracy": "?!", "best": "\u2713", "forced": "="}


def fixed(x: float, places: int) -> str:
    """`x` as the page writes it with toFixed: a tie goes away from zero (9/8 is "1.13"), where
    Python's own format rounds a tie to even ("1.12")."""
    return str(Decimal(x).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def test_analyse_a_finished_match_and_step_through_its_blunders_by_keyboard(server,
                                                                            open_page):
    bots = [{"name": n, "bot": "random"} for n in ("Ann", "Bea", "Cy", "Di")]
    # A short match of random bots: blunders enough to step through, fewer rounds to judge.
    match = create(server.base, bots, rules={"end_score": 16})
    wait_until(lambda: view(server.base, match["id"])["status"] == "finished",
               timeout=WAIT_MS / 1000)
    w = open_page(server.base)
    page = w.page
    page.goto(f"{server.base}/m/{match['id']}")
    end = page.locator("dialog#end")
    expect(end).to_be_visible()
    end.get_by_role("button", name="Analyse the match").click()

    panel = page.get_by_role("region", name="Analysis")
    expect(panel).to_be_visible()
    status = panel.get_by_role("status")
    # Followed live: the page shows the count so far and polls until every decision is
    # judged, which takes the judge a minute or more on a loaded machine.
    expect(status).to_contain_text("decisions", timeout=WAIT_MS)
    expect(status).to_contain_text("Every decision of", timeout=3 * WAIT_MS)
    report = call(server.base, "GET", f"/v1/matches/{match['id']}/analysis").body
    assert report["status"] == "done" and report["up_to_round"] >= 1
    expect(status).to_contain_text(f"({report['progress']['total']} decisions)")
    expect(page.locator("#analysis-progress")).to_have_attribute(
        "value", str(report["progress"]["total"]))

    # The summary per seat, as the API has it.
    rows = panel.locator("#analysis-seats tr:has(td)")
    expect(rows).to_have_count(4)
    for seat, summary in enumerate(report["seats"]):
        cells = rows.nth(seat).locator("td")
        expect(cells.nth(0)).to_have_text(fixed(summary["mean_loss"], 2))
        expect(cells.nth(1)).to_have_text(str(summary["blunders"]))
        expect(cells.nth(2)).to_have_text(str(summary["mistakes"]))
        expect(cells.nth(3)).to_have_text(str(summary["inaccuracies"]))
    # The chart: one line a seat, ending at its seat's loss added up, drawn by the page.
    chart = panel.locator("svg#analysis-chart")
    expect(chart.locator("path.loss-line")).to_have_count(4)
    label = chart.get_attribute("aria-label")
    decisions = [d for r in report["rounds"] for d in r["decisions"]]
    for seat, name in enumerate(("Ann", "Bea", "Cy", "Di")):
        total = sum(d["loss"] for d in decisions if d["seat"] == seat)
        assert f"{name} {fixed(total, 1)}" in label, label

    # N jumps to the next blunder: the replay shows its event, the decision and its options.
    blunders = [d for d in decisions if d["verdict"] == "blunder"]
    assert blunders, "random bots blunder"
    page.locator("#replay-back").focus()
    page.keyboard.press("Home")
    event = page.locator("#replay-event")
    expect(event).to_contain_text("Event 1 of")
    # Each N goes on to the next blunder; the first played card that was one is looked at.
    first = next(d for d in blunders if d["kind"] == "play")
    for blunder in blunders[:blunders.index(first) + 1]:
        page.keyboard.press("n")
        expect(event).to_contain_text(f"Event {blunder['version']} of")
    box = page.locator("#analysis-decision")
    expect(box).to_contain_text("a blunder")
    expect(box).to_contain_text(f"{fixed(first['loss'], 2)} points worse than the best")
    options = box.get_by_role("list", name="Options, best first, with the expected points")
    expect(options.locator("li")).to_have_count(len(first["options"]))
    expect(options.locator("li.chosen")).to_contain_text("(chosen)")
    card = page.locator(f"#centre .played[data-card='{first['chosen']}']")
    expect(card).to_have_class(re.compile(r"\bverdict-blunder\b"))
    expect(card.locator(".verdict-mark")).to_have_text(MARKS["blunder"])
    expect(card).to_have_attribute("aria-label", re.compile(
        f"{words(first['chosen'])}, a blunder$"))
    tip = card.locator(".tip")
    expect(tip).to_be_hidden()
    card.focus()  # the options show on focus, and are the card's description
    expect(tip).to_be_visible()
    expect(tip).to_contain_text(words(first["best"]))
    described = card.evaluate("el => document.getElementById("
                              "el.getAttribute('aria-describedby')).textContent")
    assert "points worse than the best" in described
    w.shot("analysis.png")
    panel.screenshot(path=str(ARTIFACTS / "analysis-panel.png"))
    assert unnamed_controls(page) == []

    # Every card on the table at the blunder carries its own verdict's mark.
    round_of = {d["version"]: r["round"] for r in report["rounds"] for d in r["decisions"]}
    by_card = {(round_of[d["version"]], d["chosen"]): d for d in decisions
               if d["kind"] == "play"}
    on_table = page.locator("#centre .played").evaluate_all(
        "els => els.map(e => e.dataset.card)")
    assert first["chosen"] in on_table
    for card in on_table:
        verdict = by_card[round_of[first["version"]], card]["verdict"]
        expect(page.locator(f"#centre .played[data-card='{card}'] .verdict-mark")).to_have_text(
            MARKS[verdict])
    # At the first pass (event 3), its three cards lie beside the passer with the verdict.
    first_pass = decisions[0]
    assert first_pass["kind"] == "pass" and first_pass["version"] == 3
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    expect(event).to_contain_text("Event 3 of")
    expect(box).to_contain_text(" passed ")
    passed = page.locator(f"#seats .seat[data-seat='{first_pass['seat']}'] .passed-cards")
    marked = passed.locator(".judged-pass")
    expect(marked).to_have_count(3)
    assert sorted(marked.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(
        first_pass["chosen"])
    verdict_words = {"blunder": "a blunder", "mistake": "a mistake",
                     "inaccuracy": "an inaccuracy", "best": "the best move"}
    expect(marked.first).to_have_attribute("aria-label", re.compile(
        f"passed: {verdict_words[first_pass['verdict']]}$"))

    # B goes back to the blunder before; past the last one N says there is none.
    last = blunders[-1]
    page.keyboard.press("End")
    page.keyboard.press("b")
    expect(event).to_contain_text(f"Event {last['version']} of")
    page.keyboard.press("n")
    expect(page.locator("#announce")).to_contain_text("No blunder after this event.")

    page.keyboard.press("?")
    keys = page.locator("dialog#help")
    expect(keys).to_be_visible()
    expect(keys).to_contain_text("the next blunder")
    page.keyboard.press("Escape")


def test_a_match_in_progress_offers_the_rounds_that_are_over(server, open_page):
    """Asked from the replay while round 2 is played: round 1 is judged, round 2 is not."""
    bots = [{"name": f"Bot {i}", "bot": "random"} for i in range(1, 4)]
    match = create(server.base, [{"name": "Pat"}, *bots])
    token = match["tokens"]["0"]
    while (seen := view(server.base, match["id"], token))["round"] < 2:
        if 0 not in seen["to_act"]:
            continue
        you = seen["you"]
        path, body = (("passes", {"cards": you["hand"][:3]}) if seen["status"] == "passing"
                      else ("plays", {"card": you["legal"][0]}))
        assert call(server.base, "POST", f"/v1/matches/{match['id']}/{path}", body,
                    token=token).status == 200
    w = open_page(server.base)
    page = w.page
    page.goto(f"{server.base}/m/{match['id']}")
    page.get_by_role("button", name="Replay").click()
    page.get_by_role("region", name="Replay").get_by_role("button", name="Analyse").click()
    status = page.get_by_role("region", name="Analysis").get_by_role("status")
    expect(status).to_contain_text("Every decision of 1 round judged", timeout=3 * WAIT_MS)
    report = call(server.base, "GET", f"/v1/matches/{match['id']}/analysis").body
    assert report["up_to_round"] == 1
    w.assert_accessible("the analysis of a match in progress")
