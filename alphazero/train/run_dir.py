"""A run directory: its layout, its lock, its log file and its saved config.

    <run>/config.yaml     the resolved config
    <run>/.hydra/         Hydra's record of the start: config.yaml, hydra.yaml, overrides.yaml
                          (rewritten by each resume, so it shows the latest command line)
    <run>/checkpoints/    see alphazero.train.checkpoints
    <run>/replay/         replay shards (alphazero.replay)
    <run>/tb/             TensorBoard events
    <run>/log.txt         the plain-text log (same lines as the console)
    <run>/run.lock        held (flock) while a training process uses the directory
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import sys
from pathlib import Path
from typing import Callable, ContextManager


class RunDirectoryError(RuntimeError):
    """The run directory cannot be used as asked (locked, missing for resume, not empty, ...)."""


class DiskFullError(RunDirectoryError):
    """A write into the run directory failed for lack of space. The run stops at once; every file
    is written to a temporary name and renamed, so what is on disk stays whole and resumable."""

    def __init__(self, where):
        super().__init__(f"disk full while writing {where}: free space and resume with run.resume=true")


class RunLock:
    """An exclusive flock on <run>/run.lock. The kernel drops it when the process dies, even by
    SIGKILL, so a crashed run never leaves a stale lock behind."""

    def __init__(self, run_dir: Path):
        self.path = Path(run_dir) / "run.lock"
        self.handle = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            owner = handle.read().strip() or "unknown"
            handle.close()
            raise RunDirectoryError(
                f"run directory {self.path.parent} is in use by another training process ({owner}); "
                "stop that run or choose another run.dir"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}\n")
        handle.flush()
        self.handle = handle

    def release(self) -> None:
        if self.handle is not None:
            fcntl.flock(self.handle, fcntl.LOCK_UN)
            self.handle.close()
            self.handle = None


def holds_run(run_dir: Path) -> bool:
    """Whether a training run has saved anything in `run_dir` (its best-network pointer or latest.pt)."""
    return (run_dir / "checkpoints" / "best.json").exists() or (run_dir / "checkpoints" / "latest.pt").exists()


def lock_holder(run_dir: Path) -> str | None:
    """Who holds <run>/run.lock, or None when nobody does. Read-only: the file is opened for
    reading, never created or written, so asking changes nothing on disk."""
    path = Path(run_dir) / "run.lock"
    try:
        handle = open(path)
    except OSError:
        return None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return handle.read().strip() or "unknown"
        fcntl.flock(handle, fcntl.LOCK_UN)
    return None


def check(run_dir: Path, resume: bool) -> None:
    """Refuse a start that does not fit the directory, touching nothing: resume needs a run there,
    a new run needs none, and nobody may be using it."""
    if run_dir.exists() and not run_dir.is_dir():
        raise RunDirectoryError(f"run.dir {run_dir} is a file, not a directory; choose a directory (new or holding a run)")
    has_run = holds_run(run_dir)
    if resume and not has_run:
        raise RunDirectoryError(f"run.resume=true but {run_dir} holds no run (no checkpoints/best.json); drop run.resume or fix run.dir")
    if not resume and has_run:
        raise RunDirectoryError(
            f"{run_dir} already holds a run; add run.resume=true to continue it, or choose another run.dir"
        )
    owner = lock_holder(run_dir)
    if owner is not None:
        raise RunDirectoryError(
            f"run directory {run_dir} is in use by another training process ({owner}); stop that run or choose another run.dir"
        )


def make_layout(run_dir: Path) -> None:
    """Create the run's subdirectories (after `check` accepted the start and the lock is held)."""
    for sub in ("checkpoints", "replay", "tb"):
        (run_dir / sub).mkdir(parents=True, exist_ok=True)


class _ConsoleHandler(logging.StreamHandler):
    """The console's handler: each record written inside `guard()` (a status line on the same
    terminal taken out of its way, see alphazero.console.TickingLine.cleared)."""

    def __init__(self, stream, guard: Callable[[], ContextManager] | None):
        super().__init__(stream)
        self.guard = guard or contextlib.nullcontext

    def emit(self, record: logging.LogRecord) -> None:
        with self.guard():
            super().emit(record)


def setup_logging(run_dir: Path, console_guard: Callable[[], ContextManager] | None = None) -> logging.Logger:
    """Console and <run>/log.txt get the same lines; `console_guard`: see _ConsoleHandler."""
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    formatter = logging.Formatter("%(asctime)s %(levelname)s %(message)s", "%Y-%m-%d %H:%M:%S")
    for handler in list(root.handlers):
        if getattr(handler, "_alphazero", False):
            root.removeHandler(handler)
    file_handler = logging.FileHandler(run_dir / "log.txt")
    console = _ConsoleHandler(sys.stdout, console_guard)
    for handler in (file_handler, console):
        handler.setFormatter(formatter)
        handler._alphazero = True
        root.addHandler(handler)
    # Hydra installs its own console handler; keep one copy of each line.
    for handler in list(root.handlers):
        if not getattr(handler, "_alphazero", False):
            root.removeHandler(handler)
    return logging.getLogger("alphazero.train")
