"""OpenSpiel's IS-MCTS searched so that a seed and a state always give the same choice.

The C++ bot breaks ties among equally valued moves in the order of its hash tables, and
that order follows where each table lies in memory. Two searches of one state with one
seed, in one process, so come out differently (measured: three different visit counts in
five searches). Each search here runs in a fresh process forked from a parent that does
nothing but wait, so every search starts from the same memory and allocates alike: the
same request gives the same search, whatever the caller did in between.

From one run to the next the waiting parent's memory is laid out anew (address space
randomised, Python's string hashes salted), so the tables' order may differ again:
`fixed_layout` runs a command again with both fixed, and then the same command from the
same checkout gives the same figures (measured; from a checkout elsewhere the memory is
laid out otherwise, and the figures are another draw).

Linux only (fork, personality), like the rest of the bench's OpenSpiel runs.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import sys
import time
from array import array
from collections.abc import Sequence
from typing import Any

REQUEST_BYTES = 1024  # seed, steps, history length, then the history (a round is < 130)
ANSWER_BYTES = 64  # the search time, then up to seven chosen actions
FAILED = -1.0
ADDR_NO_RANDOMIZE = 0x0040000  # personality(2): lay the address space out alike every run
QUERY = 0xFFFFFFFF  # personality(2): only read the current one
FIXED = "CARDEMS_FIXED_LAYOUT"  # set once the command runs again with the layout fixed


def fixed_layout() -> bool:
    """Run this command again, in this process, with the address space laid out alike every
    time and string hashes unsalted, unless that is already so. Returns False where the
    system refuses (some containers do), and the run goes on as it is: paired within
    itself, not repeatable from one run to the next. Returns True when fixed; on the first
    call it does not return at all."""
    if os.environ.get(FIXED) == "1":
        return True
    libc = ctypes.CDLL(None, use_errno=True)
    current = libc.personality(QUERY)
    if current == -1 or libc.personality(current | ADDR_NO_RANDOMIZE) == -1:
        return False
    os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]],
              {**os.environ, FIXED: "1", "PYTHONHASHSEED": "0"})
    return True  # not reached: execve replaces the process


class ForkedSearch:
    """A waiting parent process; each `search` forks it, and the fork searches once."""

    def __init__(self, game: Any, bot_for: Any, patience: float | None = None) -> None:
        """`bot_for(seed)` builds a fresh bot in the fork; `game` rebuilds the state there.
        A search that has not answered within `patience` seconds (if given) is an error."""
        self.patience = patience
        self._requests_read, self._requests = os.pipe()
        self._answers, self._answers_written = os.pipe()
        self._waiting = os.fork()
        if self._waiting == 0:
            try:
                os.close(self._requests)
                os.close(self._answers)
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # the caller's ^C ends it by EOF
                _wait_and_fork(self._requests_read, self._answers_written, game, bot_for)
            finally:
                os._exit(0)
        os.close(self._requests_read)
        os.close(self._answers_written)

    def search(self, seed: int, history: Sequence[int], steps: int = 1) -> tuple[
            list[int], float]:
        """`steps` actions chosen in turn from the state `history` reaches, each applied
        before the next is searched, and the seconds the searches took."""
        request = array("i", [seed, steps, len(history), *history]).tobytes()
        if len(request) > REQUEST_BYTES or steps > ANSWER_BYTES // 8 - 1:
            raise ValueError("the request does not fit")
        os.write(self._requests, request.ljust(REQUEST_BYTES, b"\0"))
        answer = array("d")
        answer.frombytes(_read_exactly(self._answers, ANSWER_BYTES, self.patience))
        if answer[0] == FAILED:
            raise RuntimeError("the forked search failed")
        return [int(a) for a in answer[1:1 + steps]], answer[0]

    def close(self) -> None:
        os.close(self._requests)
        os.close(self._answers)
        os.waitpid(self._waiting, 0)


def _read_exactly(fd: int, size: int, patience: float | None) -> bytes:
    got = b""
    while len(got) < size:
        if not select.select([fd], [], [], patience)[0]:
            raise TimeoutError("the forked search did not answer")
        chunk = os.read(fd, size - len(got))
        if not chunk:
            raise RuntimeError("the forked search's parent is gone")
        got += chunk
    return got


def _wait_and_fork(requests: int, answers: int, game: Any, bot_for: Any) -> None:
    """The parent's loop. It reads into one buffer allocated once, so that what it holds
    in memory is the same before every fork."""
    buffer = bytearray(REQUEST_BYTES)
    view = memoryview(buffer)
    while True:
        got = 0
        while got < REQUEST_BYTES:
            n = os.readv(requests, [view[got:]])
            if n == 0:
                return
            got += n
        child = os.fork()
        if child == 0:
            code = 1  # a failed search must answer too, or the caller waits for ever
            try:
                _search_once(bytes(buffer), answers, game, bot_for)
                code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(child, 0)
        if status != 0:
            os.write(answers, array("d", [FAILED]).tobytes().ljust(ANSWER_BYTES, b"\0"))


def _search_once(request: bytes, answers: int, game: Any, bot_for: Any) -> None:
    ints = array("i")
    ints.frombytes(request)
    seed, steps, length = ints[0], ints[1], ints[2]
    state = game.new_initial_state()
    for action in ints[3:3 + length]:
        state.apply_action(action)
    bot = bot_for(seed)
    chosen: list[float] = []
    started = time.perf_counter()
    for _ in range(steps):
        action = bot.step(state)
        chosen.append(action)
        state.apply_action(action)
    seconds = time.perf_counter() - started
    os.write(answers, array("d", [seconds, *chosen]).tobytes().ljust(ANSWER_BYTES, b"\0"))
