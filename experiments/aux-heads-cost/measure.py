"""Training cost of KataGo's auxiliary heads: trainer samples/s of a network with and without the
score and ownership heads, side by side in one process (experiments/aux-heads-cost/README.md,
"Auxiliary heads: training cost").

    python experiments/aux-heads-cost/measure.py [--model small] [--rounds 10] [--steps 5] [--precision fp32]

Both trainers start from the same tower weights and train the same fixed batches (256 rows of a
replay buffer of random finished games, with their final boards); rounds alternate the two sides
(which goes first alternates too), each round timing `--steps` steps of each after a warm-up that
keeps torch's and numba's first calls out. One torch thread (as the self-play trainer). Prints one
JSON line: each side's median samples/s over the rounds and the median of the per-round ratios.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests" / "replay"))

from alphazero.nn.checkpoint import build_network  # noqa: E402
from alphazero.nn.config import model_preset  # noqa: E402
from alphazero.replay.buffer import ReplayBuffer  # noqa: E402
from alphazero.train.config import RECOMMENDED_OWNERSHIP_WEIGHT, RECOMMENDED_SCORE_WEIGHT, TrainConfig  # noqa: E402
from alphazero.train.trainer import Trainer  # noqa: E402
from replay_games import random_records  # noqa: E402

BATCH = 256


def trainer(model, heads: bool, precision: str) -> Trainer:
    cfg = dataclasses.replace(model, score_head=heads, ownership_head=heads)
    torch.manual_seed(0)
    weights = dict(score_weight=RECOMMENDED_SCORE_WEIGHT, ownership_weight=RECOMMENDED_OWNERSHIP_WEIGHT) if heads else {}
    return Trainer(build_network(cfg), TrainConfig(device="cpu", precision=precision, batch_size=BATCH, **weights), torch.device("cpu"))


def timed_steps(trainer: Trainer, batches) -> float:
    start = time.perf_counter()
    for batch in batches:
        trainer.step(batch.positions, batch.policies, batch.values, None, batch.final_boards, batch.aux_mask)
    return len(batches) * BATCH / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="small")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--precision", default="fp32", choices=("fp32", "bf16"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as directory:
        buffer = ReplayBuffer(directory, window_positions=100_000)
        buffer.add_games(random_records(40, seed=1), writer_id="bench")
        rng = np.random.default_rng(0)
        batches = [buffer.sample(BATCH, rng) for _ in range(args.steps)]
    model = model_preset(args.model)
    sides = {"plain": trainer(model, False, args.precision), "heads": trainer(model, True, args.precision)}
    for side in sides.values():
        timed_steps(side, batches[:2])  # warm-up: first calls, allocations
    rates = {name: [] for name in sides}
    for round_index in range(args.rounds):
        order = list(sides) if round_index % 2 == 0 else list(sides)[::-1]
        for name in order:
            rates[name].append(timed_steps(sides[name], batches))
    ratios = [h / p for h, p in zip(rates["heads"], rates["plain"])]
    print(json.dumps({
        "model": args.model, "precision": args.precision, "batch": BATCH, "rounds": args.rounds, "steps_per_round": args.steps,
        "plain_samples_per_second": round(statistics.median(rates["plain"]), 1),
        "heads_samples_per_second": round(statistics.median(rates["heads"]), 1),
        "heads_over_plain": round(statistics.median(ratios), 3),
        "ratio_min_max": [round(min(ratios), 3), round(max(ratios), 3)],
        "loadavg_1m": round(os.getloadavg()[0], 2),
    }))


if __name__ == "__main__":
    main()
