"""How a training run stops, as a user sees it: SIGTERM to the whole process group (what `timeout`,
systemd, docker and Slurm send) is a normal stop that restarts nothing; a second Ctrl-C stops at
once with one line saying what was kept and what was lost; the status line shows the iteration's
losses; the self-play bar says what it waits for while workers start."""

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from alphazero.train.metrics import Metrics

from .helpers import train_command

REPO_ROOT = Path(__file__).resolve().parents[2]


def start_run(run_dir: Path, log_path: Path, *overrides) -> subprocess.Popen:
    """A run in its own process group, like a command started from a shell."""
    env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    log = open(log_path, "w")
    return subprocess.Popen(train_command(run_dir, *overrides), stdout=log, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True, stdin=subprocess.DEVNULL)


def wait_for(log_path: Path, text: str, proc: subprocess.Popen, timeout: float = 180) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        content = log_path.read_text()
        if text in content:
            return content
        if proc.poll() is not None:
            pytest.fail(f"run ended (exit {proc.returncode}) before printing {text!r}:\n{content[-3000:]}")
        time.sleep(0.2)
    proc.kill()
    pytest.fail(f"no {text!r} within {timeout} s:\n{log_path.read_text()[-3000:]}")


def group_gone(pgid: int, timeout: float = 15) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.2)
    return False


@pytest.mark.slow  # about 29 s on 2 cores: run by name in .ci/run ("long integration tests")
def test_a_second_ctrl_c_stops_at_once_with_one_line_of_what_was_kept_and_lost(tmp_path):
    log_path = tmp_path / "out.txt"
    # Shards of 8 games at 200 simulations: a worker needs seconds to finish one, so the second
    # Ctrl-C lands while the run is still stopping after the first.
    proc = start_run(tmp_path / "run", log_path, "run.max_iterations=50", "mcts.simulations=200", "selfplay.games_per_shard=8")
    try:
        wait_for(log_path, "iter 1 |", proc, timeout=300)
        os.killpg(proc.pid, signal.SIGINT)
        time.sleep(0.5)
        os.killpg(proc.pid, signal.SIGINT)
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    output = log_path.read_text()
    assert code == 130, output[-3000:]
    assert "Traceback" not in output and "KeyboardInterrupt" not in output, output[-3000:]
    lines = [line for line in output.splitlines() if line.startswith("interrupted:")]
    assert len(lines) == 1
    assert "kept checkpoints/latest.pt at step" in lines[0] and "lost the self-play games in flight" in lines[0]
    assert "run.resume=true" in lines[0]
    assert group_gone(proc.pid)  # no worker left behind finishing its shard


def test_status_line_losses_cover_every_step_since_the_last_report(tmp_path):
    metrics = Metrics(tmp_path / "tb")
    for value in (1.0, 2.0, 3.0):
        metrics.add_losses({"total": value, "policy": value, "value": 0.5})
    assert metrics.take_report_losses() == {"total": 2.0, "policy": 2.0, "value": 0.5}
    assert metrics.take_report_losses() is None  # nothing trained since
    metrics.add_losses({"total": 4.0, "policy": 3.0, "value": 1.0})
    metrics.flush_losses(step=4)  # TensorBoard's flushes do not take the status line's sums
    assert metrics.take_report_losses() == {"total": 4.0, "policy": 3.0, "value": 1.0}
    metrics.close()


@pytest.mark.slow  # about 32 s on 2 cores: run by name in .ci/run ("long integration tests")
def test_sigterm_to_the_process_group_stops_cleanly_keeps_the_games_in_play_and_the_resumed_run_finishes_them(tmp_path):
    """SIGTERM to the whole group (as `timeout`, systemd, docker and Slurm send it; a first Ctrl-C
    is the same) is a normal stop that restarts nothing and loses no game: finished ones are in
    shards, those in play are saved and played on by the resumed run. The same run shows the first
    minutes a user sees: a status line after the first games (before the first iteration ends), a
    loss point at step 1, and a status line with the iteration's losses even when
    run.log_every_steps is above an iteration's steps."""
    from alphazero.replay.shard import read_records
    from alphazero.selfplay.packing import load_games

    from .helpers import latest_state, run_training, scalars

    run_dir, log_path = tmp_path / "run", tmp_path / "out.txt"
    proc = start_run(run_dir, log_path, "run.max_iterations=50", "eval.every_steps=0", "run.log_every_steps=1000")
    try:
        first = wait_for(log_path, "iter 1 |", proc)
        os.killpg(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    output = log_path.read_text()
    status = next(line for line in first.splitlines() if "iter 1 |" in line)
    assert "loss -" not in status and "loss " in status and "(+0)" not in status.split("steps")[1].split("|")[0]
    assert "stop requested (SIGTERM)" in output and "stopped at iteration" in output
    assert "died" not in output and "restarting" not in output, output[-3000:]
    assert "starting 1 self-play worker: " in output  # what it loads or compiles: tests/train/test_first_start.py
    assert group_gone(proc.pid)
    assert output.index("first games |") < output.index("iter 1 |")  # by count: the first shard, not an iteration
    assert "self-play workers playing after" in output
    assert scalars(run_dir, "loss/total")[0][0] == 1
    saved = load_games(run_dir / "selfplay-in-flight" / "w0.npz")
    assert saved and all(record.black_margin is None for record in saved)
    assert f"{len(saved)} games in play were saved" in output

    before = {path.name for path in (run_dir / "replay").glob("*.npz")}
    run_training(run_dir, "run.resume=true", f"run.max_iterations={latest_state(run_dir)['iteration'] + 1}", "eval.every_steps=0")
    finished = [record for path in sorted((run_dir / "replay").glob("*.npz")) if path.name not in before for record in read_records(path)]
    for partial in saved:
        assert any(len(record) > len(partial) and (record.actions[: len(partial)] == partial.actions).all()
                   and record.start == partial.start for record in finished), "a saved game was not played on"
