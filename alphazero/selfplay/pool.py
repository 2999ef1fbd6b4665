"""The pool of local self-play worker processes, and how it keeps them alive.

`WorkerPool` starts `selfplay.workers` processes (`worker.worker_main`), hands them tasks and
collects their reports (`reports`), and restarts any that die: in `poll`, and from a watchdog
thread every WATCHDOG_SECONDS when the training loop is busy elsewhere. The rest of a dead
worker's task goes to its replacement: shards it already wrote are complete, its games in flight
are lost. A worker (or the inference server) that keeps dying without delivering work (a shard
written) spends its restart budget (`restarts.RestartBudget`) and stops the run with its last
error.

Every channel a worker uses is its own and is made new when it is restarted (its task queue, its
result pipe), or takes no lock (the stop flag, the inference server's shared slots), so a worker
or the server killed at any moment cannot wedge the others.
"""

from __future__ import annotations

import logging
import os
import threading
import time

import numpy as np
import torch.multiprocessing as mp

from alphazero.mcts.config import MCTSConfig
from alphazero.selfplay.channel_files import ChannelFiles
from alphazero.selfplay.config import SelfPlayConfig
from alphazero.selfplay.inference_server import InferenceServer
from alphazero.selfplay.reports import DoneReport, ErrorReport, Report, ShardReport
from alphazero.selfplay.restarts import ProcessKeepsDying, RestartBudget
from alphazero.selfplay.worker import Task, worker_main

log = logging.getLogger(__name__)


class StopFlag:
    """A stop flag in a one-word shared file: `is_set()` is a memory read. Unlike a
    multiprocessing.Event it takes no lock, so a worker killed while checking it cannot leave it
    locked for the others. Picklable (by path)."""

    def __init__(self, path: str, create: bool = False):
        self.path = str(path)
        if create:
            with open(self.path, "wb") as handle:
                handle.truncate(8)
        self._word = np.memmap(self.path, dtype=np.int64, mode="r+", shape=(1,))

    @classmethod
    def create(cls, files: ChannelFiles) -> "StopFlag":
        """A new flag among `files` (its owner removes it with the rest)."""
        return cls(files.path("stop"), create=True)

    def __reduce__(self):
        return (StopFlag, (self.path,))

    def is_set(self) -> bool:
        return bool(self._word[0])

    def set(self) -> None:
        self._word[0] = 1

    def unlink(self) -> None:
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


class WorkerPool:
    """W local worker processes behind the `reports.SelfPlayPool` interface (see the module
    docstring)."""

    WATCHDOG_SECONDS = 0.5

    def __init__(self, run_dir: str, selfplay_cfg: SelfPlayConfig, mcts_cfg: MCTSConfig, seed: int):
        self.run_dir = run_dir
        self.selfplay_cfg = selfplay_cfg
        self.mcts_cfg = mcts_cfg
        self.seed = seed
        self.ctx = mp.get_context("spawn")
        # This pool's files in /dev/shm (the server's slots, the stop flag): swept orphans first,
        # removed in close, on every way out (channel_files).
        self.files = ChannelFiles(what=f"self-play pool of {run_dir}")
        self.server = None
        self.server_handle = None
        if selfplay_cfg.inference_server:
            from alphazero.selfplay.inference_server import worker_capacity

            self.server = InferenceServer(
                self.ctx, run_dir, selfplay_cfg.workers, selfplay_cfg.device, selfplay_cfg.server_max_batch, selfplay_cfg.server_wait_ms,
                threads=max(1, selfplay_cfg.threads_per_worker), pipeline=selfplay_cfg.server_pipeline, precision=selfplay_cfg.precision,
                capacity=worker_capacity(selfplay_cfg.concurrent_games, mcts_cfg.leaves_per_step),
                budget=RestartBudget("the inference server", selfplay_cfg.max_restarts), files=self.files,
            )
            self.server_handle = self.server.handle()
        self.stop_event = StopFlag.create(self.files)
        self.processes: list = [None] * selfplay_cfg.workers
        self.task_queues: list = [None] * selfplay_cfg.workers
        self.readers: list = [None] * selfplay_cfg.workers
        self.current: dict[int, Task | None] = {}
        self.remaining: dict[int, int] = {}  # worker -> games of its task not yet reported
        self.next_task_id = 0
        self.restarts = 0
        self.budgets = [RestartBudget(f"self-play worker {w}", selfplay_cfg.max_restarts) for w in range(selfplay_cfg.workers)]
        self._failure: ProcessKeepsDying | None = None  # a budget spent (in the watchdog): raised by poll()
        self._lock = threading.RLock()
        self._held: list[Report] = []  # reports of dead workers drained by the watchdog
        self._closing = threading.Event()
        for worker_id in range(selfplay_cfg.workers):
            self._start(worker_id)
        self._watchdog = threading.Thread(target=self._watch, name="selfplay-watchdog", daemon=True)
        self._watchdog.start()

    def _start(self, worker_id: int) -> None:
        task_queue = self.ctx.Queue()
        reader, writer = self.ctx.Pipe(duplex=False)
        process = self.ctx.Process(
            target=worker_main,
            args=(worker_id, self.run_dir, self.selfplay_cfg, self.mcts_cfg, task_queue, writer, self.stop_event, self.server_handle),
            name=f"selfplay-{worker_id}",
            daemon=True,
        )
        process.start()
        writer.close()  # the worker holds the only write end: its death reads as end of file
        self.processes[worker_id] = process
        self.task_queues[worker_id] = task_queue
        self.readers[worker_id] = reader
        self.current[worker_id] = None

    def _task_seed(self) -> int:
        # Distinct, reproducible seed per task: run seed and task number through SeedSequence.
        return int(np.random.SeedSequence([self.seed, self.next_task_id]).generate_state(1)[0])

    def assign(self, worker_id: int, games: int) -> None:
        with self._lock:
            task = Task(self.next_task_id, games, self._task_seed())
            self.next_task_id += 1
            self.current[worker_id] = task
            self.remaining[worker_id] = games
            self.task_queues[worker_id].put(task)

    def idle_workers(self) -> list[int]:
        return [w for w, task in self.current.items() if task is None]

    def _receive(self, timeout: float) -> list[Report]:
        """Every report waiting in the workers' pipes (waiting up to `timeout` for the first)."""
        from multiprocessing.connection import wait

        readers = [r for r in self.readers if r is not None]
        messages = []
        for reader in wait(readers, timeout) if readers else []:
            try:
                while reader.poll():
                    messages.append(reader.recv())
            except (EOFError, OSError):  # the worker is gone; poll() restarts it with a new pipe
                reader.close()
                self.readers[self.readers.index(reader)] = None
        if not readers:
            time.sleep(timeout)
        return messages

    def poll(self, timeout: float = 0.5) -> list[Report]:
        """Collect worker reports; restart dead workers and re-queue the rest of their task.
        Raises ProcessKeepsDying when a worker or the server spent its restart budget."""
        with self._lock:
            self._raise_failure()
            messages, self._held = self._held + self._receive(timeout), []
            self._account(messages)
            try:
                if self.server is not None:
                    self.server.ensure_alive()
                messages.extend(self._restart_dead())
            except ProcessKeepsDying as failure:
                self._failure = failure
            self._raise_failure()
        return messages

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise ProcessKeepsDying(str(self._failure))

    def _watch(self) -> None:
        """Restart dead workers even while the training loop does not poll (an arena match, a
        long training burst); their last messages wait for the next poll()."""
        while not self._closing.wait(self.WATCHDOG_SECONDS):
            with self._lock:
                if not self.stop_event.is_set() and self._failure is None:
                    try:
                        self._held.extend(self._restart_dead())
                    except ProcessKeepsDying as failure:
                        self._failure = failure  # poll() raises it in the training loop

    def _restart_dead(self) -> list[Report]:
        """Restart every dead worker with new channels and the rest of its task; returns the
        reports it left (already accounted). Raises ProcessKeepsDying past a worker's budget."""
        messages = []
        for worker_id, process in enumerate(self.processes):
            if process.is_alive() or self.stop_event.is_set():
                continue
            # Its last messages (shards written before it died) first.
            last = self._drain(worker_id)
            self._account(last)
            messages.extend(last)
            task = self.current.get(worker_id)
            self.budgets[worker_id].died(process.exitcode)
            log.warning("self-play worker %d died (exit code %s); restarting it", worker_id, process.exitcode)
            self.restarts += 1
            self._start(worker_id)
            if task is not None:
                games = self.remaining.get(worker_id, task.games) if task.games else 0
                if task.games == 0 or games > 0:
                    self.assign(worker_id, games)
        return messages

    def kill(self) -> None:
        """Stop every child now (SIGKILL after 0.1 s), for a run interrupted at once (a second
        Ctrl-C): their games in flight are lost, every finished shard is already on disk."""
        self.close(timeout=0.0)

    def _account(self, reports: list[Report]) -> None:
        """Track each worker's task (games reported, task done) and its restart budget (a shard
        written is work delivered; progress is not: restarts.py; errors logged)."""
        for report in reports:
            budget = self.budgets[report.worker]
            if isinstance(report, ErrorReport):
                log.error("self-play worker %d failed:\n%s", report.worker, report.message)
                budget.error(report.message)
            elif isinstance(report, ShardReport):
                budget.delivered()
            task = self.current.get(report.worker)
            if task is None or task.task_id != report.task_id:
                continue
            if isinstance(report, ShardReport) and task.games:
                self.remaining[report.worker] -= report.games
            elif isinstance(report, DoneReport):
                self.current[report.worker] = None

    def _drain(self, worker_id: int) -> list[Report]:
        """The reports a dead worker left in its pipe."""
        reader, messages = self.readers[worker_id], []
        if reader is None:
            return messages
        try:
            while reader.poll():
                messages.append(reader.recv())
        except (EOFError, OSError):
            pass
        reader.close()
        self.readers[worker_id] = None
        return messages

    def publish(self, network_id: int, net) -> None:
        """A new best network: nothing to send. The workers (and the inference server) read
        `checkpoints/best.json`, which the trainer writes first, and load it themselves; the Ray
        backend's pool (ray_backend.RayWorkerPool) sends it through the object store instead."""

    def server_stats(self) -> dict | None:
        """The inference server's counters (calls, positions, busy_seconds), or None without one."""
        return self.server.stats() if self.server is not None else None

    def close(self, timeout: float = 10.0) -> None:
        """Stop the workers (and the server): they finish the step in hand, write the games they
        finished and exit; any still alive after `timeout` seconds is killed. Idempotent (after
        `kill`, the run's own close does nothing)."""
        if getattr(self, "_closed", False):
            return
        self._closed = True
        self._closing.set()
        self._watchdog.join(5)
        self.stop_event.set()
        for task_queue in self.task_queues:
            if task_queue is not None:
                task_queue.put(None)
        deadline = time.monotonic() + timeout
        for process in self.processes:
            if process is not None:
                process.join(max(0.1, deadline - time.monotonic()))
                if process.is_alive():
                    process.kill()  # it ignores SIGTERM (see leave_stopping_to_the_parent)
                    process.join(2)
        if self.server is not None:
            self.server.close(timeout)
        for reader in self.readers:
            if reader is not None:
                reader.close()
        self.stop_event.unlink()
        self.files.remove()
