"""`python -m alphazero.pretrain.zoo --out DIR`: train the warm-start zoo under one shared budget.

Every model of `--models` (default: the three seed networks and the project's `small` ResNet) is
pretrained on WTHOR with the same data, the same number of samples (`--samples`, batch
`--batch-size`), the same schedule family (AdamW, linear warm-up, cosine decay to 2% over exactly
the budget) and the same seed; only the peak learning rate is per model (`PEAK_LR`). Each split of
`--splits` is a separate training, so that each model's test figures come from positions it never
saw:

  year     trains on 1977-2017, tests on all of WTHOR 2018 (`bench accuracy --years 2018`)
  random5  de-duplicates the whole database, trains on 95% of the distinct positions and tests on
           the held-out 5% (`bench accuracy --split random5`; Liskowski et al. 2018's protocol)

Steps, top to bottom:
  1. build (or reuse) each split's dataset once, in pretraining's cache (not under --out: large);
  2. start one `python -m alphazero.pretrain` process per (split, model), all at once (they share
     the GPU; the data pipeline of one run is single-threaded, so one run alone leaves the GPU
     idle much of the time), each in its own run directory with its own log, and with a wall-clock
     cap (`run.max_minutes`) so that the whole command ends inside `--minutes`; a run that crashes
     or is stopped by the cap does not touch the others;
  3. for each run that left a network: write the end-of-budget network (weights only, chosen in
     advance rather than the best validation point) to `DIR/<split>/<model>.pt`, score it with
     `bench accuracy` on its split's test set, time it with `bench network` (GPU and one CPU
     core), and drop the run's large checkpoints (latest.pt holds optimizer state);
  4. write `DIR/summary.json` and `DIR/summary.md` (the comparison table of
     experiments/warmstart-zoo/README.md), naming any run that failed or fell short of the shared
     budget.

Outputs stay small: the networks (~0.2-7 MB each), the run directories' logs, configs and
TensorBoard files, and the summaries. Everything is also written as it finishes, so a command cut
off by an outer time limit leaves what was done.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

from alphazero.argtypes import non_negative_int, positive_float, positive_int
from alphazero.atomic import write_text_atomic
from alphazero.console import EXIT_INTERRUPTED
from alphazero.data.dataset import ensure_dataset
from alphazero.nn.config import PRESET_NAMES
from alphazero.pretrain.config import DEFAULT_WTHOR_DIR, REPO_ROOT, PretrainConfig

MODELS = ("small", "seed_mlp", "seed_cnn", "seed_cnn_rnn")
SPLITS = ("year", "random5")
# Peak learning rates. small: the warm start's (checkpoints/README.md). seed_cnn has neither batch
# norm nor residual connections (as in the original): at 2e-3 (batch 256, CPU) its first 50 steps
# were stable (loss 2.88 -> 2.77), but a plain 12-layer stack over thousands of steps is the one
# run here likely to diverge, and a diverged run leaves no network, so it gets half.
PEAK_LR = {"small": 0.002, "seed_mlp": 0.002, "seed_cnn": 0.001, "seed_cnn_rnn": 0.002}
EVAL_RESERVE_MINUTES = 1.5  # scoring and timing every network after the trainings
KILL_GRACE_SECONDS = 45  # after the cap: time for a run to validate and save before SIGTERM


def default_wthor_dir() -> Path:
    """The WTHOR directory: ZOO_WTHOR_DIR, else shared/data/wthor inside the repository (the GPU
    machine's copy), else pretraining's default (../shared/data/wthor beside the repository)."""
    if os.environ.get("ZOO_WTHOR_DIR"):
        return Path(os.environ["ZOO_WTHOR_DIR"])
    inside = REPO_ROOT / "shared" / "data" / "wthor"
    return inside if inside.is_dir() else DEFAULT_WTHOR_DIR


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.pretrain.zoo", description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.environ.get("ZOO_OUT", ""), help="output directory (default: $ZOO_OUT)")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=PRESET_NAMES, metavar="MODEL", help=f"model presets (default: {' '.join(MODELS)})")
    parser.add_argument("--splits", nargs="+", default=list(SPLITS), choices=SPLITS, help="default: both")
    parser.add_argument("--samples", type=int, default=2_000_000, help="training samples per model (the shared budget)")
    parser.add_argument("--batch-size", type=positive_int, default=1024)
    parser.add_argument("--warmup-steps", type=non_negative_int, default=100)
    parser.add_argument("--minutes", type=positive_float, default=9.0, help="wall-clock limit of the whole command")
    parser.add_argument("--device", default="auto", help="auto (CUDA if present), cuda, cpu")
    parser.add_argument("--threads", type=positive_int, default=1, help="torch CPU threads per run")
    parser.add_argument("--wthor-dir", default="", help="WTH_*.wtb directory (default: see default_wthor_dir)")
    parser.add_argument("--test-years", type=int, nargs="+", default=[2018], help="the year split's held-out years (default 2018)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep-run-checkpoints", action="store_true", help="keep latest.pt/best.pt in the run directories")
    parser.add_argument("--skip-bench", action="store_true", help="train and export only")
    args = parser.parse_args(argv)
    if not args.out:
        parser.error("give --out DIR or set ZOO_OUT")
    if args.samples < args.batch_size:
        parser.error(f"--samples {args.samples} is less than one batch of {args.batch_size}")
    if Path(args.out).exists() and not Path(args.out).is_dir():
        parser.error(f"--out {args.out} is a file, not a directory")
    if args.wthor_dir and not Path(args.wthor_dir).is_dir():
        parser.error(f"--wthor-dir {args.wthor_dir}: no such directory")
    return args


REQUIRED_MODULES = ("numpy", "numba", "torch", "hydra", "omegaconf", "tqdm", "tensorboard")


def missing_modules() -> list[str]:
    """Modules every run needs that this Python cannot import (checked before anything starts, so
    a machine without one says so in one line instead of failing eight runs)."""
    import importlib.util

    return [name for name in REQUIRED_MODULES if importlib.util.find_spec(name) is None]


def log(message: str) -> None:
    print(f"[zoo {time.strftime('%H:%M:%S')}] {message}", flush=True)


def pretrain_settings(args, split: str) -> PretrainConfig:
    return PretrainConfig(
        wthor_dir=str(Path(args.wthor_dir or default_wthor_dir()).resolve()), split=split, split_seed=args.seed, validation_years=list(args.test_years)
    )


def build_datasets(args) -> dict:
    """{split: (dataset directory, training rows)}, built once before the runs start (runs that
    built the same directory at once would race)."""
    out = {}
    for split in args.splits:
        settings = pretrain_settings(args, split)
        start = time.perf_counter()
        try:
            dataset = ensure_dataset(settings.resolved_wthor_dir(), settings.resolved_dataset_dir(), settings.dataset_options(), progress=False)
        except Exception as error:  # this split's runs are then reported as not run; the other split goes on
            log(f"dataset {split} failed: {type(error).__name__}: {error}")
            traceback.print_exc()
            continue
        out[split] = (settings.resolved_dataset_dir(), len(dataset.train))
        log(f"dataset {split}: {len(dataset.train):,} training / {len(dataset.validation):,} test rows in {settings.resolved_dataset_dir()} ({time.perf_counter() - start:.0f}s)")
    return out


def warm_numba_caches() -> None:
    """Compile (or load) the numba kernels the runs use once here, so that the runs starting
    together load them from numba's cache instead of all compiling them at once."""
    import numpy as np

    from alphazero.nn.encoding import encode_positions_and_mask
    from alphazero.othello.bitboard import START_BLACK, START_WHITE
    from alphazero.othello.history import history_windows
    from alphazero.othello.symmetry import transform_positions

    positions = np.array([[START_BLACK, START_WHITE]], dtype=np.uint64)
    encode_positions_and_mask(positions)
    transform_positions(positions, np.zeros(1, dtype=np.int64))
    history_windows(np.zeros((1, 4), dtype=np.uint8), np.zeros(1, dtype=np.int32), np.ones(1, dtype=np.uint8), 2)


def run_command(args, split: str, model: str, dataset_dir: Path, train_rows: int, run_dir: Path, cap_minutes: float) -> list[str]:
    steps = math.ceil(args.samples / args.batch_size)
    epochs = max(1, math.ceil(steps * args.batch_size / train_rows))
    settings = pretrain_settings(args, split)
    return [
        sys.executable, "-m", "alphazero.pretrain", f"model={model}", f"run.dir={run_dir}", f"run.seed={args.seed}",
        f"run.max_steps={steps}", f"run.max_minutes={cap_minutes:.3f}",
        f"pretrain.wthor_dir={settings.wthor_dir}", f"pretrain.dataset_dir={dataset_dir}", f"pretrain.split={split}",
        f"pretrain.split_seed={args.seed}", f"pretrain.validation_years=[{','.join(map(str, args.test_years))}]", f"pretrain.device={args.device}", f"pretrain.threads={args.threads}",
        f"pretrain.epochs={epochs}", f"pretrain.batch_size={args.batch_size}", f"pretrain.lr={PEAK_LR.get(model, 0.002)}",
        "pretrain.optimizer=adamw", "pretrain.lr_schedule=cosine", f"pretrain.lr_warmup_steps={min(args.warmup_steps, steps // 10)}",
        f"pretrain.lr_total_steps={steps}", "pretrain.lr_min_factor=0.02", "pretrain.eval_every_steps=0",
        "pretrain.validation_positions=20000", "pretrain.checkpoint_every_steps=500", "pretrain.log_every_steps=100",
        "pretrain.progress=false",
    ]


def train_all(args, datasets: dict, out: Path, deadline: float) -> tuple[dict, bool]:
    """Start every run, wait for all (SIGTERM past the cap plus grace); ({(split, model): rc},
    whether a SIGINT or SIGTERM to the zoo stopped them).

    Each run is in a session of its own, so that the cap's SIGTERM reaches one run, and a Ctrl-C
    or a SIGTERM to the zoo reaches none: the zoo forwards it as the cap's stop (SIGTERM: each run
    saves latest.pt and stops; killed 30 s later), instead of dying and leaving its runs training."""
    cap_minutes = max(0.5, (deadline - time.monotonic()) / 60 - EVAL_RESERVE_MINUTES)
    # The handlers go in before the first run starts: a signal while they start (the zoo would die
    # of it) leaves no run training on.
    with _StopRequest() as request:
        running = {}
        for split in datasets:
            dataset_dir, train_rows = datasets[split]
            for model in args.models:
                if request.signal_name:
                    break  # stopped while starting: start no more; those running are stopped below
                run_dir = out / "runs" / split / model
                if (run_dir / "checkpoints" / "latest.pt").exists() or (out / split / f"{model}.pt").exists():
                    log(f"{split}/{model}: already done or started in {run_dir}; skipped (remove it to retrain)")
                    continue
                run_dir.mkdir(parents=True, exist_ok=True)
                command = run_command(args, split, model, dataset_dir, train_rows, run_dir, cap_minutes)
                (run_dir / "command.txt").write_text(" ".join(command) + "\n")
                handle = open(run_dir / "stdout.txt", "w")
                env = {**os.environ, "OMP_NUM_THREADS": str(args.threads)}
                try:
                    process = subprocess.Popen(command, cwd=REPO_ROOT, stdout=handle, stderr=subprocess.STDOUT, env=env, start_new_session=True)
                except OSError as error:
                    log(f"{split}/{model}: could not start: {error}")
                    handle.close()
                    continue
                running[(split, model)] = (process, handle)
        log(f"started {len(running)} runs, {args.samples:,} samples each (batch {args.batch_size}), wall-clock cap {cap_minutes:.1f} min")
        hard_stop = time.monotonic() + cap_minutes * 60 + KILL_GRACE_SECONDS
        codes, stopped = {}, False
        while len(codes) < len(running):
            for key, (process, handle) in running.items():
                if key not in codes and process.poll() is not None:
                    codes[key] = process.returncode
                    handle.close()
                    log(f"{key[0]}/{key[1]}: exited with {process.returncode}")
            if not stopped and (request.signal_name or time.monotonic() > hard_stop):
                why = f"{request.signal_name} to the zoo" if request.signal_name else "past the cap"
                for key, (process, _) in running.items():
                    if key not in codes:
                        log(f"{key[0]}/{key[1]}: {why}, SIGTERM (it saves and stops)")
                        process.send_signal(signal.SIGTERM)
                stopped, hard_stop = True, time.monotonic() + 30
            elif stopped and time.monotonic() > hard_stop:
                for key, (process, handle) in running.items():
                    if key not in codes:
                        process.kill()
                        process.wait()
                        codes[key] = "killed"
                        handle.close()
            time.sleep(0.2 if stopped else 1)
    return codes, request.signal_name is not None


class _StopRequest:
    """SIGINT and SIGTERM noted (by name) while the zoo starts and waits for its runs, for `train_all` to
    forward; the previous handlers come back afterwards."""

    def __init__(self):
        self.signal_name: str | None = None
        self._previous = {}

    def __enter__(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._previous[sig] = signal.signal(sig, self._note)
        return self

    def _note(self, signum, frame):
        self.signal_name = self.signal_name or signal.Signals(signum).name

    def __exit__(self, *exc):
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


def export_and_score(args, split: str, model: str, datasets: dict, out: Path) -> dict:
    """The row of the comparison table for one run (errors are recorded in it, not raised)."""
    from alphazero.nn.checkpoint import load_checkpoint, load_network, save_checkpoint

    row = {"split": split, "model": model}
    run_dir = out / "runs" / split / model
    target = out / split / f"{model}.pt"
    try:
        if not target.exists():
            checkpoint = load_checkpoint(run_dir / "checkpoints" / "latest.pt")
            extra = {k: v for k, v in checkpoint.extra.items() if k != "rng"}
            target.parent.mkdir(parents=True, exist_ok=True)
            save_checkpoint(target, load_network(run_dir / "checkpoints" / "latest.pt"), extra=extra)
        state = load_checkpoint(target).extra.get("state", {})
        row.update(samples=state.get("samples_trained"), steps=state.get("step"), train_seconds=round(state.get("seconds", 0.0)), checkpoint=str(target))
        row["budget_reached"] = bool(state.get("samples_trained", 0) >= args.samples)
        if not args.keep_run_checkpoints:
            for path in (run_dir / "checkpoints").glob("*.pt"):
                path.unlink()
    except Exception as error:  # a run that left no network: say so in the table
        row["error"] = f"{type(error).__name__}: {error}"
        return row
    if args.skip_bench:
        return row
    settings = pretrain_settings(args, split)
    device = "cuda" if args.device == "auto" and _cuda() else args.device
    test = ["--years", *map(str, args.test_years)] if split == "year" else ["--split", "random5", "--split-seed", str(args.seed), "--dataset-dir", str(datasets[split][0])]
    for name, bench in (
        ("accuracy", ["accuracy", "--checkpoint", str(target), "--data", settings.wthor_dir, "--device", device, "--threads", "4", *test]),
        ("network_gpu", ["network", "--checkpoint", str(target), "--device", device, "--threads", "1", "--repeats", "3", "--window", "0.2", "--skip-training",
                         "--precisions", "fp32"] if device != "cpu" else None),
        ("network_cpu", ["network", "--checkpoint", str(target), "--device", "cpu", "--threads", "1", "--repeats", "3", "--window", "0.2", "--skip-training",
                        "--precisions", "fp32"]),
    ):
        if bench is None:
            continue
        try:
            row[name] = run_bench(bench)
        except Exception as error:
            row[f"{name}_error"] = f"{type(error).__name__}: {error}"
            traceback.print_exc()
    return row


def run_bench(arguments: list[str]) -> dict:
    """`python -m alphazero.bench ARGUMENTS` in a child process (as the pretraining runs are): its
    JSON line. The benchmarks sit above pretraining in the house, so they are run, not imported."""
    done = subprocess.run([sys.executable, "-m", "alphazero.bench", *arguments], capture_output=True, text=True, cwd=REPO_ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"bench {arguments[0]} exited {done.returncode}: {done.stderr.strip().splitlines()[-1:] or ''}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _cuda() -> bool:
    import torch

    return torch.cuda.is_available()


def summary_markdown(rows: list[dict], args) -> str:
    lines = [
        f"Warm-start zoo: {args.samples:,} samples per model, batch {args.batch_size}, AdamW, warm-up + cosine to 2%, seed {args.seed}.",
        "",
        "| split | model | parameters | samples | top-1 | top-1 up to symmetry | top-3 | policy NLL | value MSE | test positions | evals/s GPU b256 | evals/s CPU b1 / b256 (1 thread) | train s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        acc, gpu, cpu = row.get("accuracy", {}), row.get("network_gpu", {}), row.get("network_cpu", {})
        if "error" in row:
            lines.append(f"| {row['split']} | {row['model']} | failed: {row['error'][:80]} | | | | | | | | | | |")
            continue
        pct = lambda v: f"{100 * v:.2f}%" if isinstance(v, float) else ""
        short = "" if row.get("budget_reached") else " (cut short)"
        parameters = cpu.get("parameters", gpu.get("parameters"))  # absent with --skip-bench or a failed timing
        lines.append(
            f"| {row['split']} | {row['model']} | {'' if parameters is None else f'{parameters:,}'} | {row.get('samples') or 0:,}{short} | "
            f"{pct(acc.get('top1'))} | {pct(acc.get('top1_symmetric'))} | {pct(acc.get('top3'))} | {acc.get('policy_loss', '')} | {acc.get('value_mse', '')} | "
            f"{acc.get('positions', '')} | {gpu.get('evals_per_second_batch256', '')} | "
            f"{cpu.get('evals_per_second_batch1', '')} / {cpu.get('evals_per_second_batch256', '')} | {row.get('train_seconds', '')} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    missing = missing_modules()
    if missing:
        print(f"error: this Python lacks {', '.join(missing)}, which the pretraining runs import; install them (pip install {' '.join(missing)})", file=sys.stderr)
        return 2
    started = time.monotonic()
    deadline = started + args.minutes * 60
    out = Path(args.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    log(f"output {out}; models {' '.join(args.models)}; splits {' '.join(args.splits)}; device {args.device}")
    try:
        return _build_train_and_score(args, out, started, deadline)
    except KeyboardInterrupt:  # Ctrl-C outside the runs' wait (which forwards it to the runs): datasets, export, scoring
        print(f"\nalphazero.pretrain.zoo: interrupted: the runs and exported networks finished so far are kept in {out}, "
              "the datasets built in their cache; the same command resumes from them", file=sys.stderr)
        return EXIT_INTERRUPTED


def _build_train_and_score(args, out: Path, started: float, deadline: float) -> int:
    datasets = build_datasets(args)
    warm_numba_caches()
    codes, interrupted = train_all(args, datasets, out, deadline)
    if interrupted:
        log(f"stopped on request: the runs saved their latest.pt in {out / 'runs'}; nothing was scored "
            "(run the same command again to export and score them; it does not train them again)")
        return EXIT_INTERRUPTED
    rows = []
    for split in args.splits:
        for model in args.models:
            if split not in datasets:
                rows.append({"split": split, "model": model, "error": "its dataset could not be built (see the log above)", "exit_code": "not run"})
                continue
            row = export_and_score(args, split, model, datasets, out)
            row["exit_code"] = codes.get((split, model), "not run")
            rows.append(row)
            write_text_atomic(out / "summary.json", json.dumps(rows, indent=2))  # a Ctrl-C leaves no truncated table
            write_text_atomic(out / "summary.md", summary_markdown(rows, args))
            log(f"{split}/{model}: {json.dumps({k: v for k, v in row.items() if k not in ('network_gpu', 'network_cpu')})[:400]}")
    log(f"done in {time.monotonic() - started:.0f}s; table in {out / 'summary.md'}")
    print(summary_markdown(rows, args))
    return 0 if all("error" not in row for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
