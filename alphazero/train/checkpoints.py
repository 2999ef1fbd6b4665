"""The checkpoints of a run directory: `latest.pt`, `best.pt` (+ `best.json`), numbered files.

    checkpoints/latest.pt          network + optimizer + scheduler + RunState (resume point)
    checkpoints/step-0001500.pt    numbered copies of latest, every train.checkpoint_every_steps
    checkpoints/best.json          {"id", "file", "elo", "step"}: names the network the self-play
                                   workers use; cheap for them to poll
    checkpoints/net-000003.pt      every network that ever became best, by id
    checkpoints/best.pt            a copy of the best network for people and tools (play, gtp)

Every file is written atomically (alphazero.nn.checkpoint writes to a temp file and renames), and
`best.json` is written after the numbered network it names and is the commit point of a
promotion: a reader never sees a pointer to a missing or half-written file, nor a network under
another network's id. A crash can leave temp files and a best.pt one promotion behind;
`tidy_after_crash` (run at every resume) deals with both.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from alphazero import atomic
from alphazero.best_pointer import checkpoint_dir, read_best_pointer  # noqa: F401 (part of this module's interface)
from alphazero.fault_hooks import fault_point
from alphazero.nn.checkpoint import CheckpointError, load_checkpoint, load_network, save_checkpoint

log = logging.getLogger(__name__)


def write_json_atomic(path: Path, data: dict) -> None:
    atomic.write_json_atomic(path, data, before_rename=lambda _: fault_point("checkpoint_write", path))


def publish_best(run_dir, net, network_id: int, elo: float, step: int) -> dict:
    """Make `net` the best network: its numbered file, the pointer naming that file (the commit
    point), then the best.pt copy (in that order)."""
    directory = checkpoint_dir(run_dir)
    directory.mkdir(parents=True, exist_ok=True)
    meta = {"network_id": network_id, "elo": elo, "step": step}
    numbered = f"net-{network_id:06d}.pt"
    save_checkpoint(directory / numbered, net, extra=meta)
    pointer = {"id": network_id, "file": numbered, "elo": elo, "step": step}
    write_json_atomic(directory / "best.json", pointer)
    save_checkpoint(directory / "best.pt", net, extra=meta)
    return pointer


def tidy_after_crash(run_dir) -> None:
    """Undo what a crash can leave in checkpoints/; call with the run lock held (no writer live).

    Temp files of interrupted writes are deleted (each is a whole checkpoint's worth of disk), and
    a best.pt that a crash left behind the pointer is copied again from the network it names.
    """
    directory = checkpoint_dir(run_dir)
    if not directory.is_dir():
        return
    remove_temp_files(directory)
    try:
        pointer = read_best_pointer(run_dir)
    except FileNotFoundError:
        return
    copy = directory / "best.pt"
    if pointer["file"] == copy.name:
        return  # a pointer written before best.pt became a copy
    try:
        copied_id = load_checkpoint(copy).extra.get("network_id")
    except CheckpointError:
        copied_id = None
    if copied_id != pointer["id"]:
        source = load_checkpoint(pointer["path"])
        save_checkpoint(copy, load_network(pointer["path"]), extra=source.extra)
        log.info("best.pt held network #%s, best.json names #%d: copied %s to best.pt again", copied_id, pointer["id"], pointer["file"])


def remove_temp_files(directory: Path) -> None:
    """Delete the temp files that writes interrupted by a crash left in `directory` (each is a
    whole checkpoint's worth of disk; `alphazero.atomic` never renames one into place after a
    restart). Call with the run lock held, so that no live writer owns them."""
    stale = [entry.path for entry in os.scandir(directory) if entry.name.endswith(".tmp") and entry.is_file()]
    for path in stale:
        os.unlink(path)
    if stale:
        log.info("removed %d temp file(s) of interrupted checkpoint writes: %s", len(stale), sorted(os.path.basename(p) for p in stale))


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
    """The resume point, or None where there is none; CheckpointError for an unusable latest.pt,
    saying what to do about it (`unusable_latest_hint`).

    A missing latest.pt beside numbered copies of it is unusable too, not "none": it is written
    before them, so the run had one and lost it, and a resume without it would count steps from 0
    again and overwrite those copies (step-0000010.pt, ...) with the new session's."""
    path = checkpoint_dir(run_dir) / "latest.pt"
    if not path.exists():
        if not any(checkpoint_dir(run_dir).glob("step-*.pt")):
            return None
        raise CheckpointError(f"checkpoint {path} is missing but numbered copies of it are beside it; {unusable_latest_hint(run_dir)}")
    try:
        return load_checkpoint(path)
    except CheckpointError as error:
        raise CheckpointError(f"{error}; {unusable_latest_hint(run_dir)}") from None


def unusable_latest_hint(run_dir) -> str:
    """What to do when latest.pt cannot be read: copy the newest numbered copy that loads over it
    (the steps after it are lost; the games played since are still in replay/), or, without one,
    start a new run from the best network (a resume without latest.pt would count steps from 0
    again under the run's old curves)."""
    directory = checkpoint_dir(run_dir)
    for candidate in sorted(directory.glob("step-*.pt"), reverse=True):
        try:
            step = load_checkpoint(candidate).extra.get("step")
        except CheckpointError:
            continue
        return (
            f"to resume from the newest readable numbered copy beside it (step {step}), copy it over latest.pt: "
            f"cp {candidate} {directory / 'latest.pt'}"
        )
    return (
        "no readable step-*.pt beside it (train.checkpoint_every_steps writes them): to go on from the run's best "
        f"network, start a new run from it: train.init_from={directory / 'best.pt'} run.dir=NEW_DIR"
    )
