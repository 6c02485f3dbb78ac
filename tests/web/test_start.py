"""The start page: every rule option with its default, seats for bots and people, the seat
links, opening a match; and what the pages promise about where they load from."""

from __future__ import annotations

import dataclasses
import re

from playwright.sync_api import expect

from domain.rules import Rules
from harness.http import call
from tests.web.conftest import create, one_person, unnamed_controls, view


def test_the_form_offers_every_rule_option_with_its_default(server, open_page):
    w = open_page(server.base)
    page = w.page
    page.goto(server.base + "/")
    form = page.locator("#new-match")
    for option in dataclasses.fields(Rules):
        field = form.locator(f"[name='{option.name}']")
        expect(field).to_have_count(1)
        default = getattr(Rules(), option.name)
        if isinstance(default, bool):
            assert field.is_checked() is default, option.name
        else:
            shown = "" if default is None else str(getattr(default, "value", default))
            assert field.input_value() == shown, option.name
    assert unnamed_controls(page) == []
    w.shot("start.png")


def test_a_match_with_options_and_another_person_and_their_links(server, open_page):
    w = open_page(server.base)
    page = w.page
    page.goto(server.base + "/")
    page.get_by_label("I sit at seat 2").check()
    page.get_by_label("Name at seat 2").fill("Mo")
    page.get_by_label("Who plays seat 4").select_option("person")
    page.get_by_label("Name at seat 4").fill("Quinn")
    page.get_by_label("Who plays seat 1").select_option("expert")
    page.get_by_label("Match ends at").fill("50")
    page.get_by_label("Moon").select_option("shooter_choice")
    page.get_by_label("Tie at the end").select_option("last_round")
    page.get_by_label("First dealer").select_option("2")
    for label in ("Queen of spades breaks hearts", "Shooting the sun", "Jack of diamonds"):
        page.get_by_label(label).check()
    page.get_by_label("Your seed").fill("abc")
    page.get_by_role("button", name="Start the match").click()

    links = page.locator("#shared-links input")
    expect(links).to_have_count(1)
    w.assert_accessible("the other people's links")
    link = links.input_value()
    found = re.fullmatch(re.escape(server.base) + r"/m/([^#]+)#token=(.+)", link)
    assert found, link
    match_id, west_token = found.groups()
    assert view(server.base, match_id, west_token)["you"]["seat"] == 3
    page.get_by_role("link", name="Go to my seat").click()
    page.wait_for_url(f"**/m/{match_id}")
    page.locator("#hand button").first.wait_for()
    mine = page.evaluate("id => sessionStorage.getItem('cardems:token:' + id)", match_id)
    seen = view(server.base, match_id, mine)
    assert seen["you"]["seat"] == 1
    assert seen["rules"] == {"end_score": 50, "queen_breaks_hearts": True,
                             "points_on_first_trick": False, "moon": "shooter_choice",
                             "shoot_the_sun": True, "jack_of_diamonds": True,
                             "tie_break": "last_round", "first_dealer": 2,
                             "turn_seconds": None}
    assert [(s["name"], s["bot"]) for s in seen["seats"]] == [
        ("Ada", "expert"), ("Mo", None), ("Cleo", "heuristic"), ("Quinn", None)]
    created = call(server.base, "GET", f"/v1/matches/{match_id}/events?limit=1").body
    assert created["events"][0]["data"]["client_seed"] == "abc"
    expect(page.locator("#seats .seat.me")).to_have_attribute("data-seat", "1")

    other = open_page(server.base)
    other.page.goto(link)
    other.page.locator("#hand button").first.wait_for()
    assert "#" not in other.page.url
    expect(other.page.locator("#seats .seat.me")).to_have_attribute("data-seat", "3")


def test_a_missing_name_is_said_and_nothing_is_created(server, open_page):
    w = open_page(server.base)
    page = w.page
    page.goto(server.base + "/")
    page.get_by_role("button", name="Start the match").click()
    expect(page.locator("#form-error")).to_have_text("Give seat 1 a name.")
    expect(page.get_by_label("Name at seat 1")).to_be_focused()
    page.get_by_label("Name at seat 1").fill("Eve\u202egnp.exe")  # the server refuses it
    page.get_by_role("button", name="Start the match").click()
    expect(page.locator("#form-error")).to_contain_text("bidirectional")
    w.assert_accessible("the start page with an error")
    assert [u for u in w.requests if u.endswith("/v1/matches")] == [server.base + "/v1/matches"]
    assert page.url == server.base + "/"


def test_open_a_match_by_id_or_link_and_the_wrong_links(server, open_page):
    match = create(server.base, one_person())
    w = open_page(server.base)
    page = w.page
    for where in (match["id"], f"{server.base}/m/{match['id']}"):
        page.goto(server.base + "/")
        page.get_by_label("Match id or link").fill(where)
        page.get_by_role("button", name="Open").click()
        page.wait_for_url(f"**/m/{match['id']}")
        page.locator("#seats .seat").first.wait_for()
        expect(page.locator("#hand-area")).to_be_hidden()
    page.goto(server.base + "/")
    page.get_by_label("Match id or link").fill("a/b")
    page.get_by_role("button", name="Open").click()
    expect(page.locator("#open-error")).to_be_visible()

    page.goto(f"{server.base}/m/{match['id']}#token=not-a-token")
    expect(page.locator("#page-problem")).to_contain_text("watching as a spectator")
    expect(page.locator("#hand-area")).to_be_hidden()
    page.goto(f"{server.base}/m/no-such-match")
    expect(page.locator("#page-problem")).to_have_text("There is no match with this id.")


def test_pages_forbid_other_origins_and_inline_script(server):
    for path in ("/", "/m/anything", "/web/js/table.js", "/web/cardems.css"):
        reply = call(server.base, "GET", path)
        assert reply.status == 200, path
        policy = reply.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src 'self'" in policy
        assert "'unsafe-inline'" not in policy
        assert reply.headers["referrer-policy"] == "no-referrer"
    page = call(server.base, "GET", "/").body
    assert "<script>" not in page and "http" not in page.replace("http-equiv", "")
