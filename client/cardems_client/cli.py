"""`cardems-client`: create a match and print its seats' links, or play a seat with a bot.

    cardems-client new http://127.0.0.1:8000 Ann Bob Cid Dee=heuristic
    cardems-client play http://127.0.0.1:8000 MATCH_ID --token T --bot mybot:MyBot
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from cardems_client.bot import Move, load_bot, run_bot
from cardems_client.client import Client
from cardems_client.errors import CardemsError
from cardems_client.models import CreatedMatch, MatchView

DEFAULT_BOT = "cardems_client.bots:LowestCard"


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="cardems-client", description=__doc__.split("\n")[0],
                                  formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    commands = top.add_subparsers(dest="command", required=True)
    new = commands.add_parser(
        "new", help="create a match and print each seat's link",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    new.add_argument("url", help="the service, e.g. http://127.0.0.1:8000")
    new.add_argument("seats", nargs="+", metavar="SEAT",
                     help="NAME for a person, NAME=LEVEL for the service's bot "
                          "(random, heuristic or expert); 3 to 6 seats")
    new.add_argument("--rules", type=json.loads, default=None,
                     help='rule options as JSON, e.g. \'{"end_score": 50}\'')
    new.add_argument("--client-seed", default=None,
                     help="your part of the shuffle's seed")
    new.add_argument("--json", action="store_true",
                     help="print the match id and the seats' tokens as JSON")
    play = commands.add_parser(
        "play", help="play one seat with a bot until the match is over",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    play.add_argument("url", help="the service, e.g. http://127.0.0.1:8000")
    play.add_argument("match_id")
    play.add_argument("--token", default=os.environ.get("CARDEMS_TOKEN"),
                      help="the seat's token (or CARDEMS_TOKEN, which other users of the "
                           "machine cannot read from the process list)")
    play.add_argument("--bot", default=DEFAULT_BOT,
                      help="module:Class of the bot, importable from here")
    play.add_argument("--quiet", action="store_true", help="print only the result")
    return top


def seat_of(spec: str) -> dict[str, Any]:
    name, _, level = spec.partition("=")
    return {"name": name, "bot": level} if level else {"name": name}


def new(args: argparse.Namespace) -> int:
    with Client(args.url) as client:
        match = client.create_match([seat_of(s) for s in args.seats], rules=args.rules,
                                    client_seed=args.client_seed)
        if args.json:
            print(json.dumps({"id": match.id, "tokens": match.tokens,
                              "links": {s: client.link(match.id, t)
                                        for s, t in match.tokens.items()}}))
        else:
            print(_seats_table(client, match))
    return 0


def _seats_table(client: Client, match: CreatedMatch) -> str:
    lines = [f"match {match.id}", f"watch: {client.link(match.id)}"]
    for seat in match.seats:
        if seat.bot:
            lines.append(f"seat {seat.seat} {seat.name}: the service's {seat.bot} bot")
        else:
            lines.append(f"seat {seat.seat} {seat.name}: "
                         f"{client.link(match.id, match.token(seat.seat))}")
    return "\n".join(lines)


def play(args: argparse.Namespace) -> int:
    if not args.token:
        print("cardems-client play: a seat's token is needed (--token or CARDEMS_TOKEN)",
              file=sys.stderr)
        return 2
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # a bot module beside the caller, as `python -m` finds
    try:
        bot = load_bot(args.bot)
    except (ImportError, AttributeError, TypeError, ValueError) as error:
        print(f"cardems-client play: no bot {args.bot}: {error}", file=sys.stderr)
        return 2

    def said(move: Move) -> None:
        if not args.quiet:
            chosen = " ".join(move.chosen) if isinstance(move.chosen, tuple) else move.chosen
            print(f"round {move.round}: {move.kind} {chosen}", flush=True)

    with Client(args.url, args.token) as client:
        final = run_bot(client, args.match_id, bot, on_move=said)
    print(_result(final))
    return 0


def _result(view: MatchView) -> str:
    totals = " ".join(str(t) for t in view.scores.total)
    if view.status == "abandoned":
        return f"abandoned after round {view.round}; totals {totals}"
    return f"finished: seat {view.winner} wins; totals {totals}"


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return new(args) if args.command == "new" else play(args)
    except CardemsError as error:
        print(f"cardems-client {args.command}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
