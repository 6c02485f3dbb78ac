"""The load: people playing against bots, and tables of bots alone, through the HTTP API.

Each simulated person creates a match, plays it by reading its view and making a legal move
whenever it is its turn, now and then reads the log, a replay or the live stream, and starts
another match when one ends. Every move the service acknowledged (a 200) is written to
CARDEMS_LOAD_ACKS as one JSON line, for the checks after the run; every failed request is
written to CARDEMS_LOAD_FAILURES with its time, to see what each fault cost.
"""

from __future__ import annotations

import json
import os
import random
import time
from typing import Any

import requests
from locust import FastHttpUser, between, events, task

ACKS = os.environ.get("CARDEMS_LOAD_ACKS", "acks.jsonl")
FAILURES = os.environ.get("CARDEMS_LOAD_FAILURES", "failures.jsonl")
MATCHES = os.environ.get("CARDEMS_LOAD_MATCHES", "matches.jsonl")
BOTS_ALONE = float(os.environ.get("CARDEMS_LOAD_BOTS_ALONE", "0.25"))
END_SCORE = int(os.environ.get("CARDEMS_LOAD_END_SCORE", "26"))


def _write(path: str, record: dict[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as out:  # one write per line: whole lines
        out.write(json.dumps(record) + "\n")


@events.request.add_listener
def _failed(request_type: str, name: str, response_time: float, exception: Any,
            response: Any = None, **_: Any) -> None:
    status = getattr(response, "status_code", 0) if response is not None else 0
    if exception is not None or status >= 500:
        _write(FAILURES, {"at": time.time(), "name": name, "status": status,
                          "error": type(exception).__name__ if exception else None})


class Player(FastHttpUser):
    wait_time = between(0.05, 0.3)

    def on_start(self) -> None:
        self.rng = random.Random()
        self.match: dict[str, Any] | None = None
        self.new_match()

    def new_match(self) -> None:
        seats_count = self.rng.choice((3, 4, 4, 4, 5, 6))
        alone = self.rng.random() < BOTS_ALONE
        bots = [{"name": f"bot{i}", "bot": self.rng.choice(("random", "heuristic"))}
                for i in range(seats_count)]
        seats = bots if alone else [{"name": "Pat"}, *bots[1:]]
        with self.client.post("/v1/matches", json={"seats": seats,
                                                   "rules": {"end_score": END_SCORE}},
                              name="create", catch_response=True) as reply:
            if reply.status_code != 201:
                reply.failure(f"create: {reply.status_code}")
                self.match = None
                return
            body = reply.json()
        self.match = {"id": body["id"], "token": body["tokens"].get("0"), "alone": alone}
        _write(MATCHES, {"id": body["id"], "alone": alone, "seats": seats_count,
                         "token": body["tokens"].get("0")})

    @task(10)
    def play(self) -> None:
        if self.match is None:
            self.new_match()
            return
        if self.match["alone"]:  # nothing to do but watch; a new match once it is over
            view = self._view()
            if view is not None and view["status"] in ("finished", "abandoned"):
                self.new_match()
            return
        view = self._view()
        if view is None:
            return
        if view["status"] in ("finished", "abandoned"):
            self.new_match()
            return
        you = view["you"]
        if you is None or you["seat"] not in view["to_act"]:
            return
        if view["status"] == "passing":
            move = ("passes", {"cards": self.rng.sample(you["hand"], 3)})
        elif view["status"] == "playing":
            move = ("plays", {"card": self.rng.choice(you["legal"])})
        else:
            move = ("moon", {"choice": "add_to_others"})
        match_id = self.match["id"]
        with self.client.post(f"/v1/matches/{match_id}/{move[0]}", json=move[1],
                              headers=self._auth(), name=move[0],
                              catch_response=True) as reply:
            if reply.status_code == 200:
                _write(ACKS, {"match": match_id, "seat": you["seat"], "round": view["round"],
                              "kind": move[0], **move[1]})
                reply.success()
            elif reply.status_code in (409, 422):  # a retry after a lost reply: moved on
                reply.success()
            else:
                reply.failure(f"{move[0]}: {reply.status_code}")

    @task(1)
    def read_the_log(self) -> None:
        if self.match is None:
            return
        match_id = self.match["id"]
        self.client.get(f"/v1/matches/{match_id}/events?limit=1000", name="events")
        self.client.get(f"/v1/matches/{match_id}/replay/2", name="replay")

    @task(1)
    def watch_a_little(self) -> None:
        """Open the live stream, read its first bytes, and hang up (the connection closes)."""
        if self.match is None:
            return
        url = f"{self.host}/v1/matches/{self.match['id']}/events/stream"
        started = time.perf_counter()
        exception: Exception | None = None
        try:
            with requests.get(url, headers={"Accept": "text/event-stream", **self._auth()},
                              stream=True, timeout=10) as reply:
                if reply.status_code == 200:
                    reply.raw.read(1)
                elif reply.status_code != 429:  # too many streams open: a limit, not a fault
                    exception = RuntimeError(f"stream: {reply.status_code}")
        except requests.RequestException as error:
            exception = error
        self.environment.events.request.fire(
            request_type="GET", name="stream", response_time=1000 * (time.perf_counter() - started),
            response_length=0, exception=exception, context={})

    def _view(self) -> dict[str, Any] | None:
        assert self.match is not None
        with self.client.get(f"/v1/matches/{self.match['id']}", headers=self._auth(),
                             name="view", catch_response=True) as reply:
            if reply.status_code != 200:
                reply.failure(f"view: {reply.status_code}")
                return None
            return dict(reply.json())

    def _auth(self) -> dict[str, str]:
        token = self.match["token"] if self.match else None
        return {"Authorization": f"Bearer {token}"} if token else {}
