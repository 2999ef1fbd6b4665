"""The pair model's two numbers, measured on arena game logs: each log's draw rate, its pairs by
pentanomial category (the first player's points over the two games of one opening) and the share
of split pairs (`PairModel.split_share`) that fits them best, with a 95% likelihood interval.

    python experiments/gate-power/pair_model.py LOG.jsonl ... [--pooled-from N]

The fit: the log's own draw rate, its own mean score (the model tilted to that Elo), and the
split share that maximises the likelihood of its pentanomial counts (a grid of 0.01); the
interval is where the log-likelihood is within 1.92 of its maximum. --pooled-from N pools the
logs from the N-th on (0-based), each with its own draw rate and Elo.
"""

from __future__ import annotations

import argparse
import collections
import json

import numpy as np

from alphazero.arena.elo import elo_from_score
from alphazero.arena.gate_power import PairModel, tilted
from alphazero.arena.sprt import PAIR_SCORES

SPLITS = np.round(np.arange(0.0, 0.81, 0.01), 2)


def pentanomial(path: str) -> tuple[np.ndarray, float]:
    """Pairs of the log by category (player A's view) and its draw rate over the paired games."""
    points = collections.defaultdict(list)
    for line in open(path):
        if not line.strip():
            continue
        row = json.loads(line)
        margin = row["black_margin"] if row["a_is_black"] else -row["black_margin"]
        points[(row["player_a"], row["player_b"], row["opening"])].append(1.0 if margin > 0 else 0.5 if margin == 0 else 0.0)
    pairs = [scores for scores in points.values() if len(scores) == 2]
    counts = np.zeros(5)
    for scores in pairs:
        counts[int(2 * sum(scores))] += 1
    draws = sum(score == 0.5 for scores in pairs for score in scores)
    return counts, draws / (2 * len(pairs))


def log_likelihoods(counts: np.ndarray, draw_rate: float) -> np.ndarray:
    mean = float(counts @ PAIR_SCORES / counts.sum())
    elo = elo_from_score(min(max(mean, 1e-3), 1 - 1e-3))
    return np.array([counts @ np.log(np.maximum(tilted(PairModel(draw_rate, split).equal(), mean), 1e-300)) for split in SPLITS]), elo


def interval(values: np.ndarray) -> tuple[float, float, float]:
    best = int(np.argmax(values))
    inside = SPLITS[values >= values[best] - 1.92]
    return float(SPLITS[best]), float(inside.min()), float(inside.max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+")
    parser.add_argument("--pooled-from", type=int, default=0)
    args = parser.parse_args()
    pooled = np.zeros(len(SPLITS))
    print("| log | pairs LL/LD/WL+DD/WD/WW | draw rate | score | split share (95%) |")
    print("|---|---|---:|---:|---|")
    for index, path in enumerate(args.logs):
        counts, draw_rate = pentanomial(path)
        values, elo = log_likelihoods(counts, draw_rate)
        if index >= args.pooled_from:
            pooled += values
        split, low, high = interval(values)
        score = counts @ PAIR_SCORES / counts.sum()
        print(f"| {path} | {'/'.join(str(int(c)) for c in counts)} | {draw_rate:.3f} | {score:.3f} | {split:.2f} ({low:.2f}-{high:.2f}) |")
    split, low, high = interval(pooled)
    print(f"\npooled (logs {args.pooled_from}-{len(args.logs) - 1}): split share {split:.2f} (95%: {low:.2f}-{high:.2f})")


if __name__ == "__main__":
    main()
