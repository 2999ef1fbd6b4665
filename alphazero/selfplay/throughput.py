"""Figures of the self-play pipeline's speed that the status line, TensorBoard and
`python -m alphazero.bench selfplay` share.

- `PipelineCounters`: network calls and positions of the pipeline (from the workers' progress
  messages, or the inference server's counters), hence the mean batch and the evaluations/s; and
  where the time goes: the workers' share of time spent waiting for the network, and the
  inference server's split between idle, collection window, io and compute.
- `network_evals_per_second`: the same network alone (one NetworkEvaluator, encoding and masked
  softmax included, as the pipeline's evaluator does them) at a given batch; the pipeline's
  evaluations/s over it is its efficiency: 1.0 means the network is the only cost.
- `GpuUtilization`: `nvidia-smi` sampled in a thread (None where there is no nvidia-smi).
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time

import numpy as np


class PipelineCounters:
    """Network calls and positions evaluated since `reset()`: the workers' own (progress
    messages carry `evaluations` and `calls`), or the inference server's when there is one."""

    def __init__(self, pool=None):
        self.pool = pool
        self.reset()

    def reset(self) -> None:
        self.evaluations = 0
        self.calls = 0
        self.evaluator_seconds = 0.0
        self.start = time.perf_counter()
        stats = self.pool.server_stats() if self.pool is not None else None
        self._server_start = stats

    def add_progress(self, report) -> None:
        """Count a worker's `reports.ProgressReport` (its network calls, positions and waits)."""
        self.evaluations += report.evaluations
        self.calls += report.calls
        self.evaluator_seconds += report.evaluator_seconds

    def figures(self, seconds: float | None = None) -> dict:
        """mean_batch and evaluations_per_second since reset, per `seconds` of self-play (default:
        the time since reset); the server's batches when one serves the workers (those are what
        the network sees). With a server also `server_time`: the server's seconds since reset
        split into idle, window, io and compute (fractions of their sum; see inference_server)."""
        seconds = max(time.perf_counter() - self.start if seconds is None else seconds, 1e-9)
        evaluations, calls = self.evaluations, self.calls
        stats = self.pool.server_stats() if self.pool is not None else None
        server_time = None
        if stats is not None and self._server_start is not None:
            evaluations = stats["positions"] - self._server_start["positions"]
            calls = stats["calls"] - self._server_start["calls"]
            server_time = server_time_shares(self._server_start, stats)
        return {
            "mean_batch": evaluations / calls if calls else 0.0,
            "evaluations_per_second": evaluations / seconds,
            "calls": calls,
            "evaluator_seconds": self.evaluator_seconds,
            "server_time": server_time,
        }


SERVER_PHASES = ("idle", "window", "io", "compute")


def server_time_shares(before: dict, after: dict) -> dict | None:
    """The inference server's time between two `server_stats` readings, as fractions of the
    time it accounted for: idle (no request), window (collecting more), io (shared-memory copies)
    and compute (the device's work, transfers included); on CUDA also compute_sync, the part of
    compute spent waiting for the device once everything was launched. None when no time was
    accounted (a server of an older layout, or none at all between the readings)."""
    spent = {phase: after.get(f"{phase}_seconds", 0.0) - before.get(f"{phase}_seconds", 0.0) for phase in SERVER_PHASES}
    total = sum(spent.values())
    if total <= 0:
        return None
    shares = {phase: round(value / total, 3) for phase, value in spent.items()}
    sync = after.get("sync_seconds", 0.0) - before.get("sync_seconds", 0.0)
    if sync > 0:  # CUDA: the part of compute spent waiting for the device (the rest is launching)
        shares["compute_sync"] = round(sync / total, 3)
    return shares


def network_evals_per_second(net, device, batch: int, seconds: float = 1.0, threads: int | None = None, seed: int = 0,
                             precision: str = "auto", precision_cache=None) -> float:
    """Evaluations per second of `net` alone on `device` at `batch` (best of three windows), in
    `precision` (with auto, the verdict in `precision_cache`, so the pipeline's if it is the run's)."""
    import torch

    from alphazero.othello.playout import random_positions
    from alphazero.engine.factory import build_evaluator

    batch = max(1, int(round(batch)))
    previous = torch.get_num_threads()
    evaluator = build_evaluator(net, device=device, threads=threads, precision=precision, probe_batch=batch, precision_cache=precision_cache)
    positions = random_positions(batch, seed)
    try:
        evaluator(positions)  # warm-up (kernels, allocator)
        synchronize = torch.cuda.synchronize if evaluator.device.type == "cuda" else (lambda: None)
        best = 0.0
        for _ in range(3):
            calls, start = 0, time.perf_counter()
            while True:
                evaluator(positions)
                calls += 1
                elapsed = time.perf_counter() - start
                if elapsed >= seconds / 3:
                    break
            synchronize()
            best = max(best, calls * batch / (time.perf_counter() - start))
        return best
    finally:
        torch.set_num_threads(previous)


class GpuUtilization:
    """Samples `nvidia-smi --query-gpu=utilization.gpu` every `interval` seconds in a thread.

    `mean()` is the mean of the samples since `reset()` (the first GPU's), None where nvidia-smi
    is missing or failing."""

    def __init__(self, interval: float = 1.0):
        self.interval = interval
        self.command = shutil.which("nvidia-smi")
        self._samples: list[float] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        if self.command:
            self._thread = threading.Thread(target=self._run, name="gpu-utilization", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                out = subprocess.run(
                    [self.command, "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits"],
                    capture_output=True, text=True, timeout=10,
                )
                value = float(out.stdout.split()[0]) if out.returncode == 0 and out.stdout.strip() else None
            except (OSError, ValueError, subprocess.SubprocessError, IndexError):
                value = None
            if value is not None:
                with self._lock:
                    self._samples.append(value)
            self._stop.wait(self.interval)

    def reset(self) -> None:
        with self._lock:
            self._samples = []

    def mean(self) -> float | None:
        with self._lock:
            return float(np.mean(self._samples)) if self._samples else None

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)


def network_only_setting(selfplay_cfg, device) -> tuple[int | None, int]:
    """(torch threads, parallel copies) of the network alone comparable to the pipeline's calls.

    On a GPU: one process, torch's threads, x1. On a CPU the pipeline's network calls run in
    `workers` processes of `threads_per_worker` threads each (one server process with a server):
    the network alone is measured with that many threads in one process and multiplied by the
    number of processes (assumed to scale; several threads in one process on busy cores do not:
    torch's threads spin-wait on each other)."""
    if device.type != "cpu":
        return None, 1
    processes = 1 if selfplay_cfg.inference_server else selfplay_cfg.workers
    return selfplay_cfg.threads_per_worker, processes


class EfficiencyGauge:
    """The run's pipeline efficiency: its evaluations/s over the network-only rate at its mean
    batch. The network alone is measured in the trainer process (about `seconds`), once per
    session and again only when the mean batch moves by more than a factor of 2."""

    def __init__(self, net_factory, device, threads: int | None, copies: int = 1, seconds: float = 1.0, precision: str = "auto",
                 precision_cache=None):
        self.net_factory, self.device, self.threads, self.copies, self.seconds = net_factory, device, threads, copies, seconds
        self.precision, self.precision_cache = precision, precision_cache
        self.batch = None
        self.rate = None

    def efficiency(self, mean_batch: float, evaluations_per_second: float) -> float | None:
        if mean_batch <= 0 or evaluations_per_second <= 0:
            return None
        if self.batch is None or not 0.5 <= mean_batch / self.batch <= 2.0:
            self.rate = self.copies * network_evals_per_second(self.net_factory(), self.device, mean_batch, seconds=self.seconds, threads=self.threads,
                                                               precision=self.precision, precision_cache=self.precision_cache)
            self.batch = mean_batch
        return evaluations_per_second / self.rate if self.rate else None
