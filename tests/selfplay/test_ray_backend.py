"""The Ray self-play backend (`selfplay.backend=ray`).

Without Ray: the games' numpy packing, the `ray` config checks, and the one-line refusal of
backend=ray when Ray is missing. With Ray (`pip install -e ".[ray]"`, else skipped with the
reason): the pool on an in-process Ray (`ray.address=local`): games come back as shards, a
published network reaches the actors, a killed actor is replaced without losing finished games;
and, as a user would run it, the smoke preset on a real two-node cluster on loopback addresses
(`ray start --head` + `ray start --address`), whose second node is killed mid-run.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from alphazero.selfplay.config import RayConfig
from alphazero.selfplay.packing import pack_games, unpack_games
from alphazero.selfplay.reports import DoneReport, ErrorReport, ProgressReport, ShardReport
from alphazero.validation import ConfigValueError


REPO_ROOT = Path(__file__).resolve().parents[2]
CONF_DIR = str(REPO_ROOT / "conf")


def _random_records(count: int, seed: int) -> list:
    """Random legal games with search-like policies and root values."""
    from alphazero.othello.game import GameState
    from alphazero.othello.record import GameRecord

    rng = np.random.default_rng(seed)
    records = []
    for game in range(count):
        state, actions, policies = GameState.start(), [], []
        while not state.is_over():
            legal = state.legal_actions()
            policy = np.zeros(65, dtype=np.float32)
            policy[legal] = rng.dirichlet(np.ones(len(legal)))
            actions.append(legal[rng.integers(len(legal))])
            policies.append(policy)
            state = state.play(actions[-1])
        records.append(GameRecord(start=GameState.start(), actions=np.array(actions), policies=np.array(policies),
                                  root_values=rng.uniform(-1, 1, len(actions)).astype(np.float32), black_margin=state.black_margin(),
                                  metadata={"game": game, "network_id": 3}))
    return records


def _latest_state(run_dir):
    from alphazero.nn.checkpoint import load_checkpoint

    return load_checkpoint(Path(run_dir) / "checkpoints" / "latest.pt").extra


def _scalars(run_dir, tag):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(str(Path(run_dir) / "tb"), size_guidance={"scalars": 0})
    accumulator.Reload()
    return [event.value for event in accumulator.Scalars(tag)] if tag in accumulator.Tags()["scalars"] else []


def _needs_ray():
    return pytest.importorskip("ray", reason='Ray is not installed: pip install -e ".[ray]"')


# ----------------------------------------------------------------------------------------------
# Without Ray


def test_games_packed_as_numpy_arrays_come_back_equal():
    records = _random_records(5, seed=3)
    records[1].root_values = None
    records[2].exact_values = np.where(np.arange(len(records[2])) > len(records[2]) - 4, 1.0, np.nan).astype(np.float32)
    records[3].policy_mask = np.arange(len(records[3])) % 3 == 0  # playout cap randomisation's small searches
    packed = pack_games(records)
    assert all(isinstance(value, np.ndarray) for key, value in packed.items() if key != "metadata")
    assert packed["offsets"][-1] == sum(len(r) for r in records) == len(packed["actions"])
    back = unpack_games(packed)
    assert len(back) == len(records)
    for original, copy in zip(records, back):
        assert copy.start == original.start and copy.black_margin == original.black_margin and copy.metadata == original.metadata
        np.testing.assert_array_equal(copy.actions, original.actions)
        np.testing.assert_array_equal(copy.policies, original.policies)
        for name in ("root_values", "exact_values", "policy_mask"):
            if getattr(original, name) is None:
                assert getattr(copy, name) is None, name
            else:
                np.testing.assert_array_equal(getattr(copy, name), getattr(original, name))
    assert unpack_games(pack_games([])) == []


@pytest.mark.parametrize("address", ["foo", "host:", ":6379", "10.0.0.1:70000", "10.0.0.1:port"])
def test_a_bad_ray_address_is_refused_naming_the_key(address):
    with pytest.raises(ConfigValueError, match="ray.address must be auto, local or HOST:PORT"):
        RayConfig(address=address)


def test_good_ray_addresses_are_accepted():
    for address in ("auto", "local", "10.0.0.1:6379", "head.example.org:6380"):
        assert RayConfig(address=address).address == address


def test_bad_ray_values_are_refused_in_one_line_before_anything_starts(tmp_path):
    run_dir = tmp_path / "run"
    for override, expected in (("ray.address=nowhere", "ray.address must be"), ("selfplay.backend=rey", "selfplay.backend must be one of local, ray"),
                               ("ray.max_restarts=-2", "ray.max_restarts must be >= -1")):
        proc = subprocess.run([sys.executable, "-m", "alphazero.train", "experiment=smoke", f"run.dir={run_dir}", override],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 2, proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and expected in lines[0], proc.stderr
        assert not run_dir.exists()


def test_backend_ray_without_ray_installed_is_refused_naming_the_extra(tmp_path, monkeypatch):
    from alphazero.train.schema import register_configs
    from alphazero.train.startup import StartRefused, check_command_line

    register_configs()
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(StartRefused) as refused:
        check_command_line(["experiment=smoke", f"run.dir={tmp_path / 'run'}", "selfplay.backend=ray", "ray.address=local"], CONF_DIR)
    message = str(refused.value)
    assert 'pip install -e ".[ray]"' in message and "\n" not in message
    # the local backend does not need it
    check_command_line(["experiment=smoke", f"run.dir={tmp_path / 'run'}"], CONF_DIR)


def test_backend_ray_with_a_ray_that_breaks_on_import_is_refused_in_one_line(tmp_path):
    """A Ray whose import raises something else than ImportError (a protobuf of another version:
    TypeError "Descriptors cannot be created directly") was a traceback from the start check."""
    shim = tmp_path / "shim" / "ray"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text('raise TypeError("Descriptors cannot be created directly.\\nIf this call came from a _pb2.py file")\n')
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(shim.parent), str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-m", "alphazero.train", "experiment=smoke", f"run.dir={tmp_path / 'run'}", "selfplay.backend=ray"],
                          capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "fails to import (TypeError: Descriptors cannot be created directly.)" in lines[0], proc.stderr
    assert 'pip install -e ".[ray]"' in lines[0] and not (tmp_path / "run").exists()


@pytest.mark.ray
def test_a_cluster_address_where_nothing_listens_stops_the_run_in_one_line(tmp_path):
    _needs_ray()
    env = dict(os.environ, RAY_AUTH_MODE="disabled")
    proc = subprocess.run([sys.executable, "-m", "alphazero.train", "experiment=smoke", f"run.dir={tmp_path / 'run'}", "selfplay.backend=ray",
                           f"ray.address=127.0.0.1:{_free_port()}", "run.progress=false"], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot join the Ray cluster at ray.address=127.0.0.1:" in lines[0] and "ray start --head" in lines[0], proc.stderr
    # Refused by the start check: no run directory set up (it used to hold a new run's best.json,
    # config.yaml and log.txt, so the same command with the right address was refused as a start
    # over an existing run).
    assert not (tmp_path / "run").exists()


@pytest.mark.ray
def test_ray_address_auto_that_finds_no_head_is_refused_before_the_run_directory_exists(tmp_path):
    """ray.address=auto resolves as ray.init does (here through RAY_ADDRESS): a head that is gone
    was refused by the pool, after the setup had made a new run of the directory."""
    _needs_ray()
    port = _free_port()
    env = dict(os.environ, RAY_AUTH_MODE="disabled", RAY_ADDRESS=f"127.0.0.1:{port}", RAY_TMPDIR=str(tmp_path / "ray"))
    proc = subprocess.run([sys.executable, "-m", "alphazero.train", "experiment=smoke", f"run.dir={tmp_path / 'run'}", "selfplay.backend=ray",
                           "ray.address=auto", "run.progress=false"], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot join the Ray cluster at ray.address=auto: nothing answers at " in lines[0], proc.stderr
    assert f":{port}, where auto leads (" in lines[0]  # Ray names this machine by its IP, not 127.0.0.1
    assert not (tmp_path / "run").exists()


# ----------------------------------------------------------------------------------------------
# An in-process Ray (ray.address=local)


def _smoke_config(**selfplay):
    from alphazero.bench.selfplay import load_preset

    cfg = load_preset("smoke")
    return cfg, dataclasses.replace(cfg.selfplay, backend="ray", **selfplay)


def _poll_until_done(pool, timeout=240):
    messages, deadline = [], time.monotonic() + timeout
    while any(task is not None for task in pool.current.values()):
        assert time.monotonic() < deadline, f"tasks not done in {timeout}s: {pool.current} remaining {pool.remaining}"
        batch = pool.poll(timeout=0.5)
        errors = [report.message for report in batch if isinstance(report, ErrorReport)]
        assert not errors, errors[0]
        messages.extend(batch)
    return messages


@pytest.mark.ray
def test_pool_on_local_ray_writes_shards_switches_networks_and_replaces_a_killed_actor(tmp_path, monkeypatch, caplog):
    ray = _needs_ray()
    import torch

    from alphazero.nn.checkpoint import build_network
    from alphazero.replay.buffer import ReplayBuffer
    from alphazero.replay.shard import read_records
    from alphazero.selfplay.ray_backend import RayWorkerPool

    temp = tempfile.mkdtemp(prefix="azr-", dir="/tmp")
    monkeypatch.setenv("RAY_TMPDIR", temp)  # not the machine's /tmp/ray
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")  # else Ray writes a token into ~/.ray that later clusters pick up
    cfg, selfplay = _smoke_config(workers=2, games_per_shard=2)
    torch.manual_seed(0)
    net = build_network(cfg.model).eval()
    run_dir = tmp_path / "run"
    pool = RayWorkerPool(str(run_dir), selfplay, cfg.mcts, RayConfig(address="local"), seed=1, network=(0, net))
    try:
        assert ray.is_initialized()
        assert pool.dashboard is None or pool.dashboard.startswith("http")
        for worker in range(2):
            pool.assign(worker, 5)
        messages = _poll_until_done(pool)
        shards = [report for report in messages if isinstance(report, ShardReport)]
        assert sum(s.games for s in shards) >= 10
        assert {type(report) for report in messages} >= {ShardReport, ProgressReport, DoneReport}
        replay = ReplayBuffer(run_dir / "replay", window_positions=100_000)
        assert replay.total_games == sum(s.games for s in shards)
        # positions as the local workers count them (plies, forced passes included), split by node
        assert sum(s.positions for s in shards) == sum(sum(s.nodes.values()) for s in shards) >= replay.total_positions > 0
        first = set(os.listdir(run_dir / "replay"))
        assert all(name.startswith("shard-") and "-ray" in name for name in first if name.endswith(".npz"))

        # A new network reaches the actors through the object store: the next games carry its id.
        net.load_state_dict(build_network(cfg.model).state_dict())
        pool.publish(1, net)
        for worker in range(2):
            pool.assign(worker, 2)
        _poll_until_done(pool)
        new = [name for name in os.listdir(run_dir / "replay") if name.endswith(".npz") and name not in first]
        ids = {record.metadata["network_id"] for name in new for record in read_records(run_dir / "replay" / name)}
        assert ids == {1}

        # SIGKILL one actor's process in the middle of a task: the task completes anyway, the
        # actor comes back, and every shard on disk is whole.
        pid = ray.get(pool._actors[0].hello.remote())["pid"]
        for worker in range(2):
            pool.assign(worker, 6)
        deadline = time.monotonic() + 60
        while not any(isinstance(report, ProgressReport) and report.worker == 0 for report in pool.poll(timeout=0.5)):
            assert time.monotonic() < deadline, "actor 0 reported no progress"
        os.kill(pid, signal.SIGKILL)
        _poll_until_done(pool)
        assert pool.restarts >= 1
        deadline = time.monotonic() + 120
        while pool._state[0] != "up":
            assert time.monotonic() < deadline, "the killed actor did not come back"
            pool.poll(timeout=0.5)
        assert ray.get(pool._actors[0].hello.remote(), timeout=60)["pid"] != pid

        # SIGKILL an idle actor (no call in flight, as while a synchronous run trains): Ray restarts
        # it before any call of the pool fails, so only the next answer's process tells; it is
        # counted and logged once.
        idle_pid = ray.get(pool._actors[1].hello.remote(), timeout=60)["pid"]
        os.kill(idle_pid, signal.SIGKILL)
        deadline = time.monotonic() + 120
        while True:
            assert time.monotonic() < deadline, "Ray did not restart the killed idle actor"
            try:
                if ray.get(pool._actors[1].hello.remote(), timeout=30)["pid"] != idle_pid:
                    break
            except Exception:  # noqa: BLE001 - still restarting
                time.sleep(0.5)
        restarts = pool.restarts
        with caplog.at_level("WARNING", logger="alphazero.selfplay.ray_backend"):
            for worker in range(2):
                pool.assign(worker, 4)
            _poll_until_done(pool)
        assert pool.restarts == restarts + 1
        assert caplog.text.count("self-play actor 1 on node") == 1 and f"restarted by Ray between calls (pid {idle_pid}, now" in caplog.text
        total = ReplayBuffer(run_dir / "replay", window_positions=100_000)
        assert total.total_games >= 10 + 4 + 12 + 8 and not (run_dir / "replay" / "quarantine").exists()
    finally:
        pool.close()
        shutil.rmtree(temp, ignore_errors=True)
    assert not ray.is_initialized()  # the pool that started Ray stops it


@pytest.mark.ray
def test_pool_on_local_ray_evaluates_through_the_nodes_inference_server_which_survives_a_kill(tmp_path, monkeypatch):
    ray = _needs_ray()
    import glob

    import torch

    from alphazero.nn.checkpoint import build_network
    from alphazero.replay.shard import read_records
    from alphazero.selfplay.channel_files import PREFIX, shared_directory
    from alphazero.selfplay.ray_backend import RayWorkerPool

    temp = tempfile.mkdtemp(prefix="azr-", dir="/tmp")
    monkeypatch.setenv("RAY_TMPDIR", temp)
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    cfg, selfplay = _smoke_config(workers=2, games_per_shard=2, inference_server=True)
    torch.manual_seed(0)
    net = build_network(cfg.model).eval()
    run_dir = tmp_path / "run"
    pool = RayWorkerPool(str(run_dir), selfplay, cfg.mcts, RayConfig(address="local"), seed=1, network=(0, net))
    channels = []
    try:
        deadline = time.monotonic() + 120
        while pool.server_stats() is None:  # the node's server starts once an actor is up there
            assert time.monotonic() < deadline, "no inference server came up"
            pool.poll(timeout=0.5)
        (server,) = pool._servers.values()
        channels = glob.glob(str(shared_directory() / f"{PREFIX}{pool._channels_token}*"))
        assert sorted(path.rsplit("-", 1)[-1].rsplit(".", 1)[-1] for path in channels) == ["owner", "slots"]  # owner file, slots
        before = pool.server_stats()
        for worker in range(2):
            pool.assign(worker, 4)
        _poll_until_done(pool)
        after = pool.server_stats()
        assert after["calls"] > before["calls"] and after["positions"] > before["positions"]

        # SIGKILL the server: Ray restarts it on the node, it attaches to the same slots, gets the
        # network again, and the actors' games go on through it.
        pid = ray.get(server["actor"].set_network.remote(*pool._network[:1], [pool._network[1]]))["pid"]
        os.kill(pid, signal.SIGKILL)
        net.load_state_dict(build_network(cfg.model).state_dict())
        pool.publish(1, net)
        for worker in range(2):
            pool.assign(worker, 4)
        _poll_until_done(pool)
        deadline = time.monotonic() + 120
        while server["state"] != "up" or server["network_id"] != 1:
            assert time.monotonic() < deadline, "the inference server did not come back"
            pool.poll(timeout=0.5)
            (server,) = pool._servers.values()
        assert pool.restarts >= 1
        stats = pool.server_stats()
        for worker in range(2):
            pool.assign(worker, 4)
        _poll_until_done(pool)
        assert pool.server_stats()["calls"] > stats["calls"]
        newest = sorted(name for name in os.listdir(run_dir / "replay") if name.endswith(".npz"))[-1]
        assert {r.metadata["network_id"] for r in read_records(run_dir / "replay" / newest)} == {1}
    finally:
        pool.close()
        shutil.rmtree(temp, ignore_errors=True)
    assert channels and not any(os.path.exists(path) for path in channels)  # the server's files removed, its owner file too


# ----------------------------------------------------------------------------------------------
# A real two-node cluster on loopback addresses


def _free_port() -> int:
    """A free TCP port outside Ray's default worker port range (10002-19999)."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if not 10002 <= port <= 19999:
            return port


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _processes_using(directory: str) -> set[int]:
    """Processes whose command line names `directory` (this test's Ray temp dir): its raylets,
    GCS, agents and workers, and no one else's."""
    pids = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as handle:
                    if directory.encode() in handle.read():
                        pids.add(int(entry))
            except OSError:
                continue
    return pids


def _ray_command() -> str:
    """The `ray` command of this interpreter's environment (a venv's own, not another one on PATH)."""
    beside = Path(sys.executable).parent / "ray"
    return str(beside) if beside.exists() else (shutil.which("ray") or "ray")


class _Node:
    """`ray start --block` in its own session: SIGTERM stops its node; kill() is a node crash."""

    def __init__(self, args: list[str], env: dict, log_path: Path):
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen([_ray_command(), "start", "--block", *args], env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)

    def kill(self) -> None:
        """SIGKILL the node's every process at once (its raylet, agents and the workers of its actors)."""
        pids = _descendants(self.proc.pid) | {self.proc.pid}
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            pids = _descendants(self.proc.pid)
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                pids |= {self.proc.pid}
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.log.close()


def _wait_for(predicate, timeout: float, what: str, proc=None):
    deadline = time.monotonic() + timeout
    while not predicate():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the training exited ({proc.returncode}) while waiting for {what}")
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)


@pytest.mark.ray
def test_smoke_run_on_a_two_node_cluster_fills_the_buffer_trains_and_survives_losing_a_node(tmp_path):
    _needs_ray()
    from alphazero.replay.buffer import ReplayBuffer

    temp = tempfile.mkdtemp(prefix="azr-", dir="/tmp")  # short: Ray's socket paths live under it
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
               RAY_TMPDIR=temp, RAY_AUTH_MODE="disabled", PYTHONUNBUFFERED="1")
    port = _free_port()
    common = ["--num-cpus", "1", "--object-store-memory", str(100 * 2**20), "--disable-usage-stats"]
    head = _Node(["--head", "--port", str(port), "--node-ip-address", "127.0.0.2", "--temp-dir", f"{temp}/head",
                  "--include-dashboard=false", "--dashboard-port", str(_free_port()), "--ray-client-server-port", str(_free_port()),
                  "--dashboard-agent-listen-port", str(_free_port()), *common], env, tmp_path / "head.log")
    nodes = [head]
    training = None
    run_dir = tmp_path / "run"
    try:
        _wait_for(lambda: "Ray runtime started" in (tmp_path / "head.log").read_text(), 120, "the head node")
        second = _Node(["--address", f"127.0.0.2:{port}", "--node-ip-address", "127.0.0.3", "--temp-dir", f"{temp}/worker",
                        "--dashboard-agent-listen-port", str(_free_port()), *common], env, tmp_path / "worker.log")
        nodes.append(second)
        _wait_for(lambda: "Ray runtime started" in (tmp_path / "worker.log").read_text(), 120, "the second node")

        command = [sys.executable, "-m", "alphazero.train", "experiment=smoke", f"run.dir={run_dir}", "run.max_iterations=3",
                   "selfplay.backend=ray", f"ray.address=127.0.0.2:{port}", "selfplay.workers=2", "eval.every_steps=0", "run.progress=false"]
        training = subprocess.Popen(command, env=env, stdout=open(tmp_path / "train.out", "w"), stderr=subprocess.STDOUT, cwd=tmp_path)
        log = run_dir / "log.txt"

        def log_text():
            return log.read_text() if log.exists() else ""

        # Both nodes play (one actor each: one CPU each, spread), then the second node dies.
        _wait_for(lambda: "is up on node 127.0.0.3" in log_text() and "is up on node 127.0.0.2" in log_text(), 240, "both actors", training)
        _wait_for(lambda: "iter 1 |" in log_text(), 300, "the first iteration", training)
        second.kill()
        training.wait(timeout=420)
        output = (tmp_path / "train.out").read_text()
        assert training.returncode == 0, output[-4000:]
    finally:
        if training is not None and training.poll() is None:
            training.kill()
            training.wait(10)
        for node in reversed(nodes):
            node.stop()
        leftover = _processes_using(temp)
        for pid in leftover:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(temp, ignore_errors=True)
    assert not leftover, f"processes of the test's Ray still running after ray start was stopped: {sorted(leftover)}"

    text = (run_dir / "log.txt").read_text()
    assert re.search(r"self-play actor \d on node 127\.0\.0\.3 is gone", text), text[-3000:]
    state = _latest_state(run_dir)
    assert state["iteration"] == 3 and state["step"] > 0
    replay = ReplayBuffer(run_dir / "replay", window_positions=100_000)
    assert replay.total_games >= 3 * 8
    status = [line for line in text.splitlines() if " | games " in line]
    assert "127.0.0.3" in status[0] and "127.0.0.2" in status[0]
    assert "127.0.0.3" not in status[-1] and "127.0.0.2" in status[-1]  # the last iteration played on the head alone
    assert _scalars(run_dir, "selfplay/positions_per_s/node_127.0.0.2") and _scalars(run_dir, "selfplay/positions_per_s/node_127.0.0.3")
    assert _scalars(run_dir, "loss/total")


@pytest.mark.ray
def test_selfplay_bench_measures_the_ray_backend(monkeypatch):
    _needs_ray()
    from alphazero.bench import selfplay

    temp = tempfile.mkdtemp(prefix="azr-", dir="/tmp")
    monkeypatch.setenv("RAY_TMPDIR", temp)
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    try:
        result = selfplay.main(["--preset", "smoke", "--backend", "ray", "--ray-address", "local", "--seconds", "4", "--warmup", "0",
                                "--network-seconds", "0.3"])
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    assert result["backend"] == "ray" and result["workers"] == 1
    assert result["positions_per_second"] > 0 and result["pipeline_evals_per_second"] > 0
    assert 0 < result["mean_batch"] <= 8
