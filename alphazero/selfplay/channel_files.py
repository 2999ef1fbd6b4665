"""The files self-play keeps in shared memory (/dev/shm), who owns them, and who may remove them.

The inference server's slots (`inference_server.SharedChannels`), the pool's stop flag
(`pool.StopFlag`) and a dying server's traceback are files in /dev/shm (or $TMPDIR without it).
A process killed outright (SIGKILL, the OOM killer) cannot remove them, so every new set of files
first sweeps the orphans; the sweep must never remove the files of a run that is alive, even one
in another PID namespace (a container) that shares /dev/shm, where a PID means nothing.

Names and ownership. Each owner (a local pool, or a Ray node's inference server) has a token
(`new_token`: 32 hex digits, unique per run and owner) and names its files

    alphazero-channels-<token>.owner     the owner file: created first, removed last
    alphazero-channels-<token>-<name>    its files (slots, stop, slots-error)

The owner holds an exclusive `flock` on its owner file for as long as it lives. The kernel drops
that lock when the process dies, however it dies, and the lock is seen across PID namespaces on
the same kernel, so "the lock is free" is exactly "no live process owns these files". The owner
file also says, as text, which process made it (pid, host, what), for a person looking at
/dev/shm.

Removal. The owner removes its files on every way out: `ChannelFiles.remove` (the pools call it
in `close`, which the training loop reaches on a normal end, an exception and SIGTERM, through its
own stop handler); an interpreter-exit finalizer for an owner that never called it (an uncaught
exception); and, in a program that leaves SIGTERM to its default (death), a handler that removes
the files first and then dies of the signal as before. What a killed owner left, the next
sweep (`sweep_orphans`, run by every new `ChannelFiles` and by the Ray pool's close) removes: it
takes the lock of each owner file without waiting, and only when it gets it removes the token's
files and then the owner file. Files of the older naming (`alphazero-channels-<pid>-...`, without
an owner file) are never judged: nothing shows whether their owner lives; remove them by hand
when no run is running.
"""

from __future__ import annotations

import fcntl
import json
import os
import signal
import socket
import threading
import time
import uuid
import weakref
from pathlib import Path

PREFIX = "alphazero-channels-"
OWNER_SUFFIX = ".owner"


def shared_directory() -> Path:
    """/dev/shm where it is writable, else $TMPDIR (or /tmp)."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(os.environ.get("TMPDIR", "/tmp"))


def new_token() -> str:
    """A token no other run or owner has (hex digits only: a token is never a prefix of another
    token followed by '-')."""
    return uuid.uuid4().hex


class ChannelFiles:
    """The shared-memory files of one owner: their names, the owner's lock, and their removal (see
    the module docstring). Not picklable on purpose: children get the files' paths, never the
    ownership.

    `token`: None for a new owner (a local pool); a Ray node's server passes its token, so that a
    replacement of a dead server takes over the same files (it waits for a sweep in progress)."""

    def __init__(self, token: str | None = None, what: str = ""):
        self.directory = shared_directory()
        self.token = token or new_token()
        if not self.token.isalnum():
            raise ValueError(f"channel files: token {self.token!r} must be letters and digits only")
        self.owner_path = self.directory / f"{PREFIX}{self.token}{OWNER_SUFFIX}"
        # Our lock first, then the sweep: a Ray server taking over a dead predecessor's files
        # must not sweep them away itself (its own lock makes the sweep pass them by).
        fd = _lock_owner_file(self.owner_path)
        sweep_orphans(self.directory)
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "what": what, "since": time.time()}).encode() + b"\n")
        self._remove = weakref.finalize(self, _remove_files, self.directory, self.token, fd)
        _LIVE.add(self)
        _remove_on_sigterm()

    def path(self, name: str) -> str:
        """The path of this owner's file `name`."""
        return str(self.directory / f"{PREFIX}{self.token}-{name}")

    def remove(self) -> None:
        """Remove every file of this owner, the owner file last, and drop the lock. Idempotent."""
        self._remove()

    def __reduce__(self):
        raise TypeError("ChannelFiles is not picklable: hand a child the files' paths, not their ownership")


_LIVE: "weakref.WeakSet[ChannelFiles]" = weakref.WeakSet()


def _remove_on_sigterm() -> None:
    """Where SIGTERM would kill this process outright (its default; the training command has a
    handler of its own, which closes the pools), remove the live owners' files first."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return
    signal.signal(signal.SIGTERM, _die_of_sigterm)


def _die_of_sigterm(signum, frame) -> None:
    for files in list(_LIVE):
        files.remove()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


def _lock_owner_file(path: Path) -> int:
    """Open (creating) the owner file and take its lock; returns the descriptor (close-on-exec, so
    no child inherits the lock). A sweep may hold the lock for a moment and then unlink the file:
    then the lock was taken on a file no longer at `path`, and we start again."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if _same_file(fd, path):
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False


def _remove_files(directory: Path, token: str, fd: int) -> None:
    """Unlink the token's files, then its owner file, then drop the lock (with the descriptor)."""
    for path in directory.glob(f"{PREFIX}{token}-*"):
        path.unlink(missing_ok=True)
    owner = directory / f"{PREFIX}{token}{OWNER_SUFFIX}"
    try:
        if _same_file(fd, owner):
            owner.unlink(missing_ok=True)
    finally:
        os.close(fd)


def sweep_orphans(directory: Path | None = None) -> list[str]:
    """Remove the files of every owner that is gone (its owner file's lock is free); never those
    of an owner alive, whatever its PID says. Returns the tokens swept."""
    directory = directory or shared_directory()
    swept = []
    for owner in directory.glob(f"{PREFIX}*{OWNER_SUFFIX}"):
        token = owner.name[len(PREFIX) : -len(OWNER_SUFFIX)]
        try:
            fd = os.open(owner, os.O_RDWR | os.O_CLOEXEC)
        except OSError:  # gone already (its owner removed it), or not ours to open
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held: its owner is alive
            os.close(fd)
            continue
        if not _same_file(fd, owner):  # removed and made anew meanwhile: not the file we locked
            os.close(fd)
            continue
        _remove_files(directory, token, fd)
        swept.append(token)
    return swept
