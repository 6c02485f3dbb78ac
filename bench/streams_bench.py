"""Staying up: thousands of open event streams and hundreds of half-sent requests against one
`cardems serve` on its defaults (SQLite, one process), while a seat reads its view.

Figures: the p50/p99 of `GET /healthz` and of a seat's view, idle and under each load, and
how long each stream took to receive a move after it was acknowledged.
"""

from __future__ import annotations

import http.client
import json
import selectors
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path

from harness.http import Server, call

PEOPLE = [{"name": n} for n in ("Ann", "Bob", "Cid", "Dee")]


def create(base: str) -> dict:
    reply = call(base, "POST", "/v1/matches", {"seats": PEOPLE})
    assert reply.status == 201, reply.body
    created: dict = reply.body
    return created


RECEIVED: dict[socket.socket, bytes] = {}  # what each stream has received so far


def open_streams(port: int, match_ids: list[str], per_match: int) -> list[socket.socket]:
    """Streams on raw sockets, each with its response head read."""
    socks = []
    for match_id in match_ids:
        for _ in range(per_match):
            sock = socket.create_connection(("127.0.0.1", port), timeout=60)
            sock.sendall(f"GET /v1/matches/{match_id}/events/stream HTTP/1.1\r\nHost: x\r\n"
                         "\r\n".encode())
            socks.append(sock)
    for sock in socks:
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(65536)
            assert chunk, "a stream was refused or closed"
            head += chunk
        assert head.startswith(b"HTTP/1.1 200"), head[:100]
        RECEIVED[sock] = head.partition(b"\r\n\r\n")[2]
    return socks


def drain(socks: list[socket.socket], needle: bytes,
          timeout: float = 60.0) -> dict[socket.socket, float]:
    """When (time.perf_counter) each stream received `needle`."""
    selector = selectors.DefaultSelector()
    arrived: dict[socket.socket, float] = {}
    for sock in socks:
        if needle in RECEIVED[sock]:
            arrived[sock] = time.perf_counter()
            continue
        sock.setblocking(False)
        selector.register(sock, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    while len(arrived) < len(socks) and time.monotonic() < deadline:
        for key, _ in selector.select(1.0):
            sock = key.fileobj  # type: ignore[assignment]  # typeshed: any file object
            chunk = sock.recv(65536)
            RECEIVED[sock] += chunk
            if needle in RECEIVED[sock]:
                arrived[sock] = time.perf_counter()
                selector.unregister(sock)
    selector.close()
    for sock in socks:
        sock.setblocking(True)
    return arrived


def latencies(port: int, path: str, token: str | None, count: int) -> list[float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    out = []
    for _ in range(count):
        start = time.perf_counter()
        conn.request("GET", path, headers=headers)
        conn.getresponse().read()
        out.append(time.perf_counter() - start)
    conn.close()
    return out


def quantiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"p50 {statistics.median(ordered) * 1000:6.1f} ms  p99 {p99 * 1000:6.1f} ms"


def probe(port: int, match: dict, label: str) -> None:
    health = latencies(port, "/healthz", None, 300)
    view = latencies(port, f"/v1/matches/{match['id']}", match["tokens"]["0"], 300)
    print(f"  {label:<34} healthz {quantiles(health)} | seat view {quantiles(view)}")


def pass_for_seat(base: str, match: dict) -> float:
    """Seat 1 passes; when the move was acknowledged."""
    token = match["tokens"]["1"]
    hand = call(base, "GET", f"/v1/matches/{match['id']}", token=token).body["you"]["hand"]
    reply = call(base, "POST", f"/v1/matches/{match['id']}/passes", {"cards": hand[:3]},
                 token=token)
    assert reply.status == 200, reply.body
    return time.perf_counter()


def delivery(base: str, socks: list[socket.socket], matches: list[dict]) -> str:
    """Each match's seat 1 passes, while every stream is read: the delay from each move's
    acknowledgement to each stream of its match receiving the event."""
    per_match = len(socks) // len(matches)
    arrivals: dict[socket.socket, float] = {}
    reader = threading.Thread(target=lambda: arrivals.update(
        drain(socks, b"event: PassChosen")))
    reader.start()
    acked = [pass_for_seat(base, match) for match in matches]
    reader.join()
    delays = [arrivals[sock] - acked[i // per_match] for i, sock in enumerate(socks)
              if sock in arrivals]
    return (f"{len(arrivals)}/{len(socks)} streams got it; after its acknowledgement "
            f"{quantiles(delays)}, max {max(delays) * 1000:.0f} ms")


def slowloris(port: int, count: int) -> list[socket.socket]:
    socks = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        socks.append(sock)
    return socks


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="cardems-streams-"))
    server = Server("--store", f"sqlite:///{folder / 'cardems.sqlite3'}", "--bots", "off",
                    "--streams-per-client", "5000", "--max-streams", "5000",
                    "--header-timeout", "30")
    port, base = server.port, server.base
    print("streams: one `cardems serve` (SQLite, one process, gevent worker)")
    try:
        lone = create(base)
        probe(port, lone, "idle")
        one = create(base)
        socks = open_streams(port, [one["id"]], 2000)
        probe(port, lone, "2,000 streams on one match")
        print("  one move, 2,000 streams:", delivery(base, socks, [one]))
        for sock in socks:
            sock.close()
        matches = [create(base) for _ in range(200)]
        socks = open_streams(port, [m["id"] for m in matches], 5)
        probe(port, lone, "200 matches x 5 streams")
        print("  a move in each of 200 matches:", delivery(base, socks, matches))
        for sock in socks:
            sock.close()
        lazy = slowloris(port, 200)
        probe(port, lone, "200 half-sent requests")
        for sock in lazy:
            sock.close()
        print("  health after:", json.dumps(call(base, "GET", "/healthz").body))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
