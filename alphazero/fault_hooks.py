"""Fault-injection points: `fault_point(phase)` does nothing unless ALPHAZERO_FAULT asks for a fault.

    ALPHAZERO_FAULT="phase:count[:action][,phase:count[:action]...]"

At the `count`-th entry (1-based, counted per process) of `phase`, `action` happens:

    kill     (default) SIGKILL the run: from a self-play worker (a spawned child process) its
             parent first, then the process itself, so the whole run dies mid-phase as if the
             machine had lost power or the OOM killer had struck.
    enospc   raise OSError(ENOSPC) at this entry and every later one of the phase, as a full disk
             does (the space does not come back by itself).
    raise    raise InjectedFault (a RuntimeError) at this entry and every later one of the phase,
             as a bug at that point would: the process handles it as any other exception (a
             self-play worker reports its traceback and dies, and its replacement, counting its
             own entries from 1, raises again at the same point: a crash loop, which the pool's
             restart budget must stop; alphazero.selfplay.restarts).

Phases and where they sit:

    selfplay           each batched move step of a self-play worker (alphazero.selfplay.games)
    train_step         before each optimiser step (alphazero.train.loop)
    shard_write        a replay shard's temp file is written and synced, not yet renamed
                       (alphazero.replay.shard.save_shard)
    checkpoint_write   the same point of every checkpoint file and of best.json
                       (alphazero.nn.checkpoint.save_checkpoint, alphazero.train.checkpoints)
    arena              entering gating or baseline evaluation (alphazero.train.loop)
    server_batch       each batch the local inference server is about to evaluate
                       (alphazero.selfplay.inference_server.server_main; the Ray backend's node
                       servers do not pass through it)

Unset, `fault_point` is one global load and a comparison: the plan is parsed once at import, so
the hot paths pay nothing measurable. A malformed value fails at import with a ValueError naming
the variable, never silently injecting nothing.
"""

from __future__ import annotations

import errno
import multiprocessing
import os
import signal
from dataclasses import dataclass

ENV_VAR = "ALPHAZERO_FAULT"
PHASES = ("selfplay", "train_step", "shard_write", "checkpoint_write", "arena", "server_batch")
ACTIONS = ("kill", "enospc", "raise")
FIRED_MESSAGE = "alphazero fault injection:"  # every fired fault writes a line starting so to stderr


class InjectedFault(RuntimeError):
    """The exception of the `raise` action: a bug, as far as the process that meets it knows."""


@dataclass(frozen=True)
class Fault:
    phase: str
    count: int
    action: str = "kill"

    def spec(self) -> str:
        return f"{self.phase}:{self.count}:{self.action}"


def parse_plan(text: str | None) -> dict[str, Fault] | None:
    """`ALPHAZERO_FAULT`'s value -> {phase: Fault}, or None when unset or empty."""
    if not text or not text.strip():
        return None
    plan = {}
    for item in text.split(","):
        parts = item.strip().split(":")
        if len(parts) not in (2, 3):
            raise ValueError(f"{ENV_VAR}: {item!r} is not phase:count[:action]")
        phase, count, action = parts[0], parts[1], parts[2] if len(parts) == 3 else "kill"
        if phase not in PHASES:
            raise ValueError(f"{ENV_VAR}: unknown phase {phase!r}; expected one of {', '.join(PHASES)}")
        if not count.isdigit() or int(count) < 1:
            raise ValueError(f"{ENV_VAR}: count {count!r} in {item!r} must be an integer >= 1")
        if action not in ACTIONS:
            raise ValueError(f"{ENV_VAR}: unknown action {action!r} in {item!r}; expected one of {', '.join(ACTIONS)}")
        if phase in plan:
            raise ValueError(f"{ENV_VAR}: phase {phase!r} appears twice")
        plan[phase] = Fault(phase, int(count), action)
    return plan


def format_plan(faults) -> str:
    """The ALPHAZERO_FAULT value for `faults` (an iterable of Fault)."""
    return ",".join(fault.spec() for fault in faults)


_plan = parse_plan(os.environ.get(ENV_VAR))
_entries: dict[str, int] = {}


def fault_point(phase: str, path=None) -> None:
    """Mark an entry into `phase` (`path`: the file being written, for the ENOSPC message)."""
    if _plan is None:
        return
    _enter(phase, path)


def _enter(phase: str, path) -> None:
    fault = _plan.get(phase)
    if fault is None:
        return
    entries = _entries[phase] = _entries.get(phase, 0) + 1
    if entries < fault.count:
        return
    if fault.action == "enospc":
        _announce(f"ENOSPC at {phase} entry {entries}" + (f" ({path})" if path is not None else ""))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), None if path is None else str(path))
    if fault.action == "raise":
        _announce(f"raise at {phase} entry {entries}")
        raise InjectedFault(f"{ENV_VAR}={fault.spec()}: injected error at {phase} entry {entries}")
    if entries == fault.count:
        _kill_run(f"{phase} entry {entries}")


def _announce(what: str) -> None:
    os.write(2, f"{FIRED_MESSAGE} {what} (pid {os.getpid()})\n".encode())


def _kill_run(what: str) -> None:
    parent = multiprocessing.parent_process()
    _announce(f"SIGKILL at {what}" + (f", parent {parent.pid} first" if parent is not None else ""))
    if parent is not None and parent.pid:
        try:
            os.kill(parent.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    os.kill(os.getpid(), signal.SIGKILL)
