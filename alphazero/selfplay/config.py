"""Self-play settings (Hydra group `selfplay`)."""

from dataclasses import dataclass

from alphazero.nn.config import INFERENCE_PRECISIONS
from alphazero.validation import ConfigValueError
from alphazero.validation import require as _require
from alphazero.validation import require_choice as _require_choice

# The most empties `exact_label_empties` takes: beyond about 24 a WLD solve costs seconds.
MAX_LABEL_EMPTIES = 30


@dataclass
class SelfPlayConfig:
    # Where the workers run: `local` = processes on this machine; `ray` = Ray actors on the nodes of
    # a Ray cluster (settings in the `ray` group; needs `pip install -e ".[ray]"`).
    backend: str = "local"
    # Worker processes; each plays `concurrent_games` games at once with one batched search.
    workers: int = 2
    concurrent_games: int = 64
    # Games generated per iteration in synchronous mode (split over the workers; at least this many:
    # a worker's last shard of a task also holds the games that ended in the same search step).
    games_per_iteration: int = 128
    # Games a worker finishes before it writes a shard and reports. Every slot plays all the time;
    # a task's last shard holds every game finished by then (so it may hold more or fewer).
    games_per_shard: int = 32
    # torch threads per worker process for its own network evaluation.
    threads_per_worker: int = 1
    # Arithmetic of the workers' (or the inference server's) network calls: auto (bf16 where a
    # short probe measures it faster on this CPU, cached in the run directory; bf16 on CUDA), fp32
    # or bf16 (alphazero.nn.precision). conf/config.yaml sets it from the top-level `precision`.
    precision: str = "auto"
    # Serve every worker's leaf batches from one inference process (worth it on a GPU).
    inference_server: bool = False
    # Inference server: after the first pending request it waits up to server_wait_ms for the other
    # workers, and stops waiting once server_max_batch positions are pending; then it evaluates
    # every pending request in one network call.
    server_max_batch: int = 4096
    server_wait_ms: float = 1.0
    # Inference server: gather and launch the next batch while the device computes the last, and
    # answer the last while it computes the next (two staging buffers), so the GPU does not wait
    # for the server's copies and kernel launches. Only a GPU gains (on a CPU the network call is
    # the server's own work); off until measured on one (experiments/gpu-next/selfplay.sh).
    server_pipeline: bool = False
    # Device the workers (or the inference server) evaluate on: auto, cpu, cuda, cuda:N.
    device: str = "cpu"
    # Random plies played before search takes over (opening diversity); 0 = none.
    random_opening_plies: int = 0
    # Positions the endgame solver solved (mcts.endgame_solve_empties) get their exact result as
    # value target instead of the game's outcome.
    exact_value_targets: bool = True
    # Positions of a finished game with at most this many empties that the search did not solve get
    # the win/loss/draw of perfect play as value target, solved after the game (alphazero/selfplay/
    # games.py, "Exact labels after the game"); 0 = off: in the cpu preset (roots solved from 16) 20
    # changed 0.3% of the value targets for ~10% more self-play time (experiments/learning-68/labels).
    exact_label_empties: int = 0
    # Playout cap randomisation (KataGo, Wu 2019): a move gets a full search (mcts.simulations,
    # root noise, its visits become a policy target) with probability playout_cap_fraction, else a
    # small search of playout_cap_small simulations without noise that only chooses the move and
    # records no policy target (the position keeps its value target). 1 = every move a full search.
    playout_cap_fraction: float = 1.0
    playout_cap_small: int = 25
    # A worker or the inference server that dies more than max_restarts times in a row without
    # delivering work in between (a shard written; no time window) stops the run with its last
    # error, instead of being restarted forever (alphazero.selfplay.restarts).
    max_restarts: int = 5

    def __post_init__(self):
        _require_choice("selfplay.backend", self.backend, ("local", "ray"))
        _require(self.workers >= 1, "selfplay.workers", self.workers, ">= 1")
        _require(self.concurrent_games >= 1, "selfplay.concurrent_games", self.concurrent_games, ">= 1")
        _require(self.games_per_iteration >= 1, "selfplay.games_per_iteration", self.games_per_iteration, ">= 1")
        _require(self.games_per_shard >= 1, "selfplay.games_per_shard", self.games_per_shard, ">= 1")
        _require_choice("selfplay.precision", self.precision, INFERENCE_PRECISIONS)
        _require(self.threads_per_worker >= 1, "selfplay.threads_per_worker", self.threads_per_worker, ">= 1")
        _require(self.server_max_batch >= 1, "selfplay.server_max_batch", self.server_max_batch, ">= 1")
        _require(self.server_wait_ms >= 0, "selfplay.server_wait_ms", self.server_wait_ms, ">= 0")
        _require(0 < self.playout_cap_fraction <= 1, "selfplay.playout_cap_fraction", self.playout_cap_fraction, "in (0, 1] (1 = off)")
        _require(isinstance(self.playout_cap_small, int) and self.playout_cap_small >= 1, "selfplay.playout_cap_small",
                 self.playout_cap_small, "an integer >= 1 (and <= mcts.simulations)")
        _require(self.max_restarts >= 0, "selfplay.max_restarts", self.max_restarts, ">= 0")
        _require(0 <= self.exact_label_empties <= MAX_LABEL_EMPTIES, "selfplay.exact_label_empties", self.exact_label_empties,
                 f"in 0..{MAX_LABEL_EMPTIES} (0 = off)")
        _require(not self.exact_label_empties or self.exact_value_targets, "selfplay.exact_label_empties", self.exact_label_empties,
                 "0 while selfplay.exact_value_targets=false (the labels are exact value targets)")
        _require(0 <= self.random_opening_plies <= 59, "selfplay.random_opening_plies", self.random_opening_plies, "in 0..59")



@dataclass
class RayConfig:
    """Self-play on a Ray cluster (Hydra group `ray`; used with `selfplay.backend=ray`)."""

    # The cluster to join: `auto` (the one `ray start` runs on this machine), HOST:PORT (its head's
    # GCS address), or `local` (start a Ray inside this process: a try-out on one machine).
    address: str = "auto"
    # Times Ray restarts a dead self-play actor (on any node with room; -1 = no limit). Past that,
    # or with 0, the pool creates a new actor in its place.
    max_restarts: int = -1
    # CPUs each self-play actor reserves on its node (its search and, without a GPU server, its
    # network calls); 0 = selfplay.threads_per_worker.
    cpus_per_actor: float = 0.0

    def __post_init__(self):
        _require_ray_address(self.address)
        _require(self.max_restarts >= -1, "ray.max_restarts", self.max_restarts, ">= -1 (-1 = no limit)")
        _require(self.cpus_per_actor >= 0, "ray.cpus_per_actor", self.cpus_per_actor, ">= 0 (0 = selfplay.threads_per_worker)")


def _require_ray_address(address: str) -> None:
    if address in ("auto", "local"):
        return
    host, sep, port = str(address).rpartition(":")
    if not (sep and host and port.isdigit() and 1 <= int(port) <= 65535 and " " not in host):
        raise ConfigValueError(f"ray.address must be auto, local or HOST:PORT (the head node's address, e.g. 10.0.0.1:6379); got {address!r}")
