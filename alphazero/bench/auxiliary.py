"""`python -m alphazero.bench auxiliary [--preset small] [--batch-size 512]`: what KataGo's
auxiliary heads cost supervised pretraining on WTHOR, side by side in one process.

Two pretraining runs of the same network preset on the same dataset, one without heads and one
with the score and ownership heads (weights 0.1 and 0.5), each timed over whole steps exactly as
the loop takes them: read the batch from the memory maps (with the heads: the final boards of its
rows and their targets, `alphazero.pretrain.batches.auxiliary_targets`), draw the symmetries,
encode, forward, loss, backward, optimizer step. The two runs' windows alternate, so a change in
the machine's load falls on both alike; each figure is the best window (and the median beside
it). Also timed apart: the batch preparation alone (read + targets + augmentation) with and
without the targets, and the replay of every game to its end that loading the dataset adds
(`alphazero.data.dataset.GameFinals`).

The dataset is built in a temporary directory (removed after) unless `--dataset-dir` names one.
The precision is fp32 unless `--precision` says otherwise, one torch thread, `--clock cpu` as in
`bench network` for a machine that other jobs keep busy.
"""

import argparse
import os
import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from alphazero.argtypes import positive_int
from alphazero.data.dataset import GameFinals
from alphazero.nn import precision as precision_module
from alphazero.nn.config import PRESET_NAMES, RECOMMENDED_OWNERSHIP_WEIGHT, RECOMMENDED_SCORE_WEIGHT, model_preset
from alphazero.pretrain import batches
from alphazero.pretrain.config import (
    DEFAULT_WTHOR_DIR,
    PretrainConfig,
    PretrainRootConfig,
    PretrainRunConfig,
)
from alphazero.pretrain.loop import PretrainRun

CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def _run(preset: str, heads: bool, data: Path, dataset_dir: Path, run_dir: Path, args) -> PretrainRun:
    model = model_preset(preset)
    weights = {}
    if heads:
        model = replace(model, score_head=True, ownership_head=True)
        weights = dict(score_weight=RECOMMENDED_SCORE_WEIGHT, ownership_weight=RECOMMENDED_OWNERSHIP_WEIGHT)
    pretrain = PretrainConfig(
        wthor_dir=str(data), dataset_dir=str(dataset_dir), batch_size=args.batch_size, precision=args.precision, threads=1,
        validation_years=args.validation_years, dedup=args.dedup, validation_positions=256, progress=False, **weights,
    )
    run = PretrainRun(PretrainRootConfig(model=model, pretrain=pretrain, run=PretrainRunConfig(dir=str(run_dir))), run_dir)
    run._setup()
    run.writer.close()
    return run


def _step_function(run: PretrainRun, rng: np.random.Generator):
    pre, counter = run.cfg.pretrain, [0]

    def step():
        index = counter[0] % run.steps_per_epoch
        counter[0] += 1
        batch = batches.training_batch(run.train_split, run.train_targets, run.order, index, pre.batch_size, rng, 0, pre.fixed_board_moves, run.auxiliary)
        float(run.train_step(batch)["total"])  # wait for the step (a no-op wait on a CPU)

    return step


def _batch_function(run: PretrainRun, rng: np.random.Generator, auxiliary: bool):
    pre, counter = run.cfg.pretrain, [0]

    def prepare():
        index = counter[0] % run.steps_per_epoch
        counter[0] += 1
        batches.training_batch(run.train_split, run.train_targets, run.order, index, pre.batch_size, rng, 0, pre.fixed_board_moves, auxiliary)

    return prepare


def _alternate(functions: dict, calls: int, repeats: int, clock) -> dict:
    """{name: (best, median) seconds per call}, one window of each function per repeat in turn."""
    times = {name: [] for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            start = clock()
            for _ in range(calls):
                function()
            times[name].append((clock() - start) / calls)
    return {name: (min(t), sorted(t)[len(t) // 2]) for name, t in times.items()}


def main(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench auxiliary")
    parser.add_argument("--data", type=Path, default=DEFAULT_WTHOR_DIR, help="directory with WTH_*.wtb files")
    parser.add_argument("--dataset-dir", type=Path, default=None, help="dataset directory (default: a temporary one, removed)")
    parser.add_argument("--validation-years", type=int, nargs="+", default=[2018], help="the dataset's validation years (default 2018)")
    parser.add_argument("--dedup", action="store_true", help="the de-duplicated dataset (merged rows average their games' targets)")
    parser.add_argument("--preset", default="small", choices=PRESET_NAMES, help="model preset (default small)")
    parser.add_argument("--batch-size", type=positive_int, default=512)
    parser.add_argument("--precision", default="fp32", choices=["fp32", "bf16", "auto"])
    parser.add_argument("--steps", type=positive_int, default=5, help="training steps per timed window")
    parser.add_argument("--repeats", type=positive_int, default=5, help="windows per side")
    parser.add_argument("--clock", default="wall", choices=sorted(CLOCKS))
    args = parser.parse_args(argv)
    clock = CLOCKS[args.clock]
    scratch = Path(tempfile.mkdtemp(prefix="bench-auxiliary-"))
    dataset_dir = args.dataset_dir or scratch / "dataset"
    try:
        load = [round(x, 2) for x in os.getloadavg()]
        plain = _run(args.preset, False, args.data, dataset_dir, scratch / "plain", args)
        heads = _run(args.preset, True, args.data, dataset_dir, scratch / "heads", args)
        start = time.perf_counter()
        GameFinals.of(plain.train_split.game_actions)
        finals_seconds = time.perf_counter() - start
        rng = np.random.default_rng(0)
        steps = {"plain": _step_function(plain, rng), "heads": _step_function(heads, rng)}
        prepare = {"plain": _batch_function(plain, rng, False), "heads": _batch_function(heads, rng, True)}
        for function in [*steps.values(), *prepare.values()]:
            function()  # warm-up: JIT, allocator, first touches of the memory maps
        step_seconds = _alternate(steps, args.steps, args.repeats, clock)
        batch_seconds = _alternate(prepare, 4 * args.steps, args.repeats, clock)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    rate = {name: args.batch_size / best for name, (best, _) in step_seconds.items()}
    return {
        "preset": args.preset,
        "dedup": args.dedup,
        "batch_size": args.batch_size,
        "precision": args.precision,
        "clock": args.clock,
        "samples_per_second": {name: round(r) for name, r in rate.items()},
        "samples_per_second_median": {name: round(args.batch_size / median) for name, (_, median) in step_seconds.items()},
        "heads_vs_plain": round(rate["heads"] / rate["plain"], 3),
        "batch_preparation_ms": {name: round(1000 * best, 2) for name, (best, _) in batch_seconds.items()},
        "step_ms": {name: round(1000 * best, 1) for name, (best, _) in step_seconds.items()},
        "game_finals_seconds": round(finals_seconds, 3),
        "games": int(len(plain.train_split.game_actions)),
        "train_rows": len(plain.train_split),
        "cpu": precision_module.describe_cpu(),
        "load_average": load,
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
    }
