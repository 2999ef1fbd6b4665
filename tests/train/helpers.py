"""Run the training entry point in a subprocess and read back what a run directory holds."""

import os
import subprocess
import sys
from pathlib import Path

from alphazero.nn.checkpoint import load_checkpoint


def train_command(run_dir, *overrides):
    return [sys.executable, "-m", "alphazero.train", "experiment=smoke", f"run.dir={run_dir}", *overrides]


def run_training(run_dir, *overrides, timeout=240):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.run(train_command(run_dir, *overrides), capture_output=True, text=True, timeout=timeout, env=env)
    assert proc.returncode == 0, f"training exited {proc.returncode}\nstdout:\n{proc.stdout[-4000:]}\nstderr:\n{proc.stderr[-4000:]}"
    return proc


def scalars(run_dir, tag):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(Path(run_dir) / "tb"), size_guidance={"scalars": 0})
    acc.Reload()
    if tag not in acc.Tags()["scalars"]:
        return []
    return [(e.step, e.value) for e in acc.Scalars(tag)]


def latest_state(run_dir):
    return load_checkpoint(Path(run_dir) / "checkpoints" / "latest.pt").extra
