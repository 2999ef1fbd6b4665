"""NCHW against channels-last for the evaluator's forward pass on CUDA (issue 15's follow-up).

Times what `NetworkEvaluator.evaluate_packed` does on the device (planes from packed bitboards,
the fused network under bf16 autocast, the masked softmax) at the batch sizes the `gpu` preset's
inference server sees, once with the model and its input in NCHW (the evaluator before
2026-11-26 on CUDA) and once in channels-last. Prints one JSON line per (layout, batch).
Usage: python3 experiments/gpu-next/layout.py [preset]   (CUDA only)
"""

import json
import sys
import time

import numpy as np
import torch

from alphazero.bench.selfplay import load_preset
from alphazero.nn.checkpoint import build_network
from alphazero.nn.encoding import legal_mask_from_packed, pack_positions_and_mask, planes_from_packed
from alphazero.nn.model import fuse_for_inference, masked_softmax
from alphazero.othello.playout import random_positions

preset = sys.argv[1] if len(sys.argv) > 1 else "gpu"
cfg = load_preset(preset, [])
torch.manual_seed(0)
net = build_network(cfg.model).eval()
device = torch.device("cuda")
layouts = {"nchw": torch.contiguous_format, "channels_last": torch.channels_last}
models = {name: fuse_for_inference(net).to(device).to(memory_format=fmt) for name, fmt in layouts.items()}
for batch in (1024, 2048, 4096, 6144, 16384):
    packed_np, _ = pack_positions_and_mask(random_positions(batch, 0))
    packed = torch.from_numpy(packed_np.view(np.int64)).to(device)
    outputs = {}
    for name, fmt in layouts.items():
        model = models[name]

        def call():
            planes = planes_from_packed(packed).contiguous(memory_format=fmt)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits, values = model(planes)
            return masked_softmax(logits.float(), legal_mask_from_packed(packed)), values.float()

        with torch.inference_mode():
            for _ in range(5):
                outputs[name] = call()
            torch.cuda.synchronize()
            best = 0.0
            for _ in range(3):
                calls, start = 0, time.perf_counter()
                while time.perf_counter() - start < 1.0:
                    call()
                    calls += 1
                torch.cuda.synchronize()
                best = max(best, calls * batch / (time.perf_counter() - start))
        print(json.dumps({"preset": preset, "model": f"{cfg.model.blocks}x{cfg.model.channels}", "layout": name,
                          "batch": batch, "evals_per_second": round(best)}), flush=True)
    difference = (outputs["nchw"][0] - outputs["channels_last"][0]).abs().max().item()
    print(json.dumps({"batch": batch, "max_prior_difference": difference}), flush=True)
