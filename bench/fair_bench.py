"""Fair bot turns: a person's play against three heuristic bots, answered while the server is
idle and while 80 matches of four expert bots play as fast as they can, side by side in one
run on one `cardems serve` (SQLite, inline bots, no pace).

Figure: from the acknowledgement of the person's play until it is the person's turn again
(the three bots have answered), p50 and p95 over the plays of whole rounds.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from harness.http import Server, call

PERSON = [{"name": "Ann"}, *({"name": f"h{i}", "bot": "heuristic"} for i in (1, 2, 3))]
EXPERTS = [{"name": f"e{i}", "bot": "expert"} for i in range(4)]
PLAYS = 40


def answered(base: str, match: dict, token: str) -> dict:
    """Poll until the person must act again (or the match is over)."""
    while True:
        view: dict = call(base, "GET", f"/v1/matches/{match['id']}", token=token).body
        if view["status"] == "finished" or 0 in view["to_act"]:
            return view
        time.sleep(0.002)


def person_plays(base: str, count: int) -> list[float]:
    """How long each of `count` plays by the person took to be answered by the bots."""
    match = call(base, "POST", "/v1/matches",
                 {"seats": PERSON, "rules": {"end_score": 10_000}}).body
    token = match["tokens"]["0"]
    path = f"/v1/matches/{match['id']}"
    times: list[float] = []
    view = answered(base, match, token)
    while len(times) < count:
        you = view["you"]
        if view["status"] == "passing":
            call(base, "POST", path + "/passes", {"cards": you["hand"][:3]}, token=token)
        elif view["status"] == "moon_choice":
            call(base, "POST", path + "/moon", {"choice": "add_to_others"}, token=token)
        else:
            reply = call(base, "POST", path + "/plays", {"card": you["legal"][0]}, token=token)
            assert reply.status == 200, reply.body
            start = time.perf_counter()
            view = answered(base, match, token)
            times.append(time.perf_counter() - start)
            continue
        view = answered(base, match, token)
    return times


def moves(base: str, matches: list[str]) -> int:
    return sum(call(base, "GET", f"/v1/matches/{m}").body["version"] for m in matches)


def figures(label: str, times: list[float]) -> float:
    ordered = sorted(times)
    p50 = statistics.median(ordered)
    p95 = ordered[int(len(ordered) * 0.95)]
    print(f"  {label:<42} p50 {p50 * 1000:7.1f} ms   p95 {p95 * 1000:7.1f} ms")
    return p50


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="cardems-fair-"))
    server = Server("--store", f"sqlite:///{folder / 'cardems.sqlite3'}", "--pace", "0",
                    "--bot-matches", "1000", "--bot-matches-per-client", "1000",
                    "--bot-rounds", "1000")
    print("fair bot turns: a person's play answered by three heuristic bots "
          f"({PLAYS} plays each)")
    try:
        idle = figures("idle server", person_plays(server.base, PLAYS))
        experts = []
        for _ in range(80):
            reply = call(server.base, "POST", "/v1/matches",
                         {"seats": EXPERTS, "rules": {"end_score": 10_000}})
            assert reply.status == 201, reply.body
            experts.append(reply.body["id"])
        before = moves(server.base, experts)
        started = time.perf_counter()
        busy = figures("80 expert bot-only matches running", person_plays(server.base, PLAYS))
        made = moves(server.base, experts) - before
        print(f"  meanwhile the expert matches made {made} moves"
              f" ({made / (time.perf_counter() - started):.0f} a second)")
        print(f"  ratio busy / idle (p50): {busy / idle:.2f}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
