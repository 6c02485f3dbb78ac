"""The command-line options the tournament benches share: how many deals, which, and on how
many processes."""

from __future__ import annotations

import argparse
import os


def deals_parser(doc: str | None, deals: int, seed: int, first: bool = True,
                 ) -> argparse.ArgumentParser:
    """A parser described by `doc`'s first line, with --deals, --seed, --jobs and (with
    `first`) --from, the number of the first deal."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--deals", type=int, default=deals)
    parser.add_argument("--seed", type=int, default=seed)
    if first:
        parser.add_argument("--from", dest="first", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    return parser
