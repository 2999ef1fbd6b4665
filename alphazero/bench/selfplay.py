"""`python -m alphazero.bench selfplay`: the real self-play pipeline's speed.

    python -m alphazero.bench selfplay --preset cpu --seconds 60
    python -m alphazero.bench selfplay --preset gpu --device cuda --seconds 120 --workers 12
    python -m alphazero.bench selfplay --preset cpu --backend ray --ray-address local --seconds 60
    python -m alphazero.bench selfplay --preset cpu --precisions fp32 auto --rounds 2 --seconds 60

`--precisions fp32 auto` measures the pipeline once per precision, back to back (`--rounds`
times over, alternating), and the line holds every run, each precision's mean positions/s and
its ratio to the first's (`ratio_to_fp32`); `precision_used` says what auto chose and how.

Starts the preset's workers (and inference server, where the preset uses one) exactly as a
training run does, on a network of the preset's model with random weights, lets them play until
every worker has reported twice and `--warmup` seconds have passed (process start, numba
compilation, CUDA context), then measures for `--seconds`. One JSON line:

  positions_per_second, simulations_per_second   moves played and simulations searched
  pipeline_evals_per_second, mean_batch          positions the network evaluated and per call
                                                 (the server's batches when there is a server)
  network_only_evals_per_second                  the same network alone, in this process, at
                                                 the pipeline's mean batch (best of 3 windows);
                                                 on a CPU x the processes making network calls
  pipeline_efficiency                            pipeline / network-only evaluations per second
  gpu_utilization                                mean of nvidia-smi samples in the window (null
                                                 without nvidia-smi)
  worker_waiting                                 share of the workers' time spent in network calls
                                                 (with a server: waiting for its answers)
  server_time                                    with a server: its time split into idle (no
                                                 request pending), window (collecting more
                                                 requests), io (copies in and out of the shared
                                                 slots) and compute (the device's work); on
                                                 CUDA also compute_sync, the part of compute
                                                 waiting for the device after the launches
  Reading the last two: workers waiting little = their search is the limit (more workers or
  cores); workers waiting much while the server is idle or in its window = latency between the
  processes; server mostly in compute = the device is the limit (the pipeline is doing its job),
  unless compute_sync is a small part of compute: then the host launching kernels is.
  device, preset, backend, workers, concurrent_games, simulations, inference_server, seconds

With `--backend ray` the same workers are Ray actors (`selfplay.backend=ray`; `--ray-address`:
local = an in-process Ray on this machine, auto or HOST:PORT = a running cluster), and their games
travel back to this process through the object store, which writes the shards: compare with
`--backend local` on the same machine for the backend's own cost.

Positions and simulations come from the workers' progress reports (every 2 s each), so a window
of a few seconds is noisy: use 30 s or more.

On a terminal the phases (workers starting, warm-up, the measured window, the network alone) and
the positions per second so far show on stderr while it runs; in a pipe only the JSON line is
printed (`--progress/--no-progress` to choose).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from alphazero.argtypes import non_negative_float, positive_float, positive_int
from alphazero.nn.config import INFERENCE_PRECISIONS
from alphazero.console import StatusLine, add_progress_option, format_seconds, progress_wanted

CONF_DIR = Path(__file__).resolve().parents[2] / "conf"
PRESETS = tuple(sorted(path.stem for path in (CONF_DIR / "experiment").glob("*.yaml")))


def load_preset(preset: str, overrides=()):
    """The typed Config of `experiment=<preset>` plus overrides (as the training entry point)."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    from alphazero.train.schema import register_configs, to_typed

    register_configs()
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        raw = compose(config_name="config", overrides=[f"experiment={preset}", "run.dir=/tmp/unused", *overrides])
    return to_typed(raw)


def _parse(argv):
    parser = argparse.ArgumentParser(prog="python -m alphazero.bench selfplay", description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", choices=PRESETS, default="cpu")
    parser.add_argument("--device", default=None, help="cpu, cuda, cuda:N or auto (default: the preset's selfplay.device)")
    parser.add_argument("--seconds", type=positive_float, default=60.0, help="measured window (default 60)")
    parser.add_argument("--warmup", type=non_negative_float, default=10.0, help="seconds played after every worker reported, before measuring (default 10)")
    parser.add_argument("--workers", type=int, default=None, help="self-play workers (default: the preset's)")
    parser.add_argument("--inference-server", choices=("preset", "on", "off"), default="preset")
    parser.add_argument("--backend", choices=("local", "ray"), default="local", help="worker processes (local) or Ray actors (ray)")
    parser.add_argument("--ray-address", default="local", help="with --backend ray: local (in-process Ray), auto or HOST:PORT (default local)")
    parser.add_argument("--network-seconds", type=positive_float, default=3.0, help="time to measure the network alone (default 3)")
    parser.add_argument("--keep-dir", action="store_true", help="keep the temporary run directory")
    parser.add_argument(
        "--precisions", nargs="+", choices=INFERENCE_PRECISIONS, default=None,
        help="measure the pipeline once per precision (selfplay.precision), back to back, e.g. fp32 auto; the line then holds "
        "each run and each one's positions/s over the first's (default: one run in the preset's precision)",
    )
    parser.add_argument("--rounds", type=positive_int, default=1, help="with --precisions: repeat the sequence this many times (default 1)")
    add_progress_option(parser, "the phase and the positions per second so far")
    parser.add_argument("overrides", nargs="*", help="further config overrides, e.g. mcts.simulations=100 selfplay.server_wait_ms=2")
    args = parser.parse_args(argv)
    return args


def _config(args, extra=()):
    """The preset's typed config with the command line's choices (and `extra` overrides) applied."""
    overrides = list(args.overrides) + list(extra) + [f"selfplay.backend={args.backend}"]
    if args.backend == "ray":
        overrides.append(f"ray.address={args.ray_address}")
    if args.workers is not None:
        overrides.append(f"selfplay.workers={args.workers}")
    if args.inference_server != "preset":
        overrides.append(f"selfplay.inference_server={'true' if args.inference_server == 'on' else 'false'}")
    return load_preset(args.preset, overrides)


def _start_pool(args, cfg, selfplay_cfg, run_dir: Path, net):
    """The preset's workers, as a training run starts them, on `net` published as the best."""
    from alphazero.selfplay.pool import WorkerPool
    from alphazero.train import checkpoints

    checkpoints.publish_best(run_dir, net, 0, 0.0, 0)
    if args.backend == "ray":
        from alphazero.selfplay.ray_backend import RayWorkerPool

        return RayWorkerPool(str(run_dir), selfplay_cfg, cfg.mcts, cfg.ray, seed=0, network=(0, net))
    return WorkerPool(str(run_dir), selfplay_cfg, cfg.mcts, seed=0)


def _wait_until_every_worker_plays(pool, workers: int, warmup: float, status: StatusLine | None = None) -> None:
    """Until each worker has reported progress twice (processes started, kernels compiled), then
    `warmup` seconds more."""
    from alphazero.selfplay.reports import ErrorReport, ProgressReport

    status = status or StatusLine(False)
    reports = {w: 0 for w in range(workers)}
    started = time.perf_counter()
    while min(reports.values()) < 2:
        waited = time.perf_counter() - started
        if waited > 600:
            raise RuntimeError(f"workers did not all start playing within 600 s (progress reports: {reports})")
        playing = sum(count >= 2 for count in reports.values())
        status.update(
            f"[bench selfplay] starting {workers} worker(s) (loading the network, compiling the search): "
            f"{playing}/{workers} playing, {format_seconds(waited)}"
        )
        for report in pool.poll(timeout=0.5):
            if isinstance(report, ProgressReport):
                reports[report.worker] += 1
            elif isinstance(report, ErrorReport):
                raise RuntimeError(f"self-play worker {report.worker} failed:\n{report.message}")
    status.close(f"[bench selfplay] {workers}/{workers} worker(s) playing after {format_seconds(time.perf_counter() - started)}")
    warm_until = time.perf_counter() + warmup
    while time.perf_counter() < warm_until:
        status.update(f"[bench selfplay] warming up: {format_seconds(warm_until - time.perf_counter())} before measuring")
        pool.poll(timeout=0.5)
    if warmup:
        status.close(f"[bench selfplay] warmed up for {format_seconds(warmup)}")


def _measure(pool, seconds: float, gpu, status: StatusLine | None = None) -> dict:
    """Moves, simulations and the pipeline's figures over `seconds` of the workers' reports."""
    from alphazero.selfplay.reports import ProgressReport
    from alphazero.selfplay.throughput import PipelineCounters

    status = status or StatusLine(False)
    counters = PipelineCounters(pool)
    gpu.reset()
    moves = simulations = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        rate = f", {moves / elapsed:.1f} positions/s so far" if moves and elapsed > 0 else ""
        status.update(f"[bench selfplay] measuring: {format_seconds(elapsed)} of {format_seconds(seconds)}{rate}")
        for report in pool.poll(timeout=0.5):
            if isinstance(report, ProgressReport):
                counters.add_progress(report)
                moves += report.moves
                simulations += report.simulations
    elapsed = time.perf_counter() - start
    status.close(f"[bench selfplay] measured {format_seconds(elapsed)}: {moves / elapsed:.1f} positions/s")
    return {"seconds": elapsed, "moves": moves, "simulations": simulations, "figures": counters.figures(), "gpu": gpu.mean(),
            "restarts": pool.restarts + (pool.server.restarts if getattr(pool, "server", None) is not None else 0)}


def main(argv):
    args = _parse(argv)
    if not args.precisions:
        return measure(args)
    return compare_precisions(args)


def compare_precisions(args) -> dict:
    """The pipeline in each of `args.precisions`, back to back (`--rounds` times over), each in a
    fresh run directory (so auto measures in it as a training run would, before the measured
    window); positions/s of each over the first precision's."""
    from alphazero.nn.precision import describe_cpu

    precisions = list(dict.fromkeys(args.precisions))
    runs = {precision: [] for precision in precisions}
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    for _ in range(args.rounds):
        for precision in precisions:
            runs[precision].append(measure(args, [f"selfplay.precision={precision}"]))
    first = precisions[0]
    summary = {
        precision: {
            "positions_per_second": [run["positions_per_second"] for run in done],
            "mean_positions_per_second": round(sum(run["positions_per_second"] for run in done) / len(done), 1),
            "pipeline_evals_per_second": [run["pipeline_evals_per_second"] for run in done],
            "mean_batch": [run["mean_batch"] for run in done],
            "precision_used": done[0].get("precision_used"),
        }
        for precision, done in runs.items()
    }
    base = summary[first]["mean_positions_per_second"]
    return {
        "benchmark": "selfplay",
        "preset": args.preset,
        "compare": precisions,
        "rounds": args.rounds,
        "cpu": describe_cpu(),
        "load_average_before": [round(x, 2) for x in load_before] if load_before else None,
        "load_average_after": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        "summary": summary,
        "ratio_to_" + first: {p: round(summary[p]["mean_positions_per_second"] / base, 3) if base else None for p in precisions},
        "runs": runs,
        "command": " ".join(["python -m alphazero.bench selfplay", *sys.argv[2:]]) if len(sys.argv) > 1 else None,
    }


def measure(args, extra=()) -> dict:
    """One measurement of the pipeline: the preset with the command line's choices and `extra`
    overrides (see the module docstring)."""
    import torch

    from alphazero.nn.checkpoint import build_network
    from alphazero.nn.inference import resolve_device
    from alphazero.nn.precision import describe_cpu
    from alphazero.selfplay.throughput import GpuUtilization, network_evals_per_second, network_only_setting
    from alphazero.selfplay.worker import resolve_worker_precision

    cfg = _config(args, extra)
    device = resolve_device(args.device or cfg.selfplay.device)
    selfplay_cfg = dataclasses.replace(cfg.selfplay, device=str(device))
    run_dir = Path(tempfile.mkdtemp(prefix="alphazero-bench-selfplay-"))
    torch.manual_seed(0)
    net = build_network(cfg.model)
    net.eval()
    # As a training run does: settle precision=auto here (probe or cache) before the workers start.
    choice = resolve_worker_precision(net, selfplay_cfg, str(run_dir))
    precision_used = choice.as_dict() if choice is not None else {"precision": None, "requested": selfplay_cfg.precision}
    gpu = GpuUtilization()
    status = StatusLine(progress_wanted(args.progress))
    pool = _start_pool(args, cfg, selfplay_cfg, run_dir, net)
    try:
        for worker_id in range(selfplay_cfg.workers):
            pool.assign(worker_id, 0)
        _wait_until_every_worker_plays(pool, selfplay_cfg.workers, args.warmup, status)
        measured = _measure(pool, args.seconds, gpu, status)
    finally:
        pool.close()
        gpu.close()
        if not args.keep_dir:
            shutil.rmtree(run_dir, ignore_errors=True)

    seconds, figures = measured["seconds"], measured["figures"]
    mean_batch = figures["mean_batch"]
    pipeline_rate = figures["evaluations_per_second"]
    # The network alone, at the batch the pipeline's network calls actually had (on a CPU: one
    # process's rate times the processes that make network calls; see network_only_setting).
    threads, copies = network_only_setting(selfplay_cfg, device)
    status.update(f"[bench selfplay] measuring the network alone at batch {mean_batch or 1:.1f} (about {format_seconds(3 * args.network_seconds)})", force=True)
    status.close()
    network_precision = choice.precision if choice is not None else selfplay_cfg.precision
    network_rate = copies * network_evals_per_second(net, device, mean_batch or 1, seconds=args.network_seconds, threads=threads,
                                                     precision=network_precision)
    return {
        "benchmark": "selfplay",
        "preset": args.preset,
        "backend": args.backend,
        "device": str(device),
        "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else describe_cpu(),
        "load_average": [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None,
        "workers": selfplay_cfg.workers,
        "concurrent_games": selfplay_cfg.concurrent_games,
        "simulations": cfg.mcts.simulations,
        "leaves_per_step": cfg.mcts.leaves_per_step,
        "model": f"{cfg.model.blocks}x{cfg.model.channels}",
        "inference_server": selfplay_cfg.inference_server,
        "precision": selfplay_cfg.precision,
        "precision_used": precision_used,
        "server_pipeline": selfplay_cfg.server_pipeline if selfplay_cfg.inference_server else None,
        "seconds": round(seconds, 1),
        "positions_per_second": round(measured["moves"] / seconds, 1),
        "simulations_per_second": round(measured["simulations"] / seconds),
        "pipeline_evals_per_second": round(pipeline_rate),
        "mean_batch": round(mean_batch, 1),
        "network_only_evals_per_second": round(network_rate),
        "pipeline_efficiency": round(pipeline_rate / network_rate, 3) if network_rate else None,
        "gpu_utilization": None if measured["gpu"] is None else round(measured["gpu"], 1),
        "worker_waiting": round(figures["evaluator_seconds"] / (selfplay_cfg.workers * seconds), 3),
        "server_time": figures["server_time"],
        "process_restarts": measured["restarts"],
        "command": " ".join(["python -m alphazero.bench selfplay", *sys.argv[2:]]) if len(sys.argv) > 1 else None,
    }
