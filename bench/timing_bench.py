"""Does a bot's timing tell its hand? Expert bots play on a real server, and the gap before
each of their plays (its `recorded_at` less the previous event's, both public) is split by
whether the bot had one legal card or several. Without a pace the two differ at a glance; with
the expert's pace they should not be told apart. Both runs side by side, one after the other.

    python -m bench timing          (TIMING_SECONDS=120 per paced run by default)
"""

from __future__ import annotations

import math
import os
import statistics
import tempfile
import time
from itertools import pairwise
from pathlib import Path

from bench.figures import quantile
from domain.evolve import fold
from domain.legal import legal_cards
from eventstore import open_store
from harness.http import Server, call
from service import decode
from service.pacing import parse_instant

EXPERTS = [{"name": f"e{i}", "bot": "expert"} for i in range(4)]


def gaps(store_url: str, match_ids: list[str]) -> dict[str, list[float]]:
    """Seconds before each expert play, by how many legal cards the player had."""
    store = open_store(store_url)
    out: dict[str, list[float]] = {"one": [], "several": []}
    for match_id in match_ids:
        stored = store.read(match_id)
        state = None
        for previous, event in pairwise(stored):
            state = fold([decode(previous)], state)
            if event.type != "CardPlayed" or state is None or state.round is None:
                continue
            choices = len(legal_cards(state.round, state.rules, event.data["seat"]))
            gap = parse_instant(event.recorded_at) - parse_instant(previous.recorded_at)
            out["one" if choices == 1 else "several"].append(gap)
    store.close()
    return out


def ks(a: list[float], b: list[float]) -> tuple[float, float]:
    """The two-sample Kolmogorov-Smirnov statistic and its asymptotic p-value."""
    a, b = sorted(a), sorted(b)
    i = j = 0
    d = 0.0
    while i < len(a) and j < len(b):
        x = min(a[i], b[j])
        while i < len(a) and a[i] <= x:
            i += 1
        while j < len(b) and b[j] <= x:
            j += 1
        d = max(d, abs(i / len(a) - j / len(b)))
    if d == 0:
        return 0.0, 1.0  # the same distribution: the series below sums to 0 at lambda 0
    n = len(a) * len(b) / (len(a) + len(b))
    lam = (math.sqrt(n) + 0.12 + 0.11 / math.sqrt(n)) * d
    p = 2 * sum((-1) ** (k - 1) * math.exp(-2 * k * k * lam * lam) for k in range(1, 101))
    return d, min(1.0, max(0.0, p))


def run(pace: str, seconds: float, matches: int) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'timing.sqlite3'}"
        server = Server("--store", url, "--pace", pace)
        try:
            ids = [call(server.base, "POST", "/v1/matches",
                        {"seats": EXPERTS, "rules": {"end_score": 10_000}}).body["id"]
                   for _ in range(matches)]
            time.sleep(seconds)  # a benchmark's fixed run time, not a wait on a condition
        finally:
            server.stop()
        return gaps(url, ids)


def report(label: str, found: dict[str, list[float]]) -> None:
    one, several = found["one"], found["several"]
    d, p = ks(one, several)
    print(f"  {label}: {len(one)} plays with one legal card, {len(several)} with several")
    for name, values in (("one legal card", one), ("several", several)):
        print(f"    {name:15s} p5 {quantile(values, 0.05) * 1000:7.1f} ms"
              f"  p50 {quantile(values, 0.5) * 1000:7.1f} ms"
              f"  p95 {quantile(values, 0.95) * 1000:7.1f} ms"
              f"  max {max(values) * 1000:7.1f} ms")
    beat = statistics.mode(one + several)
    for name, values in (("one legal card", one), ("several", several)):
        off = sum(1 for v in values if abs(v - beat) > 0.0005)
        print(f"    {name:15s} off the most common gap ({beat * 1000:.0f} ms): {off}")
    print(f"    Kolmogorov-Smirnov D {d:.3f}, p {p:.3g}"
          f"  (D near 0 and p not small: the two cannot be told apart)")


def main() -> None:
    seconds = float(os.environ.get("TIMING_SECONDS", "120"))
    matches = int(os.environ.get("TIMING_MATCHES", "16"))
    print(f"timing: {matches} four-expert matches on one server, gap before each expert play")
    report("no pace", run("0", seconds / 8, matches))
    report("pace expert=1.0 s", run("expert=1.0", seconds, matches))
