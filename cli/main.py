"""`cardems serve` and its siblings."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from api.limits import CHECK_LIMIT, CREATE_LIMIT, MOVE_LIMIT
from domain.bots.levels import BOT_LEVELS
from domain.table import MAX_SEATS, MIN_SEATS
from service.bootstrap import DEFAULT_STORE, StoreConfig, StoreError, store_problem
from service.fair_use import FairUse
from service.pacing import DEFAULT_PACE, parse_pace

QUEUE_HELP = ("redis://HOST:PORT/DB of the bots' RQ queue (default: the store's Redis); it"
              " need not sync to disk on every write")


PACE_HELP = ("seconds from the move a bot answers to the bot's own move: one figure for every"
             " level, or LEVEL=SECONDS,... (default: "
             + ",".join(f"{k}={v}" for k, v in DEFAULT_PACE.items())
             + "). Every move of a level comes on this beat whatever the bot holds, so its"
             " timing tells nothing of its cards; 0 moves at once")


def _pace(spec: str) -> dict[str, float]:
    try:
        return parse_pace(spec)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _positive(text: str) -> int:
    try:
        number = int(text)
    except ValueError:
        number = 0
    if number < 1:
        raise argparse.ArgumentTypeError(f"not a whole number from 1 up: {text!r}")
    return number


def _metrics_flags(command: argparse.ArgumentParser, what: str) -> None:
    command.add_argument("--metrics-port", type=int, default=None,
                         help=f"serve {what} (Prometheus) on this port, apart from the API:"
                              " they time each bot's thinking, which tells whether it had a"
                              " choice, so only the operator may read them (default: not"
                              " served)")
    command.add_argument("--metrics-host", default="127.0.0.1",
                         help="the address the metrics port listens on (default: loopback"
                              " only)")


class Defaults(argparse.ArgumentDefaultsHelpFormatter):
    """Each option's default after its help, unless the help says it or there is none."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False) or "default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


def main(argv: Sequence[str] | None = None) -> int:
    return run(parser().parse_args(argv))


def parser() -> argparse.ArgumentParser:
    """The `cardems` command line, every option with its help and its default."""
    top = argparse.ArgumentParser(prog="cardems", description="Cardems, a Hearts service")
    commands = top.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="serve the HTTP API", formatter_class=Defaults,
                                description="Serve the HTTP API and the web table.")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    serve.add_argument("--port", type=int, default=8000, help="the port to listen on")
    serve.add_argument("--store", default=DEFAULT_STORE,
                       help="where the events are kept: sqlite:///PATH, redis://HOST:PORT/DB or"
                            " redis+cluster://HOST:PORT")
    serve.add_argument("--bots", choices=["inline", "rq", "off"], default=None,
                       help="where bot turns run (default: inline with SQLite, rq with Redis;"
                            " off: bots never move, for tests)")
    serve.add_argument("--queue", default=None, help=QUEUE_HELP)
    serve.add_argument("--workers", type=int, default=1, help="API processes (gunicorn)")
    serve.add_argument("--connections", type=int, default=10_000,
                       help="open connections per API process (streams included)")
    serve.add_argument("--max-streams", type=int, default=5000,
                       help="live event streams per API process")
    serve.add_argument("--streams-per-client", type=int, default=100,
                       help="live event streams per client address and API process")
    serve.add_argument("--create-limit", default=CREATE_LIMIT,
                       help="matches one client address may create")
    serve.add_argument("--move-limit", default=MOVE_LIMIT,
                       help="moves one client address may make")
    serve.add_argument("--check-limit", default=CHECK_LIMIT,
                       help="trick audits and verifications one client address may ask for")
    serve.add_argument("--bot-matches-per-client", type=int, default=FairUse.bot_matches_per_client,
                       help="matches of bots alone one client address may run at once")
    serve.add_argument("--bot-matches", type=int, default=FairUse.bot_matches,
                       help="matches of bots alone that may run at once in all")
    serve.add_argument("--bot-rounds", type=int, default=FairUse.bot_rounds,
                       help="rounds after which a match of bots alone is abandoned")
    serve.add_argument("--idle-hours", type=float, default=FairUse.idle_seconds / 3600,
                       help="hours without a move after which a match with people is abandoned")
    serve.add_argument("--header-timeout", type=int, default=5,
                       help="seconds a client has to send a request's headers")
    serve.add_argument("--io-timeout", type=float, default=30.0,
                       help="seconds a body read or a response write may stall")
    serve.add_argument("--body-timeout", type=float, default=10.0,
                       help="seconds a whole request body has to arrive, however it trickles")
    serve.add_argument("--connections-per-client", type=int, default=200,
                       help="open connections one client address may hold to an API process"
                            " (streams included); behind a proxy every client shares its"
                            " address: raise it there, and cap clients in the proxy")
    serve.add_argument("--dev", action="store_true", help="Flask's development server")
    serve.add_argument("--access-log", action="store_true",
                       help="one JSON line per request on standard output (off: a proxy in"
                            " front logs them)")
    serve.add_argument("--pace", type=_pace, default=dict(DEFAULT_PACE), help=PACE_HELP)
    serve.add_argument("--keepalive", type=float, default=15.0,
                       help="seconds between keep-alive comments on an idle event stream")
    _metrics_flags(serve, "the API processes' metrics, summed")
    worker = commands.add_parser("worker", help="compute bot turns queued on Redis (RQ)",
                                 formatter_class=Defaults,
                                 description="Compute the bot turns queued on Redis (RQ).")
    worker.add_argument("--store", required=True,
                        help="the store's Redis: redis://HOST:PORT/DB or"
                             " redis+cluster://HOST:PORT")
    worker.add_argument("--queue", default=None, help=QUEUE_HELP)
    worker.add_argument("--burst", action="store_true", help="stop once the queue is empty")
    worker.add_argument("--pace", type=_pace, default=dict(DEFAULT_PACE), help=PACE_HELP)
    _metrics_flags(worker, "this worker's metrics")
    arena = commands.add_parser("arena", help="duplicate tournament between two bots",
                                formatter_class=Defaults,
                                description="A duplicate tournament between two bots: every"
                                            " deal is played again with the seats rotated.")
    levels = ", ".join(BOT_LEVELS)
    arena.add_argument("first", choices=BOT_LEVELS, metavar="FIRST",
                       help=f"the bot whose points are counted first ({levels})")
    arena.add_argument("second", choices=BOT_LEVELS, metavar="SECOND",
                       help=f"the bot it plays against ({levels})")
    arena.add_argument("--deals", type=int, default=500,
                       help="deals, each played again with the seats rotated")
    arena.add_argument("--seats", type=int, default=4, choices=range(MIN_SEATS, MAX_SEATS + 1),
                       help="seats at the table (3 to 6)")
    arena.add_argument("--seed", type=int, default=1,
                       help="the seed the deals are drawn from")
    arena.add_argument("--from", dest="first_deal", type=_positive, default=1, metavar="N",
                       help="number of the first deal played: the parts of a long tournament"
                            " played separately add up to the whole")
    arena.add_argument("--chart", default=None, help="write a PNG chart here")
    arena.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                       help="processes playing deals side by side (the result does not change)")
    return top


def run(args: argparse.Namespace) -> int:
    if args.command == "arena":
        from cli.arena import main as arena_main

        return arena_main(args.first, args.second, args.deals, args.seed, args.chart,
                          args.jobs, args.seats, args.first_deal)
    if args.command == "serve":
        return _serve(args)
    if args.command == "worker":
        from workers.worker import run_worker

        if args.metrics_port is not None:
            from service import metrics

            metrics.serve(args.metrics_host, args.metrics_port)
        try:
            store = StoreConfig.parse(args.store)  # the one reading of the URL
        except StoreError as exc:
            print(f"cardems worker: {exc}", file=sys.stderr)
            return 2
        return run_worker(store, args.burst, args.queue, args.pace)
    return 2


def _serve(args: argparse.Namespace) -> int:
    from api.app import Settings, create_app

    try:
        store = StoreConfig.parse(args.store)  # the one reading of the URL
    except StoreError as exc:
        print(f"cardems serve: {exc}", file=sys.stderr)
        return 2
    bots = args.bots or ("rq" if store.on_redis else "inline")
    if args.queue and bots != "rq":
        print("cardems serve: --queue is for bots on rq", file=sys.stderr)
        return 2
    problem = store_problem(store)
    if problem:
        print(f"cardems serve: {problem}", file=sys.stderr)
        return 2
    from workers.choice import dispatch_for

    settings = Settings(store=store, dispatch=dispatch_for(bots, store, args.queue),
                        sse_keepalive=args.keepalive, pace=args.pace,
                        max_streams=args.max_streams,
                        streams_per_client=args.streams_per_client,
                        create_limit=args.create_limit, move_limit=args.move_limit,
                        check_limit=args.check_limit,
                        fair=FairUse(args.bot_matches_per_client, args.bot_matches,
                                     args.bot_rounds, args.idle_hours * 3600))
    metrics_at = None if args.metrics_port is None else (args.metrics_host, args.metrics_port)
    if args.dev:
        if metrics_at:
            from service import metrics

            metrics.serve(*metrics_at)
        create_app(settings).run(host=args.host, port=args.port, threaded=True)
        return 0
    from api.serving import run_gunicorn

    return run_gunicorn(settings, args.host, args.port, args.workers, args.connections,
                        args.header_timeout, args.io_timeout, args.access_log, metrics_at,
                        args.body_timeout, args.connections_per_client)


if __name__ == "__main__":
    sys.exit(main())
