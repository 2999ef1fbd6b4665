"""Self-play worker processes and the pool that supervises them.

Each worker owns one BatchedSearch over `concurrent_games` slots for its whole life and keeps every
slot playing (a continuous stream, see `SelfPlayRunner.step`): as games finish they are cut into
shards of `games_per_shard` games, each written atomically to the replay directory. A task asks
for a number of games (0 = until stopped); its last shard holds every game finished by then, and
the games still in play carry over to the next task. Before each shard the worker checks
`best.json` and switches to a newly promoted network without restarting (the trees are reset,
the games go on).

Messages (worker -> pool, each worker on its own pipe):
    ("shard", worker_id, task_id, {"path", "games", "positions", "simulations", "seconds", "network_id",
                                   "mean_length", "evaluations", "calls", "evaluator_seconds"})
    ("done", worker_id, task_id, {})
    ("error", worker_id, task_id, {"message"})
    ("disk_full", worker_id, task_id, {"path", "message"})   a shard write hit ENOSPC; the run stops
    ("progress", worker_id, task_id, {"moves", "simulations", "evaluations", "calls",
                                      "evaluator_seconds"})   since the last report, at most every
                                     PROGRESS_SECONDS: moves are what a progress bar shows while a
                                     shard of games is still being played
    (evaluations, calls and evaluator_seconds: positions sent to the network, network calls and
    the seconds spent in them since the last progress or shard message, for the mean batch and
    the workers' share of time waiting for the network)
A worker that dies (SIGKILL, OOM) is noticed by `WorkerPool.poll` (or its watchdog thread),
restarted with new channels, and the rest of its task handed to the new process: shards it
already wrote are complete, games in flight are lost.
"""

from __future__ import annotations

import errno
import logging
import os
import queue
import threading
import time
import traceback
from dataclasses import dataclass

import numpy as np
import torch.multiprocessing as mp

from alphazero.mcts.config import MCTSConfig
from alphazero.selfplay.config import SelfPlayConfig
from alphazero.selfplay.inference_server import InferenceServer

log = logging.getLogger(__name__)

PROGRESS_SECONDS = 2.0


class _ProgressReporter:
    """Sends ("progress", ...) messages with the moves and simulations played since the last one."""

    def __init__(self, result_queue, worker_id: int, task_id: int, runner):
        self.result_queue, self.worker_id, self.task_id, self.runner = result_queue, worker_id, task_id, runner
        self.moves, self.last = 0, time.monotonic()
        self.simulations_reported = runner.simulations_run if runner is not None else 0  # a runner's count spans tasks

    def __call__(self, moves: int) -> None:
        self.moves += moves
        now = time.monotonic()
        if now - self.last >= PROGRESS_SECONDS:
            simulations = self.runner.simulations_run - self.simulations_reported
            payload = {"moves": self.moves, "simulations": simulations}
            counter = getattr(getattr(self.runner, "search", None), "evaluator", None)
            if isinstance(counter, CountingEvaluator):  # network calls, positions and waits: mean batch, wait share
                payload.update(counter.take())
            self.result_queue.put(("progress", self.worker_id, self.task_id, payload))
            self.moves, self.simulations_reported, self.last = 0, self.runner.simulations_run, now


class CountingEvaluator:
    """An evaluator that counts its calls, positions and the seconds spent in them (`take()`
    returns and resets them); the evaluator behind it may be swapped (`inner`) when a new network
    is promoted. With an inference server the seconds are the worker's waits for answers: their
    share of the worker's time says whether the workers wait for the device or it for them."""

    def __init__(self, inner):
        self.inner = inner
        self.calls = 0
        self.positions = 0
        self.nanoseconds = 0

    def __call__(self, positions):
        self.calls += 1
        self.positions += len(positions)
        start = time.perf_counter_ns()
        try:
            return self.inner(positions)
        finally:
            self.nanoseconds += time.perf_counter_ns() - start

    def take(self) -> dict:
        """{"evaluations", "calls", "evaluator_seconds"} since the last take (the fields of the
        workers' progress and shard messages)."""
        counts = {"evaluations": self.positions, "calls": self.calls, "evaluator_seconds": self.nanoseconds / 1e9}
        self.positions = self.calls = self.nanoseconds = 0
        return counts


class _Outbox:
    """`put(message)` over the worker's own pipe to the pool. A pipe has one writer and no lock,
    so a worker killed mid-message cannot block anyone else (a shared multiprocessing.Queue's
    writer lock would stay held)."""

    def __init__(self, connection):
        self.connection = connection

    def put(self, message) -> None:
        try:
            self.connection.send(message)
        except (BrokenPipeError, ConnectionResetError):
            # The pool closed its end: the run is gone or stopping at once (a second Ctrl-C) and
            # wants nothing more from this worker. Leave now, quietly: a traceback here would only
            # tell the user about a stop they asked for. Shards already written stay on disk.
            os._exit(0)


@dataclass
class Task:
    task_id: int
    games: int  # games to play; 0 = keep playing until stopped (async mode)
    seed: int


def _load_evaluator(checkpoint_path: str, selfplay_cfg: SelfPlayConfig, run_dir: str):
    from alphazero.nn.checkpoint import load_network

    return worker_evaluator(load_network(checkpoint_path, device="cpu"), selfplay_cfg, run_dir)


def worker_evaluator(net, selfplay_cfg: SelfPlayConfig, run_dir: str):
    """A worker's evaluator for `net`. precision=auto: the workers' batches are about
    concurrent_games positions; the verdict is cached in the run directory, so the first process
    to ask measures (under a file lock) and the others, and later networks, read it."""
    from alphazero.engine.factory import build_evaluator
    from alphazero.nn.precision import run_cache_file

    return build_evaluator(net, device=selfplay_cfg.device, threads=selfplay_cfg.threads_per_worker, precision=selfplay_cfg.precision,
                           probe_batch=selfplay_cfg.concurrent_games, precision_cache=run_cache_file(run_dir))


def resolve_worker_precision(net, selfplay_cfg: SelfPlayConfig, run_dir: str):
    """The `nn.precision.Choice` the local workers' evaluators will make, made now in this process
    (with their thread count, restored after): the run's set-up calls it before starting them, so
    the probe runs on quiet cores and the workers read its verdict. None where the workers do not
    evaluate on this machine's CPU themselves (an inference server, Ray actors, a GPU)."""
    import torch

    from alphazero.nn.inference import resolve_device

    if selfplay_cfg.backend != "local" or selfplay_cfg.inference_server or resolve_device(selfplay_cfg.device).type != "cpu":
        return None
    previous = torch.get_num_threads()
    try:
        return worker_evaluator(net, selfplay_cfg, run_dir).choice
    finally:
        torch.set_num_threads(previous)


def worker_main(worker_id: int, run_dir: str, selfplay_cfg: SelfPlayConfig, mcts_cfg: MCTSConfig, task_queue, result_queue, stop_event, server_handle=None):
    """Entry point of a worker process (spawned)."""
    import torch

    from alphazero.selfplay.parent_death import exit_with_parent, leave_stopping_to_the_parent, set_process_name

    exit_with_parent()

    set_process_name(f"az-worker-{worker_id}")
    if hasattr(result_queue, "send"):
        result_queue = _Outbox(result_queue)
    # Ctrl-C and SIGTERM reach the whole process group; the pool stops workers through stop_event
    # instead, so a worker never dies mid-shard because the user asked the run to stop cleanly.
    leave_stopping_to_the_parent()

    torch.set_num_threads(selfplay_cfg.threads_per_worker)
    from alphazero.engine.factory import build_search
    from alphazero.replay.buffer import ReplayBuffer
    from alphazero.selfplay.games import SelfPlayRunner
    from alphazero.best_pointer import read_best_pointer

    task = None
    try:
        replay = ReplayBuffer(os.path.join(run_dir, "replay"), window_positions=1, scan=False)
        network_id, evaluator, runner = None, None, None
        pending: list = []  # finished games not yet in a shard
        while not stop_event.is_set():
            try:
                task = task_queue.get(timeout=0.2)
            except queue.Empty:
                continue
            if task is None:
                break
            played = 0
            reporter = _ProgressReporter(result_queue, worker_id, task.task_id, runner)
            shard_start, shard_simulations = time.perf_counter(), 0
            while (task.games == 0 or played < task.games) and not stop_event.is_set():
                if runner is None or not pending:
                    best = read_best_pointer(run_dir)
                    if best["id"] != network_id:
                        network_id = best["id"]
                        # With an inference server the server swaps networks itself; the handle stays.
                        if server_handle is None:
                            evaluator = _load_evaluator(best["path"], selfplay_cfg, run_dir)
                        elif evaluator is None:
                            evaluator = server_handle.evaluator(worker_id)
                        if runner is not None:
                            runner.search.evaluator.inner = evaluator
                            runner.new_network(None, network_id)
                        else:
                            # One runner for the worker's life: its slots keep their games across
                            # shards and tasks (a continuous stream; see SelfPlayRunner).
                            rng = np.random.default_rng(task.seed)
                            search = build_search(mcts_cfg, CountingEvaluator(evaluator), selfplay_cfg.concurrent_games, seed=int(rng.integers(2**31)))
                            runner = SelfPlayRunner(
                                search, rng, selfplay_cfg.random_opening_plies,
                                metadata={"network_id": network_id, "simulations": mcts_cfg.simulations, "worker": worker_id, "seed": task.seed},
                                exact_value_targets=selfplay_cfg.exact_value_targets,
                                playout_cap_fraction=selfplay_cfg.playout_cap_fraction,
                                playout_cap_small=selfplay_cfg.playout_cap_small,
                            )
                            reporter.runner = runner
                before = runner.simulations_run
                pending.extend(runner.step(on_step=reporter))
                shard_simulations += runner.simulations_run - before
                task_complete = task.games != 0 and played + len(pending) >= task.games
                if len(pending) < selfplay_cfg.games_per_shard and not (task_complete and pending):
                    continue
                # A shard of games_per_shard games, or at the end of a task every game finished
                # (possibly a few more than the task asked: none is held back or dropped).
                records = pending if task_complete else pending[: selfplay_cfg.games_per_shard]
                try:
                    path = replay.add_games(records, writer_id=f"w{worker_id}")
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    # Not a crash to restart from (the disk stays full): tell the pool, which stops the run.
                    where = error.filename or f"a replay shard in {replay.directory}"
                    result_queue.put(("disk_full", worker_id, task.task_id, {"path": str(where), "message": str(error.strerror)}))
                    break
                pending = pending[len(records):]
                played += len(records)
                now = time.perf_counter()
                result_queue.put(
                    (
                        "shard",
                        worker_id,
                        task.task_id,
                        {
                            **runner.search.evaluator.take(),  # network calls since the last report of either kind
                            "path": str(path),
                            "games": len(records),
                            "positions": int(sum(len(r) for r in records)),
                            "simulations": shard_simulations,
                            "seconds": now - shard_start,
                            "network_id": network_id,
                            "mean_length": float(np.mean([len(r) for r in records])),
                        },
                    )
                )
                shard_start, shard_simulations = now, 0
            result_queue.put(("done", worker_id, task.task_id, {}))
    except KeyboardInterrupt:
        pass
    except Exception:  # reported to the pool, which logs it and restarts the worker
        result_queue.put(("error", worker_id, task.task_id if task else -1, {"message": traceback.format_exc()}))
        raise


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
    def create(cls) -> "StopFlag":
        import uuid

        from alphazero.selfplay.inference_server import PREFIX, _remove_orphaned_files, _shared_directory

        _remove_orphaned_files()
        return cls(str(_shared_directory() / f"{PREFIX}{os.getpid()}-stop-{uuid.uuid4().hex[:8]}"), create=True)

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
    """Starts W worker processes, hands them tasks, restarts any that die (in `poll`, and from a
    watchdog thread every WATCHDOG_SECONDS when the training loop is busy elsewhere).

    Every channel a worker uses is its own and is made new when it is restarted (its task queue,
    its result pipe), or takes no lock (the stop flag, the inference server's shared slots), so
    a worker or the server killed at any moment cannot wedge the others.
    """

    WATCHDOG_SECONDS = 0.5

    def __init__(self, run_dir: str, selfplay_cfg: SelfPlayConfig, mcts_cfg: MCTSConfig, seed: int):
        self.run_dir = run_dir
        self.selfplay_cfg = selfplay_cfg
        self.mcts_cfg = mcts_cfg
        self.seed = seed
        self.ctx = mp.get_context("spawn")
        self.server = None
        self.server_handle = None
        if selfplay_cfg.inference_server:
            from alphazero.selfplay.inference_server import worker_capacity

            self.server = InferenceServer(
                self.ctx, run_dir, selfplay_cfg.workers, selfplay_cfg.device, selfplay_cfg.server_max_batch, selfplay_cfg.server_wait_ms,
                threads=max(1, selfplay_cfg.threads_per_worker), pipeline=selfplay_cfg.server_pipeline, precision=selfplay_cfg.precision,
                capacity=worker_capacity(selfplay_cfg.concurrent_games, mcts_cfg.leaves_per_step),
            )
            self.server_handle = self.server.handle()
        self.stop_event = StopFlag.create()
        self.processes: list = [None] * selfplay_cfg.workers
        self.task_queues: list = [None] * selfplay_cfg.workers
        self.readers: list = [None] * selfplay_cfg.workers
        self.current: dict[int, Task | None] = {}
        self.remaining: dict[int, int] = {}  # worker -> games of its task not yet reported
        self.next_task_id = 0
        self.restarts = 0
        self._lock = threading.RLock()
        self._held: list[tuple] = []  # messages of dead workers drained by the watchdog
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

    def _receive(self, timeout: float) -> list[tuple]:
        """Every message waiting in the workers' pipes (waiting up to `timeout` for the first)."""
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

    def poll(self, timeout: float = 0.5) -> list[tuple]:
        """Collect worker messages; restart dead workers and re-queue the rest of their task."""
        with self._lock:
            messages, self._held = self._held + self._receive(timeout), []
            self._account(messages)
            if self.server is not None:
                self.server.ensure_alive()
            messages.extend(self._restart_dead())
        return messages

    def _watch(self) -> None:
        """Restart dead workers even while the training loop does not poll (an arena match, a
        long training burst); their last messages wait for the next poll()."""
        while not self._closing.wait(self.WATCHDOG_SECONDS):
            with self._lock:
                if not self.stop_event.is_set():
                    self._held.extend(self._restart_dead())

    def _restart_dead(self) -> list[tuple]:
        """Restart every dead worker with new channels and the rest of its task; returns the
        messages it left (already accounted)."""
        messages = []
        for worker_id, process in enumerate(self.processes):
            if process.is_alive() or self.stop_event.is_set():
                continue
            # Its last messages (shards written before it died) first.
            last = self._drain(worker_id)
            self._account(last)
            messages.extend(last)
            task = self.current.get(worker_id)
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

    def _account(self, messages) -> None:
        """Track each worker's task: games reported, task done, errors logged."""
        for kind, worker_id, task_id, payload in messages:
            task = self.current.get(worker_id)
            if task is None or task.task_id != task_id:
                continue
            if kind == "shard" and task.games:
                self.remaining[worker_id] -= payload["games"]
            elif kind == "done":
                self.current[worker_id] = None
            elif kind == "error":
                log.error("self-play worker %d failed:\n%s", worker_id, payload["message"])

    def _drain(self, worker_id: int) -> list[tuple]:
        """The messages a dead worker left in its pipe."""
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
        """Stop the workers (and the server): they finish the step in hand, then exit; any still
        alive after `timeout` seconds is killed. Idempotent (after `kill`, the run's own close
        does nothing)."""
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
