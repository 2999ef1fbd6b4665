"""What self-play workers tell the training loop, and the interface every pool of workers has.

A pool (`pool.WorkerPool`: processes on this machine; `ray_backend.RayWorkerPool`: Ray actors)
hands each worker a task (a number of games, or 0 for "until stopped") and returns, from `poll`,
the reports its workers sent since the last poll. Every report names the worker and the task it
belongs to; a report of a task since replaced is still returned (its games are on disk), and the
pool's own bookkeeping (`current`, `remaining`) follows the current task only.

The counters are split so that each is counted once: a `ProgressReport` carries what was searched
(moves played, simulations searched, network calls and positions, seconds spent waiting for the
network) since the worker's previous progress report, and every worker sends one before each
`ShardReport`, which carries only what was written. Summing the progress reports of an iteration
gives its simulations; summing its shard reports gives its games and positions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, Union


@dataclass(frozen=True)
class ProgressReport:
    """Search work since the worker's previous progress report."""

    worker: int
    task_id: int
    moves: int  # plies played in all slots
    simulations: int  # simulations searched (not visits carried over from the previous move's tree)
    evaluations: int = 0  # positions sent to the network
    calls: int = 0  # network calls
    evaluator_seconds: float = 0.0  # seconds spent in those calls (waiting for the server, with one)
    node: str | None = None  # the Ray node the worker ran on (None: this machine)


@dataclass(frozen=True)
class ShardReport:
    """A shard of finished games, written atomically before the report was sent."""

    worker: int
    task_id: int
    path: str
    games: int
    positions: int
    network_id: int | None
    mean_length: float
    nodes: dict = field(default_factory=dict)  # positions per Ray node (empty on this machine)


@dataclass(frozen=True)
class DoneReport:
    """The worker finished its task (its games are all in shards it reported)."""

    worker: int
    task_id: int


@dataclass(frozen=True)
class ErrorReport:
    """The worker failed; `message` is its traceback. The pool restarts it (within its budget)."""

    worker: int
    task_id: int
    message: str


@dataclass(frozen=True)
class DiskFullReport:
    """A shard write hit ENOSPC: not a crash to restart from; the run stops."""

    worker: int
    task_id: int
    path: str
    message: str


Report = Union[ProgressReport, ShardReport, DoneReport, ErrorReport, DiskFullReport]


class SelfPlayPool(Protocol):
    """The interface of every pool of self-play workers (local processes, Ray actors)."""

    current: dict  # worker -> its Task, or None when idle
    restarts: int  # workers (and servers) restarted since the pool started

    def assign(self, worker_id: int, games: int) -> None:
        """Give worker `worker_id` a task of `games` games (0 = until stopped)."""

    def idle_workers(self) -> list[int]:
        """Workers without a task."""

    def poll(self, timeout: float = 0.5) -> list[Report]:
        """The reports since the last poll (waiting up to `timeout` for the first). Raises
        `restarts.ProcessKeepsDying` when a process cannot be kept alive."""

    def publish(self, network_id: int, net) -> None:
        """A new best network for the workers."""

    def server_stats(self) -> dict | None:
        """The inference server's counters, or None without one."""

    def close(self, timeout: float = 10.0) -> None:
        """Stop the workers after the step in hand; they write the games they finished."""

    def kill(self) -> None:
        """Stop the workers now (their games in flight are lost)."""
