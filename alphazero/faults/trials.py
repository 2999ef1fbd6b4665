"""Kill/resume trials of the `smoke` preset, all on one run directory, verified after every crash.

A `Campaign` owns one run directory. Each trial starts the run (a resume once the directory holds
one) with a budget of one more iteration, injects one fault, waits for the run to end, looks for
processes it left behind, and verifies the directory (`checks.verify_run_dir`) against the state
verified before. The next trial's start is the resume of this trial's crash; `final_resume()`
ends the campaign with a clean resume that must run to its budget.

Fault kinds:
    timed_kill    SIGKILL the main process (as `kill -9 PID` does) at a random moment: mostly
                  0-25 s after set-up (self-play, training, checkpoints, arena), sometimes during
                  start-up itself
    hook          ALPHAZERO_FAULT=phase:count: the run SIGKILLs itself at the count-th entry of a
                  phase (self-play move, training step, shard or checkpoint between write and
                  rename, arena), so every phase is hit on purpose, not only by luck
    worker_kill   SIGKILL one self-play worker mid-game; the run must restart it, log it, count it
                  and finish the iteration with every game it owes
    disk_full     ALPHAZERO_FAULT=phase:count:enospc: from that write on the disk is "full"; the run
                  must stop with the one-line disk-full message (exit 2), and the next trial's
                  resume (no fault: space freed) must carry on
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from alphazero.faults import runs
from alphazero.faults.checks import Expectations, Snapshot, verify_run_dir
from alphazero.fault_hooks import Fault

# Cheaper than nothing and harsher: a gate whose test asks only "not 400 Elo worse", at a 20%
# error, promotes in its first round unless the candidate lost every game of it, so kills meet
# the promotion path (net-N.pt, best.pt, best.json) often. (The test scores pairs, and a pair can
# move its LLR by at most about log(s1 / s0): -800 against -400 Elo makes one pair won enough.)
TRIAL_OVERRIDES = ("arena.sprt_elo0=-800", "arena.sprt_elo1=-400", "arena.sprt_alpha=0.2")
# Entries of each phase in one smoke iteration (about): the hook's count is drawn from 1..n. The
# phases a smoke run passes through (it has no inference server: fault_hooks' server_batch is not
# among them), in the order the seeded plans permute.
PHASE_ENTRIES = {"selfplay": 120, "train_step": 60, "shard_write": 2, "checkpoint_write": 16, "arena": 2}
HOOK_PHASES = tuple(PHASE_ENTRIES)
KIND_CYCLE = ("hook", "timed_kill", "hook", "timed_kill", "worker_kill", "hook", "timed_kill", "disk_full")
DISK_FULL_PHASES = ("shard_write", "checkpoint_write")
RUN_TIMEOUT_S = 300.0
DISK_FULL_MESSAGE = re.compile(r"disk full while writing .+: free space and resume with run\.resume=true")
LOCK_MESSAGE = "in use by another training process"
# Hook-driven disk-full: the entry at which ENOSPC starts (mid-run: past start-up's own writes).
ENOSPC_ENTRY = {"shard_write": 2, "checkpoint_write": 6}
# A worker-kill trial's self-play searches deeper, so its worker plays for many seconds rather than
# the smoke preset's one or two: a kill `delay` (<= 5 s) after the worker appears lands mid-game on
# a fast machine too, instead of after the worker has finished its games (no fault injected).
WORKER_KILL_OVERRIDES = ("mcts.simulations=160",)


@dataclass
class TrialPlan:
    kind: str  # timed_kill, hook, worker_kill, disk_full, none
    fault: str | None = None  # ALPHAZERO_FAULT value (hook, disk_full)
    delay: float = 0.0  # seconds: timed_kill after the anchor; worker_kill after the worker appears
    during_startup: bool = False  # timed_kill anchored at process start instead of set-up

    def describe(self) -> str:
        if self.kind == "hook":
            return f"hook {self.fault}"
        if self.kind == "timed_kill":
            return f"kill -9 at {self.delay:.1f}s after {'start' if self.during_startup else 'set-up'}"
        if self.kind == "worker_kill":
            return f"kill -9 a self-play worker {self.delay:.1f}s after it starts"
        if self.kind == "disk_full":
            return f"disk full {self.fault}"
        return "no fault"


@dataclass
class TrialOutcome:
    index: int
    plan: TrialPlan
    resumed: bool  # the run was started as a resume
    resume_ok: bool | None  # None: killed before set-up could finish
    fault_injected: bool
    exit_code: int | None
    seconds: float
    files_checked: int = 0
    games_lost: int = 0
    problems: list = field(default_factory=list)
    crashes: list = field(default_factory=list)

    def summary(self) -> dict:
        return {
            "trial": self.index, "fault": self.plan.describe(), "resumed": self.resumed, "resume_ok": self.resume_ok,
            "fault_injected": self.fault_injected, "exit_code": self.exit_code, "seconds": round(self.seconds, 1),
            "files_checked": self.files_checked, "games_lost": self.games_lost, "problems": self.problems, "crashes": self.crashes,
        }  # fmt: skip


def plan_trials(count: int, seed: int) -> list[TrialPlan]:
    """`count` trials cycling through the kinds; hook phases cycle in a seeded order, so any five
    hook trials hit every phase; counts and delays are drawn from `seed`."""
    rng = np.random.default_rng(seed)
    phases = list(rng.permutation(HOOK_PHASES))
    plans, hooks = [], 0
    for index in range(count):
        kind = KIND_CYCLE[index % len(KIND_CYCLE)]
        if kind == "hook":
            phase = phases[hooks % len(phases)]
            hooks += 1
            fault = Fault(phase, int(rng.integers(1, PHASE_ENTRIES[phase] + 1)))
            plans.append(TrialPlan("hook", fault=fault.spec()))
        elif kind == "timed_kill":
            startup = bool(rng.random() < 0.2)
            plans.append(TrialPlan("timed_kill", delay=float(rng.uniform(0.5, 6.0) if startup else rng.uniform(0.0, 25.0)), during_startup=startup))
        elif kind == "disk_full":
            phase = str(rng.choice(DISK_FULL_PHASES))
            plans.append(TrialPlan("disk_full", fault=Fault(phase, int(rng.integers(1, PHASE_ENTRIES[phase] + 1)), "enospc").spec()))
        else:
            plans.append(TrialPlan("worker_kill", delay=float(rng.uniform(0.5, 5.0))))
    return plans


def has_run(run_dir: Path) -> bool:
    """What alphazero.train.run_dir.prepare calls a run: resume is required once this is true."""
    return (run_dir / "checkpoints" / "best.json").exists() or (run_dir / "checkpoints" / "latest.pt").exists()


class Campaign:
    """Trials on one run directory under `work_dir` (`run/`, and `logs/` for the runs' output)."""

    def __init__(self, work_dir, expect: Expectations = Expectations(), overrides=TRIAL_OVERRIDES, run_timeout: float = RUN_TIMEOUT_S):
        self.work_dir = Path(work_dir)
        self.run_dir = self.work_dir / "run"
        self.logs = self.work_dir / "logs"
        self.expect = expect
        self.overrides = tuple(overrides)
        self.run_timeout = run_timeout
        self.snapshot: Snapshot | None = None
        self.outcomes: list[TrialOutcome] = []
        self.lock_checked = False
        self.lock_problems: list[str] = []
        self.runs = 0

    def _start(self, fault: str | None = None, extra=()) -> tuple[runs.RunProcess, bool]:
        resume = has_run(self.run_dir)
        iteration = self.snapshot.iteration if self.snapshot else 0
        overrides = [*self.overrides, f"run.max_iterations={iteration + 1}", *extra]
        self.runs += 1
        output = self.logs / f"run-{self.runs:03d}.txt"
        return runs.start_run(self.run_dir, output, overrides, resume=resume, fault=fault), resume

    def run_trial(self, plan: TrialPlan, check_lock: bool = False) -> TrialOutcome:
        """One trial; `check_lock` also starts a second run on the directory while this one runs."""
        start = time.monotonic()
        proc, resumed = self._start(plan.fault, WORKER_KILL_OVERRIDES if plan.kind == "worker_kill" else ())
        problems: list[str] = []
        hangs: list[str] = []
        injected = False
        try:
            injected = self._inject(proc, plan, problems, check_lock)
            code = proc.wait(self.run_timeout)
            if code is None:
                hangs.append(f"hang: the run did not finish within {self.run_timeout:.0f}s")
            if plan.kind in ("hook", "disk_full"):
                injected = proc.fault_fired()
            left = proc.leftovers() if not hangs else []
            if left:
                problems.append(f"processes still running after the run ended: {left}")
        finally:
            proc.cleanup()
        return self._conclude(len(self.outcomes), plan, proc, resumed, injected, problems, start, hangs)

    def _inject(self, proc: runs.RunProcess, plan: TrialPlan, problems: list, check_lock: bool) -> bool:
        if plan.kind in ("timed_kill", "worker_kill") or check_lock:
            if not (plan.kind == "timed_kill" and plan.during_startup):
                if proc.wait_for(runs.SETUP_DONE, timeout=self.run_timeout) is None and proc.running():
                    problems.append("run never finished set-up")
                    return False
        if check_lock and proc.pause():
            # Paused, the live run cannot end (and free the lock) while the second one starts up,
            # which on a loaded machine took longer than the short trial run had left.
            try:
                self.lock_problems = second_run_refused(self.run_dir, self.logs / f"run-{self.runs:03d}-second.txt")
            finally:
                proc.resume()
            self.lock_checked = True
        if plan.kind == "timed_kill":
            return proc.sleep(plan.delay) and proc.kill()
        if plan.kind == "worker_kill":
            return self._kill_worker(proc, plan, problems)
        return False

    def _kill_worker(self, proc: runs.RunProcess, plan: TrialPlan, problems: list) -> bool:
        deadline = time.monotonic() + 60
        workers = []
        while proc.running() and time.monotonic() < deadline and not workers:
            workers = proc.workers()
            time.sleep(0.1)
        if not workers or not proc.sleep(plan.delay):
            return False
        victim = proc.workers()
        if not victim:
            return False
        os.kill(victim[0], signal.SIGKILL)
        if proc.wait_for(runs.WORKER_RESTARTED, timeout=60) is None:
            problems.append(f"a self-play worker (pid {victim[0]}) was killed but the run never logged restarting it")
        return True

    def _conclude(self, index, plan, proc, resumed, injected, problems, start, hangs) -> TrialOutcome:
        output = proc.output()
        code = proc.popen.returncode
        crashes = hangs + runs.crash_signs(output)
        killed = code == -signal.SIGKILL
        stopped_for_disk = plan.kind == "disk_full" and code == 2 and bool(DISK_FULL_MESSAGE.search(output))
        if plan.kind == "disk_full" and injected and not stopped_for_disk:
            problems.append(f"the disk filled but the run did not stop with the disk-full message (exit {code})")
        if code not in (0, -signal.SIGKILL) and not stopped_for_disk:
            crashes.append(f"exit code {code}: {output.strip().splitlines()[-1][:300] if output.strip() else 'no output'}")
        if killed and not injected and not hangs:
            problems.append("run died of SIGKILL that no fault of this trial sent")
        resume_ok = None
        if resumed:
            if runs.RESUMED.search(output):
                resume_ok = True
            elif not killed and not stopped_for_disk:
                resume_ok = False
                problems.append("resume did not reach set-up")
        before = self.snapshot
        verdict = verify_run_dir(self.run_dir, self.expect, before, ended_cleanly=code == 0)
        problems.extend(verdict.problems)
        if plan.kind == "worker_kill" and injected and code == 0:
            counted_before = before.worker_restarts if before else 0
            if verdict.snapshot.worker_restarts <= counted_before:
                problems.append(f"worker restart not counted: latest.pt says {verdict.snapshot.worker_restarts}, {counted_before} before this kill")
        if not verdict.problems:
            self.snapshot = verdict.snapshot
        outcome = TrialOutcome(index, plan, resumed, resume_ok, injected, code, time.monotonic() - start, verdict.files_checked, verdict.games_lost, problems, crashes)
        self.outcomes.append(outcome)
        return outcome

    def final_resume(self) -> TrialOutcome:
        """A clean resume with no fault: it must run its one iteration and exit 0."""
        return self.run_trial(TrialPlan("none"))


def second_run_refused(run_dir: Path, output_path: Path, timeout: float = 120.0) -> list[str]:
    """Start a second training run on a directory a live run holds: it must exit nonzero at
    once with the lock message and no traceback. Returns the problems (empty = refused cleanly)."""
    command = runs.train_command(run_dir, (), resume=True)
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("ALPHAZERO_FAULT", None)
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return [f"a second run on {run_dir} did not exit within {timeout:.0f}s (it should refuse at once)"]
    output_path.write_text(proc.stdout + proc.stderr)
    problems = []
    if proc.returncode == 0:
        problems.append(f"a second run on {run_dir} was not refused (exit 0)")
    if LOCK_MESSAGE not in proc.stderr:
        problems.append(f"a second run's refusal does not say the directory is in use: {proc.stderr.strip()[-300:]!r}")
    problems += [f"second run: {sign}" for sign in runs.crash_signs(proc.stdout + proc.stderr)]
    return problems


# ------------------------------------------------------------------------------------------------
# Disk full


def mount_tmpfs(directory: Path, size_bytes: int) -> str | None:
    """Mount a size-limited tmpfs at `directory`; returns why not (None on success)."""
    directory.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        return "mounting a tmpfs needs root"
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size_bytes}", "tmpfs", str(directory)], capture_output=True, text=True)
    if proc.returncode != 0:
        return f"mount -t tmpfs failed: {proc.stderr.strip() or proc.returncode}"
    return None


def unmount(directory: Path) -> None:
    subprocess.run(["umount", "-l", str(directory)], capture_output=True)


def fill_disk(directory: Path, leave_free: int) -> Path:
    """A ballast file that leaves about `leave_free` bytes free on `directory`'s filesystem."""
    stats = os.statvfs(directory)
    free = stats.f_bavail * stats.f_frsize
    ballast = directory / "ballast"
    with open(ballast, "wb") as handle:
        remaining = max(0, free - leave_free)
        chunk = b"\0" * (1 << 20)
        while remaining > 0:
            handle.write(chunk[: min(len(chunk), remaining)])
            remaining -= min(len(chunk), remaining)
    return ballast


@dataclass
class DiskFullOutcome:
    how: str
    stopped_cleanly: bool
    resumed: bool
    files_checked: int
    problems: list
    crashes: list


def disk_full_trial(work_dir: Path, how: str, expect: Expectations = Expectations(), run_timeout: float = RUN_TIMEOUT_S) -> DiskFullOutcome:
    """A run that meets a full disk must stop with the disk-full message, leave a consistent
    directory, and resume once space is back.

    how: "tmpfs" (the run directory on a small tmpfs, nearly filled by a ballast file, which is
    then deleted) or a phase ("shard_write", "checkpoint_write"): ENOSPC from that phase on
    through the hook, and no fault for the resume.
    """
    work_dir = Path(work_dir)
    mount_point = work_dir / "disk"
    run_dir = mount_point / "run"
    problems, crashes = [], []
    if how == "tmpfs":
        reason = mount_tmpfs(mount_point, 8 << 20)
        if reason:
            return DiskFullOutcome(how, False, False, 0, [f"skipped: {reason}"], [])
    try:
        fault = None
        if how == "tmpfs":
            ballast = fill_disk(mount_point, 700 << 10)
        else:
            fault = Fault(how, ENOSPC_ENTRY[how], "enospc").spec()
        first = runs.start_run(run_dir, work_dir / f"diskfull-{how}-1.txt", ("run.max_iterations=1",), fault=fault)
        code = first.wait(run_timeout)
        first.cleanup()
        output = first.output()
        stopped = code not in (None, 0) and bool(DISK_FULL_MESSAGE.search(output))
        if code is None:
            crashes.append("hang: the run did not stop within the time limit after the disk filled")
        elif code == 0:
            problems.append("the run finished without meeting a full disk (ballast too small?)")
        elif not DISK_FULL_MESSAGE.search(output):
            problems.append(f"exit {code} without the disk-full message: {output.strip().splitlines()[-1][:300] if output.strip() else ''}")
        crashes += runs.crash_signs(output)
        if how == "tmpfs":
            ballast.unlink()
        verdict = verify_run_dir(run_dir, expect)
        problems += verdict.problems
        files = verdict.files_checked
        # A disk that filled before best.json existed leaves no run: the retry is then a fresh start.
        resume = has_run(run_dir)
        second = runs.start_run(run_dir, work_dir / f"diskfull-{how}-2.txt", ("run.max_iterations=1",), resume=resume)
        code = second.wait(run_timeout)
        second.cleanup()
        output = second.output()
        crashes += runs.crash_signs(output)
        resumed = code == 0 and (not resume or bool(runs.RESUMED.search(output)))
        if not resumed:
            problems.append(f"restart after freeing space failed (exit {code}): {output.strip().splitlines()[-1][:300] if output.strip() else ''}")
        after = verify_run_dir(run_dir, expect, verdict.snapshot, ended_cleanly=code == 0)
        problems += after.problems
        files += after.files_checked
        return DiskFullOutcome(how, stopped, resumed, files, problems, crashes)
    finally:
        if how == "tmpfs":
            unmount(mount_point)
        shutil.rmtree(mount_point, ignore_errors=True)
