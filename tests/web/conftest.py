"""The web table in a real browser: Debian's Chromium, driven by Playwright, against a real
`cardems serve`. Screenshots go to $CARDEMS_ARTIFACTS (build/artifacts/web by default;
`make screenshots` points it at docs/screenshots for the README)."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from harness.http import ROOT, Server, call

CHROMIUM = os.environ.get("CARDEMS_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(os.environ.get("CARDEMS_ARTIFACTS") or ROOT / "build" / "artifacts" / "web")
# Headless as root on a machine with no outside network: nothing may reach for Google.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-default-apps", "--disable-extensions"]
AXE = Axe()  # axe-core, shipped inside the package: nothing is fetched
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 360, "height": 740}
WAIT_MS = 60_000  # bots, streams and a loaded machine: generous, and only ever an upper bound
expect.set_options(timeout=20_000)  # an assertion waits for the table to catch up, if need be


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


def start_server(folder: Path, *extra: str, port: int | None = None) -> Server:
    return Server("--store", f"sqlite:///{folder / 'cardems.sqlite3'}", "--pace", "0.02",
                  *extra, port=port)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    server = start_server(tmp_path_factory.mktemp("web"))
    yield server
    server.stop()


class Watched:
    """A page whose every request, API response and streamed byte is kept for the checks."""

    def __init__(self, context: BrowserContext, base: str) -> None:
        self.base = base
        self.page = context.new_page()
        self.page.set_default_timeout(WAIT_MS)
        self.requests: list[str] = []
        self.responses: list[Any] = []
        self.errors: list[str] = []
        self.streamed: dict[str, list[bytes]] = {}
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("requestfinished", self._finished)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self._follow_streams(context)

    def _finished(self, request: Any) -> None:
        """Keeps each API body as it completes (a reload would lose it)."""
        if "/v1/" not in request.url or "/events/stream" in request.url:
            return
        try:
            response = request.response()
            if response and "json" in (response.headers.get("content-type") or ""):
                self.responses.append(json.loads(response.body()))
        except PlaywrightError:  # the page closed as the body came: nothing left to scan
            return

    def _follow_streams(self, context: BrowserContext) -> None:
        """The event stream never ends, so Playwright never hands over its body; the
        browser's own protocol streams it to us as it arrives."""
        cdp = context.new_cdp_session(self.page)
        cdp.send("Network.enable")

        def sent(event: dict[str, Any]) -> None:
            if "/events/stream" in event["request"]["url"]:
                self.streamed.setdefault(event["requestId"], [])

        def answered(event: dict[str, Any]) -> None:
            if event["requestId"] in self.streamed:
                got = cdp.send("Network.streamResourceContent",
                               {"requestId": event["requestId"]})
                self.streamed[event["requestId"]].append(base64.b64decode(got["bufferedData"]))

        def data(event: dict[str, Any]) -> None:
            if event["requestId"] in self.streamed and event.get("data"):
                self.streamed[event["requestId"]].append(base64.b64decode(event["data"]))

        cdp.on("Network.requestWillBeSent", sent)
        cdp.on("Network.responseReceived", answered)
        cdp.on("Network.dataReceived", data)

    def settled(self, wanted: Callable[[list[Any]], bool]) -> list[Any]:
        """The API bodies kept, once `wanted` holds of them. Playwright hands its events over
        only while the test calls into it, so the page may show what a response said before
        the test has been told of that response: polling lets the events in."""
        deadline = time.monotonic() + WAIT_MS / 1000
        while not wanted(self.responses):
            if time.monotonic() > deadline:
                raise AssertionError("the page's responses never came to what was wanted")
            self.page.wait_for_timeout(20)
        return self.responses

    def stream_items(self) -> list[dict[str, Any]]:
        """Every event the page was streamed."""
        items = []
        for chunks in self.streamed.values():
            text = b"".join(chunks).decode()
            items += [json.loads(line[6:]) for line in text.splitlines()
                      if line.startswith("data: ")]
        return items

    def foreign_requests(self) -> list[str]:
        return [url for url in self.requests
                if not url.startswith(self.base + "/") and not url.startswith("data:")]

    def shot(self, name: str) -> None:
        """A screenshot of the page as it stands, which axe-core checks first."""
        self.assert_accessible(name)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / name))

    def assert_accessible(self, where: str) -> None:
        """No violation axe-core finds in the page as it stands (every rule it runs)."""
        found = AXE.run(self.page).response["violations"]
        assert not found, f"{where}: " + "; ".join(
            f"{v['id']} ({v['help']}) at {[n['target'] for n in v['nodes']][:4]}"
            for v in found)


@pytest.fixture
def open_page(browser: Browser) -> Iterator[Any]:
    """Opens pages in fresh browser contexts (each its own session storage), and checks at
    the end that none asked another origin for anything or threw an error."""
    opened: list[tuple[BrowserContext, Watched]] = []

    def open_page(base: str, *, viewport: dict[str, int] = DESKTOP, calm: bool = True,
                  touch: bool = False) -> Watched:
        context = browser.new_context(viewport=viewport, has_touch=touch, is_mobile=touch,
                                      reduced_motion="reduce" if calm else "no-preference")
        watched = Watched(context, base)
        opened.append((context, watched))
        return watched

    yield open_page
    for context, watched in opened:
        assert watched.foreign_requests() == []
        assert watched.errors == []
        context.close()


def create(base: str, seats: list[dict[str, str]], **extra: Any) -> dict[str, Any]:
    reply = call(base, "POST", "/v1/matches", {"seats": seats, **extra})
    assert reply.status == 201, reply.body
    return dict(reply.body)


def view(base: str, match_id: str, token: str | None = None) -> dict[str, Any]:
    reply = call(base, "GET", f"/v1/matches/{match_id}", token=token)
    assert reply.status == 200, reply.body
    return dict(reply.body)


def one_person(name: str = "Pat", level: str = "heuristic") -> list[dict[str, str]]:
    return [{"name": name}] + [{"name": f"Bot {i}", "bot": level} for i in (1, 2, 3)]


RANKS = {"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
         "eight": "8", "nine": "9", "ten": "T", "jack": "J", "queen": "Q", "king": "K",
         "ace": "A"}
SUITS = {"clubs": "C", "diamonds": "D", "spades": "S", "hearts": "H"}
IN_WORDS = re.compile(rf"\b({'|'.join(RANKS)}) of ({'|'.join(SUITS)})\b")
CODE = re.compile(r"\b[2-9TJQKA][CDHS]\b")


def words(card: str) -> str:
    """A card in words, as the page names it: `QS` is "queen of spades"."""
    rank = next(w for w, code in RANKS.items() if code == card[0])
    suit = next(w for w, code in SUITS.items() if code == card[1])
    return f"{rank} of {suit}"


def cards_in(text: str) -> set[str]:
    """Every card a text names, by its code or in words."""
    named = {RANKS[rank] + SUITS[suit] for rank, suit in IN_WORDS.findall(text)}
    return named | set(CODE.findall(text))


def unnamed_controls(page: Page) -> list[str]:
    """Controls that a screen reader would announce with no name."""
    snapshot = page.locator("body").aria_snapshot()
    roles = "button|combobox|textbox|spinbutton|checkbox|radio|slider|link|img|toolbar"
    return [line for line in snapshot.splitlines()
            if re.fullmatch(rf"\s*- ({roles})( \[[^\]]*\])*:?", line)]
