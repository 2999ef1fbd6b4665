"""`python -m alphazero.bench network [--preset small | --checkpoint PATH] [--threads 1]`: network
speed on this machine.

`--precisions fp32 bf16 int8 auto` (the default; int8 on a CPU only) measures each arithmetic side
by side. int8 runs network calls only, so it has no training figure.

`--preset` takes any model preset, the warm-start zoo's included; `--checkpoint` measures the
network a checkpoint holds (its architecture; the speed does not depend on the weights).
A network that reads the game's history (seed_cnn_rnn) cannot go through `NetworkEvaluator` (MCTS
has no history): it is timed, in float32, as encoding + forward with a random 16-move history +
masked softmax under inference mode, the work its raw-policy player does per position.

Reports evaluations per second through `NetworkEvaluator` (encoding, forward, masked softmax, all
included) at batch 1, 64, 256 and 1,024, and training samples per second at batch 256 (forward
under the precision's autocast, policy cross-entropy + value MSE, backward, SGD-with-momentum
step on float32 weights), each for every `--precisions` entry: fp32, bf16, and auto (resolved
before anything is timed: the probe, or the cached verdict, of alphazero.nn.precision; which
one it chose is in `auto_choice`). Keys: `evals_per_second_batch256_bf16` etc., their medians,
`bf16_speedup_evals_batch256` and `auto_vs_fp32_evals_batch256` (best against best), and the
unsuffixed `evals_per_second_batch256` = auto's figure (the default path). The CPU model and
flags and the load average before and after go in the line too. Positions are random mid-game
positions (random legal moves from the start), so the legal masks are realistic.

Each figure is the best of several short timed windows, the precisions' windows taking turns: on
a shared machine the best window is the one least disturbed by other load; the median is
reported beside it. `--clock cpu` times windows
by the process's CPU time instead of the wall clock: with `--threads 1` on a machine other jobs keep
busy, that is the figure the same run would reach alone (wall-clock windows then mostly measure
the scheduler). With several threads CPU time also counts their spin-waiting, so use wall there.
"""

import argparse
import copy
import dataclasses
import os
import time

import numpy as np
import torch

from alphazero.argtypes import positive_float, positive_int
from alphazero.nn.checkpoint import build_network, load_checkpoint
from alphazero.nn.config import MEMORY_FORMATS, PRESET_NAMES, model_preset
from alphazero.nn.encoding import encode_positions_and_mask
from alphazero.nn import int8_inference, precision as precision_module
from alphazero.nn.inference import NetworkEvaluator, resolve_device
from alphazero.nn.precision import INFERENCE_PRECISIONS
from alphazero.nn.model import count_parameters, masked_softmax, policy_cross_entropy, training_memory_format
from alphazero.othello.history import HISTORY_TOKENS
from alphazero.othello.playout import random_positions  # noqa: F401 (used below and by other benches)

INFERENCE_BATCHES = (1, 64, 256, 1024)
TRAIN_BATCH = 256
# torch threads unless --threads says otherwise: measured on the 2-core CI machine (docs/threads.md).
DEFAULT_THREADS = 1


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


def _rate_all(functions: dict, items_per_call, repeats, window_seconds, clock) -> dict:
    """{name: (best, median)} items per second of each function: the windows of the functions
    alternate (one window of each per repeat), so that a change in the machine's load while the
    benchmark runs falls on every side alike."""
    calls = {name: _calls_per_window(function, window_seconds, clock) for name, function in functions.items()}
    times = {name: [] for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            start = clock()
            for _ in range(calls[name]):
                function()
            times[name].append(max(clock() - start, 1e-9))
    rates = {}
    for name, seconds in times.items():
        seconds.sort()
        rates[name] = (round(items_per_call * calls[name] / seconds[0]), round(items_per_call * calls[name] / seconds[len(seconds) // 2]))
    return rates


def history_call(net, batch_positions, device):
    """One raw-policy evaluation of a history-reading network (no NetworkEvaluator: MCTS has no
    history): encoding, forward with a random history, masked softmax, in float32."""
    history = random_history(net, len(batch_positions), device)
    model = net.to(device).eval()

    def call():
        planes, legal = encode_positions_and_mask(batch_positions)
        with torch.inference_mode():
            logits, values = model(torch.from_numpy(planes).to(device), history)
            masked_softmax(logits.float().cpu(), torch.from_numpy(legal))
            values.float().cpu()

    return call


def measure_inference(net, positions, batch, device, repeats, window_seconds, cpu_kernels, clock, precisions=("fp32",), precision_cache=None):
    """({precision: (best, median)} evaluations per second at `batch`, {precision: Choice},
    {precision: "onednn" or "eager"} where the evaluator chose its kernels for this batch (a CPU
    batch below cpu_inference.MIN_BATCH)). "auto" and the kernels are resolved (probed or read
    from the cache) before anything is timed."""
    batch_positions = positions[:batch]
    if net.cfg.needs_history:
        return {"fp32": _rate(history_call(net, batch_positions, device), batch, repeats, window_seconds, clock)}, {}, {}
    evaluators = {
        precision: NetworkEvaluator(net, device=device, cpu_kernels=cpu_kernels, precision=precision, probe_batch=batch, precision_cache=precision_cache)
        for precision in precisions
    }
    functions = {precision: (lambda evaluator=evaluator: evaluator(batch_positions)) for precision, evaluator in evaluators.items()}
    kernels = {p: e.small_batch_kernels["kernels"] for p, e in evaluators.items() if e.small_batch_kernels is not None}
    return _rate_all(functions, batch, repeats, window_seconds, clock), {p: e.choice for p, e in evaluators.items()}, kernels


def measure_training(net, positions, device, repeats, window_seconds, channels_last, clock, precisions=("fp32",), precision_cache=None):
    """({precision: (best, median)} training samples per second at batch TRAIN_BATCH, {precision:
    Choice}). bf16 is autocast over float32 weights and optimizer (what the trainer runs); each
    precision trains its own copy of `net`."""
    planes, legal_mask = encode_positions_and_mask(positions[:TRAIN_BATCH])
    rng = np.random.default_rng(0)
    target = rng.random(legal_mask.shape, dtype=np.float32) * legal_mask
    target /= target.sum(axis=1, keepdims=True)
    planes = torch.from_numpy(planes).to(device)
    memory_format = torch.channels_last if channels_last else torch.contiguous_format
    planes = planes.contiguous(memory_format=memory_format)
    legal_mask = torch.from_numpy(legal_mask).to(device)
    target = torch.from_numpy(target).to(device)
    value_target = torch.from_numpy(rng.choice([-1.0, 0.0, 1.0], TRAIN_BATCH).astype(np.float32)).to(device)
    history = random_history(net, TRAIN_BATCH, device)
    choices, functions = {}, {}
    for precision in precisions:
        model = copy.deepcopy(net).to(device).train().to(memory_format=memory_format)
        if device.type == "cuda" and precision == "auto":
            choice = precision_module.Choice("bf16", "auto", "cuda (train.mixed_precision)")
        else:
            choice = precision_module.choose_training(precision, model, device, TRAIN_BATCH, precision_cache, memory_format)
        choices[precision] = choice
        dtype = precision_module.training_autocast_dtype(choice.precision)
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9, weight_decay=1e-4)

        def step(model=model, optimizer=optimizer, dtype=dtype):
            with precision_module.autocast(device, dtype):
                logits, value = model(planes, history) if history is not None else model(planes)
            loss = policy_cross_entropy(logits.float(), target, legal_mask) + torch.nn.functional.mse_loss(value.float(), value_target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
            if device.type == "cuda":
                torch.cuda.synchronize()

        functions[precision] = step
    return _rate_all(functions, TRAIN_BATCH, repeats, window_seconds, clock), choices


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench network")
    parser.add_argument("--preset", default="small", choices=PRESET_NAMES)
    parser.add_argument("--checkpoint", help="measure the architecture stored in this checkpoint instead of --preset")
    parser.add_argument("--blocks", type=positive_int, help="override the preset's residual blocks")
    parser.add_argument("--channels", type=positive_int, help="override the preset's channels")
    parser.add_argument("--threads", type=positive_int, default=DEFAULT_THREADS, help=f"torch threads (default {DEFAULT_THREADS}; docs/threads.md)")
    parser.add_argument("--device", default="cpu", help="cpu (default), cuda, auto")
    parser.add_argument("--cpu-kernels", default="auto", choices=["auto", "eager"], help="NetworkEvaluator's cpu_kernels")
    parser.add_argument(
        "--precisions", nargs="+", choices=INFERENCE_PRECISIONS, default=None,
        help="arithmetics to measure side by side (default: fp32 bf16 int8 auto, int8 on a CPU only; fp32 only for a history-reading network)",
    )
    parser.add_argument("--precision-cache", default=None, help="precision=auto's verdict cache file (default: the user's)")
    parser.add_argument("--batches", type=positive_int, nargs="+", default=list(INFERENCE_BATCHES), help=f"inference batch sizes (default {' '.join(map(str, INFERENCE_BATCHES))})")
    parser.add_argument(
        "--train-memory-format",
        default="auto",
        choices=list(MEMORY_FORMATS),
        help="layout of the training net's weights and inputs; auto = what train.memory_format=auto "
        "picks on the device (channels-last on CPU, NCHW on CUDA)",
    )
    parser.add_argument("--repeats", type=positive_int, default=7, help="timed windows per figure; the best is reported")
    parser.add_argument("--window", type=positive_float, default=0.25, help="seconds per timed window")
    parser.add_argument("--clock", default="wall", choices=sorted(CLOCKS), help="cpu: process CPU time (see above)")
    parser.add_argument("--skip-training", action="store_true")
    args = parser.parse_args(argv)

    clock = CLOCKS[args.clock]
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    cfg = load_checkpoint(args.checkpoint).model_config if args.checkpoint else model_preset(args.preset)
    overrides = {k: v for k, v in (("blocks", args.blocks), ("channels", args.channels)) if v is not None}
    if overrides:
        cfg = dataclasses.replace(cfg, **overrides)
    if cfg.needs_history and args.precisions not in (None, ["fp32"]):
        parser.error("a history-reading network is measured in fp32 only (--precisions fp32)")
    device = resolve_device(args.device)
    default_precisions = ["fp32", "bf16"] + (["int8"] if device.type == "cpu" and int8_inference.available() else []) + ["auto"]
    precisions = list(dict.fromkeys(args.precisions or (["fp32"] if cfg.needs_history else default_precisions)))
    net = build_network(cfg)
    positions = random_positions(max(args.batches + [TRAIN_BATCH]), seed=1)
    train_channels_last = training_memory_format(args.train_memory_format, device) is torch.channels_last

    result = {
        "benchmark": "network",
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
        "cpu": precision_module.describe_cpu() if device.type == "cpu" else torch.cuda.get_device_name(device),
        "torch": torch.__version__,
        "load_average": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        "precisions": precisions,
        "cpu_kernels": args.cpu_kernels,
        "train_memory_format": "channels_last" if train_channels_last else "contiguous",
    }
    auto_choices = {}
    for batch in args.batches:
        rates, choices, kernels = measure_inference(net, positions, batch, device, args.repeats, args.window, args.cpu_kernels, clock, precisions, args.precision_cache)
        _record(result, f"evals_per_second_batch{batch}", rates)
        for precision, chosen in kernels.items():
            result[f"kernels_batch{batch}_{precision}"] = chosen
        if "auto" in choices:
            auto_choices[f"inference_batch{batch}"] = choices["auto"].as_dict()
    if not args.skip_training:
        training_precisions = [p for p in precisions if p != "int8"]  # int8 runs network calls only
        rates, choices = measure_training(net, positions, device, args.repeats, args.window, train_channels_last, clock, training_precisions, args.precision_cache)
        _record(result, f"train_samples_per_second_batch{TRAIN_BATCH}", rates)
        if "auto" in choices:
            auto_choices["training"] = choices["auto"].as_dict()
    if auto_choices:
        result["auto_choice"] = {what: choice["precision"] for what, choice in auto_choices.items()}
        result["auto_details"] = auto_choices
    result["load_average_after"] = [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
    return result


def _record(result: dict, name: str, rates: dict) -> None:
    """`name`_<precision> and median_`name`_<precision> for each precision; `name` itself is the
    default path's figure (auto where measured, else the first precision), as before precisions
    existed; and the ratios bf16/fp32, int8/fp32 and auto/fp32 where both sides were measured."""
    for precision, (best, median) in rates.items():
        result[f"{name}_{precision}"] = best
        result[f"median_{name}_{precision}"] = median
    default = "auto" if "auto" in rates else next(iter(rates))
    result[name], result[f"median_{name}"] = rates[default]
    if "fp32" in rates:
        for other, label in (("bf16", "bf16_speedup"), ("int8", "int8_speedup"), ("auto", "auto_vs_fp32")):
            if other in rates:
                result[f"{label}_{name.replace('_per_second', '')}"] = round(rates[other][0] / rates["fp32"][0], 3)
