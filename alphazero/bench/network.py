"""`python -m alphazero.bench network [--preset small | --checkpoint PATH] [--threads 2]`: network
speed on this machine.

`--preset` takes any model preset, the warm-start zoo's included; `--checkpoint` measures the
network a checkpoint holds (its architecture; the speed does not depend on the weights).
A network that reads the game's history (seed_cnn_rnn) cannot go through `NetworkEvaluator` (MCTS
has no history): it is timed as encoding + forward with a random 16-move history + masked
softmax under inference mode, the work its raw-policy player does per position.

Reports evaluations per second through `NetworkEvaluator` (encoding, forward, masked softmax, all
included) at batch 1, 64 and 256, and training samples per second at batch 256 (forward, policy
cross-entropy + value MSE, backward, SGD-with-momentum step). Positions are random mid-game
positions (random legal moves from the start), so the legal masks are realistic.

Each figure is the best of several short timed windows: on a shared machine the best window is the
one least disturbed by other load; the median is reported beside it. `--clock cpu` times windows
by the process's CPU time instead of the wall clock: with `--threads 1` on a machine other jobs keep
busy, that is the figure the same run would reach alone (wall-clock windows then mostly measure
the scheduler). With several threads CPU time also counts their spin-waiting, so use wall there.
"""

import argparse
import dataclasses
import time

import numpy as np
import torch

from alphazero.nn.checkpoint import build_network, load_checkpoint
from alphazero.nn.config import MEMORY_FORMATS, PRESET_NAMES, model_preset
from alphazero.nn.encoding import encode_positions_and_mask
from alphazero.nn.inference import NetworkEvaluator, resolve_device
from alphazero.nn.model import count_parameters, masked_softmax, policy_cross_entropy, training_memory_format
from alphazero.othello.history import HISTORY_TOKENS
from alphazero.othello.playout import random_positions  # noqa: F401 (used below and by other benches)

INFERENCE_BATCHES = (1, 64, 256)
TRAIN_BATCH = 256


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def _calls_per_window(function, window_seconds, clock):
    """How many calls of `function` fill one timed window (after one warm-up call)."""
    function()
    start = clock()
    function()
    once = max(clock() - start, 1e-6)
    return max(1, int(window_seconds / once))


def _rate(function, items_per_call, repeats, window_seconds, clock):
    """(best, median) items per second over `repeats` windows timed by `clock`."""
    calls = _calls_per_window(function, window_seconds, clock)
    times = []
    for _ in range(repeats):
        start = clock()
        for _ in range(calls):
            function()
        times.append(max(clock() - start, 1e-9))
    times.sort()
    return round(items_per_call * calls / times[0]), round(items_per_call * calls / times[len(times) // 2])


def random_history(net, count: int, device) -> torch.Tensor | None:
    """int64[count, K] random previous actions for a history-reading network, else None."""
    if not net.cfg.needs_history:
        return None
    return torch.randint(0, HISTORY_TOKENS, (count, net.cfg.history), generator=torch.Generator().manual_seed(0)).to(device)


def measure_inference(net, positions, batch, device, repeats, window_seconds, cpu_kernels, clock):
    batch_positions = positions[:batch]
    if net.cfg.needs_history:
        history = random_history(net, batch, device)
        model = net.to(device).eval()

        def call():
            planes, legal = encode_positions_and_mask(batch_positions)
            with torch.inference_mode():
                logits, values = model(torch.from_numpy(planes).to(device), history)
                masked_softmax(logits.float().cpu(), torch.from_numpy(legal))
                values.float().cpu()

        return _rate(call, batch, repeats, window_seconds, clock)
    evaluator = NetworkEvaluator(net, device=device, cpu_kernels=cpu_kernels)
    return _rate(lambda: evaluator(batch_positions), batch, repeats, window_seconds, clock)


def measure_training(net, positions, device, repeats, window_seconds, channels_last, clock):
    planes, legal_mask = encode_positions_and_mask(positions[:TRAIN_BATCH])
    rng = np.random.default_rng(0)
    target = rng.random(legal_mask.shape, dtype=np.float32) * legal_mask
    target /= target.sum(axis=1, keepdims=True)
    planes = torch.from_numpy(planes).to(device)
    if channels_last:
        planes = planes.contiguous(memory_format=torch.channels_last)
    legal_mask = torch.from_numpy(legal_mask).to(device)
    target = torch.from_numpy(target).to(device)
    value_target = torch.from_numpy(rng.choice([-1.0, 0.0, 1.0], TRAIN_BATCH).astype(np.float32)).to(device)
    net = net.to(device).train()
    if channels_last:
        net = net.to(memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(net.parameters(), lr=1e-3, momentum=0.9, weight_decay=1e-4)
    history = random_history(net, TRAIN_BATCH, device)

    def step():
        logits, value = net(planes, history) if history is not None else net(planes)
        loss = policy_cross_entropy(logits, target, legal_mask) + torch.nn.functional.mse_loss(value, value_target)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        if device.type == "cuda":
            torch.cuda.synchronize()

    return _rate(step, TRAIN_BATCH, repeats, window_seconds, clock)


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench network")
    parser.add_argument("--preset", default="small", choices=PRESET_NAMES)
    parser.add_argument("--checkpoint", help="measure the architecture stored in this checkpoint instead of --preset")
    parser.add_argument("--blocks", type=int, help="override the preset's residual blocks")
    parser.add_argument("--channels", type=int, help="override the preset's channels")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu", help="cpu (default), cuda, auto")
    parser.add_argument("--cpu-kernels", default="auto", choices=["auto", "eager"], help="NetworkEvaluator's cpu_kernels")
    parser.add_argument(
        "--train-memory-format",
        default="auto",
        choices=list(MEMORY_FORMATS),
        help="layout of the training net's weights and inputs; auto = what train.memory_format=auto "
        "picks on the device (channels-last on CPU, NCHW on CUDA)",
    )
    parser.add_argument("--repeats", type=int, default=7, help="timed windows per figure; the best is reported")
    parser.add_argument("--window", type=float, default=0.25, help="seconds per timed window")
    parser.add_argument("--clock", default="wall", choices=sorted(CLOCKS), help="cpu: process CPU time (see above)")
    parser.add_argument("--skip-training", action="store_true")
    args = parser.parse_args(argv)
    if args.threads < 1:
        parser.error(f"--threads must be >= 1, got {args.threads}")

    clock = CLOCKS[args.clock]
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    cfg = load_checkpoint(args.checkpoint).model_config if args.checkpoint else model_preset(args.preset)
    overrides = {k: v for k, v in (("blocks", args.blocks), ("channels", args.channels)) if v is not None}
    if overrides:
        cfg = dataclasses.replace(cfg, **overrides)
    device = resolve_device(args.device)
    net = build_network(cfg)
    positions = random_positions(max(INFERENCE_BATCHES + (TRAIN_BATCH,)), seed=1)
    train_channels_last = training_memory_format(args.train_memory_format, device) is torch.channels_last

    result = {
        "preset": None if args.checkpoint else args.preset,
        **({"checkpoint": args.checkpoint} if args.checkpoint else {}),
        "arch": cfg.arch,
        "blocks": cfg.blocks,
        "channels": cfg.channels,
        "global_pooling": cfg.global_pooling,
        "parameters": count_parameters(net),
        "threads": args.threads,
        "clock": args.clock,
        "device": str(device),
        "cpu_kernels": args.cpu_kernels,
        "train_memory_format": "channels_last" if train_channels_last else "contiguous",
    }
    for batch in INFERENCE_BATCHES:
        best, median = measure_inference(net, positions, batch, device, args.repeats, args.window, args.cpu_kernels, clock)
        result[f"evals_per_second_batch{batch}"] = best
        result[f"median_evals_per_second_batch{batch}"] = median
    if not args.skip_training:
        best, median = measure_training(net, positions, device, args.repeats, args.window, train_channels_last, clock)
        result[f"train_samples_per_second_batch{TRAIN_BATCH}"] = best
        result[f"median_train_samples_per_second_batch{TRAIN_BATCH}"] = median
    return result
