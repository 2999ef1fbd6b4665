"""Child processes of a training run die with it, and stop only when it tells them to.

A self-play worker or inference server whose training process was SIGKILLed (OOM killer, `kill -9`,
power-cycled container) would otherwise live on as an orphan: still playing its task, still writing
shards into a run directory that a resumed run now owns, and waiting forever for the next task.
`multiprocessing`'s daemon flag does not help there: it acts only when the parent exits normally.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def exit_with_parent() -> None:
    """Have the kernel SIGKILL this process when its parent dies (Linux); exit now if the parent
    is already gone. Call first thing in a spawned child. Elsewhere it does nothing."""
    parent = multiprocessing.parent_process()
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return  # not Linux: no equivalent; the pool's stop event still ends workers on a clean exit
    if parent is not None and os.getppid() != parent.pid:
        os._exit(1)  # the parent died before the request above took effect


def leave_stopping_to_the_parent() -> None:
    """Ignore SIGINT and SIGTERM in a spawned child. Ctrl-C, and the SIGTERM that `timeout`,
    systemd, docker and Slurm send, reach the whole process group; the training process then stops
    its children through their stop event after finishing the unit of work in hand. A child killed
    by the signal instead would lose its games in flight and be taken for a crash and restarted.
    SIGKILL still ends a child at once, and `exit_with_parent` ends it if the parent dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


_PR_SET_NAME = 15  # <linux/prctl.h>


def set_process_name(name: str) -> None:
    """Name this process in /proc/PID/comm (Linux; at most 15 bytes), so that tools and the fault
    suite can tell the inference server from the self-play workers. Elsewhere it does nothing."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_NAME, ctypes.c_char_p(name.encode()[:15]), 0, 0, 0)
    except (OSError, AttributeError):
        pass
