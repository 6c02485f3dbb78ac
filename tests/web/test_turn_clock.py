"""The turn clock at the table: each waited-on person's clock counts down in text and as a
bar, the person is warned before it runs out, an away seat is marked, and "I'm back" works."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.web.conftest import create, one_person, view


def test_a_clock_counts_down_the_seat_goes_away_and_comes_back(server, open_page):
    match = create(server.base, one_person(), rules={"turn_seconds": 5})
    token = match["tokens"]["0"]
    w = open_page(server.base)
    page = w.page
    page.goto(f"{server.base}/m/{match['id']}#token={token}")
    clock = page.locator('.seat[data-seat="0"] .seat-clock')
    expect(clock).to_contain_text(re.compile(r"0:0[0-5] left"))
    expect(page.locator("#rules-words")).to_contain_text("5 seconds a move")
    # The warning before the time runs out, said aloud, then the move made for the seat.
    expect(page.locator("#announce")).to_contain_text("seconds left to move", timeout=10_000)
    w.assert_accessible("a seat's clock running short")
    # Two timeouts in a row: the seat is away, marked, and offered to come back.
    away = page.locator("#away-box")
    expect(away).to_be_visible(timeout=30_000)
    expect(page.locator('.seat[data-seat="0"]')).to_have_class(re.compile(r"\baway\b"))
    expect(page.locator('.seat[data-seat="0"] .seat-meta')).to_contain_text("away")
    w.shot("away.png")
    page.get_by_role("button", name="I'm back").click()
    expect(away).to_be_hidden()
    assert view(server.base, match["id"], token)["away"] == []
