"""Training runs in subprocesses, watched from outside: start, follow the log, find the self-play
workers, SIGKILL at chosen moments, and notice anything the run leaves running after it dies.

A run is `python -m alphazero.train experiment=smoke run.dir=DIR ...` with stdout and stderr going
to one file (outside the run directory, so the checks see only what the run wrote itself). Each
run gets its own session (process group), so a Ctrl-C aimed at the test runner never reaches it
and `cleanup()` can always take down whatever is left.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from alphazero.fault_hooks import ENV_VAR, FIRED_MESSAGE

# Log lines the loop writes (alphazero.train.loop), used to tell where a run is.
SETUP_DONE = re.compile(r"INFO run directory .* \| model ")
RESUMED = re.compile(r"INFO (resumed .* at iteration|no latest\.pt in )")
WORKER_RESTARTED = re.compile(r"self-play worker (\d+) died \(exit code (-?\d+)\); restarting it")
TRACEBACK = "Traceback (most recent call last)"


def train_command(run_dir, overrides=(), resume: bool = False) -> list[str]:
    command = [sys.executable, "-m", "alphazero.train", "experiment=smoke", f"run.dir={run_dir}"]
    if resume:
        command.append("run.resume=true")
    return command + list(overrides)


def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except OSError:
        return None
    # Field 4 (ppid) follows the parenthesised command name, which may itself hold spaces or ')'.
    return int(stat[stat.rindex(b")") + 2 :].split()[1])


def _command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


SERVER_NAME = "az-server"  # /proc/PID/comm of the inference server (selfplay.inference_server)


def process_name(pid: int) -> str:
    """/proc/PID/comm: the name a process gave itself (self-play workers: az-worker-N)."""
    try:
        with open(f"/proc/{pid}/comm", "rb") as handle:
            return handle.read().decode(errors="replace").strip()
    except OSError:
        return ""


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
        return stat[stat.rindex(b")") + 2 : stat.rindex(b")") + 3] == b"Z"
    except (OSError, ValueError):
        return True


def children_of(pid: int) -> list[int]:
    """Live child processes of `pid` (from /proc; Linux only)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and _parent_of(int(entry)) == pid and not _is_zombie(int(entry)):
            out.append(int(entry))
    return sorted(out)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not _is_zombie(pid)


@dataclass
class RunProcess:
    """One training process and what was seen of it."""

    popen: subprocess.Popen
    run_dir: Path
    output_path: Path
    command: list[str]
    fault: str | None
    started: float = field(default_factory=time.monotonic)
    seen_children: dict = field(default_factory=dict)  # pid -> command line, every child ever seen
    killed_by_us: bool = False

    @property
    def pid(self) -> int:
        return self.popen.pid

    def output(self) -> str:
        try:
            return self.output_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def running(self) -> bool:
        return self.popen.poll() is None

    def workers(self) -> list[int]:
        """Self-play worker processes: the run's children started by multiprocessing's spawn,
        less the inference server (which names itself az-server; the smoke preset has none)."""
        self.note_children()
        return [
            pid for pid in children_of(self.pid)
            if "spawn_main" in self.seen_children.get(pid, "") and process_name(pid) != SERVER_NAME
        ]

    def server(self) -> int | None:
        """The inference server's pid, if one runs now."""
        self.note_children()
        return next((pid for pid in children_of(self.pid) if process_name(pid) == SERVER_NAME), None)

    def note_children(self) -> None:
        for pid in children_of(self.pid):
            if pid not in self.seen_children:
                self.seen_children[pid] = _command_line(pid)

    def wait_for(self, pattern: re.Pattern, timeout: float, poll: float = 0.1) -> re.Match | None:
        """Wait until the output matches `pattern` (returns the match) or the process exits or
        `timeout` passes (returns None)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.note_children()
            match = pattern.search(self.output())
            if match:
                return match
            if not self.running():
                return pattern.search(self.output())
            time.sleep(poll)
        return None

    def sleep(self, seconds: float, poll: float = 0.1) -> bool:
        """Sleep while noting children; returns False early if the process exits."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.note_children()
            if not self.running():
                return False
            time.sleep(min(poll, max(0.0, deadline - time.monotonic())))
        return self.running()

    def pause(self) -> bool:
        """SIGSTOP the main process (its workers play on): it keeps what it holds, the run
        directory's lock included, but cannot finish meanwhile. True if it was running."""
        if not self.running():
            return False
        os.kill(self.pid, signal.SIGSTOP)
        return True

    def resume(self) -> None:
        """SIGCONT after `pause`."""
        if self.running():
            os.kill(self.pid, signal.SIGCONT)

    def kill(self) -> bool:
        """SIGKILL the main process (as `kill -9 PID` would); True if it was still running."""
        self.note_children()
        if not self.running():
            return False
        self.killed_by_us = True
        os.kill(self.pid, signal.SIGKILL)
        self.popen.wait()
        return True

    def wait(self, timeout: float) -> int | None:
        """The exit status (negative: killed by that signal), or None after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.note_children()
            code = self.popen.poll()
            if code is not None:
                return code
            time.sleep(0.1)
        return None

    def fault_fired(self) -> bool:
        return FIRED_MESSAGE in self.output()

    def leftovers(self, grace: float = 10.0) -> list[str]:
        """Processes of this run still alive `grace` seconds after its main process ended
        (descriptions); a run must not leave workers behind when it dies, even by SIGKILL."""
        deadline = time.monotonic() + grace
        while True:
            left = [pid for pid in self.seen_children if alive(pid) and _command_line(pid) == self.seen_children[pid]]
            if not left or time.monotonic() >= deadline:
                return [f"pid {pid} ({self.seen_children[pid][:80]})" for pid in left]
            time.sleep(0.2)

    def cleanup(self) -> None:
        """Take down the whole process group, whatever state it is in."""
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for pid in self.seen_children:
            if alive(pid) and _command_line(pid) == self.seen_children[pid]:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if self.popen.poll() is None:
            self.popen.wait()


def start_run(run_dir, output_path, overrides=(), resume: bool = False, fault: str | None = None, env: dict | None = None) -> RunProcess:
    """Start a training run in the background; `fault` is an ALPHAZERO_FAULT value."""
    command = train_command(run_dir, overrides, resume)
    environment = dict(os.environ, PYTHONUNBUFFERED="1", **(env or {}))
    environment.pop(ENV_VAR, None)
    if fault:
        environment[ENV_VAR] = fault
    output_path = Path(output_path)
    output_path.parent.mkdir(parents=True, exist_ok=True)
    with open(output_path, "wb") as out:
        popen = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=environment, start_new_session=True)
    return RunProcess(popen, Path(run_dir), output_path, command, fault)


def crash_signs(output: str) -> list[str]:
    """What in a run's output means it crashed rather than failed cleanly: tracebacks, Python's
    "Logging error" reports, fatal signals other than our SIGKILL."""
    signs = []
    if TRACEBACK in output:
        index = output.index(TRACEBACK)
        signs.append("traceback: " + " | ".join(output[index:].splitlines()[-3:])[:400])
    if "--- Logging error ---" in output:
        signs.append("logging error (a log write raised)")
    for fatal in ("Segmentation fault", "Fatal Python error", "core dumped"):
        if fatal in output:
            signs.append(fatal)
    return signs
