"""Kill self-play workers and the inference server again and again during one run, and measure
how the pipeline recovers.

One `smoke` run in async mode with `selfplay.inference_server=true` (workers never wait for the
trainer, so every pause in shards is the fault's doing), `train.keep_old_shards=true` (every
shard stays on disk to be counted). Alternately a random worker and the server get SIGKILL at a
random moment; after each kill the campaign waits for the recovery: a replacement process of the
same kind, then a shard written after the kill by every worker (a killed server stalls them all;
a killed worker must come back itself). Recovery within `RECOVERY_TARGET_S` is the target; no
recovery within `HANG_S` is a hang, and ends the campaign. At the end the run is stopped with
SIGTERM and every shard seen during the campaign must still be on disk and readable: finished
games are never lost, only the dead process's games in flight.
"""

from __future__ import annotations

import os
import random
import signal
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

from alphazero.faults import runs
from alphazero.replay.buffer import SHARD_NAME, list_shards
from alphazero.replay.shard import read_shard

RECOVERY_TARGET_S = 30.0
HANG_S = 120.0
OVERRIDES = (
    "selfplay.inference_server=true",
    "selfplay.workers=2",
    "selfplay.games_per_shard=2",
    "run.mode=async",
    "run.max_iterations=0",
    "train.keep_old_shards=true",
    "eval.every_steps=0",
    "arena.every_steps=200",
)


@dataclass
class KillReport:
    worker_kills: int = 0
    server_kills: int = 0
    recoveries: int = 0
    hangs: int = 0
    recovery_seconds: list = field(default_factory=list)
    shards_seen: int = 0
    games_seen: int = 0
    games_lost: int = 0
    unreadable_shards: int = 0
    crashes: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> dict:
        times = self.recovery_seconds
        return {
            "worker_kills": self.worker_kills,
            "server_kills": self.server_kills,
            "recoveries": self.recoveries,
            "hangs": self.hangs,
            "slow_recoveries": sum(t > RECOVERY_TARGET_S for t in times),
            "recovery_seconds_mean": round(statistics.mean(times), 1) if times else None,
            "recovery_seconds_max": round(max(times), 1) if times else None,
            "shards_seen": self.shards_seen,
            "games_seen": self.games_seen,
            "games_lost": self.games_lost,
            "unreadable_shards": self.unreadable_shards,
            "crashes": len(self.crashes),
            "problems": len(self.problems),
            "first_problems": (self.crashes + self.problems)[:5],
            "seconds": round(self.seconds, 1),
        }


class _ShardWatch:
    """Shards in the replay directory, and which writers named one after a given moment (a shard's
    name holds its writer's wall clock at the write, in microseconds)."""

    def __init__(self, replay_dir: Path):
        self.replay_dir = replay_dir
        self.first_seen: dict[str, float] = {}

    def scan(self) -> None:
        if not self.replay_dir.is_dir():
            return
        now = time.monotonic()
        for name in list_shards(self.replay_dir):
            self.first_seen.setdefault(name, now)

    def writers_since(self, wall_time: float) -> set[str]:
        self.scan()
        since = int(wall_time * 1e6)
        return {match.group(2) for match in map(SHARD_NAME.match, self.first_seen) if int(match.group(1)) > since}


def _wait_recovered(proc: runs.RunProcess, watch: _ShardWatch, killed_at: float, killed_wall: float, writers: set[str],
                    kind: str, before: set[int]) -> float | None:
    """Seconds from the kill to a replacement `kind` process (a pid not running before the kill)
    and a shard written after the kill by every writer."""
    deadline = killed_at + HANG_S
    replaced = False
    while time.monotonic() < deadline and proc.running():
        if not replaced:
            now = {proc.server()} if kind == "server" else set(proc.workers())
            replaced = bool(now - before - {None})
        if replaced and writers <= watch.writers_since(killed_wall):
            return time.monotonic() - killed_at
        time.sleep(0.2)
    return None


def run_kill_campaign(work_dir, kills_each: int = 20, seed: int = 0, progress=None, max_seconds: float = 3600.0) -> KillReport:
    """`kills_each` SIGKILLs of workers and as many of the server, alternating, in one run."""
    say = progress or (lambda text: None)
    rng = random.Random(seed)
    work_dir = Path(work_dir)
    run_dir = work_dir / "run"
    report = KillReport()
    start = time.monotonic()
    proc = runs.start_run(run_dir, work_dir / "output.txt", overrides=OVERRIDES)
    watch = _ShardWatch(run_dir / "replay")
    try:
        if proc.wait_for(runs.SETUP_DONE, timeout=180) is None:
            report.problems.append("the run did not finish set-up within 180 s")
            return report
        writers = {f"w{i}" for i in range(2)}
        started = time.monotonic()
        while not writers <= watch.writers_since(0.0) and time.monotonic() - started < 180:
            time.sleep(0.2)
        for index in range(2 * kills_each):
            if time.monotonic() - start > max_seconds or not proc.running():
                break
            kind = "server" if index % 2 else "worker"
            proc.sleep(rng.uniform(0.0, 2.0))  # a random moment: mid-batch, mid-answer, mid-write
            victims = [proc.server()] if kind == "server" else proc.workers()
            victims = [pid for pid in victims if pid]
            if not victims:
                report.problems.append(f"kill {index}: no {kind} process to kill")
                continue
            victim = rng.choice(victims)
            before = set(proc.workers()) | {proc.server()}
            try:
                os.kill(victim, signal.SIGKILL)
            except ProcessLookupError:
                continue
            killed_at, killed_wall = time.monotonic(), time.time()
            if kind == "server":
                report.server_kills += 1
            else:
                report.worker_kills += 1
            took = _wait_recovered(proc, watch, killed_at, killed_wall, writers, kind, before)
            if took is None:
                report.hangs += 1
                report.problems.append(f"kill {index} ({kind} pid {victim}): no recovery within {HANG_S:.0f} s")
                say(f"kill {index}: {kind} pid {victim}: HANG")
                break
            report.recoveries += 1
            report.recovery_seconds.append(took)
            say(f"kill {index}: {kind} pid {victim}: recovered in {took:.1f} s")
        watch.scan()
        proc.popen.send_signal(signal.SIGTERM)
        if proc.wait(timeout=120) is None:
            report.problems.append("the run did not stop within 120 s of SIGTERM")
    finally:
        proc.cleanup()
    output = proc.output()
    report.crashes = [sign for sign in runs.crash_signs(output) if "TimeoutError" not in sign]
    for name in watch.first_seen:
        path = run_dir / "replay" / name
        report.shards_seen += 1
        if not path.exists():
            report.problems.append(f"shard {name} vanished")
            continue
        try:
            games = read_shard(path).num_games
        except Exception as error:  # noqa: BLE001 - any unreadable shard is a finding
            report.unreadable_shards += 1
            report.problems.append(f"shard {name} unreadable: {error}")
            continue
        report.games_seen += games
    report.games_lost = sum(1 for name in watch.first_seen if not (run_dir / "replay" / name).exists())
    report.seconds = time.monotonic() - start
    return report
