"""A person plays at the web table: a whole match by mouse (and by touch at phone width), a
round by keyboard only, and a table that survives a reload and a server restart."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Iterator

import pytest
from playwright.sync_api import Page, expect

from harness.http import call, wait_until
from tests.web.conftest import (
    DESKTOP,
    PHONE,
    WAIT_MS,
    Watched,
    create,
    one_person,
    start_server,
    unnamed_controls,
    view,
    words,
)

WHY = {
    "must_lead_two_of_clubs": "two of clubs",
    "must_follow_suit": "follow the suit",
    "hearts_not_broken": "Hearts cannot be led",
    "no_points_on_first_trick": "first trick",
}
ANY_MOVE = "#hand button:not([aria-disabled]), dialog#end[open]"


def token_of(page: Page, match_id: str) -> str:
    token = page.evaluate("id => sessionStorage.getItem('cardems:token:' + id)", match_id)
    assert token
    return str(token)


def match_id_of(page: Page) -> str:
    found = re.search(r"/m/([^/#?]+)$", page.url)
    assert found, page.url
    return found.group(1)


def check_barred_cards(w: Watched, you: dict) -> None:
    """Each card the seat may not play is disabled, with its rule in words; the rest are not."""
    hand = w.page.locator("#hand button")
    assert hand.count() == len(you["hand"])
    barred = {}
    for i in range(hand.count()):
        button = hand.nth(i)
        card = button.get_attribute("data-card")
        if button.get_attribute("aria-disabled") == "true":
            tip = w.page.locator(f"#why-{card}")
            barred[card] = tip.text_content()
    assert set(barred) == set(you["illegal"])
    for card, text in barred.items():
        assert WHY[you["illegal"][card]] in text


def choose_pass(w: Watched, tap: bool) -> list[str]:
    cards = w.page.locator("#hand button")
    chosen = []
    for i in (0, 3, 6):  # a hand holds at least eight cards, at six seats
        card = cards.nth(i)
        card.tap() if tap else card.click()
        expect(card).to_have_attribute("aria-pressed", "true")
        chosen.append(card.get_attribute("data-card"))
    pass_button = w.page.get_by_role("button", name=re.compile(r"^Pass"))
    expect(pass_button).to_be_enabled()
    return chosen


def play_match_by_pointer(w: Watched, base: str, tap: bool, prefix: str) -> dict:
    page = w.page
    match_id = match_id_of(page)
    token = token_of(page, match_id)
    moves = 0
    shots = {"pass", "table"}
    for _ in bounded():
        page.locator(ANY_MOVE).first.wait_for(timeout=WAIT_MS)
        if page.locator("dialog#end[open]").count():
            break
        seen = view(base, match_id, token)
        if seen["status"] == "passing":
            expect(page.get_by_role("button", name=re.compile(r"^Pass"))).to_be_disabled()
            chosen = choose_pass(w, tap)
            if "pass" in shots:
                w.shot(f"{prefix}pass.png")
                shots.discard("pass")
            page.get_by_role("button", name=re.compile(r"^Pass")).click()
            # bots pass at the same time, so a newer version need not hold the person's pass
            after = wait_for_view(base, match_id, token, lambda v: v["you"]["passed"])
            assert sorted(after["you"]["passed"]) == sorted(chosen)
            continue
        check_barred_cards(w, seen["you"])
        if seen["you"]["received"] and not seen["tricks"]:
            marked = page.locator("#hand button.received")
            assert sorted(marked.evaluate_all("els => els.map(e => e.dataset.card)")) == \
                sorted(seen["you"]["received"])
        if moves == 20 and "table" in shots:
            w.shot(f"{prefix}table.png")
            shots.discard("table")
        card = seen["you"]["legal"][0]
        button = page.get_by_role("button", name=words(card), exact=True)
        button.tap() if tap else button.click()
        wait_for_version_past(base, match_id, token, seen["version"])
        moves += 1
    return view(base, match_id, token)


def bounded(seconds: float = 240) -> Iterator[None]:
    """A loop that fails, rather than hangs, if the table stops moving."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        yield
    raise AssertionError(f"no end in sight after {seconds} s")


def wait_for_view(base: str, match_id: str, token: str, holds: Callable[[dict], object]) -> dict:
    """The seat's view once `holds` is true of it."""
    return wait_until(lambda: holds(v := view(base, match_id, token)) and v,
                      timeout=WAIT_MS / 1000)


def wait_for_version_past(base: str, match_id: str, token: str, version: int) -> dict:
    """The view once the match has moved past `version`: on the person's turn nobody else
    moves, so this is their move landed."""
    return wait_for_view(base, match_id, token, lambda v: v["version"] > version)


@pytest.mark.parametrize("screen", ["desktop", "phone"])
def test_a_whole_match_against_three_bots_by_mouse_or_touch(server, open_page, screen):
    phone = screen == "phone"
    w = open_page(server.base, viewport=PHONE if phone else DESKTOP, touch=phone)
    page = w.page
    page.goto(server.base + "/")
    assert unnamed_controls(page) == []
    page.get_by_label("Name at seat 1").fill("Robin")
    page.get_by_label("Match ends at").fill("30")
    page.get_by_role("button", name="Start the match").click()
    page.wait_for_url(re.compile(r"/m/[^#]+$"))
    page.locator("#hand button").first.wait_for()
    assert unnamed_controls(page) == []
    if phone:
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.evaluate(WATCH_PROMPT)

    final = play_match_by_pointer(w, server.base, phone, "phone-" if phone else "")
    seen = page.evaluate("window.promptSeen")
    assert any(s["prompt"].startswith("Playing ") for s in seen)
    asks = [s for s in seen if "play a card" in s["prompt"] and s["cards"]]
    assert asks and all(s["barred"] < s["cards"] for s in asks), \
        "the prompt never asks for a card while every card is barred"

    assert final["status"] == "finished"
    end = page.locator("dialog#end")
    expect(end.locator("#end-title")).to_contain_text(final["seats"][final["winner"]]["name"])
    checks = end.locator(".checks li")
    expect(checks).to_have_count(5)
    expect(end.locator(".checks li[data-ok='true']")).to_have_count(5)
    expect(end).to_contain_text(final["server_seed"])
    expect(end).to_contain_text(final["seed_commitment"])
    totals = end.locator("#end-totals tbody tr td:last-child").all_text_contents()
    assert sorted(int(t) for t in totals) == sorted(final["scores"]["total"])
    w.shot("phone-end.png" if phone else "end.png")
    if phone:
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_disabled_card_says_why_on_hover_and_focus_and_cannot_be_played(server, open_page):
    # Dealt in the deck's own order, North holds three clubs and keeps them through the
    # pass: on the first trick it must lead the two of clubs or follow clubs.
    deck = [r + s for s in "CDSH" for r in "23456789TJQKA"]
    match = create(server.base, one_person(), decks=[deck])
    token = match["tokens"]["0"]
    w = open_page(server.base)
    page = w.page
    page.goto(f"{server.base}/m/{match['id']}#token={token}")
    page.locator("#hand button").first.wait_for()
    for card in ("6H", "TH", "AH"):
        page.get_by_role("button", name=words(card), exact=True).click()
    page.locator("#pass").click()
    seen = wait_for_turn(server.base, match["id"], token, page)
    assert seen["you"]["illegal"] and not seen["tricks"]
    card, rule = next(iter(seen["you"]["illegal"].items()))
    barred = page.get_by_role("button", name=words(card), exact=True)
    expect(barred).to_have_attribute("aria-disabled", "true")
    tip = page.locator(f"#why-{card}")
    expect(tip).to_be_hidden()
    barred.hover()
    expect(tip).to_be_visible()
    expect(tip).to_contain_text(WHY[rule])
    prompt, shown = page.locator("#prompt").bounding_box(), tip.bounding_box()
    assert prompt and shown and apart(prompt, shown), "the tip leaves the prompt in sight"
    page.mouse.move(0, 0)
    barred.focus()
    expect(tip).to_be_visible()
    assert barred.get_attribute("aria-describedby") == f"why-{card}"
    posts = [url for url in w.requests if url.endswith("/plays")]
    barred.click(force=True)  # past the browser's own check: the page must refuse it too
    expect(tip).to_be_visible()
    assert [url for url in w.requests if url.endswith("/plays")] == posts
    assert view(server.base, match["id"], token)["version"] == seen["version"]


def apart(a: dict, b: dict) -> bool:
    """True when two boxes on the page do not overlap."""
    return a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"] \
        or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"]


# Every state of the prompt and the hand, as the page draws them: what the person saw.
WATCH_PROMPT = """() => {
  window.promptSeen = [];
  const note = () => {
    const cards = [...document.querySelectorAll('#hand button')];
    window.promptSeen.push({prompt: document.getElementById('prompt').textContent,
      cards: cards.length, barred: cards.filter(
        c => c.getAttribute('aria-disabled') === 'true').length});
  };
  const watch = new MutationObserver(note);
  for (const id of ['prompt', 'hand']) {
    watch.observe(document.getElementById(id), {childList: true, subtree: true,
      characterData: true, attributes: true});
  }
}"""


def focused_card(page: Page) -> tuple[str | None, bool]:
    card = page.evaluate("document.activeElement && document.activeElement.dataset.card")
    barred = page.evaluate(
        "document.activeElement && document.activeElement.getAttribute('aria-disabled')")
    return card, barred == "true"


def test_a_round_by_keyboard_only(server, open_page):
    match = create(server.base, one_person(level="random"), rules={"end_score": 500})
    token = match["tokens"]["0"]
    w = open_page(server.base, calm=False)  # with motion: the trick is seen swept away
    page = w.page
    keys = page.keyboard
    page.goto(f"{server.base}/m/{match['id']}#token={token}")
    page.locator("#hand button").first.wait_for()

    keys.press("?")
    expect(page.locator("dialog#help")).to_be_visible()
    w.assert_accessible("the keyboard help")
    keys.press("Escape")
    expect(page.locator("dialog#help")).to_be_hidden()

    keys.press("h")
    for step in ("Enter", "ArrowRight", "Space", "ArrowRight", "ArrowRight", "Enter"):
        keys.press(step)
    expect(page.locator("#hand button[aria-pressed='true']")).to_have_count(3)
    expect(page.locator("#pass")).to_be_enabled()
    keys.press("p")
    wait_for_view(server.base, match["id"], token, lambda v: v["you"]["passed"])

    audited = False
    for _ in bounded():
        if view(server.base, match["id"], token)["scores"]["history"]:
            break
        page.locator("#hand button:not([aria-disabled]), #centre.collecting").first.wait_for()
        if page.locator("#centre.collecting").count():
            expect(page.locator("#centre.collecting")).to_have_count(0)
            continue
        seen = view(server.base, match["id"], token)
        if seen["turn"] != 0:
            continue
        if seen["tricks"] and not audited:
            audited = audit_by_keyboard(page, seen)
        keys.press("h")
        keys.press("Home")
        legal = set(seen["you"]["legal"])
        for _ in range(len(seen["you"]["hand"]) + 1):
            card, _barred = focused_card(page)
            if card in legal:
                break
            keys.press("ArrowRight")
        assert focused_card(page)[0] in legal
        keys.press("Enter" if seen["version"] % 2 else "Space")
        wait_for_version_past(server.base, match["id"], token, seen["version"])
    assert audited
    # Every trick taken is swept towards its winner (counted by the page as it draws each).
    expect(page.locator("#centre")).to_have_attribute("data-sweeps", re.compile(r"^[1-9]"))
    sidebar = page.locator("#sidebar")
    was_open = sidebar.is_visible()
    keys.press("s")
    expect(sidebar).to_be_visible() if not was_open else expect(sidebar).to_be_hidden()
    w.shot("keyboard.png")


def audit_by_keyboard(page: Page, seen: dict) -> bool:
    """`a` audits the last trick taken; in a round still being played it shows only what
    everyone may see."""
    page.keyboard.press("a")
    audit = page.locator("dialog#audit")
    expect(audit).to_be_visible()
    expect(audit.locator("#audit-title")).to_have_text(
        f"Round {seen['round']}, trick {seen['tricks'][-1]['number']}")
    expect(audit.locator(".audit-play")).to_have_count(4)
    expect(audit).to_contain_text("still being played")
    expect(audit).to_contain_text("intact")
    expect(audit.locator(".barred")).to_have_count(0)
    page.keyboard.press("Escape")
    expect(audit).to_be_hidden()
    return True


def test_a_reload_and_a_dropped_stream_resume_the_table_where_it_was(open_page, tmp_path):
    server = start_server(tmp_path)
    try:
        match = create(server.base, one_person(), rules={"end_score": 500})
        token = match["tokens"]["0"]
        w = open_page(server.base)
        page = w.page
        page.goto(f"{server.base}/m/{match['id']}#token={token}")
        page.locator("#hand button").first.wait_for()
        assert "#" not in page.url  # the token left the address bar for the tab's storage
        assert token_of(page, match["id"]) == token
        toggle = page.get_by_role("button", name="Scores")
        if toggle.get_attribute("aria-expanded") != "true":
            toggle.click()
        page.get_by_role("button", name="Copy my seat's link").click()
        link = page.get_by_label("My seat's link")
        expect(link).to_have_value(f"{server.base}/m/{match['id']}#token={token}")
        for i in (1, 2, 3):
            page.locator("#hand button").nth(i).click()
        page.locator("#pass").click()
        seen = wait_for_turn(server.base, match["id"], token, page)

        page.reload()
        page.locator(ANY_MOVE).first.wait_for()
        assert hand_on_page(page) == seen["you"]["hand"]
        expect(page.locator("body")).to_have_attribute("data-version", str(seen["version"]))
        expect(page.locator("#prompt")).to_contain_text("Your")

        server.stop()
        expect(page.locator("#connection")).to_have_text("reconnecting\u2026")
        server = start_server(tmp_path, port=server.port)
        # A move the page did not make, while its stream is away: it must still show.
        card = seen["you"]["legal"][0]
        reply = call(server.base, "POST", f"/v1/matches/{match['id']}/plays", {"card": card},
                     token=token)
        assert reply.status == 200, reply.body
        expect(page.locator("#connection")).to_have_text("live", timeout=WAIT_MS)
        now = wait_for_turn(server.base, match["id"], token, page)
        expect(page.locator("body")).to_have_attribute("data-version", str(now["version"]))
        assert card not in hand_on_page(page)
        assert hand_on_page(page) == now["you"]["hand"]
        page.get_by_role("button", name=words(now["you"]["legal"][0]), exact=True).click()
        wait_for_version_past(server.base, match["id"], token, now["version"])
        assert not [url for url in w.requests if token in url]  # only ever in a header
    finally:
        server.stop()


def hand_on_page(page: Page) -> list[str]:
    return page.locator("#hand button").evaluate_all("els => els.map(e => e.dataset.card)")


def wait_for_turn(base: str, match_id: str, token: str, page: Page) -> dict:
    """The view once it is seat 0's turn to play and the page shows it."""
    seen = wait_until(lambda: (v := view(base, match_id, token))["turn"] == 0 and v,
                      timeout=WAIT_MS / 1000)
    expect(page.locator("body")).to_have_attribute("data-version", str(seen["version"]))
    return seen


def test_the_shooter_chooses_how_the_moon_counts(server, open_page):
    """North is dealt every club, passes the three lowest and gets the three top hearts back:
    it wins every trick whatever the others play, and the page asks it about the moon."""
    people = [{"name": n} for n in ("Pat", "Ann", "Bo", "Cy")]
    # Dealt from the dealer's left: North clubs, East diamonds, South spades, West hearts.
    deck = ["23456789TJQKA"[i // 4] + "CDSH"[(i + 1) % 4] for i in range(52)]
    match = create(server.base, people, decks=[deck], rules={"moon": "shooter_choice"})
    tokens = match["tokens"]
    passes = {"0": ["2C", "3C", "4C"], "1": ["2D", "3D", "4D"], "2": ["2S", "3S", "4S"],
              "3": ["AH", "KH", "QH"]}
    w = open_page(server.base)
    page = w.page
    page.goto(f"{server.base}/m/{match['id']}#token={tokens['0']}")
    page.locator("#hand button").first.wait_for()
    assert hand_on_page(page) == [r + "C" for r in "23456789TJQKA"]
    for card in passes["0"]:
        page.get_by_role("button", name=words(card), exact=True).click()
    page.get_by_role("button", name=re.compile("^Pass")).click()
    for seat in "123":
        reply = call(server.base, "POST", f"/v1/matches/{match['id']}/passes",
                     {"cards": passes[seat]}, token=tokens[seat])
        assert reply.status == 200, reply.body
    rng = random.Random(3)
    for _ in bounded():
        seen = view(server.base, match["id"])
        if seen["status"] != "playing":
            break
        seat = seen["turn"]
        if seat == 0:
            mine = wait_for_turn(server.base, match["id"], tokens["0"], page)
            button = page.get_by_role("button", name=words(mine["you"]["legal"][-1]), exact=True)
            button.click()
            wait_for_version_past(server.base, match["id"], tokens["0"], mine["version"])
            continue
        legal = view(server.base, match["id"], tokens[str(seat)])["you"]["legal"]
        reply = call(server.base, "POST", f"/v1/matches/{match['id']}/plays",
                     {"card": rng.choice(legal)}, token=tokens[str(seat)])
        assert reply.status == 200, reply.body
    assert seen["status"] == "moon_choice" and seen["moon_shooter"] == 0
    choice = page.get_by_role("region", name="You shot the moon")
    expect(choice).to_be_visible()
    choice.get_by_role("button", name="Subtract 26 from my own score").click()
    expect(choice).to_be_hidden()
    expect(page.locator("#announce")).to_contain_text("Pat shot the moon!")
    after = view(server.base, match["id"])
    assert after["scores"]["history"] == [[-26, 0, 0, 0]]
    expect(page.locator("#scores tbody tr").first).to_contain_text("-26")


@pytest.mark.parametrize("count", [6])  # the largest table; the others are drawn below
def test_a_match_at_six_seats_round_the_table(server, open_page, count):
    w = open_page(server.base)
    page = w.page
    page.goto(server.base + "/")
    page.get_by_label("Players").select_option(str(count))
    expect(page.locator("#seat-rows .seat-row")).to_have_count(count)
    expect(page.locator("#first-dealer option")).to_have_count(count)
    page.get_by_label("Name at seat 1").fill("Robin")
    page.get_by_label("Match ends at").fill("1")
    assert unnamed_controls(page) == []
    page.get_by_role("button", name="Start the match").click()
    page.wait_for_url(re.compile(r"/m/[^#]+$"))
    page.locator("#hand button").first.wait_for()
    match_id = match_id_of(page)
    seen = view(server.base, match_id, token_of(page, match_id))
    assert len(seen["seats"]) == count and seen["you"]["seat"] == 0
    expect(page.locator("#hand button")).to_have_count(seen["deck"]["hand_size"])
    boxes = seats_apart(page, count)
    me = page.locator("#seats .seat.me").bounding_box()
    assert me["y"] == max(b["y"] for b in boxes), "you sit at the bottom"

    final = play_match_by_pointer(w, server.base, False, f"seats-{count}-")

    assert final["status"] == "finished" and len(final["scores"]["total"]) == count
    end = page.locator("dialog#end")
    expect(end.locator("#end-totals tbody tr")).to_have_count(count)
    expect(end.locator(".checks li[data-ok='true']")).to_have_count(5)


def seats_apart(page: Page, count: int) -> list[dict]:
    """The table draws `count` seats, each in a place of its own; their boxes."""
    seats = page.locator("#seats .seat")
    expect(seats).to_have_count(count)
    boxes = [seats.nth(i).bounding_box() for i in range(count)]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"] \
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"], (a, b)
    return boxes


@pytest.mark.parametrize("count", [3, 4, 5])
def test_a_spectator_sees_every_seat_of_a_table_of_three_four_or_five(server, open_page,
                                                                      count):
    match = create(server.base, [{"name": f"P{i}"} for i in range(count)])
    w = open_page(server.base)
    w.page.goto(f"{server.base}/m/{match['id']}")
    boxes = seats_apart(w.page, count)
    bottom = max(range(count), key=lambda i: boxes[i]["y"])
    assert bottom == 0, "a spectator sees seat 1 at the bottom"
    names = w.page.locator("#seats .seat .seat-name").all_text_contents()
    assert names == [f"P{i}" for i in range(count)]
    # At 1280 px every seat's totals stand on one line, the box at the right edge too.
    lines = w.page.locator("#seats .seat .seat-points").evaluate_all(
        "els => els.map(e => e.getClientRects().length"
        " && e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).fontSize))")
    assert all(0 < height < 1.6 for height in lines), lines
