"""`python -m alphazero.bench threads [--preset small] [--threads 1 2]`: the network's speed with
each torch thread count, side by side in one process (the measurement behind the thread
defaults, docs/threads.md).

For each batch size (default 1, 8, 64, 256: one game's search, a few games, self-play's batches)
the evaluator's evaluations per second, and training samples per second at batch 256, with every
`--threads` value; the thread count is switched between timed windows (`torch.set_num_threads`),
so the counts take turns and a change in the machine's load falls on each alike. Wall-clock
windows (CPU time would count the spinning of idle threads as work), best and median of
`--repeats`. The evaluator runs in `--precision` (fp32 by default, so that the figure is about
threads alone). The line also holds the CPU, the core count and the load average before and
after: on a machine other jobs keep busy, extra threads spin-wait on each other and can be many
times slower, which is what the defaults guard against.
"""

from __future__ import annotations

import argparse
import os
import time

import torch

from alphazero.argtypes import positive_float, positive_int
from alphazero.bench.network import TRAIN_BATCH, measure_training
from alphazero.nn.checkpoint import build_network
from alphazero.nn.config import PRESET_NAMES, model_preset
from alphazero.nn.inference import NetworkEvaluator
from alphazero.nn.precision import describe_cpu
from alphazero.othello.playout import random_positions

BATCHES = (1, 8, 64, 256)


def _load():
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench threads", description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="small", choices=PRESET_NAMES)
    parser.add_argument("--threads", type=positive_int, nargs="+", default=[1, 2], help="thread counts to compare (default 1 2)")
    parser.add_argument("--batches", type=positive_int, nargs="+", default=list(BATCHES))
    parser.add_argument("--precision", choices=("fp32", "bf16"), default="fp32")
    parser.add_argument("--repeats", type=positive_int, default=5)
    parser.add_argument("--window", type=positive_float, default=0.5, help="seconds per timed window (default 0.5)")
    parser.add_argument("--skip-training", action="store_true")
    args = parser.parse_args(argv)

    torch.manual_seed(0)
    net = build_network(model_preset(args.preset))
    positions = random_positions(max(args.batches + [TRAIN_BATCH]), seed=1)
    result = {
        "benchmark": "threads",
        "preset": args.preset,
        "precision": args.precision,
        "cpu": describe_cpu(),
        "cores": os.cpu_count(),
        "torch_default_threads": torch.get_num_threads(),
        "load_average": _load(),
        "threads": args.threads,
    }
    evaluator = NetworkEvaluator(net, device="cpu", precision=args.precision)
    for batch in args.batches:
        batch_positions = positions[:batch]
        rates = _rates_by_threads(lambda: evaluator(batch_positions), batch, args.threads, args.repeats, args.window)
        for threads, (best, median) in rates.items():
            result[f"evals_per_second_batch{batch}_threads{threads}"] = best
            result[f"median_evals_per_second_batch{batch}_threads{threads}"] = median
    if not args.skip_training:
        for threads in args.threads:  # training compares whole runs (its optimizer state must not mix)
            torch.set_num_threads(threads)
            rates, _ = measure_training(net, positions, torch.device("cpu"), args.repeats, args.window, True, time.perf_counter, ("fp32",))
            result[f"train_samples_per_second_batch{TRAIN_BATCH}_threads{threads}"] = rates["fp32"][0]
            result[f"median_train_samples_per_second_batch{TRAIN_BATCH}_threads{threads}"] = rates["fp32"][1]
    result["load_average_after"] = _load()
    return result


def _rates_by_threads(call, items, thread_counts, repeats, window):
    """{threads: (best, median)} items per second, the thread counts taking turns window by window."""
    calls = {}
    for threads in thread_counts:
        torch.set_num_threads(threads)
        call()
        start = time.perf_counter()
        call()
        calls[threads] = max(1, int(window / max(time.perf_counter() - start, 1e-6)))
    times = {threads: [] for threads in thread_counts}
    for _ in range(repeats):
        for threads in thread_counts:
            torch.set_num_threads(threads)
            start = time.perf_counter()
            for _ in range(calls[threads]):
                call()
            times[threads].append(max(time.perf_counter() - start, 1e-9))
    out = {}
    for threads, seconds in times.items():
        seconds.sort()
        out[threads] = (round(items * calls[threads] / seconds[0]), round(items * calls[threads] / seconds[len(seconds) // 2]))
    return out
