"""Self-play on a Ray cluster (`selfplay.backend=ray`): the same games, played on many machines.

Why Ray: it is what people already run self-play fleets on. It starts processes on every node of a
cluster, ships numpy arrays through its object store without a shared file system, restarts an
actor whose process or node died, and shows it all in its dashboard. This module is the only one
that imports `ray`, and only when the backend is used, so the project runs without Ray installed.

The pieces:

- `SelfPlayActor` (one Ray actor per `selfplay.workers`, spread over the nodes): the worker of the
  local backend without its process plumbing. It builds its search with `engine.factory` around
  `games.SelfPlayRunner`, exactly as `worker.worker_main` does, and keeps its slots playing (a
  continuous stream). `play(max_games, seconds, network_id, [weights])` plays until `max_games`
  games finished or `seconds` passed and returns them as numpy arrays (`pack_games`) with its
  counters and node.
- `RayWorkerPool` (in the training process, the Ray driver): the interface of
  `worker.WorkerPool` (`assign`, `poll`, `current`, `idle_workers`, `publish`, `close`, `kill`,
  `restarts`, `server_stats`), so the training loop only chooses which pool to build. A pump
  thread keeps `PIPELINE` calls in flight per actor (the next one waits in the actor's queue, so an
  actor never idles for a round trip, nor while the trainer trains), writes the games that come
  back into the run's `replay/` as atomic shards (the replay buffer's own `ShardWriter`, writer id
  `ray<w>`), and queues the worker messages (`shard`, `progress`, `done`, `error`, `disk_full`)
  that `poll` returns. Their payloads add `node`: the actor's node, for per-node positions/s.
- Networks: `publish(id, net)` puts the state dict into the object store once (`ray.put`); each
  `play` call carries (id, [ref]) and an actor whose network differs fetches and loads it (its
  trees are reset, its games go on), as a local worker does when `best.json` changes.

Faults. A game is finished once the driver has it (and writes it at once). An actor that dies
(its process or its whole node) loses only its games in flight: its calls fail, the pool marks it
down and pings it; Ray restarts it (`ray.max_restarts`) on any node with room, and the pool
creates a new actor where Ray gave up. While an actor is down its share of a synchronous
iteration's games goes to the others, so a node that is gone for good only slows the run. The
driver's own crash is what `run.resume=true` is for: every shard it wrote is on disk.

A note on seeds: an actor's games draw from its seed mixed with its process id and start time,
so an actor restarted by Ray (same constructor arguments) does not replay its predecessor's games.
"""

from __future__ import annotations

import errno
import logging
import math
import os
import queue
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from alphazero.mcts.config import MCTSConfig
from alphazero.othello.record import GameRecord
from alphazero.selfplay.channel_files import OWNER_SUFFIX, PREFIX, new_token, shared_directory, sweep_orphans
from alphazero.selfplay.config import RayConfig, SelfPlayConfig
from alphazero.selfplay.inference_server import STATS, server_stats
from alphazero.selfplay.packing import pack_games, unpack_games
from alphazero.selfplay.reports import DiskFullReport, DoneReport, ErrorReport, ProgressReport, Report
from alphazero.selfplay.restarts import ProcessKeepsDying, RestartBudget
from alphazero.selfplay.worker import ShardCutter, shard_report

log = logging.getLogger(__name__)

INSTALL_HINT = 'pip install -e ".[ray]"'


class RayMissing(ImportError):
    """selfplay.backend=ray without Ray installed; the message says what to install."""


class RayConnectError(ValueError):
    """The Ray cluster of `ray.address` cannot be joined; the message says which and what to do."""


def require_ray():
    """The `ray` module, or RayMissing with one line naming the install command. A Ray that is
    installed but breaks on import (a protobuf or grpc of another version raises TypeError or
    AttributeError from inside it) is refused the same way, naming the error, not as a traceback."""
    try:
        import ray
    except ImportError as error:
        raise RayMissing(f"selfplay.backend=ray needs Ray, which is not installed ({error}); install it with {INSTALL_HINT}") from None
    except Exception as error:  # noqa: BLE001 - whatever a broken install raises while importing
        first_line = (str(error).strip().splitlines() or [""])[0]
        raise RayMissing(f"selfplay.backend=ray needs Ray, which fails to import ({type(error).__name__}: {first_line}); "
                         f"reinstall it with {INSTALL_HINT}") from None
    return ray


def network_payload(net) -> dict:
    """What `publish` puts into the object store: the model config and the weights as numpy
    arrays (Ray hands numpy arrays to every actor on a node from shared memory, without copies)."""
    return {"model": net.cfg, "state_dict": {name: tensor.detach().cpu().numpy() for name, tensor in net.state_dict().items()}}


def network_from_payload(payload: dict):
    import torch

    from alphazero.nn.checkpoint import build_network, load_weights

    net = build_network(payload["model"])
    load_weights(net, {name: torch.from_numpy(np.array(array)) for name, array in payload["state_dict"].items()}, source="the published network")
    return net.eval()


# ----------------------------------------------------------------------------------------------
# The actor


class SelfPlayActor:
    """One self-play worker as a Ray actor (wrapped with `ray.remote` by the pool): the local
    backend's `worker.SelfPlayWorker`, fed its network through the object store or the node's
    inference server, returning its finished games instead of writing them."""

    def __init__(self, index: int, selfplay_cfg: SelfPlayConfig, mcts_cfg: MCTSConfig, seed: int):
        import ray
        import torch

        from alphazero.selfplay.worker import SelfPlayWorker

        torch.set_num_threads(selfplay_cfg.threads_per_worker)
        self.index = index
        self.selfplay_cfg = selfplay_cfg
        # Mixed with this process's id and start time: a restarted actor gets the same arguments.
        self.seed = int(np.random.SeedSequence([seed, index, os.getpid(), time.time_ns()]).generate_state(1)[0])
        self.server_path = None
        self.node = ray.util.get_node_ip_address()
        self.node_id = ray.get_runtime_context().get_node_id()
        self.worker = SelfPlayWorker(selfplay_cfg, mcts_cfg, metadata={"worker": f"ray{index}", "node": self.node, "node_id": self.node_id})

    def hello(self) -> dict:
        """Where the actor runs (answered once it is up: the pool's liveness ping)."""
        return {"node": self.node, "node_id": self.node_id, "pid": os.getpid()}

    def _use_network(self, network_id: int, weights_box: list, server) -> None:
        """Play on with network `network_id`: through the node's inference server (`server`, a
        ServerHandle: the server loads the networks, this actor's slot is its index), or with its
        own copy on the CPU (fetched from the object store)."""
        import ray

        from alphazero.engine.factory import build_evaluator

        server_path = None if server is None else server.channels.path
        if server is not None:
            evaluator = server.evaluator(self.index) if server_path != self.server_path else None
        elif network_id != self.worker.network_id or self.server_path is not None:
            # precision=auto: measured on this actor's node and cached in that node's user cache
            # (the run directory is on the driver's machine, and the nodes' CPUs may differ).
            evaluator = build_evaluator(network_from_payload(ray.get(weights_box[0])), device="cpu", threads=self.selfplay_cfg.threads_per_worker,
                                        precision=self.selfplay_cfg.precision, probe_batch=self.selfplay_cfg.concurrent_games)
        else:
            evaluator = None
        self.server_path = server_path
        self.worker.use_network(network_id, evaluator, seed=self.seed)

    def play(self, max_games: int, seconds: float, network_id: int, weights_box: list, server=None) -> dict:
        """Play until `max_games` games finished or `seconds` passed (at least one search step);
        returns the finished games packed (`pack_games`) and the work done (a ProgressReport's
        fields). `server`: the node's inference server's handle, or None to evaluate on this
        actor's CPU."""
        if network_id != self.worker.network_id or (None if server is None else server.channels.path) != self.server_path:
            self._use_network(network_id, weights_box, server)
        finished = self.worker.play(seconds, max_games=max_games)
        progress = self.worker.progress(self.index, -1)
        return {
            "games": pack_games(finished),
            "progress": {name: getattr(progress, name) for name in ("moves", "simulations", "evaluations", "calls", "evaluator_seconds")},
            "network_id": self.worker.network_id,
            "node": self.node,
            "node_id": self.node_id,
            "pid": os.getpid(),
        }


class NodeInferenceServer:
    """The inference server of one node (`selfplay.inference_server=true`), as a Ray actor pinned
    to that node: the local backend's server loop (`inference_server.serve`) over the same
    shared-memory slots in the node's /dev/shm, one slot per self-play actor (its index). It
    reserves the node's GPU where it has one, and runs on the CPU elsewhere. Its channel files'
    token is given by the pool, so a server that Ray restarts takes over the same files
    (`channel_files`: it holds their owner lock while it lives) and answers the requests its
    predecessor left (the actors only wait). `close` removes them; a server killed outright leaves
    them to the next sweep on its node (the Ray pool's close sweeps the driver's)."""

    def __init__(self, token: str, slots: int, capacity: int, device: str, max_batch: int, wait_ms: float, threads: int,
                 pipeline: bool = False, precision: str = "auto"):
        import ray
        import torch

        from alphazero.nn.inference import resolve_device
        from alphazero.selfplay.channel_files import ChannelFiles
        from alphazero.selfplay.inference_server import SERVER_PID, STOP, SharedChannels

        torch.set_num_threads(threads)
        self.device = resolve_device(device)
        self.files = ChannelFiles(token, what="Ray node inference server")
        path = self.files.path("slots")
        self.channels = SharedChannels(path, slots, capacity, create=not os.path.exists(path))
        self.channels.server[STOP] = 0
        self.channels.server[SERVER_PID] = os.getpid()
        self.max_batch, self.wait_ms, self.threads, self.pipeline, self.precision = max_batch, wait_ms, threads, pipeline, precision
        self.evaluator, self.network_id, self.thread = None, None, None
        self.closed = threading.Event()
        self.node, self.node_id = ray.util.get_node_ip_address(), ray.get_runtime_context().get_node_id()

    def set_network(self, network_id: int, weights_box: list) -> dict:
        """Serve network `network_id` from the next batch on (the first starts the server loop);
        returns the handle the actors of this node evaluate through."""
        import ray

        from alphazero.engine.factory import build_evaluator
        from alphazero.selfplay.inference_server import ServerHandle, serve

        if network_id != self.network_id:
            self.evaluator = build_evaluator(network_from_payload(ray.get(weights_box[0])), device=self.device, threads=self.threads,
                                             precision=self.precision, probe_batch=self.max_batch)
            self.network_id = network_id
        if self.thread is None:
            self.thread = threading.Thread(target=serve, args=(self.channels, lambda: self.evaluator, self.max_batch, self.wait_ms, self.device),
                                           kwargs={"pipeline": self.pipeline}, name="node-inference-server", daemon=True)
            self.thread.start()
        return {"handle": ServerHandle(self.channels), "node": self.node, "node_id": self.node_id, "device": str(self.device), "pid": os.getpid()}

    def serving(self) -> None:
        """Returns when the server is closed: the pool keeps this call out, so that the server's
        death (its process or node) reaches it as this call's failure at once."""
        self.closed.wait()

    def stats(self) -> dict:
        return server_stats(self.channels)

    def close(self) -> None:
        from alphazero.selfplay.inference_server import STOP

        self.channels.server[STOP] = 1
        if self.thread is not None:
            self.thread.join(5)
        self.files.remove()
        self.closed.set()


# ----------------------------------------------------------------------------------------------
# Connecting


def connect(ray_cfg: RayConfig, cpus_needed: float) -> dict:
    """Join (or, with `local`, start) the Ray cluster; returns {"address", "dashboard", "nodes"}.
    A driver already connected (a second pool in one process) keeps its connection, and the
    pool that made a connection ends it when it closes (`started`)."""
    ray = require_ray()
    started = not ray.is_initialized()
    if started:
        if ray_cfg.address == "local":
            # A try-out on this machine: room for every actor even on fewer cores (as the local
            # backend starts its worker processes whatever the core count).
            context = ray.init(num_cpus=max(os.cpu_count() or 1, int(np.ceil(cpus_needed))), logging_level="WARNING", log_to_driver=True)
        else:
            if ray_cfg.address != "auto":
                check_reachable(ray_cfg.address)  # ray.init retries a dead address for minutes
            try:
                context = ray.init(address=ray_cfg.address, logging_level="WARNING", log_to_driver=True)
            except (ConnectionError, RuntimeError, TimeoutError) as error:
                first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
                raise RayConnectError(
                    f"cannot join the Ray cluster at ray.address={ray_cfg.address} ({first_line}); start one with `ray start --head` "
                    "(README, 'Scale out') or try ray.address=local"
                ) from None
        dashboard = getattr(context, "dashboard_url", None) or None
    else:
        dashboard = None
    nodes = [node for node in ray.nodes() if node.get("Alive")]
    return {"address": ray_cfg.address, "dashboard": f"http://{dashboard}" if dashboard and "://" not in dashboard else dashboard,
            "nodes": nodes, "started": started}


def check_cluster(address: str) -> None:
    """RayConnectError at once when `ray.address` finds no cluster to join: nothing listening at
    HOST:PORT, or for `auto` no cluster found the way ray.init looks (RAY_ADDRESS, then the last
    `ray start` on this machine) or one whose head is gone. The training's start check asks it
    before the run directory is created: the pool's ray.init says so only after the setup wrote a
    new run there (best.json, config.yaml, log.txt)."""
    if address == "local":
        return
    if address == "auto":
        found = _auto_address()
        if found is not None:
            check_reachable(found, setting="auto")
        return
    check_reachable(address)


def _auto_address() -> str | None:
    """Where ray.init(address="auto") would connect, found with its own lookup; None where this
    Ray lacks that (private) function: its ray.init then says it, after the setup."""
    try:
        from ray._private.services import canonicalize_bootstrap_address
    except ImportError:
        return None
    try:
        return canonicalize_bootstrap_address("auto")
    except (ConnectionError, ValueError) as error:
        first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise RayConnectError(
            f"cannot join the Ray cluster at ray.address=auto ({first_line}); start one with `ray start --head` "
            "(README, 'Scale out') or try ray.address=local"
        ) from None


def check_reachable(address: str, timeout: float = 10.0, setting: str | None = None) -> None:
    """RayConnectError at once when nothing listens at the head's HOST:PORT (`setting`: the
    ray.address that led there, when not the address itself)."""
    import socket

    host, _, port = address.rpartition(":")
    where = "there" if setting is None else f"at {address}, where {setting} leads"
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as error:
        raise RayConnectError(
            f"cannot join the Ray cluster at ray.address={setting or address}: nothing answers {where} ({error.strerror or error}); "
            "start its head with `ray start --head --port PORT` (README, 'Scale out') or try ray.address=local"
        ) from None


def _actor_failed(ray, error: BaseException) -> bool:
    """Whether `error` (from a call) means the actor's process or node is gone, not a bug in it."""
    exceptions = ray.exceptions
    kinds = tuple(getattr(exceptions, name) for name in ("RayActorError", "ActorUnavailableError", "ActorDiedError") if hasattr(exceptions, name))
    return isinstance(error, kinds)


def _actor_gone_for_good(ray, error: BaseException) -> bool:
    """Ray will not restart it (restarts spent, or none allowed): a new actor must take its place."""
    died = getattr(ray.exceptions, "ActorDiedError", None)
    unavailable = getattr(ray.exceptions, "ActorUnavailableError", None)
    if unavailable is not None and isinstance(error, unavailable):
        return False
    return died is not None and isinstance(error, died)


# ----------------------------------------------------------------------------------------------
# The pool


@dataclass
class Task:
    task_id: int
    games: int  # 0 = play until stopped


@dataclass
class _Call:
    actor: int
    generation: int  # of the actor's handle: a call to a handle since replaced is ignored
    owner: int  # the worker whose task the games count for
    task_id: int
    max_games: int
    pid: int | None = None  # the actor's process when the call was sent (None: not known yet)


UP, DOWN = "up", "down"


class RayWorkerPool:
    """`selfplay.workers` Ray actors with the interface of `worker.WorkerPool` (see the module
    docstring). `network` is (id, net): the network the actors start with."""

    PIPELINE = 2  # play calls in flight per actor
    CALL_SECONDS = 2.0  # a call returns at least this often: progress messages, liveness
    RETRY_SECONDS = 1.0  # between pings of an actor that is down
    DOWN_WARNING_SECONDS = 60.0
    # An actor still starting (not yet answering) keeps its share of a synchronous iteration this
    # long before the others take it over; one that died loses it at once.
    START_GRACE_SECONDS = 60.0

    def __init__(self, run_dir: str, selfplay_cfg: SelfPlayConfig, mcts_cfg: MCTSConfig, ray_cfg: RayConfig, seed: int, network):
        from alphazero.replay.buffer import ReplayBuffer

        self.ray = ray = require_ray()
        self.run_dir = run_dir
        self.selfplay_cfg, self.mcts_cfg, self.ray_cfg = selfplay_cfg, mcts_cfg, ray_cfg
        self.seed = seed
        self.workers = selfplay_cfg.workers
        cpus = ray_cfg.cpus_per_actor or selfplay_cfg.threads_per_worker
        self.cluster = connect(ray_cfg, cpus * self.workers)
        self.dashboard = self.cluster["dashboard"]
        self.server = None  # no inference server process on the driver; see server_stats
        self._actor_class = ray.remote(SelfPlayActor).options(
            num_cpus=cpus, max_restarts=ray_cfg.max_restarts, max_task_retries=0, scheduling_strategy="SPREAD",
        )
        # Writes only (no scan): the training loop's own ReplayBuffer admits the shards on refresh.
        self.replay = ReplayBuffer(Path(run_dir) / "replay", window_positions=1, scan=False)
        self.current: dict[int, Task | None] = {w: None for w in range(self.workers)}
        self.remaining: dict[int, int] = {}
        self.restarts = 0
        self.next_task_id = 0
        self._lock = threading.RLock()
        self._messages: queue.Queue = queue.Queue()
        # The games that came back for each worker's task, cut into shards here (no shared disk).
        self._cutters = {w: ShardCutter(lambda records, w=w: self.replay.add_games(records, writer_id=f"ray{w}"), selfplay_cfg.games_per_shard)
                         for w in range(self.workers)}
        self._network_of: dict[int, int | None] = {w: None for w in range(self.workers)}  # of the games held
        self.budgets = {w: RestartBudget(f"self-play actor {w}", selfplay_cfg.max_restarts)
                        for w in range(self.workers)}
        self._calls: dict = {}  # ObjectRef -> _Call
        self._pings: dict = {}  # ObjectRef -> (actor index, generation)
        self._actors: list = [None] * self.workers
        self._generation = [0] * self.workers
        self._state = [DOWN] * self.workers
        self._down_since = [time.monotonic()] * self.workers
        self._lost = [False] * self.workers  # died since it last answered: its games go to the others
        self._pids: list[int | None] = [None] * self.workers  # each actor's process, from its hello and its results
        self._next_ping = [0.0] * self.workers
        self.nodes: dict[int, str] = {}  # actor -> node label
        self._node_ids: dict[str, str] = {}  # node id -> its ip, for labels
        # Inference servers, one per node that hosts actors (selfplay.inference_server=true):
        # node id -> {"actor", "generation", "state", "handle", "network_id", "device"}.
        self._servers: dict[str, dict] = {}
        self._server_calls: dict = {}  # ObjectRef -> (node id, generation, network id of set_network, or None: serving)
        self._server_budgets: dict[str, RestartBudget] = {}
        self._node_of: dict[int, str] = {}  # actor -> its node id
        self._server_class = ray.remote(NodeInferenceServer) if selfplay_cfg.inference_server else None
        self._channels_token = new_token()  # its node servers' files: this token and the node's id (channel_files)
        if selfplay_cfg.device != "cpu" and not selfplay_cfg.inference_server:
            log.warning("selfplay.device=%s: with the Ray backend a node's GPU is used through its inference server "
                        "(selfplay.inference_server=true); the actors evaluate on their CPUs", selfplay_cfg.device)
        self._closing = threading.Event()
        self._close_deadline = float("inf")
        self._failure: BaseException | None = None  # what stopped the pump thread, raised by poll()
        self._closed = False
        self._network = None
        self.publish(*network)
        for index in range(self.workers):
            self._create(index)
        self._pump_thread = threading.Thread(target=self._pump, name="ray-selfplay-pump", daemon=True)
        self._pump_thread.start()

    # ------------------------------------------------------------------ the loop's interface

    def publish(self, network_id: int, net) -> None:
        """Make `net` the actors' network: one `ray.put` of its weights; every actor loads it at
        its next call (the games in play go on with it)."""
        ref = self.ray.put(network_payload(net))
        with self._lock:
            self._network = (int(network_id), ref)
            for node_id, server in self._servers.items():
                if server["state"] == UP:
                    self._send_network(node_id)

    def assign(self, worker_id: int, games: int) -> None:
        with self._lock:
            self.current[worker_id] = Task(self.next_task_id, games)
            self.remaining[worker_id] = games
            self.next_task_id += 1

    def idle_workers(self) -> list[int]:
        return [w for w, task in self.current.items() if task is None]

    def poll(self, timeout: float = 0.5) -> list[Report]:
        """The reports since the last poll (waiting up to `timeout` for the first). Raises
        what stopped the pump thread, if anything did (a shard it could not write, an actor past
        its restart budget)."""
        if isinstance(self._failure, ProcessKeepsDying):
            raise ProcessKeepsDying(str(self._failure))
        if self._failure is not None:
            raise RuntimeError(f"Ray self-play stopped: {self._failure!r}") from self._failure
        messages = []
        try:
            messages.append(self._messages.get(timeout=timeout))
            while True:
                messages.append(self._messages.get_nowait())
        except queue.Empty:
            pass
        return messages

    def server_stats(self) -> dict | None:
        """The nodes' inference servers' counters summed (what the network saw), or None without
        servers (the actors' progress messages count their own network calls)."""
        with self._lock:
            servers = [server["actor"] for server in self._servers.values() if server["state"] == UP]
        if self._server_class is None or not servers:
            return None
        total = dict.fromkeys(STATS, 0)
        for ref in [server.stats.remote() for server in servers]:
            try:
                stats = self.ray.get(ref, timeout=10)
            except Exception:  # noqa: BLE001 - a server restarting: its counters start again anyway
                continue
            for key in total:
                total[key] += stats[key]
        return total

    def node_labels(self) -> dict[int, str]:
        return dict(self.nodes)

    def kill(self) -> None:
        """Stop now (a second Ctrl-C): the games in flight are lost; every game the driver has
        is written first."""
        self.close(timeout=0.0)

    def close(self, timeout: float = 10.0) -> None:
        """Let the calls in flight finish (up to `timeout` s) and write their games, write every
        game still held, then end the actors. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for w in self.current:
                self.current[w] = None
            self._close_deadline = time.monotonic() + max(timeout, 0.0)
        self._closing.set()
        self._pump_thread.join(max(timeout, 0.0) + 5.0)
        with self._lock:
            for owner in list(self._cutters):
                self._flush(owner)
            closing = [server["actor"].close.remote() for server in self._servers.values()]
            try:
                self.ray.wait(closing, num_returns=len(closing), timeout=5)
            except Exception:  # noqa: BLE001 - a server already gone left its file to the node's /dev/shm
                pass
            for actor in self._actors + [server["actor"] for server in self._servers.values()]:
                if actor is not None:
                    try:
                        self.ray.kill(actor, no_restart=True)
                    except Exception:  # noqa: BLE001 - already gone
                        pass
            self._actors = [None] * self.workers
            self._remove_local_server_files()
        if self.cluster["started"] and self.ray.is_initialized():
            self.ray.shutdown()

    # ------------------------------------------------------------------ actors

    def _create(self, index: int) -> None:
        self._actors[index] = self._actor_class.remote(index, self.selfplay_cfg, self.mcts_cfg, self.seed)
        self._generation[index] += 1
        if self._state[index] == UP:
            self._down_since[index] = time.monotonic()
        self._state[index] = DOWN
        self._next_ping[index] = 0.0

    def _ping(self, index: int) -> None:
        if any(a == index for a, _ in self._pings.values()):
            return
        self._pings[self._actors[index].hello.remote()] = (index, self._generation[index])

    def _node_label(self, ip: str, node_id: str) -> str:
        """The node's IP, with a short node id where several nodes share one IP (one machine)."""
        self._node_ids[node_id] = ip
        shared = sum(1 for other in self._node_ids.values() if other == ip) > 1
        return f"{ip}_{node_id[:6]}" if shared else ip

    # ------------------------------------------------------------------ the pump thread

    def _pump(self) -> None:
        try:
            self._pump_loop()
        except BaseException as error:  # noqa: BLE001 - handed to the training loop by poll()
            log.exception("the Ray self-play pump thread failed")
            self._failure = error
            self._messages.put(ErrorReport(-1, -1, traceback.format_exc()))

    def _pump_loop(self) -> None:
        warned = 0.0
        while True:
            closing = self._closing.is_set()
            with self._lock:
                if not closing:
                    self._ping_down_actors()
                    self._retry_servers()
                    self._dispatch()
                refs = list(self._calls) + list(self._pings) + list(self._server_calls)
            if closing and not self._calls:
                return
            if not refs:
                time.sleep(0.05)
                continue
            ready, _ = self.ray.wait(refs, num_returns=1, timeout=0.2)
            if ready:
                ready, _ = self.ray.wait(refs, num_returns=len(refs), timeout=0)
            with self._lock:
                for ref in ready:
                    self._collect(ref)
            now = time.monotonic()
            if not closing and now - warned > self.DOWN_WARNING_SECONDS and all(s == DOWN for s in self._state) and \
                    now - min(self._down_since) > self.DOWN_WARNING_SECONDS:
                warned = now
                log.warning("no self-play actor has been running for %.0f s: the cluster has no room for them or their nodes are "
                            "gone (see `ray status`)", now - min(self._down_since))
            if closing and time.monotonic() > self._close_deadline:
                return

    def _ping_down_actors(self) -> None:
        now = time.monotonic()
        for index, state in enumerate(self._state):
            if state == DOWN and now >= self._next_ping[index]:
                self._ping(index)

    def _dispatch(self) -> None:
        if self._network is None:
            return
        network_id, ref = self._network
        in_flight = [0] * self.workers
        requested: dict[int, int] = {}
        for call in self._calls.values():
            in_flight[call.actor] += 1
            requested[call.owner] = requested.get(call.owner, 0) + call.max_games
        for index in range(self.workers):
            while self._state[index] == UP and in_flight[index] < self.PIPELINE:
                owner = self._work_for(index, requested)
                if owner is None:
                    break
                task = self.current[owner]
                want = self.selfplay_cfg.games_per_shard
                if task.games:
                    want = min(want, self.remaining[owner] - requested.get(owner, 0))
                call_ref = self._actors[index].play.remote(want, self.CALL_SECONDS, network_id, [ref], self._server_handle(index))
                self._calls[call_ref] = _Call(index, self._generation[index], owner, task.task_id, want, self._pids[index])
                in_flight[index] += 1
                requested[owner] = requested.get(owner, 0) + want

    def _work_for(self, index: int, requested: dict[int, int]) -> int | None:
        """Whose task actor `index` plays for next: its own while it has games not yet asked for,
        else the synchronous task of an actor that died or is slow to start (its games must not
        wait for it)."""
        now = time.monotonic()

        def open_games(owner):
            task = self.current.get(owner)
            if task is None:
                return 0
            return 1 if task.games == 0 else self.remaining[owner] - requested.get(owner, 0)

        if open_games(index) > 0:
            return index
        for owner in range(self.workers):
            if owner == index or self._state[owner] != DOWN or not (self._lost[owner] or now - self._down_since[owner] > self.START_GRACE_SECONDS):
                continue
            if open_games(owner) > 0 and self.current[owner].games:
                return owner
        return None

    def _collect(self, ref) -> None:
        if ref in self._server_calls:
            self._server_answered(ref)
            return
        if ref in self._pings:
            index, generation = self._pings.pop(ref)
            try:
                hello = self.ray.get(ref)
            except Exception as error:  # noqa: BLE001 - sorted in _actor_error
                if generation == self._generation[index]:
                    self._actor_error(index, error)
                return
            if generation != self._generation[index]:
                return
            self.nodes[index] = self._node_label(hello["node"], hello["node_id"])
            self._node_of[index] = hello["node_id"]
            log.info("self-play actor %d is up on node %s (pid %d)", index, self.nodes[index], hello["pid"])
            self._pids[index] = hello["pid"]
            if self._server_class is not None and hello["node_id"] not in self._servers:
                self._start_server(hello["node_id"], hello["node"])
            self._state[index] = UP
            self._lost[index] = False
            return
        call = self._calls.pop(ref)
        try:
            result = self.ray.get(ref)
        except Exception as error:  # noqa: BLE001 - sorted in _actor_error
            if call.generation == self._generation[call.actor]:
                self._actor_error(call.actor, error)
            self._maybe_done(call.owner)
            return
        self._receive(call, result)

    def _actor_error(self, index: int, error: BaseException) -> None:
        """A call to actor `index` failed: its process or node is gone (Ray restarts it; we ping
        it until it answers), Ray gave up on it or a bug raised in it (a new actor takes its place)."""
        failed = _actor_failed(self.ray, error)
        if not failed:
            message = getattr(error, "traceback_str", None) or "".join(traceback.format_exception(error))
            self._messages.put(ErrorReport(index, -1, str(message)))
            log.error("self-play actor %d failed:\n%s", index, message)
            self.budgets[index].error(str(message))
        gone_for_good = not failed or _actor_gone_for_good(self.ray, error)
        if self._state[index] == UP or gone_for_good:
            # A death: it was running, or it is replaced by a new actor. (Failed pings of an actor
            # that is down are Ray still restarting it, not more deaths.) Past the budget the pump
            # stops and poll() raises.
            self.budgets[index].died(type(error).__name__)
        self._lost[index] = True
        if self._state[index] == UP:
            self.restarts += 1
            self._down_since[index] = time.monotonic()
            if failed:
                log.warning("self-play actor %d on node %s is gone (%s); its games in flight are lost; Ray restarts it where there is room",
                            index, self.nodes.get(index, "?"), type(error).__name__)
        if failed and not _actor_gone_for_good(self.ray, error):
            self._state[index] = DOWN
            self._next_ping[index] = time.monotonic() + self.RETRY_SECONDS
            return
        try:
            self.ray.kill(self._actors[index], no_restart=True)
        except Exception:  # noqa: BLE001 - already gone
            pass
        self._create(index)

    # ------------------------------------------------------------------ inference servers

    def _start_server(self, node_id: str, ip: str) -> None:
        """One inference server on the node of `node_id`: on its GPU where it has one (and
        selfplay.device is not cpu), else on its CPU. It reserves no CPU (as the local server)."""
        from alphazero.selfplay.inference_server import worker_capacity
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        resources = next((n["Resources"] for n in self.ray.nodes() if n["NodeID"] == node_id), {})
        gpu = resources.get("GPU", 0) >= 1 and self.selfplay_cfg.device != "cpu"
        cfg = self.selfplay_cfg
        actor = self._server_class.options(
            num_cpus=0, num_gpus=1 if gpu else 0, max_restarts=-1, max_task_retries=0, max_concurrency=4,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
        ).remote(self._node_token(node_id), self.workers, worker_capacity(cfg.concurrent_games, self.mcts_cfg.leaves_per_step),
                 "cuda" if gpu else "cpu", cfg.server_max_batch, cfg.server_wait_ms,  # Ray makes its GPU the only one it sees
                 max(1, cfg.threads_per_worker), cfg.server_pipeline, cfg.precision)
        previous = self._servers.get(node_id, {})
        self._servers[node_id] = {"actor": actor, "generation": previous.get("generation", 0) + 1, "state": DOWN, "handle": None,
                                  "network_id": None, "ip": ip, "retry_at": float("inf")}
        log.info("starting the inference server of node %s (%s)", self._node_label(ip, node_id), "GPU" if gpu else "CPU")
        self._send_network(node_id)
        self._watch_server(node_id)

    def _node_token(self, node_id: str) -> str:
        """The token of node `node_id`'s server files: unique per pool and node, letters and digits."""
        return self._channels_token + "".join(c for c in node_id if c.isalnum())[:12]

    def _remove_local_server_files(self, seconds: float = 5.0) -> None:
        """The files of this pool's servers on this machine, once the killed servers are gone (their
        locks free): a server killed before its close ran leaves them (other nodes' files go with
        their next sweep)."""
        directory = shared_directory()
        owners = [directory / f"{PREFIX}{self._node_token(node_id)}{OWNER_SUFFIX}" for node_id in self._servers]
        deadline = time.monotonic() + seconds
        while any(owner.exists() for owner in owners):
            sweep_orphans(directory)
            if time.monotonic() > deadline:
                log.warning("channel files of a Ray inference server still held after %.0f s: %s", seconds,
                            ", ".join(str(o) for o in owners if o.exists()))
                return
            time.sleep(0.1)

    def _retry_servers(self) -> None:
        """Send the network again to each server that failed (and watch it again), once its retry
        time has come."""
        now = time.monotonic()
        for node_id, server in self._servers.items():
            if server["state"] != DOWN or now < server["retry_at"]:
                continue
            server["retry_at"] = float("inf")
            out = [network for n, g, network in self._server_calls.values() if n == node_id and g == server["generation"]]
            if not any(network is not None for network in out):
                self._send_network(node_id)
            if None not in out:
                self._watch_server(node_id)

    def _watch_server(self, node_id: str) -> None:
        server = self._servers[node_id]
        self._server_calls[server["actor"].serving.remote()] = (node_id, server["generation"], None)

    def _send_network(self, node_id: str) -> None:
        server = self._servers[node_id]
        network_id, ref = self._network
        self._server_calls[server["actor"].set_network.remote(network_id, [ref])] = (node_id, server["generation"], network_id)

    def _server_budget(self, node_id: str) -> RestartBudget:
        server = self._servers[node_id]
        return self._server_budgets.setdefault(node_id, RestartBudget(f"the inference server of node {server['ip']}", self.selfplay_cfg.max_restarts))

    def _server_answered(self, ref) -> None:
        node_id, generation, network_id = self._server_calls.pop(ref)
        server = self._servers.get(node_id)
        if server is None or server["generation"] != generation:
            return
        try:
            answer = self.ray.get(ref)
        except Exception as error:  # noqa: BLE001 - its process or node is gone; Ray restarts it on the node
            budget = self._server_budget(node_id)
            failed = _actor_failed(self.ray, error)
            if not failed:
                budget.error(getattr(error, "traceback_str", None) or str(error))
            now = time.monotonic()
            if (server["state"] != DOWN or not failed or _actor_gone_for_good(self.ray, error)
                    or now - server.get("died_at", -math.inf) >= self.START_GRACE_SECONDS):
                # A death: it was serving, raised, Ray gave up on it, or it has been down a whole
                # grace period since the last death counted (a server that never comes back, as
                # Ray restarts it without end). A retry failing within that period is Ray still
                # restarting it (many seconds on a loaded machine), not another death. Past the
                # budget the pump stops and poll() raises.
                budget.died(type(error).__name__)
                server["died_at"] = now
            if server["state"] == UP:
                self.restarts += 1
                log.warning("inference server of node %s is gone (%s); its actors evaluate on their CPUs until it is back",
                            server["ip"], type(error).__name__)
            server["state"], server["handle"] = DOWN, None
            if _actor_gone_for_good(self.ray, error) or not _actor_failed(self.ray, error):
                self._start_server(node_id, server["ip"])
                return
            # Ray restarts it on its node; _retry_servers sends the network again (answered once
            # it is back, which makes it UP) and watches it again.
            server["retry_at"] = time.monotonic() + self.RETRY_SECONDS
            return
        if network_id is None:
            return  # `serving` returned: the server was closed
        if server["state"] == DOWN:
            log.info("inference server of node %s is up on %s (pid %d)", self._node_label(answer["node"], answer["node_id"]), answer["device"], answer["pid"])
        server["state"], server["handle"], server["network_id"] = UP, answer["handle"], network_id
        if network_id != self._network[0] and not any(n == node_id and g == generation and net is not None
                                                       for n, g, net in self._server_calls.values()):
            self._send_network(node_id)  # published while it was starting or down

    def _server_handle(self, index: int):
        """The handle of the inference server on actor `index`'s node once it serves (it swaps
        to a newly published network by itself, as the local server does); None: the actor
        evaluates on its own CPU."""
        server = self._servers.get(self._node_of.get(index, ""))
        if server is None or server["state"] != UP:
            return None
        return server["handle"]

    # ------------------------------------------------------------------ games coming back

    def _receive(self, call: _Call, result: dict) -> None:
        self._notice_a_restart_between_calls(call, result.get("pid"))
        owner = call.owner
        self.nodes[call.actor] = node = self._node_label(result["node"], result["node_id"])
        records = unpack_games(result["games"])
        if records:
            # Finished games, written by this driver: work delivered by the actor, and by its
            # node's inference server when it evaluated them (restarts.py; an answer alone is not).
            self.budgets[call.actor].delivered()
            server = self._servers.get(result["node_id"])
            if server is not None and server["state"] == UP and result["node_id"] in self._server_budgets:
                self._server_budgets[result["node_id"]].delivered()
        self._messages.put(ProgressReport(owner, call.task_id, node=node, **result["progress"]))
        self._network_of[owner] = result["network_id"]
        self._cutters[owner].add(records)
        task = self.current.get(owner)
        this_task = task is not None and task.task_id == call.task_id
        if this_task and task.games:
            self.remaining[owner] -= len(records)
        # Shards of games_per_shard games; a finished task's last shard holds all it got.
        if not (this_task and task.games and self.remaining[owner] <= 0):
            while len(self._cutters[owner].pending) >= self.selfplay_cfg.games_per_shard:
                self._flush(owner, self.selfplay_cfg.games_per_shard)
        self._maybe_done(owner)

    def _notice_a_restart_between_calls(self, call: _Call, pid: int | None) -> None:
        """A call answered by another process than the one it was sent to: Ray restarted the actor
        while no call of ours was in flight (killed while idle, e.g. while a synchronous run
        trained), so no call failed to say so. Counted in `restarts` and logged, once however many
        calls it answers (its games in play are lost). Not a death for the restart budget: the new
        process has just delivered work."""
        if pid is None or call.pid is None or pid == call.pid:
            return
        if self._pids[call.actor] == call.pid:  # the first answer from the new process
            self.restarts += 1
            log.warning("self-play actor %d on node %s was restarted by Ray between calls (pid %d, now %d); the games it had in play "
                        "are lost", call.actor, self.nodes.get(call.actor, "?"), call.pid, pid)
        self._pids[call.actor] = pid

    def _maybe_done(self, owner: int) -> None:
        task = self.current.get(owner)
        if task is None or task.games == 0 or self.remaining[owner] > 0:
            if task is None:
                self._flush(owner)
            return
        if any(c.owner == owner and c.task_id == task.task_id for c in self._calls.values()):
            return  # the task's last calls are still out: their games belong to this iteration
        self._flush(owner)
        self.current[owner] = None
        self._messages.put(DoneReport(owner, task.task_id))

    def _flush(self, owner: int, count: int | None = None) -> None:
        """Write `count` (default: all) of the games held for `owner` as one shard, and say so."""
        cutter = self._cutters[owner]
        if not cutter.pending:
            return
        task = self.current.get(owner)
        task_id = task.task_id if task is not None else -1
        try:
            for records, path in cutter.cut(task_complete=count is None, count=count):
                self._messages.put(shard_report(owner, task_id, records, path, self._network_of[owner], nodes=self._positions_by_node(records)))
        except OSError as error:
            if error.errno != errno.ENOSPC:
                raise
            where = error.filename or f"a replay shard in {self.replay.directory}"
            self._messages.put(DiskFullReport(owner, task_id, path=str(where), message=str(error.strerror)))

    def _positions_by_node(self, records: list[GameRecord]) -> dict[str, int]:
        """Positions of `records` per node label (each game's metadata names its node)."""
        counts: dict[str, int] = {}
        for record in records:
            node = self._node_label(str(record.metadata.get("node", "?")), str(record.metadata.get("node_id", "")))
            counts[node] = counts.get(node, 0) + len(record)
        return counts
