"""What writer processes do in the race and crash tests (module-level, for spawn)."""

from __future__ import annotations

import os
import random
import time

from eventstore import ConcurrencyError, NewEvent, StoreError, open_store


def race(url: str, streams: list[str], appends: int, writer: int, ack_path: str) -> None:
    """Append `appends` events with expected versions, retrying each loss; log every outcome."""
    store = open_store(url)
    rng = random.Random(writer)
    with open(ack_path, "w") as acks:
        for i in range(appends):
            stream = rng.choice(streams)
            while True:
                version = store.version(stream)
                event = NewEvent("Raced", {"writer": writer, "i": i}, "t")
                try:
                    stored = store.append(stream, [event], version)
                except ConcurrencyError:
                    acks.write(f"lost {stream} {version}\n")
                    continue
                acks.write(f"ack {stream} {stored[0].version} {writer} {i}\n")
                break
    store.close()


def burst(url: str, stream: str, writer: int, ack_path: str) -> None:
    """Append until killed or the store fails; each acknowledged append is logged at once."""
    _burst_on(open_store(url), stream, writer, ack_path)


def burst_together(url: str, stream: str, writers: int, folder: str, green: bool) -> None:
    """`writers` threads (green ones under gevent, as in the server) of one process sharing one
    store, each bursting as `burst` does, until the process is killed."""
    if green:
        from gevent import monkey

        monkey.patch_all()
    import threading

    store = open_store(url)
    threads = [threading.Thread(target=_burst_on, args=(store, stream, w,
                                                          f"{folder}/burst-{w}.txt"))
               for w in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _burst_on(store, stream: str, writer: int, ack_path: str) -> None:
    fd = os.open(ack_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    i = 0
    while True:
        version = store.version(stream)
        event = NewEvent("Burst", {"writer": writer, "i": i}, "t")
        try:
            stored = store.append(stream, [event] * 2, version)
        except ConcurrencyError:
            continue
        except (StoreError, OSError, ConnectionError):
            time.sleep(0.05)
            try:
                store.version(stream)
            except Exception:
                return
            continue
        for e in stored:
            os.write(fd, f"{e.version} {writer} {i} {e.hash}\n".encode())
        i += 1
        # A request hands over here as it writes its reply to its socket. Green threads must
        # say so: the store itself leaves the event loop only to wait for another process.
        time.sleep(0)


def append_beside_a_ticker(url: str, folder: str) -> None:
    """Under gevent: one green thread appends while another counts ticks of the event loop
    into `ticks.txt`; `appended.txt` says when the append has returned."""
    from gevent import monkey

    monkey.patch_all()
    import gevent

    store = open_store(url)
    store.version("waited")

    def tick() -> None:
        fd = os.open(f"{folder}/ticks.txt", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        while True:
            os.write(fd, b".")
            gevent.sleep(0.01)

    ticker = gevent.spawn(tick)
    store.append("waited", [NewEvent("Waited", {}, "t")], 0)
    with open(f"{folder}/appended.txt", "w") as done:
        done.write("ok")
    ticker.kill()
    store.close()
