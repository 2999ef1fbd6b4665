"""The self-play worker: one object for every backend, and the process that runs it locally.

`SelfPlayWorker` owns a worker's `SelfPlayRunner` (one BatchedSearch over `concurrent_games`
slots for the worker's whole life, every slot playing all the time: a continuous stream, see
`SelfPlayRunner.step`), its network (switched without a restart: the trees are reset, the games
go on) and its counters, which it hands out as typed reports (`reports.ProgressReport`).
`ShardCutter` cuts the stream of finished games into shards of `games_per_shard` games; a task's
last shard holds every game finished by then, and the games still in play carry over to the next
task. Both backends use the two: a local worker process (`worker_main`, started by
`pool.WorkerPool`) writes its shards itself; a Ray actor (`ray_backend.SelfPlayActor`) sends its
finished games to the driver, which cuts them with a `ShardCutter` there (there is no shared disk).

A local worker follows `checkpoints/best.json` (`BestNetworkFollower`) and switches to a newly
promoted network at a shard boundary. On stop (the run's first Ctrl-C, or the end of the run) it
finishes the search step in hand, writes every game it finished as a last shard, and saves the
games still in play to `IN_FLIGHT_DIR/w<id>.npz`: a worker of the resumed run plays them on (the
search trees are rebuilt), so a clean stop loses no game. Only a process that dies (SIGKILL, a
second Ctrl-C) loses its games in flight.
"""

from __future__ import annotations

import errno
import os
import queue
import time
import traceback
from dataclasses import dataclass
from typing import Callable

import numpy as np

from alphazero.mcts.config import MCTSConfig
from alphazero.othello.record import GameRecord
from alphazero.selfplay.config import SelfPlayConfig
from alphazero.selfplay.reports import DiskFullReport, DoneReport, ErrorReport, ProgressReport, ShardReport

PROGRESS_SECONDS = 2.0
IN_FLIGHT_DIR = "selfplay-in-flight"  # in the run directory


def in_flight_files(run_dir: str, worker_id: int, workers: int) -> list[str]:
    """The saved games in flight this worker takes over: its own, and those of workers the
    resumed run no longer has (worker ids taken modulo `workers`)."""
    directory = os.path.join(run_dir, IN_FLIGHT_DIR)
    if not os.path.isdir(directory):
        return []
    found = []
    for name in sorted(os.listdir(directory)):
        stem, ext = os.path.splitext(name)
        if ext == ".npz" and stem.startswith("w") and stem[1:].isdigit() and int(stem[1:]) % workers == worker_id:
            found.append(os.path.join(directory, name))
    return found


def save_in_flight(run_dir: str, worker_id: int, records: list[GameRecord]) -> None:
    """Keep a stopping worker's games in play for the next session (atomically; none: no file)."""
    from alphazero.selfplay.packing import save_games

    path = os.path.join(run_dir, IN_FLIGHT_DIR, f"w{worker_id}.npz")
    if records:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        save_games(path, records)


def take_in_flight(run_dir: str, worker_id: int, workers: int) -> list[GameRecord]:
    """The saved games in flight of this worker (see `in_flight_files`), removed from disk: from
    here on they are this process's games in play. An unreadable file is set aside (`.bad`)."""
    from alphazero.selfplay.packing import load_games

    records = []
    for path in in_flight_files(run_dir, worker_id, workers):
        try:
            records.extend(load_games(path))
        except ValueError:
            os.replace(path, path + ".bad")
            continue
        os.unlink(path)
    return records


@dataclass
class Task:
    task_id: int
    games: int  # games to play; 0 = keep playing until stopped (async mode)
    seed: int


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
        workers' progress reports)."""
        counts = {"evaluations": self.positions, "calls": self.calls, "evaluator_seconds": self.nanoseconds / 1e9}
        self.positions = self.calls = self.nanoseconds = 0
        return counts


class SelfPlayWorker:
    """One self-play worker's games, network and counters, whatever process or actor runs it.

    `use_network(id, evaluator, seed)` before the first `play`; `play(seconds)` steps every slot
    for about `seconds` and returns the games that finished; `progress(worker, task)` reports the
    work done since the last report."""

    def __init__(self, selfplay_cfg: SelfPlayConfig, mcts_cfg: MCTSConfig, metadata: dict | None = None):
        self.selfplay_cfg, self.mcts_cfg = selfplay_cfg, mcts_cfg
        self.metadata = dict(metadata or {})
        self.runner = None
        self.network_id = None
        self._moves = 0
        self._simulations_reported = 0

    def use_network(self, network_id, evaluator, seed: int) -> None:
        """Play on with network `network_id` through `evaluator` (None keeps the current one: an
        inference server swaps networks itself). The first call builds the search, seeded by `seed`."""
        from alphazero.engine.factory import build_search
        from alphazero.selfplay.games import SelfPlayRunner

        if self.runner is None:
            rng = np.random.default_rng(seed)
            search = build_search(self.mcts_cfg, CountingEvaluator(evaluator), self.selfplay_cfg.concurrent_games,
                                  seed=int(rng.integers(2**31)))
            cfg = self.selfplay_cfg
            self.runner = SelfPlayRunner(
                search, rng, cfg.random_opening_plies,
                metadata={**self.metadata, "network_id": network_id, "simulations": self.mcts_cfg.simulations, "seed": seed},
                exact_value_targets=cfg.exact_value_targets,
                playout_cap_fraction=cfg.playout_cap_fraction,
                playout_cap_small=cfg.playout_cap_small,
                exact_label_empties=cfg.exact_label_empties,
            )
        else:
            if evaluator is not None:
                self.runner.search.evaluator.inner = evaluator
            self.runner.new_network(None, network_id)
        self.network_id = network_id

    def play(self, seconds: float, max_games: int = 0, stop: Callable[[], bool] | None = None) -> list[GameRecord]:
        """Search steps over every slot until `seconds` passed, `max_games` games finished (0: no
        limit) or `stop()`; at least one step. Returns the finished games."""
        finished: list[GameRecord] = []
        start = time.perf_counter()
        while True:
            finished.extend(self.runner.step(on_step=self._count_moves))
            if (max_games and len(finished) >= max_games) or time.perf_counter() - start >= seconds or (stop is not None and stop()):
                return finished

    def _count_moves(self, moves: int) -> None:
        self._moves += moves

    def progress(self, worker: int, task_id: int, node: str | None = None) -> ProgressReport:
        """The work since the last report: moves, simulations searched, network calls."""
        simulations = self.runner.simulations_run - self._simulations_reported if self.runner is not None else 0
        calls = self.runner.search.evaluator.take() if self.runner is not None else {}
        report = ProgressReport(worker, task_id, moves=self._moves, simulations=simulations, node=node, **calls)
        self._moves = 0
        if self.runner is not None:
            self._simulations_reported = self.runner.simulations_run
        return report


class ShardCutter:
    """Cuts a stream of finished games into shards of `games_per_shard`, written by `write`
    (records -> path). A task's last shard takes every game still held (`cut(task_complete=True)`),
    so none is held back or dropped."""

    def __init__(self, write: Callable[[list[GameRecord]], object], games_per_shard: int):
        self.write = write
        self.games_per_shard = games_per_shard
        self.pending: list[GameRecord] = []

    def add(self, records: list[GameRecord]) -> None:
        self.pending.extend(records)

    def cut(self, task_complete: bool = False, count: int | None = None):
        """Write the shards that are due, one at a time: (records, path) for each. Full shards of
        `games_per_shard`; with `task_complete`, all the games held (in one shard); with `count`,
        that many at most. A failed write raises and keeps its games held."""
        while self.pending and (task_complete or count or len(self.pending) >= self.games_per_shard):
            size = len(self.pending) if task_complete else (count or self.games_per_shard)
            records = self.pending[:size]
            path = self.write(records)
            del self.pending[: len(records)]
            yield records, path
            if count:
                return


def shard_report(worker: int, task_id: int, records: list[GameRecord], path, network_id, nodes: dict | None = None) -> ShardReport:
    return ShardReport(worker, task_id, path=str(path), games=len(records), positions=int(sum(len(r) for r in records)),
                       network_id=network_id, mean_length=float(np.mean([len(r) for r in records])), nodes=dict(nodes or {}))


class BestNetworkFollower:
    """A local worker's network: the one `checkpoints/best.json` names, loaded into this process
    (or, with an inference server, the server's: it swaps networks itself, the handle stays)."""

    def __init__(self, run_dir: str, selfplay_cfg: SelfPlayConfig, worker_id: int, server_handle=None):
        self.run_dir, self.selfplay_cfg, self.worker_id, self.server_handle = run_dir, selfplay_cfg, worker_id, server_handle
        self.network_id = None

    def change(self):
        """(network id, evaluator or None) when best.json names another network than the last
        call returned, else None."""
        from alphazero.best_pointer import read_best_pointer

        best = read_best_pointer(self.run_dir)
        if best["id"] == self.network_id:
            return None
        first = self.network_id is None
        self.network_id = best["id"]
        if self.server_handle is not None:
            return best["id"], (self.server_handle.evaluator(self.worker_id) if first else None)
        from alphazero.nn.checkpoint import load_network

        network = load_network(best["path"], device="cpu")
        return best["id"], worker_evaluator(network, self.selfplay_cfg, self.run_dir)


def worker_evaluator(net, selfplay_cfg: SelfPlayConfig, run_dir: str):
    """A local worker's evaluator for `net`. precision=auto: the workers' batches are about
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


class _Outbox:
    """`put(report)` over the worker's own pipe to the pool. A pipe has one writer and no lock,
    so a worker killed mid-message cannot block anyone else (a shared multiprocessing.Queue's
    writer lock would stay held)."""

    def __init__(self, connection):
        self.connection = connection

    def put(self, report) -> None:
        try:
            self.connection.send(report)
        except (BrokenPipeError, ConnectionResetError):
            # The pool closed its end: the run is gone or stopping at once (a second Ctrl-C) and
            # wants nothing more from this worker. Leave now, quietly: a traceback here would only
            # tell the user about a stop they asked for. Shards already written stay on disk.
            os._exit(0)


def play_task(worker: SelfPlayWorker, worker_id: int, task: Task, follower: BestNetworkFollower, cutter: ShardCutter,
              emit: Callable, stop: Callable[[], bool]) -> bool:
    """Play `task` (its games, or until `stop()` when it asks for 0), cutting shards and emitting
    reports; False when the run must stop (the disk is full)."""
    played = 0
    while (task.games == 0 or played < task.games) and not stop():
        if not cutter.pending:  # at a shard boundary: a newly promoted network takes over here
            change = follower.change()
            if change is not None:
                worker.use_network(*change, seed=task.seed)
        # Stop stepping at the step that fills the next shard (or ends the task), as a shard is
        # cut right after the step that completes it, else after PROGRESS_SECONDS of steps.
        wanted = cutter.games_per_shard - len(cutter.pending)
        if task.games:
            wanted = min(wanted, task.games - played - len(cutter.pending))
        cutter.add(worker.play(PROGRESS_SECONDS, max_games=max(1, wanted), stop=stop))
        complete = task.games != 0 and played + len(cutter.pending) >= task.games
        written = write_shards(worker, worker_id, task.task_id, cutter, emit, task_complete=complete)
        if written is None:
            return False
        played += written
    return True


def write_shards(worker: SelfPlayWorker, worker_id: int, task_id: int, cutter: ShardCutter, emit: Callable,
                 task_complete: bool) -> int | None:
    """Report the work since the last report, then write and report the shards that are due.
    Returns the games written, or None when a write hit a full disk (reported: the run stops)."""
    emit(worker.progress(worker_id, task_id))
    written = 0
    try:
        for records, path in cutter.cut(task_complete=task_complete):
            written += len(records)
            emit(shard_report(worker_id, task_id, records, path, worker.network_id))
    except OSError as error:
        if error.errno != errno.ENOSPC:
            raise
        # Not a crash to restart from (the disk stays full): tell the pool, which stops the run.
        where = error.filename or "a replay shard"
        emit(DiskFullReport(worker_id, task_id, path=str(where), message=str(error.strerror)))
        return None
    return written


def worker_main(worker_id: int, run_dir: str, selfplay_cfg: SelfPlayConfig, mcts_cfg: MCTSConfig, task_queue, result_queue, stop_event,
                server_handle=None):
    """Entry point of a local worker process (spawned by pool.WorkerPool)."""
    import torch

    from alphazero.replay.buffer import ReplayBuffer
    from alphazero.selfplay.parent_death import exit_with_parent, leave_stopping_to_the_parent, set_process_name

    exit_with_parent()
    set_process_name(f"az-worker-{worker_id}")
    outbox = _Outbox(result_queue) if hasattr(result_queue, "send") else result_queue

    def emit(report) -> None:
        if server_handle is not None and isinstance(report, ShardReport):
            server_handle.shard_written(worker_id)  # the server's restart budget counts shards written with its answers
        outbox.put(report)
    # Ctrl-C and SIGTERM reach the whole process group; the pool stops workers through stop_event
    # instead, so a worker never dies mid-shard because the user asked the run to stop cleanly.
    leave_stopping_to_the_parent()
    torch.set_num_threads(selfplay_cfg.threads_per_worker)

    task = None
    try:
        replay = ReplayBuffer(os.path.join(run_dir, "replay"), window_positions=1, scan=False)
        worker = SelfPlayWorker(selfplay_cfg, mcts_cfg, metadata={"worker": worker_id})
        follower = BestNetworkFollower(run_dir, selfplay_cfg, worker_id, server_handle)
        cutter = ShardCutter(lambda records: replay.add_games(records, writer_id=f"w{worker_id}"), selfplay_cfg.games_per_shard)
        resumed = take_in_flight(run_dir, worker_id, selfplay_cfg.workers)
        while not stop_event.is_set():
            try:
                task = task_queue.get(timeout=0.2)
            except queue.Empty:
                continue
            if task is None:
                break
            if resumed and worker.runner is None:
                worker.use_network(*follower.change(), seed=task.seed)
                worker.runner.continue_games(resumed)
            if not play_task(worker, worker_id, task, follower, cutter, emit, stop_event.is_set):
                return
            if not stop_event.is_set():
                outbox.put(DoneReport(worker_id, task.task_id))
        # Stopped: the games finished so far are kept, and those in play saved for the next session.
        if cutter.pending and task is not None:
            write_shards(worker, worker_id, task.task_id, cutter, emit, task_complete=True)
        if worker.runner is not None:
            save_in_flight(run_dir, worker_id, worker.runner.games_in_flight())
        elif resumed:
            save_in_flight(run_dir, worker_id, resumed)  # stopped before playing them: keep them
    except KeyboardInterrupt:
        pass
    except Exception:  # reported to the pool, which logs it and restarts the worker (within its budget)
        outbox.put(ErrorReport(worker_id, task.task_id if task else -1, traceback.format_exc()))
        raise
