"""Fit the learned model of the expert's play (`domain.bots.imitation`) to recorded decisions
(`bench/expert_plays.py`), and say how often it plays another card than the expert on rounds
it was not fitted on, beside the rules of thumb.

    python -m bench.play_model expert-plays.jsonl --held-out 100 --out weights.json

A conditional logit: each decision's distinct legal cards compete, each scored by the
weights times its features; the weights maximise the likelihood of the expert's cards, with
a small ridge penalty, by gradient steps (Adam) from the rules of thumb alone.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from domain.bots.imitation import FEATURES, PlayModel, Position
from domain.bots.rollout import Table, distinct, legal_plays, out_of
from domain.rules import Rules

RULES = Rules(end_score=10_000)  # the rules the recorded rounds were played by
MOST = 13  # candidates a decision can have
WEIGHTS = Path(__file__).parent / "models" / "expert-play-model.json"  # the fitted model


def fitted_model(path: Path = WEIGHTS) -> PlayModel:
    """The model as fitted and kept in the repository."""
    return PlayModel.from_json(path.read_text())


def table_of(record: dict) -> Table:
    return Table([[list(s) for s in hand] for hand in record["hands"]], record["leader"],
                 [tuple(p) for p in record["plays"]], list(record["points"]),
                 list(record["won"]), record["jack"], record["broken"],
                 record["queen_played"], list(record["voids"]))


def decisions(records: Iterable[dict]) -> Decisions:
    """Per decision: its candidates' features (padded), which are real, the expert's card
    and each candidate's mean outcome in the expert's search."""
    features, real, chosen, values = [], [], [], []
    for record in records:
        table, seat = table_of(record), record["seat"]
        cards = distinct(RULES, legal_plays(RULES, table, seat), out_of(table, seat))
        if len(cards) < 2:
            continue
        position = Position(RULES, table, seat, cards)
        rows = [position.features(card) for card in cards]
        pad = MOST - len(rows)
        features.append(rows + [[0.0] * len(FEATURES)] * pad)
        real.append([True] * len(rows) + [False] * pad)
        chosen.append(max(i for i, c in enumerate(cards) if c <= record["card"]))
        values.append([record["values"][str(c)] for c in cards] + [0.0] * pad)
    return Decisions(np.array(features), np.array(real), np.array(chosen), np.array(values))


class Decisions:
    def __init__(self, x: np.ndarray, real: np.ndarray, chosen: np.ndarray,
                 values: np.ndarray) -> None:
        self.x, self.real, self.chosen, self.values = x, real, chosen, values

    def __len__(self) -> int:
        return len(self.chosen)

    def choices(self, weights: np.ndarray) -> np.ndarray:
        picked: np.ndarray = np.where(self.real, self.x @ weights, -np.inf).argmax(axis=1)
        return picked

    def targets(self, temperature: float) -> np.ndarray:
        """What the fit aims at: with `temperature` 0, the expert's card; else each card
        weighted by exp(-(its mean outcome less the best's) / temperature)."""
        if not temperature:
            chosen: np.ndarray = np.eye(MOST)[self.chosen]
            return chosen
        gap = np.where(self.real, self.values - self.values.min(axis=1, initial=np.inf,
                                                                    where=self.real,
                                                                    keepdims=True), np.inf)
        weights = np.exp(-gap / temperature)
        share: np.ndarray = weights / weights.sum(axis=1, keepdims=True)
        return share

    def report(self, weights: np.ndarray) -> str:
        """How often these weights play another card than the expert, and what that gives
        up a decision by the expert's own mean outcomes."""
        picked = self.choices(weights)
        rows = np.arange(len(self))
        wrong = int((picked != self.chosen).sum())
        regret = (self.values[rows, picked] - self.values[rows, self.chosen]).mean()
        return f"{wrong:6d} of {len(self):6d} ({100 * wrong / len(self):4.1f}%), {regret:.3f}"


def fit(data: Decisions, temperature: float, steps: int = 3000, ridge: float = 1e-3,
        rate: float = 0.05) -> np.ndarray:
    x, real, target = data.x, data.real, data.targets(temperature)
    weights = np.zeros(len(FEATURES))
    weights[0] = 1.0  # the rules of thumb
    first, second = np.zeros_like(weights), np.zeros_like(weights)
    for step in range(1, steps + 1):
        scores = np.where(real, x @ weights, -np.inf)
        scores -= scores.max(axis=1, keepdims=True)
        odds = np.exp(scores)
        odds /= odds.sum(axis=1, keepdims=True)
        gradient = np.einsum("dc,dcf->f", odds - target, x) / len(data) + ridge * weights
        first = 0.9 * first + 0.1 * gradient
        second = 0.999 * second + 0.001 * gradient ** 2
        weights -= rate * (first / (1 - 0.9 ** step)) / (
            np.sqrt(second / (1 - 0.999 ** step)) + 1e-8)
    return weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", nargs="+")
    parser.add_argument("--held-out", type=int, default=100, help="last rounds kept out")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--temperature", type=float, default=0.0,
                        help="aim at the cards by their mean outcomes, not the expert's card")
    parser.add_argument("--out")
    options = parser.parse_args()
    records = [json.loads(line) for path in options.records
               for line in Path(path).read_text().splitlines()]
    last = max(r["round"] for r in records)
    fitted = decisions(r for r in records if r["round"] <= last - options.held_out)
    kept = decisions(r for r in records if r["round"] > last - options.held_out)
    weights = fit(fitted, options.temperature, options.steps)
    thumb = np.eye(len(FEATURES))[0]
    print(f"fitted on {len(fitted)} decisions, {len(kept)} held out; plays another card"
          " than the expert, and gives up a decision by its mean outcomes:")
    for label, data in (("fitted on", fitted), ("held out", kept)):
        print(f"  {label:9s}  rules of thumb {data.report(thumb)}"
              f"   model {data.report(weights)}")
    for name, weight in zip(FEATURES, weights, strict=True):
        print(f"    {name:24s} {weight:+.3f}")
    if options.out:
        with open(options.out, "w") as sink:
            json.dump({"features": list(FEATURES),
                       "weights": [round(float(w), 4) for w in weights]}, sink, indent=1)
            sink.write("\n")


if __name__ == "__main__":
    main()
