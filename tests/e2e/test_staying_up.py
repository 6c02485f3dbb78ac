"""The service stays up under many idle streams, clients that leave, and clients that never
finish sending: a real server, real sockets."""

from __future__ import annotations

import selectors
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress

import pytest

from harness.http import Server, call
from tests.e2e.conftest import PEOPLE, create

HEADER_TIMEOUT = 2
IO_TIMEOUT = 2


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = tmp_path_factory.mktemp("store") / "cardems.sqlite3"
    server = Server("--store", f"sqlite:///{store}", "--pace", "0", "--keepalive", "1",
                    "--streams-per-client", "1200", "--max-streams", "1300",
                    "--header-timeout", str(HEADER_TIMEOUT), "--io-timeout", str(IO_TIMEOUT))
    yield server
    server.stop()


class Stream:
    """A live stream on a raw socket, its response head read, and what it has received."""

    def __init__(self, server, match_id: str) -> None:
        self.sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
        self.sock.sendall(f"GET /v1/matches/{match_id}/events/stream HTTP/1.1\r\n"
                          "Host: x\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            assert chunk, "the server closed the stream"
            head += chunk
        assert head.startswith(b"HTTP/1.1 200"), head[:200]
        self.received = head.partition(b"\r\n\r\n")[2]

    def fileno(self) -> int:
        return self.sock.fileno()

    def close(self) -> None:
        self.sock.close()


@contextmanager
def serving(tmp_path, *flags: str) -> Iterator[Server]:
    """A server of its own on a fresh SQLite file, bots off, with `flags`."""
    server = Server("--store", f"sqlite:///{tmp_path / 'cardems.sqlite3'}", "--bots", "off",
                    *flags)
    try:
        yield server
    finally:
        server.stop()


def open_stream(server, match_id: str) -> Stream:
    return Stream(server, match_id)


def read_until(streams: list[Stream], needle: bytes, timeout: float = 60.0) -> None:
    """Read every stream until each has received `needle` (or fail at the deadline)."""
    waiting = {s for s in streams if needle not in s.received}
    selector = selectors.DefaultSelector()  # select() cannot watch descriptors past 1023
    for stream in waiting:
        selector.register(stream.sock, selectors.EVENT_READ, stream)
    deadline = time.monotonic() + timeout
    try:
        while waiting:
            left = deadline - time.monotonic()
            assert left > 0, f"{len(waiting)} of {len(streams)} streams did not get {needle!r}"
            for key, _ in selector.select(left):
                stream = key.data
                chunk = stream.sock.recv(65536)
                assert chunk, "a stream ended early"
                stream.received += chunk
                if needle in stream.received:
                    waiting.discard(stream)
                    selector.unregister(stream.sock)
    finally:
        selector.close()


def answers(server, path: str = "/healthz", token: str | None = None) -> int:
    return call(server.base, "GET", path, token=token).status


def test_hundreds_of_open_streams_hold_no_thread_and_all_see_each_move(server):
    match = create(server.base, seats=PEOPLE)
    # More than 1,024: the server's descriptors pass what select() can watch.
    socks = [open_stream(server, match["id"]) for _ in range(1100)]
    try:
        read_until(socks, b"event: RoundDealt")
        # A keep-alive comes after the stream has looked whether its client left.
        read_until(socks, b": keep-alive")
        # With a thread per stream the service would stop answering here.
        assert answers(server) == 200
        token = match["tokens"]["0"]
        assert answers(server, f"/v1/matches/{match['id']}", token) == 200
        hand = call(server.base, "GET", f"/v1/matches/{match['id']}", token=token).body
        moved = call(server.base, "POST", f"/v1/matches/{match['id']}/passes",
                     {"cards": hand["you"]["hand"][:3]}, token=token)
        assert moved.status == 200
        read_until(socks, b"event: PassChosen")
    finally:
        for sock in socks:
            sock.close()


def test_streams_past_a_clients_share_are_429_and_a_client_that_leaves_frees_its_own(
        tmp_path):
    with serving(tmp_path, "--keepalive", "30", "--streams-per-client", "3",
                 "--max-streams", "100") as server:
        match = create(server.base, seats=PEOPLE)
        path = f"/v1/matches/{match['id']}/events/stream"
        socks = [open_stream(server, match["id"]) for _ in range(3)]
        refused = call(server.base, "GET", path)
        assert refused.status == 429 and refused.body["code"] == "rate_limited"
        assert int(refused.headers["retry-after"]) > 0
        assert refused.headers["content-type"] == "application/problem+json"
        socks.pop().close()  # it leaves without a word: the server must notice by itself
        deadline = time.monotonic() + 15
        while True:
            try:
                socks.append(open_stream(server, match["id"]))
                break
            except AssertionError:
                assert time.monotonic() < deadline, "the stream left behind was never freed"
                time.sleep(0.1)
        for sock in socks:
            sock.close()


def test_streams_past_the_total_are_503_with_retry_after(tmp_path):
    with serving(tmp_path, "--streams-per-client", "10", "--max-streams", "2") as server:
        match = create(server.base, seats=PEOPLE)
        socks = [open_stream(server, match["id"]) for _ in range(2)]
        refused = call(server.base, "GET", f"/v1/matches/{match['id']}/events/stream")
        assert refused.status == 503 and refused.body["code"] == "unavailable"
        assert int(refused.headers["retry-after"]) > 0
        for sock in socks:
            sock.close()


def test_two_hundred_half_sent_requests_delay_nobody_and_are_dropped(server):
    socks = []
    for _ in range(200):
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        socks.append(sock)
    try:
        for _ in range(20):
            assert answers(server) == 200
        match = create(server.base, seats=PEOPLE)
        assert answers(server, f"/v1/matches/{match['id']}", match["tokens"]["1"]) == 200
        # Each is closed by the server once its headers are overdue.
        for sock in socks:
            sock.settimeout(HEADER_TIMEOUT + 30)
            assert sock.recv(1024) == b""
    finally:
        for sock in socks:
            sock.close()


def test_a_body_that_stops_arriving_is_a_408_and_the_service_goes_on(server):
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=IO_TIMEOUT + 30)
    try:
        sock.sendall(b"POST /v1/matches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
                     b"\r\nContent-Length: 100\r\n\r\n{\"seats\": [")
        assert answers(server) == 200
        reply = b""
        while b"\r\n\r\n" not in reply:
            chunk = sock.recv(4096)
            assert chunk, "closed without an answer"
            reply += chunk
        assert reply.startswith(b"HTTP/1.1 408"), reply[:100]
        assert b"application/problem+json" in reply
    finally:
        sock.close()


def test_creations_and_moves_past_their_limits_are_429_and_change_nothing(tmp_path):
    with serving(tmp_path, "--create-limit", "2/minute", "--move-limit", "3/minute") as server:
        first = call(server.base, "POST", "/v1/matches", {"seats": PEOPLE})
        assert first.status == 201
        assert first.headers["ratelimit-limit"] == "2"
        assert first.headers["ratelimit-remaining"] == "1"
        assert "retry-after" not in first.headers, "a success asks nobody to wait"
        assert call(server.base, "POST", "/v1/matches", {"seats": PEOPLE}).status == 201
        refused = call(server.base, "POST", "/v1/matches", {"seats": PEOPLE})
        assert refused.status == 429 and refused.body["code"] == "rate_limited"
        assert refused.headers["content-type"] == "application/problem+json"
        assert 0 < int(refused.headers["retry-after"]) <= 60
        assert refused.headers["ratelimit-remaining"] == "0"
        match = first.body
        path = f"/v1/matches/{match['id']}/passes"
        for seat in range(3):
            token = match["tokens"][str(seat)]
            hand = call(server.base, "GET", f"/v1/matches/{match['id']}", token=token)
            moved = call(server.base, "POST", path, {"cards": hand.body["you"]["hand"][:3]},
                         token=token)
            assert moved.status == 200, moved.body
        before = call(server.base, "GET", f"/v1/matches/{match['id']}").body["version"]
        token = match["tokens"]["3"]
        hand = call(server.base, "GET", f"/v1/matches/{match['id']}", token=token)
        refused = call(server.base, "POST", path, {"cards": hand.body["you"]["hand"][:3]},
                       token=token)
        assert refused.status == 429 and refused.body["code"] == "rate_limited"
        assert call(server.base, "GET", f"/v1/matches/{match['id']}").body["version"] == before
        assert call(server.base, "GET", f"/v1/matches/{match['id']}").status == 200, \
            "reading is not limited"


def test_audits_and_verifications_past_their_limit_are_429(tmp_path):
    with serving(tmp_path, "--check-limit", "3/minute") as server:
        match = create(server.base, seats=PEOPLE)
        paths = [f"/v1/matches/{match['id']}/verify", f"/v1/matches/{match['id']}/verify",
                 f"/v1/matches/{match['id']}/rounds/1/tricks/1"]
        assert [call(server.base, "GET", p).status for p in paths] == [200, 200, 404]
        for path in paths[1:]:
            refused = call(server.base, "GET", path)
            assert refused.status == 429 and refused.body["code"] == "rate_limited"
            assert int(refused.headers["retry-after"]) > 0
        assert call(server.base, "GET", f"/v1/matches/{match['id']}").status == 200, \
            "a view is not a check"


def test_matches_of_bots_alone_past_a_clients_share_are_429(tmp_path):
    bots = [{"name": f"b{i}", "bot": "random"} for i in range(4)]
    with serving(tmp_path, "--bot-matches-per-client", "1", "--bot-matches", "5") as server:
        assert call(server.base, "POST", "/v1/matches", {"seats": bots}).status == 201
        refused = call(server.base, "POST", "/v1/matches", {"seats": bots})
        assert refused.status == 429 and refused.body["code"] == "rate_limited", refused.body
        assert int(refused.headers["retry-after"]) > 0
        assert call(server.base, "POST", "/v1/matches", {"seats": PEOPLE}).status == 201


def test_a_body_that_trickles_in_is_cut_off_at_its_deadline(tmp_path):
    """One byte a second never lets the socket fall silent for the io timeout; the whole
    body's deadline ends it all the same, long before the body would be complete."""
    with serving(tmp_path, "--body-timeout", "2", "--io-timeout", "30") as server:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=60)
        try:
            sock.sendall(b"POST /v1/matches HTTP/1.1\r\nHost: x\r\nContent-Type: "
                         b"application/json\r\nContent-Length: 600\r\n\r\n")
            sock.settimeout(0.5)  # the trickle's pace: a byte, then half a second listening
            reply, sent = b"", 0
            while b"\r\n\r\n" not in reply and sent < 600:
                sock.sendall(b" ")
                sent += 1
                with suppress(TimeoutError):
                    reply += sock.recv(4096)
            assert reply.startswith(b"HTTP/1.1 408"), reply[:100]
            assert sent < 600, "cut off before the body was whole"
        finally:
            sock.close()


def test_one_address_holds_at_most_its_connections_and_gets_a_429_past_them(tmp_path):
    with serving(tmp_path, "--connections-per-client", "4", "--header-timeout", "30") as server:
        held = [socket.create_connection(("127.0.0.1", server.port), timeout=30)
                for _ in range(4)]
        for sock in held:  # each waits, its request half sent
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        try:
            def refused() -> bytes:
                with socket.create_connection(("127.0.0.1", server.port), timeout=30) as more:
                    more.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                    reply = b""
                    while chunk := more.recv(4096):
                        reply += chunk
                    return reply

            from harness.http import wait_until

            reply = wait_until(lambda: (r := refused()).startswith(b"HTTP/1.1 429") and r)
            assert b"too_many_connections" in reply and b"Retry-After: 1" in reply
            held.pop().close()
            wait_until(lambda: call(server.base, "GET", "/healthz").status == 200)
        finally:
            for sock in held:
                sock.close()
