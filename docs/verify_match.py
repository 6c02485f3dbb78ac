#!/usr/bin/env python3
"""Check a Cardems match from its public log, with nothing but Python's standard library.

    python3 verify_match.py URL MATCH_ID [--token=TOKEN]

Downloads the match's event log as the reader the token makes you (a spectator without one),
then checks, and prints, each of these:
  1. the hash chain: every event's hash follows from the one before and from what you read;
  2. every sealed value you can see opens its commitment with the salt shown beside it;
  3. once the match is over: the revealed server seed matches the commitment published at the
     start, and every round's deal, recomputed from the seed and the client seed (or taken
     from the given decks), is the deal that was recorded.
Exits 0 when everything it could check holds, 1 on any mismatch, 2 when it could not read the
log. docs/fairness.md explains each step.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

GENESIS = "0" * 64
RANKS, SUITS = "23456789TJQKA", "CDSH"
DECK = [rank + suit for suit in SUITS for rank in RANKS]  # clubs, diamonds, spades, hearts
ORDER = {card: i for i, card in enumerate(DECK)}
# With other than four seats the lowest diamonds and spades leave the deck, so that every
# seat is dealt as many cards.
REMOVED = {3: {"2D"}, 4: set(), 5: {"2D", "2S"}, 6: {"2D", "3D", "2S", "3S"}}
SALT_BYTES = 16


class Unreadable(Exception):
    """The log could not be fetched or is not a Cardems log."""


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- reading the log ---------------------------------------------------------------------

def fetch(url: str, token: str | None) -> Any:
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)
    except urllib.error.HTTPError as error:
        raise Unreadable(f"{url}: HTTP {error.code}") from None
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise Unreadable(f"{url}: {error}") from None


def read_log(base: str, match_id: str, token: str | None) -> list[dict[str, Any]]:
    path = f"/v1/matches/{urllib.parse.quote(match_id, safe='')}/events?after=0&limit=1000"
    events: list[dict[str, Any]] = []
    while path:
        page = fetch(urllib.parse.urljoin(base, path), token)
        events += page["events"]
        path = page.get("next")
    return events


# -- the checks --------------------------------------------------------------------------

def value_at(data: Any, path: str) -> Any:
    for part in path.split("."):
        data = data[int(part)] if isinstance(data, list) else data.get(part)
        if data is None:
            return None
    return data


def set_null(data: Any, path: str) -> None:
    *parents, last = path.split(".")
    for part in parents:
        data = data[int(part)] if isinstance(data, list) else data[part]
    if isinstance(data, list):
        data[int(last)] = None
    else:
        data[last] = None


def public_form(data: dict[str, Any]) -> dict[str, Any]:
    """The data with every sealed value null and no salts: what the hash covers."""
    out: dict[str, Any] = json.loads(json.dumps(data))
    out.pop("salts", None)
    for path in data.get("sealed", {}):
        set_null(out, path)
    return out


def event_hash(prev_hash: str, event: dict[str, Any]) -> str:
    body = {"data": public_form(event["data"]), "recorded_at": event["recorded_at"],
            "type": event["type"], "version": event["version"]}
    return sha256_hex((prev_hash + canonical(body)).encode())


def check_chain(events: list[dict[str, Any]]) -> list[str]:
    problems = []
    prev = GENESIS
    for number, event in enumerate(events, start=1):
        if event["version"] != number:
            problems.append(f"event {number} is numbered {event['version']}")
        if event["prev_hash"] != prev:
            problems.append(f"event {number}: prev_hash is not the hash of event {number - 1}")
        if event["hash"] != event_hash(prev, event):
            problems.append(f"event {number}: the hash does not match its content")
        prev = event["hash"]
    return problems


def opens(commitment: str, salt_hex: str, value: Any) -> bool:
    try:
        salt = bytes.fromhex(salt_hex)
    except (TypeError, ValueError):
        return False
    made = sha256_hex(salt + canonical(value).encode())
    return len(salt) == SALT_BYTES and hmac.compare_digest(made, commitment)


def check_seals(events: list[dict[str, Any]]) -> tuple[int, int, list[str]]:
    """How many sealed values there are, how many this reader opened, and what failed."""
    total = opened = 0
    problems = []
    for event in events:
        data = event["data"]
        salts = data.get("salts", {})
        for path, commitment in data.get("sealed", {}).items():
            total += 1
            value = value_at(data, path)
            if value is None:
                continue  # hidden from this reader
            where = f"event {event['version']} ({event['type']}) {path}"
            if path not in salts:
                problems.append(f"{where}: shown without its salt")
            elif not opens(commitment, salts[path], value):
                problems.append(f"{where}: does not open its commitment")
            else:
                opened += 1
    return total, opened, problems


def cards_in_play(seats: int) -> list[str]:
    """The deck of a table of `seats`, in canonical order."""
    return [card for card in DECK if card not in REMOVED[seats]]


def shuffled_deck(server_seed: bytes, client_seed: str, round_number: int,
                  seats: int = 4) -> list[str]:
    """The round's deck: an HMAC-SHA256 stream of 32-bit numbers drives Fisher-Yates over
    the cards in play."""

    def draws() -> Any:
        counter = 0
        while True:
            message = f"{client_seed}:{round_number}:{counter}".encode()
            block = hmac.new(server_seed, message, hashlib.sha256).digest()
            for i in range(0, 32, 4):
                yield int.from_bytes(block[i:i + 4], "big")
            counter += 1

    cards, stream = cards_in_play(seats), draws()
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        limit = 2**32 - 2**32 % n
        x = next(stream)
        while x >= limit:
            x = next(stream)
        j = x % n
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def dealt_hands(deck: list[str], dealer: int, seats: int = 4) -> list[list[str]]:
    hands: list[list[str]] = [[] for _ in range(seats)]
    for i, card in enumerate(deck):
        hands[(dealer + 1 + i) % seats].append(card)
    return [sorted(hand, key=ORDER.__getitem__) for hand in hands]


def check_deals(events: list[dict[str, Any]]) -> tuple[str, list[str]]:
    created = next((e["data"] for e in events if e["type"] == "MatchCreated"), None)
    # A match won or abandoned reveals its seed the same way.
    ended = next((e["data"] for e in events if e["type"] in ("MatchEnded", "MatchAbandoned")),
                 None)
    if created is None:
        return "no MatchCreated event", ["the log does not begin with the match's creation"]
    if ended is None:
        return "not yet: the seed is revealed when the match ends", []
    seed = bytes.fromhex(ended["server_seed"])
    problems = []
    if sha256_hex(seed) != created["seed_commitment"]:
        problems.append("the revealed seed does not match the commitment made at creation")
    decks = ended["decks"]
    dealt = max((e["data"]["round"] for e in events if e["type"] == "RoundDealt"), default=0)
    # The end reveals the given decks of the rounds dealt and keeps the rest: a deck never
    # dealt may be another table's next deal.
    if len(decks) != min(created["given_decks"], dealt):
        problems.append("the revealed decks are not those of the rounds dealt")
    seats = len(created["seats"])
    if seats not in REMOVED:
        return f"{seats} seats", [f"a match has 3 to 6 seats, not {seats}"]
    rounds = 0
    for event in events:
        if event["type"] != "RoundDealt":
            continue
        data = event["data"]
        number = data["round"]
        deck = decks[number - 1] if number <= len(decks) else \
            shuffled_deck(seed, created["client_seed"], number, seats)
        if sorted(deck, key=lambda card: ORDER.get(card, len(DECK))) != cards_in_play(seats):
            problems.append(f"round {number}: its deck does not hold every card in play once")
        if dealt_hands(deck, data["dealer"], seats) != data["hands"]:
            problems.append(f"round {number}: the recorded deal is not the one recomputed")
        rounds += 1
    return f"{rounds} deals recomputed from the revealed seed", problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("url", help="the service's base URL, like http://127.0.0.1:8000")
    parser.add_argument("match_id")
    parser.add_argument("--token", default=None, help="a seat's token, to read as that seat")
    args = parser.parse_args(argv)
    try:
        events = read_log(args.url.rstrip("/") + "/", args.match_id, args.token)
    except (Unreadable, KeyError, TypeError) as error:
        print(f"could not read the log: {error}", file=sys.stderr)
        return 2
    reader = "a seat" if args.token else "a spectator"
    print(f"read {len(events)} events of match {args.match_id} as {reader}")
    problems = check_chain(events)
    print(f"hash chain: {'ok' if not problems else 'BROKEN'} ({len(events)} events)")
    total, opened, seal_problems = check_seals(events)
    print(f"sealed values: {opened} of {total} opened"
          f"{' and checked' if not seal_problems else ', some FAIL'}; the rest are hidden"
          f" from {reader} for now")
    summary, deal_problems = check_deals(events)
    if summary.startswith("not yet"):
        print(f"deals: {summary}")  # nothing was checked: neither ok nor failed
    else:
        print(f"deals: {'ok' if not deal_problems else 'FAIL'}, {summary}")
    problems += seal_problems + deal_problems
    for problem in problems:
        print(f"MISMATCH: {problem}")
    print("verdict: " + ("everything checked holds" if not problems else
                         f"{len(problems)} mismatches"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
