"""The checkpoints of a run directory: `latest.pt`, `best.pt` (+ `best.json`), numbered files.

    checkpoints/latest.pt          network + optimizer + scheduler + RunState (resume point)
    checkpoints/step-0001500.pt    numbered copies of latest, every train.checkpoint_every_steps
    checkpoints/best.pt            the network the self-play workers use
    checkpoints/best.json          {"id", "path", "elo", "step"}: cheap for workers to poll
    checkpoints/net-000003.pt      every network that ever became best, by id

Every file is written atomically (alphazero.nn.checkpoint writes to a temp file and renames), and
`best.json` is written after the network it points to, so a reader never sees a pointer to a
missing or half-written file.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from alphazero.faults.hooks import fault_point
from alphazero.nn.checkpoint import load_checkpoint, save_checkpoint


def checkpoint_dir(run_dir) -> Path:
    return Path(run_dir) / "checkpoints"


def write_json_atomic(path: Path, data: dict) -> None:
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(data, handle, indent=2)
            handle.flush()
            os.fsync(handle.fileno())
        fault_point("checkpoint_write", path)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_best_pointer(run_dir) -> dict:
    path = checkpoint_dir(run_dir) / "best.json"
    try:
        with open(path) as handle:
            pointer = json.load(handle)
    except FileNotFoundError:
        raise FileNotFoundError(f"{path} is missing: the run has no best network yet") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{path} is not valid JSON ({err}); restore it from checkpoints/net-*.pt") from None
    pointer["path"] = str(checkpoint_dir(run_dir) / pointer["file"])
    return pointer


def publish_best(run_dir, net, network_id: int, elo: float, step: int) -> dict:
    """Make `net` the best network: numbered file, best.pt, then the pointer (in that order)."""
    directory = checkpoint_dir(run_dir)
    directory.mkdir(parents=True, exist_ok=True)
    meta = {"network_id": network_id, "elo": elo, "step": step}
    save_checkpoint(directory / f"net-{network_id:06d}.pt", net, extra=meta)
    save_checkpoint(directory / "best.pt", net, extra=meta)
    pointer = {"id": network_id, "file": "best.pt", "elo": elo, "step": step}
    write_json_atomic(directory / "best.json", pointer)
    return pointer


def save_latest(run_dir, net, trainer, run_state: dict, numbered: bool) -> Path:
    directory = checkpoint_dir(run_dir)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "latest.pt"
    save_checkpoint(path, net, extra=run_state, optimizer=trainer.optimizer, scheduler=trainer.scheduler)
    if numbered:
        save_checkpoint(
            directory / f"step-{run_state['step']:07d}.pt", net, extra=run_state, optimizer=trainer.optimizer, scheduler=trainer.scheduler
        )
    return path


def load_latest(run_dir):
    path = checkpoint_dir(run_dir) / "latest.pt"
    if not path.exists():
        return None
    return load_checkpoint(path)
