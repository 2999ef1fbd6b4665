"""The trainer's step (alphazero.train.trainer.Trainer.step) in NCHW and in channels-last.

    python experiments/gpu-next/train_layout.py PRESET DEVICE BATCH [PAIRS]

Builds the `experiment=PRESET` network and trainer (its optimizer, losses, grad clip, bf16
autocast on CUDA) with train.memory_format=contiguous and =channels_last, and times
Trainer.step on one fixed batch of random mid-game positions for each, PAIRS times alternating
(default 3), best of three 3-second windows each. Prints one JSON line per timing. On CUDA this
is the measurement that decides what train.memory_format=auto should pick there (today NCHW).
"""

import json
import sys
import time

import numpy as np
import torch

from alphazero.bench.selfplay import load_preset
from alphazero.nn.checkpoint import build_network
from alphazero.othello.playout import random_positions
from alphazero.train.trainer import Trainer

preset, device_name, batch = sys.argv[1], sys.argv[2], int(sys.argv[3])
pairs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
device = torch.device(device_name)
if device.type == "cpu":
    torch.set_num_threads(2)
rng = np.random.default_rng(0)
positions = random_positions(batch, 0)
policies = rng.random((batch, 65), dtype=np.float32)
policies /= policies.sum(axis=1, keepdims=True)
values = rng.choice([-1.0, 0.0, 1.0], batch).astype(np.float32)
synchronize = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
for _ in range(pairs):
    for layout in ("contiguous", "channels_last"):
        cfg = load_preset(preset, [f"train.memory_format={layout}"])
        torch.manual_seed(0)
        trainer = Trainer(build_network(cfg.model), cfg.train, device)
        for _ in range(3):
            trainer.step(positions, policies, values)
        synchronize()
        best = 0.0
        for _ in range(3):
            steps, start = 0, time.perf_counter()
            while time.perf_counter() - start < 3.0:
                trainer.step(positions, policies, values)  # reads the loss back: synchronises
                steps += 1
            best = max(best, steps * batch / (time.perf_counter() - start))
        print(json.dumps({"preset": preset, "model": f"{cfg.model.blocks}x{cfg.model.channels}", "device": str(device),
                          "batch": batch, "memory_format": layout, "train_samples_per_second": round(best)}), flush=True)
