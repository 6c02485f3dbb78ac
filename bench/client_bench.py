"""The client kit's cost per move against plain HTTP, side by side in one run.

Both sides play whole four-person matches against one serving process, a match at a time and
taking turns, with the same httpx connection pool: a move is a GET of the seat's view and the
POST of its choice. Plain HTTP sends the JSON and reads a dict; the kit adds an Idempotency-Key,
If-Match on plays, the problem check and the typed view; a third side sends plain HTTP with
those two headers, which the service has work to do for. Printed: wall time and this process's
CPU time per move, and the ratios.

    python -m bench client        (CLIENT_MATCHES=20 a side by default)
"""

from __future__ import annotations

import os
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from cardems_client import Client
from cardems_client.bots import LowestCard

from harness.http import Server

MATCHES = int(os.environ.get("CLIENT_MATCHES", "20"))
PEOPLE = [{"name": n} for n in ("Ann", "Bob", "Cid", "Dee")]
BOT = LowestCard()


def plain_match(http: httpx.Client, safe: bool = False) -> int:
    """One match over plain HTTP; the number of moves. `safe` sends what the kit sends with
    a move (an Idempotency-Key, If-Match on plays), so the service's share of the kit's cost
    shows apart from the kit's own."""
    match = http.post("/v1/matches", json={"seats": PEOPLE}).json()
    path, moves = f"/v1/matches/{match['id']}", 0
    auth = {s: {"Authorization": f"Bearer {t}"} for s, t in match["tokens"].items()}
    view = match
    while view["status"] not in ("finished", "abandoned"):
        seat = str(view["to_act"][0])
        mine = http.get(path, headers=auth[seat]).json()
        you, headers = mine["you"], dict(auth[seat])
        if safe:
            headers["Idempotency-Key"] = str(uuid.uuid4())
        hand = sorted(you["hand"], key=_rank)
        if view["status"] == "passing":
            reply = http.post(path + "/passes", json={"cards": hand[-3:]}, headers=headers)
        elif view["status"] == "playing":
            if safe:
                headers["If-Match"] = f'"{mine["version"]}"'
            card = min(you["legal"], key=_rank)
            reply = http.post(path + "/plays", json={"card": card}, headers=headers)
        else:
            reply = http.post(path + "/moon", json={"choice": "add_to_others"},
                              headers=headers)
        if reply.status_code != 200:
            raise RuntimeError(reply.text)
        view, moves = reply.json(), moves + 1
    return moves


def kit_match(client: Client) -> int:
    """One match through the kit's typed calls; the number of moves."""
    match = client.create_match(PEOPLE)
    seats = {s: client.seat(match.token(s)) for s in range(4)}
    view, moves = client.match(match.id), 0
    while not view.over:
        seat = seats[view.to_act[0]]
        mine = seat.match(match.id)
        if mine.status == "passing":
            view = seat.pass_cards(match.id, BOT.choose_pass(mine))
        elif mine.status == "playing":
            view = seat.play(match.id, BOT.choose_play(mine), if_match=mine.version)
        else:
            view = seat.choose_moon(match.id, BOT.choose_moon(mine))
        moves += 1
    return moves


def _rank(card: str) -> int:
    return "23456789TJQKA".index(card[0])


def _timed(play: Callable[[], int], totals: dict[str, float]) -> None:
    wall, cpu = time.perf_counter(), time.process_time()
    totals["moves"] += play()
    totals["wall"] += time.perf_counter() - wall
    totals["cpu"] += time.process_time() - cpu


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = Server("--store", f"sqlite:///{Path(folder) / 'client.sqlite3'}",
                        "--bots", "off")
        try:
            http = httpx.Client(base_url=server.base, timeout=30)
            client = Client(server.base, http=http)
            sides: dict[str, dict[str, Any]] = {
                "plain HTTP": {"play": lambda: plain_match(http)},
                "plain, safe": {"play": lambda: plain_match(http, safe=True)},
                "the kit": {"play": lambda: kit_match(client)},
            }
            for side in sides.values():  # warm both: imports, the pool, the server's caches
                side["play"]()
                side["totals"] = {"moves": 0, "wall": 0.0, "cpu": 0.0}
            for _ in range(MATCHES):
                for side in sides.values():
                    _timed(side["play"], side["totals"])
            report(sides)
        finally:
            server.stop()


def report(sides: dict[str, dict[str, Any]]) -> None:
    print(f"client kit against plain HTTP: {MATCHES} four-person matches a side, taking turns")
    per: dict[str, tuple[float, float]] = {}
    for name, side in sides.items():
        t = side["totals"]
        per[name] = (1000 * t["wall"] / t["moves"], 1e6 * t["cpu"] / t["moves"])
        print(f"  {name:<11} {t['moves']:>6} moves  {per[name][0]:6.2f} ms a move (wall)  "
              f"{per[name][1]:6.0f} µs a move (this process's CPU)")
    (kit_wall, kit_cpu) = per["the kit"]
    for name in ("plain HTTP", "plain, safe"):
        wall, cpu = per[name]
        print(f"  the kit against {name}: wall {kit_wall / wall:.2f}x ({kit_wall - wall:+.2f} ms),"
              f" CPU {kit_cpu / cpu:.2f}x ({kit_cpu - cpu:+.0f} µs) a move")
