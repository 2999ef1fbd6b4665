"""Self-play's files in /dev/shm carry a run-unique token, are removed by their owner on every way
out, and the orphan sweep removes only files that no live process holds, whatever PID they name
(alphazero.selfplay.channel_files)."""

import fcntl
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from alphazero.selfplay.channel_files import OWNER_SUFFIX, PREFIX, ChannelFiles, shared_directory, sweep_orphans
from alphazero.selfplay.inference_server import SharedChannels


def _files_of(token: str) -> set[str]:
    return {path.name for path in shared_directory().glob(f"{PREFIX}{token}*")}


def _dead_pid() -> int:
    proc = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    return int(proc.stdout)


def test_files_carry_the_owners_token_and_remove_leaves_nothing():
    files = ChannelFiles(what="test")
    channels = SharedChannels.create(workers=1, capacity=4, files=files)
    assert _files_of(files.token) == {f"{PREFIX}{files.token}{OWNER_SUFFIX}", f"{PREFIX}{files.token}-slots"}
    assert channels.path == files.path("slots")
    assert json.loads((shared_directory() / f"{PREFIX}{files.token}{OWNER_SUFFIX}").read_text())["pid"] == os.getpid()
    files.remove()
    files.remove()  # idempotent
    assert _files_of(files.token) == set()


def test_a_sweep_leaves_the_files_of_a_live_owner_whose_recorded_pid_is_dead():
    # An owner in another PID namespace sharing /dev/shm: the PID its file records is nobody here
    # (dead), but it holds its lock. The old sweep judged by that PID and removed a live run's slots.
    token = "feedc0de" * 4
    owner = shared_directory() / f"{PREFIX}{token}{OWNER_SUFFIX}"
    slots = shared_directory() / f"{PREFIX}{token}-slots"
    fd = os.open(owner, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.write(fd, json.dumps({"pid": _dead_pid(), "host": "elsewhere"}).encode())
        slots.write_bytes(b"\0" * 64)
        assert token not in sweep_orphans()
        ChannelFiles(what="a new run sweeping on start").remove()  # the sweep every new owner runs
        assert owner.exists() and slots.exists()
        fcntl.flock(fd, fcntl.LOCK_UN)  # the owner dies: its lock goes with it
        assert token in sweep_orphans()
        assert not owner.exists() and not slots.exists()
    finally:
        os.close(fd)
        owner.unlink(missing_ok=True)
        slots.unlink(missing_ok=True)


_OWNER_SCRIPT = """
import sys, time
from alphazero.selfplay.channel_files import ChannelFiles
from alphazero.selfplay.inference_server import SharedChannels
files = ChannelFiles(what="test owner")
SharedChannels.create(workers=1, capacity=4, files=files)
print(files.token, flush=True)
sys.stdin.readline()  # the test looked at the files
if sys.argv[1] == "raise":
    raise RuntimeError("an uncaught exception")
if sys.argv[1] == "normal":
    sys.exit(0)
time.sleep(60)
"""


@pytest.mark.parametrize("way_out", ["normal", "raise", "SIGTERM", "SIGKILL"])
def test_an_owner_leaves_no_file_however_it_ends(way_out):
    proc = subprocess.Popen([sys.executable, "-c", _OWNER_SCRIPT, way_out], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        token = proc.stdout.readline().strip()
        assert token, proc.stderr.read()
        assert len(_files_of(token)) == 2
        if way_out.startswith("SIG"):
            proc.send_signal(getattr(signal, way_out))
        else:
            proc.stdin.write("go\n")
            proc.stdin.flush()
        proc.wait(30)
    finally:
        proc.kill()
        proc.wait()
    if way_out == "SIGKILL":  # nothing runs in a process killed outright: the next sweep removes them
        assert len(_files_of(token)) == 2
        assert token in sweep_orphans()
    assert proc.returncode == {"normal": 0, "raise": 1, "SIGTERM": -signal.SIGTERM, "SIGKILL": -signal.SIGKILL}[way_out]
    assert _files_of(token) == set()


def test_a_pool_whose_worker_and_server_were_killed_leaves_no_file_after_close(tmp_path):
    from alphazero.mcts.config import MCTSConfig
    from alphazero.nn.config import model_preset
    from alphazero.nn.model import AlphaZeroNet
    from alphazero.selfplay.config import SelfPlayConfig
    from alphazero.selfplay.pool import WorkerPool
    from alphazero.train import checkpoints

    checkpoints.publish_best(tmp_path, AlphaZeroNet(model_preset("tiny")), 0, 0.0, 0)
    selfplay_cfg = SelfPlayConfig(workers=1, concurrent_games=2, games_per_shard=1, inference_server=True, device="cpu")
    pool = WorkerPool(str(tmp_path), selfplay_cfg, MCTSConfig(simulations=2), seed=0)
    token = pool.files.token
    try:
        assert _files_of(token) == {f"{PREFIX}{token}{OWNER_SUFFIX}", f"{PREFIX}{token}-slots", f"{PREFIX}{token}-stop"}
        pool.assign(0, 0)
        for victim in (pool.processes[0], pool.server.process):
            os.kill(victim.pid, signal.SIGKILL)
            victim.join(10)
        deadline = time.monotonic() + 60
        while pool.restarts < 1 or pool.server.restarts < 1:
            assert time.monotonic() < deadline, "the killed worker and server were not restarted"
            pool.poll(timeout=0.2)
    finally:
        pool.close()
    assert _files_of(token) == set()


def test_a_replacement_owner_takes_over_a_dead_owners_files_instead_of_sweeping_them():
    # A Ray node's server that Ray restarts passes its predecessor's token: the actors still map
    # its slots, so the replacement must keep them (and their requests), not sweep them.
    token = "0123abcd" * 4
    first = ChannelFiles(token, what="server")
    channels = SharedChannels.create(workers=1, capacity=4, files=first)
    channels.header[0, 0] = 7  # a request the predecessor left
    _, _, (_, _, fd), _ = first._remove.detach()
    os.close(fd)  # the predecessor dies: its lock goes, its files stay
    second = ChannelFiles(token, what="its replacement")
    try:
        assert _files_of(token) == {f"{PREFIX}{token}{OWNER_SUFFIX}", f"{PREFIX}{token}-slots"}
        assert SharedChannels(second.path("slots"), 1, 4).header[0, 0] == 7
        assert token not in sweep_orphans()
    finally:
        second.remove()
    assert _files_of(token) == set()
