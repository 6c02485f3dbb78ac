"""The jobs RQ workers run: module-level functions of plain arguments that load what they need."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping

from service import MatchService
from service.bootstrap import StoreConfig, build_service
from service.bot_turns import MADE, NOTHING
from workers.dispatch import Closing, Turn
from workers.rq_dispatch import RqDispatcher

# The bots' pace in this worker process (level -> seconds), set by `run_worker` before the
# first job: turns run in the worker's own process, which builds its service on first use.
PACE: dict[str, float] = {}
CHAIN_SECONDS = 5.0  # how long one job may go on making bot moves beyond its own turn
TAKE_WAIT = 1.0  # seconds a job waits at most for a turn to come into the queue, at a time
STOPPING = threading.Event()  # the worker was asked to stop: its job takes no further turn


class Relay:
    """The dispatcher of a worker's service. While a job makes a move, the first bot turn
    that move leaves is kept for the job to make next: always when it is the same match's
    (its state is at hand, and a trip through RQ costs more than a heuristic bot's whole
    turn), else only if no other turn waits for a worker. Every other turn goes to RQ, and so
    does any turn handed on from another thread (a held move delivered on its due time, a
    sweep): only the job's own thread keeps a turn, so the kept turn needs no lock. A kept
    turn is owed in the schedule like any other: should the worker die before making it, a
    sweep queues it again."""

    name = "rq"

    def __init__(self, rq: RqDispatcher) -> None:
        self.rq = rq
        self.owner = threading.current_thread()  # a held move is handed on from another
        self.keeping = False
        self.match: str | None = None  # the match of the turn being made
        self.kept: Turn | None = None

    def enqueue(self, match_id: str, seat: int, version: int, urgent: bool = False,
                attempt: int = 0) -> None:
        keep = self.keeping and self.kept is None and attempt == 0 \
            and threading.current_thread() is self.owner \
            and (match_id == self.match or self.rq.queue_is_idle())
        if keep:
            self.kept = (match_id, seat, version)
        else:
            self.rq.enqueue(match_id, seat, version, urgent, attempt)

    def analyse(self, match_id: str, number: int) -> None:
        self.rq.analyse(match_id, number)

    def close(self) -> None:
        self.rq.close()


_SERVICES: dict[tuple[str, str], tuple[MatchService, Relay]] = {}


def close_all() -> None:
    """The services this process built, closed: at the worker's stop."""
    for service, _ in _SERVICES.values():
        service.close()
    _SERVICES.clear()


def configure(pace: Mapping[str, float]) -> None:
    """The pace of this process's bots, before any turn is taken."""
    close_all()
    PACE.clear()
    PACE.update(pace)


def _service(store_url: str, queue_url: str) -> tuple[MatchService, Relay]:
    """One service per store in a worker process, kept between turns and closed at its stop.

    Only a cache: its connections are reused and its cached match states spare a full replay
    per turn, but every load still reads the events after the cached version, so a turn sees
    the match exactly as if it had loaded it from nothing.
    """
    built = _SERVICES.get((store_url, queue_url))
    if built is None:
        built = start(StoreConfig.parse(store_url), queue_url)
    return built


def start(store: StoreConfig, queue_url: str | None = None) -> tuple[MatchService, Relay]:
    """This process's service of `store`, built once: its sweeps hand on the overdue turns
    of the schedule from now on, whether or not a job comes."""
    key = (store.url, queue_url or store.url)
    if key not in _SERVICES:
        relay = Relay(RqDispatcher(store, queue_url))
        service = build_service(store, lambda _: relay, pace=PACE, recover=False)
        _SERVICES[key] = (service, relay)
    return _SERVICES[key]


def bot_turn(store_url: str, match_id: str, seat: int, version: int, attempt: int = 0,
             queue_url: str | None = None) -> int:
    """Let a bot move if the match still waits for it; run late or twice, it does nothing.
    (`attempt` names the job apart from the turn's earlier ones; the turn is the same.)

    Then make the match's next bot moves too, and while the job is young, the turns that
    come into the queue, of any match, each with its own next moves: under load a worker
    goes through RQ's cycle of a job once in a while, not once a turn. How many moves it
    made.
    """
    service, relay = _service(store_url, queue_url or store_url)
    deadline = time.monotonic() + CHAIN_SECONDS
    turn: Turn | None = (match_id, seat, version)
    moves = 0
    while turn is not None:
        moves += _match_turns(service, relay, turn, deadline)
        left = deadline - time.monotonic()
        if left <= 0 or STOPPING.is_set():
            break
        turn = relay.rq.take(wait=min(TAKE_WAIT, left))
    return moves


def _match_turns(service: MatchService, relay: Relay, turn: Turn, deadline: float) -> int:
    """`turn`, and the bot turns of its match that follow from it while the job is young. A
    paced move is held until its due time in this process while the job goes on (the turn
    owed in the schedule until it is stored)."""
    moves = 0
    next_turn: Turn | None = turn
    while next_turn is not None:
        relay.keeping, relay.kept = time.monotonic() < deadline, None
        relay.match = next_turn[0]
        try:
            made = service.bot_turn(*next_turn)
        finally:
            relay.keeping = False
        moves += made != NOTHING
        next_turn = relay.kept if made == MADE else None
    return moves


def analyse_round(store_url: str, match_id: str, number: int,
                  queue_url: str | None = None) -> bool:
    """Judge and keep one round's decisions. Between two decisions, the bot turns waiting in
    the queues are made first, here: an analysis never keeps a bot turn waiting for more
    than one decision. A stopping worker leaves the round for the sweep to hand on."""
    service, relay = _service(store_url, queue_url or store_url)

    def bots_first() -> None:
        if STOPPING.is_set():
            raise Closing
        deadline = time.monotonic() + CHAIN_SECONDS
        while (turn := relay.rq.take()) is not None:
            _match_turns(service, relay, turn, deadline)

    try:
        return service.analyse_round(match_id, number, bots_first)
    except Closing:
        return False
