"""The kit's bots carry on through what a public service goes through: the server killed and
started again mid-match (twice), a store that stops answering (503), and a rate limit (429).
No move is lost or made twice, the live iterator hands out every event once, and the kit waits
as Retry-After asks."""

from __future__ import annotations

import os
import signal
import threading
import time

from cardems_client import Client, Retrying, run_bot
from cardems_client.bots import LowestCard

from harness.http import Server, children, wait_until
from harness.redis_server import scratch_redis

PEOPLE = ["Ann", "Bob", "Cid", "Dee"]


def kill(server: Server) -> None:
    master = server.process.pid
    for pid in [*children(master), master]:
        os.kill(pid, signal.SIGKILL)
    server.process.wait()


class Restarts:
    """Kills the server when seat 0 is about to make its 5th and its 30th play, and starts it
    again on the same port from another thread while the bots' requests fail."""

    def __init__(self, server: Server, store: str) -> None:
        self.server, self.store = server, store
        self.starts: list[threading.Thread] = []

    def __call__(self, plays: int) -> None:
        if plays in (5, 30):
            kill(self.server)
            start = threading.Thread(target=self._start)
            start.start()
            self.starts.append(start)

    def _start(self) -> None:
        self.server = Server("--store", self.store, "--pace", "0", port=self.server.port)


class Killing(LowestCard):
    def __init__(self, restarts: Restarts) -> None:
        self.restarts, self.plays = restarts, 0

    def choose_play(self, view):
        self.plays += 1
        self.restarts(self.plays)
        return super().choose_play(view)


def test_the_bots_carry_on_when_the_server_is_killed_and_restarted(tmp_path):
    store = f"sqlite:///{tmp_path / 'cardems.sqlite3'}"
    restarts = Restarts(Server("--store", store, "--pace", "0"), store)
    base = restarts.server.base
    retries: list[Retrying] = []
    try:
        with Client(base, on_retry=retries.append) as client:
            match = client.create_match([*PEOPLE[:3], {"name": "Hal", "bot": "heuristic"}],
                                        rules={"end_score": 60})
            made: dict[int, list] = {0: [], 1: [], 2: []}
            bots = {0: Killing(restarts), 1: LowestCard(), 2: LowestCard()}
            finals = {}

            def play(seat: int) -> None:
                finals[seat] = run_bot(client.seat(match.token(seat)), match.id, bots[seat],
                                       on_move=made[seat].append)

            followed: list = []  # a spectator on the live iterator, through both kills

            def watch() -> None:
                followed.extend(client.follow(match.id))

            threads = [threading.Thread(target=play, args=(s,)) for s in made]
            threads.append(threading.Thread(target=watch))
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(240)
            for start in restarts.starts:
                start.join(60)
            assert len(restarts.starts) == 2, "the match ended before the second kill"
            assert {s: v.status for s, v in finals.items()} == dict.fromkeys(made, "finished")
            assert any(r.reason == "ConnectError" for r in retries), retries
            final = client.match(match.id)
            assert [e.version for e in followed] == list(range(1, final.version + 1))
            assert followed[-1].ends_match
            for seat in made:
                seat_client = client.seat(match.token(seat))
                logged = [e for e in seat_client.all_events(match.id)
                          if e.data.get("seat") == seat and e.type in ("CardPlayed",
                                                                        "PassChosen")]
                played = [e.data["card"] for e in logged if e.type == "CardPlayed"]
                passed = [sorted(e.data["cards"]) for e in logged if e.type == "PassChosen"]
                assert played == [m.chosen for m in made[seat] if m.kind == "play"]
                assert passed == [sorted(m.chosen) for m in made[seat] if m.kind == "pass"]
            assert client.verify(match.id).ok
    finally:
        for start in restarts.starts:
            start.join(60)
        if restarts.server.process.poll() is None:
            restarts.server.stop()


def test_a_503_is_waited_out_as_retry_after_asks():
    with scratch_redis("cardems-kit-") as (_, redis):
        server = Server("--store", redis.url, "--bots", "off")
        retries: list[tuple[float, Retrying]] = []
        try:
            client = Client(server.base, on_retry=lambda r: retries.append((time.monotonic(), r)))
            match = client.create_match(PEOPLE)
            redis.kill()
            answers = []
            reader = threading.Thread(target=lambda: answers.append(
                (client.match(match.id), time.monotonic())))
            reader.start()
            wait_until(lambda: retries, timeout=30)
            redis.start()
            reader.join(60)
            (view, answered), = answers
            assert view.version == match.version
            said, first = retries[0]
            assert first.reason == "503" and first.retry_after == 1.0 and first.wait == 1.0
            assert answered - said >= 1.0, "the answer came no sooner than the service asked"

        finally:
            server.stop()


def test_a_429_is_waited_out_as_retry_after_asks(tmp_path):
    server = Server("--store", f"sqlite:///{tmp_path / 'limits.sqlite3'}", "--bots", "off",
                    "--move-limit", "2/second")
    answered: list[float] = []
    retries: list[tuple[float, Retrying]] = []
    try:
        client = Client(server.base, on_retry=lambda r: retries.append((time.monotonic(), r)))
        match = client.create_match(PEOPLE)
        for seat in range(4):
            ann = client.seat(match.token(seat))
            ann.pass_cards(match.id, ann.match(match.id).you.hand[:3])
            answered.append(time.monotonic())
        limited = [(at, r) for at, r in retries if r.reason == "429"]
        assert limited, "four moves in well under a second pass a limit of two a second"
        for at, retry in limited:
            assert retry.retry_after is not None and retry.retry_after >= 1
            assert retry.wait == retry.retry_after
            assert min(t for t in answered if t > at) - at >= retry.retry_after
        assert client.match(match.id).status == "playing", "every pass landed, once"
    finally:
        server.stop()
