"""Fit the learned model of the expert's play (`domain.bots.imitation`) to recorded decisions
(`bench/expert_plays.py`), and say how often it plays another card than the expert on rounds
it was not fitted on, beside the rules of thumb, and what that gives up by the expert's own
mean outcomes.

    python -m bench.expert_plays --rounds 700 --seed 101 --out expert-plays.jsonl  # 37 min
    python -m bench.play_model expert-plays.jsonl --held-out 100 \
        --out bench/models/expert-play-model.json

A choice model: each decision's distinct legal cards compete, each scored by a small network
(its features weighed, plus a layer of tanh units); the weights make the expert's cards
likely (or, given a temperature, the cards by their mean outcomes), with a small ridge
penalty, by Adam's gradient steps from the rules of thumb alone.
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

    def choices(self, weights: Weights) -> np.ndarray:
        picked: np.ndarray = np.where(self.real, scores(weights, self.x)[0],
                                      -np.inf).argmax(axis=1)
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

    def report(self, weights: Weights) -> str:
        """How often these weights play another card than the expert, and what that gives
        up a decision by the expert's own mean outcomes."""
        picked = self.choices(weights)
        rows = np.arange(len(self))
        wrong = int((picked != self.chosen).sum())
        regret = (self.values[rows, picked] - self.values[rows, self.chosen]).mean()
        return f"{wrong:6d} of {len(self):6d} ({100 * wrong / len(self):4.1f}%), {regret:.3f}"


Weights = list[np.ndarray]  # linear (F), first (F x H), bias (H), second (H)


def scores(weights: Weights, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each candidate's score, and its hidden units."""
    linear, first, bias, second = weights
    hidden = np.tanh(x @ first + bias)
    return x @ linear + hidden @ second, hidden


def fit(data: Decisions, temperature: float, hidden: int, steps: int = 3000,
        ridge: float = 1e-3, rate: float = 0.01, seed: int = 0) -> Weights:
    """Weights that make the targets likely, from the rules of thumb alone and small random
    hidden weights, by Adam's gradient steps."""
    x, real, target = data.x, data.real, data.targets(temperature)
    rng = np.random.default_rng(seed)
    weights = [np.eye(len(FEATURES))[0], rng.normal(0, 0.3, (len(FEATURES), hidden)),
               np.zeros(hidden), rng.normal(0, 0.3, hidden)]
    first = [np.zeros_like(w) for w in weights]
    second = [np.zeros_like(w) for w in weights]
    for step in range(1, steps + 1):
        score, units = scores(weights, x)
        score = np.where(real, score, -np.inf)
        score -= score.max(axis=1, keepdims=True)
        odds = np.exp(score)
        odds /= odds.sum(axis=1, keepdims=True)
        # The loss's slope in each candidate's score, and in its hidden units: candidates
        # flattened into rows, so that every product is one matrix product.
        ds = ((odds - target) / len(data)).reshape(-1)
        rows, units = x.reshape(len(ds), -1), units.reshape(len(ds), -1)
        dh = ds[:, None] * weights[3] * (1 - units ** 2)
        gradients = [rows.T @ ds, rows.T @ dh, dh.sum(axis=0), units.T @ ds]
        for i, gradient in enumerate(gradients):
            gradient = gradient + ridge * weights[i]
            first[i] = 0.9 * first[i] + 0.1 * gradient
            second[i] = 0.999 * second[i] + 0.001 * gradient ** 2
            weights[i] = weights[i] - rate * (first[i] / (1 - 0.9 ** step)) / (
                np.sqrt(second[i] / (1 - 0.999 ** step)) + 1e-8)
    return weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", nargs="+")
    parser.add_argument("--held-out", type=int, default=100, help="last rounds kept out")
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--temperature", type=float, default=0.0,
                        help="aim at the cards by their mean outcomes, not the expert's card")
    parser.add_argument("--hidden", type=int, default=32, help="hidden units (0: linear)")
    parser.add_argument("--out")
    options = parser.parse_args()
    records = [json.loads(line) for path in options.records
               for line in Path(path).read_text().splitlines()]
    last = max(r["round"] for r in records)
    fitted = decisions(r for r in records if r["round"] <= last - options.held_out)
    kept = decisions(r for r in records if r["round"] > last - options.held_out)
    weights = fit(fitted, options.temperature, options.hidden, options.steps)
    thumb = [np.eye(len(FEATURES))[0], np.zeros((len(FEATURES), 0)), np.zeros(0),
             np.zeros(0)]
    print(f"fitted on {len(fitted)} decisions, {len(kept)} held out; plays another card"
          " than the expert, and gives up a decision by its mean outcomes:")
    for label, data in (("fitted on", fitted), ("held out", kept)):
        print(f"  {label:9s}  rules of thumb {data.report(thumb)}"
              f"   model {data.report(weights)}")
    if options.out:
        linear, first, bias, second = weights
        with open(options.out, "w") as sink:
            json.dump({"features": list(FEATURES), "linear": _rounded(linear),
                       "first": [_rounded(row) for row in first] if len(bias) else [],
                       "bias": _rounded(bias), "second": _rounded(second)}, sink)
            sink.write("\n")


def _rounded(values: np.ndarray) -> list[float]:
    return [round(float(v), 4) for v in values]


if __name__ == "__main__":
    main()
