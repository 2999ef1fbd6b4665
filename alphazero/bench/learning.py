"""`python -m alphazero.bench learning --run NAME=OVERRIDES [--run ...]`: how strong a training config gets in N minutes from scratch.

    python -m alphazero.bench learning --run current=experiment=cpu --run horizon="experiment=cpu train.lr_schedule_horizon=minutes"
    python -m alphazero.bench learning --run a=... --run b=... --side-by-side --reference checkpoints/selfplay.pt
    python -m alphazero.bench learning --run smoke=experiment=smoke --minutes 0.5 --pairs 1 --opponents alphabeta-2

The protocol of docs/benchmarks.md's "Learning-efficiency ablation" (before this command:
experiments/ablation/run.sh), for any config. Each run trains from scratch for `--minutes` of
run time: `python -m alphazero.train OVERRIDES run.max_minutes=M run.seed=S run.progress=false`
in RUNS_DIR/NAME/run. Its final network, the trainer's last weights (`python -m
alphazero.train.ship RUN final.pt --network latest`), then plays at `--simulations` (100) with
the arena's default search against each `--opponents` entry (alphabeta depth 2 and GRhino levels
1-4) on `--pairs` (50) random 4-ply openings, each with both colours (100 games), drawn with
`--seed` (1): the same openings for every run and every opponent. With `--reference PATH` it also
plays that network (at the same simulations) on `--reference-pairs` (100) openings of the same seed.

One JSON line at the end: per run its games, positions, steps and minutes, and each opponent's
score (wins-draws-losses, Elo difference and its 95% interval); with two runs or more, each later
run compared with the first game by game. The openings, colours and opponents (alphabeta and
GRhino at `-r 0`: deterministic) are the same, so each game of one run has a twin in the other:
the comparison gives the mean difference of score per game with its standard error, and how many
twins each run won more of. Progress goes to stderr; each run's training and arena output to
RUNS_DIR/NAME/train.log and eval.log.

Resumable: run the same command again. A run whose latest.pt has spent its budget is not
trained again (a stopped one resumes with run.resume=true: run.max_minutes counts the run time
of every session), an evaluation whose result is written is not played again, and a match
stopped half way takes the games already in its games log. A run directory started with other
overrides, minutes or run seed is refused rather than mixed.

`--side-by-side` runs every run at once, each pinned to its own core (its training and its
matches, and every process they start), so all runs share the machine's conditions minute by minute; without it they run
one after another, each with the whole machine. The budget is wall-clock minutes: anything else
running on the cores weakens a run, so compare runs of one invocation (or one machine and load).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from alphazero.argtypes import non_negative_int, positive_float, positive_int
from alphazero.arena.game_log import GameLog
from alphazero.atomic import write_json_atomic
from alphazero.console import count
from alphazero.othello.game import GameState
from alphazero.train.evaluation import GRHINO, baseline_spec

DEFAULT_OPPONENTS = ("alphabeta-2", "grhino-1", "grhino-2", "grhino-3", "grhino-4")
REFERENCE = "reference"  # the tag and player name of --reference
# What the benchmark sets on every training command: a run's overrides may not.
BENCH_KEYS = ("run.dir", "run.resume", "run.max_minutes", "run.seed", "run.progress")
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
OPPONENT_PATTERN = re.compile(r"(alphabeta)-([1-9][0-9]?)|(grhino)-([1-5])")
# Sets the process's CPU affinity to one core, then becomes the command: a side-by-side run's
# processes (and every process they start) stay on its core.
_PIN = "import os, sys; os.sched_setaffinity(0, {int(sys.argv[1])}); os.execvp(sys.argv[2], sys.argv[2:])"


class LearningBenchError(ValueError):
    """The benchmark cannot start or finish as asked; the message is one line naming the problem."""


# ----------------------------------------------------------------------------------------------
# What was asked


@dataclass(frozen=True)
class RunSpec:
    """One run: its name (directory and arena player name) and its training overrides."""

    name: str
    overrides: tuple[str, ...]


@dataclass(frozen=True)
class Opponent:
    """An evaluation opponent: its tag (file names, JSON keys), its arena spec, the pairs it plays;
    `skipped` says why it is not played (spec None)."""

    tag: str
    spec: str | None
    pairs: int
    skipped: str | None = None


@dataclass(frozen=True)
class Settings:
    minutes: float
    run_seed: int
    simulations: int
    pairs: int
    seed: int
    runs_dir: Path
    side_by_side: bool


def parse_run(text: str) -> RunSpec:
    """`NAME=OVERRIDES`: a name, then the training overrides as a shell would split them
    (`--run "b=experiment=cpu mcts.simulations=128"`); nothing after `=` is the default config."""
    name, sep, rest = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected NAME=OVERRIDES (e.g. current=experiment=cpu), got {text!r}")
    if not NAME_PATTERN.fullmatch(name):
        raise argparse.ArgumentTypeError(f"run name {name!r} must be letters, digits, '_', '.' or '-' (it names a directory)")
    if name == REFERENCE or OPPONENT_PATTERN.fullmatch(name):
        raise argparse.ArgumentTypeError(f"run name {name!r} is an opponent's name; choose another")
    try:
        overrides = tuple(shlex.split(rest))
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"run {name!r}: cannot split its overrides ({error})") from None
    for override in overrides:
        key = override.partition("=")[0].lstrip("+~")
        if key in BENCH_KEYS or key.startswith("hydra"):
            raise argparse.ArgumentTypeError(
                f"run {name!r}: {override!r} is set by the benchmark (run.dir is RUNS_DIR/NAME/run, "
                "run.max_minutes is --minutes, run.seed is --run-seed; run.resume and run.progress follow); drop it")
    return RunSpec(name, overrides)


def parse_opponents(text: str) -> tuple[str, ...]:
    """Comma-separated tags: alphabeta-D (depth D) and grhino-L (GRhino level L, 1-5)."""
    tags = tuple(tag.strip() for tag in text.split(",") if tag.strip())
    for tag in tags:
        if not OPPONENT_PATTERN.fullmatch(tag):
            raise argparse.ArgumentTypeError(f"unknown opponent {tag!r}: expected alphabeta-D (depth 1-99) or grhino-L (level 1-5)")
    if len(set(tags)) != len(tags):
        raise argparse.ArgumentTypeError(f"an opponent is named twice in {text!r}")
    return tags


def opponents(tags: tuple[str, ...], pairs: int, reference: str | None, reference_pairs: int, simulations: int) -> list[Opponent]:
    """The evaluations every run plays, in order; GRhino's are skipped, with the reason, where it
    is not installed."""
    out = []
    for tag in tags:
        match = OPPONENT_PATTERN.fullmatch(tag)
        if match.group(1):
            out.append(Opponent(tag, f"alphabeta:depth={match.group(2)},name={tag}", pairs))
            continue
        command = baseline_spec(f"grhino:{match.group(4)}")  # the in-run evaluation's GRhino, at -r 0 -b 0
        if command is None:
            out.append(Opponent(tag, None, pairs, f"GRhino is not installed (no {GRHINO}, no gtp-rhino on PATH): apt-get install grhino"))
        else:
            out.append(Opponent(tag, f"{command},processes=2,name={tag}", pairs))
    if reference is not None:
        out.append(Opponent(REFERENCE, network_spec(Path(reference), simulations, REFERENCE), reference_pairs))
    return out


def network_spec(path: Path, simulations: int, name: str) -> str:
    return f"mcts:checkpoint={path},simulations={simulations},threads=1,name={name}"


# ----------------------------------------------------------------------------------------------
# Where a run keeps what it made


@dataclass(frozen=True)
class RunFiles:
    root: Path

    @property
    def run_dir(self) -> Path:
        return self.root / "run"

    @property
    def spec(self) -> Path:
        return self.root / "bench.json"

    @property
    def network(self) -> Path:
        return self.root / "final.pt"

    @property
    def train_log(self) -> Path:
        return self.root / "train.log"

    @property
    def eval_log(self) -> Path:
        return self.root / "eval.log"

    def evaluations(self, simulations: int) -> Path:
        """An evaluation at other simulations is another evaluation (its games log too)."""
        return self.root / f"evaluations-{simulations}sims"

    def result(self, simulations: int, tag: str) -> Path:
        return self.evaluations(simulations) / f"{tag}.json"

    def games(self, simulations: int, tag: str) -> Path:
        return self.evaluations(simulations) / f"{tag}-games.jsonl"


def recorded_spec(run: RunSpec, settings: Settings) -> dict:
    """What fixes a run's training: a run directory continues only under the same."""
    return {"name": run.name, "overrides": list(run.overrides), "minutes": settings.minutes, "run_seed": settings.run_seed}


def train_arguments(run: RunSpec, settings: Settings, files: RunFiles, resume: bool) -> list[str]:
    """The overrides of `python -m alphazero.train` for this run (the benchmark's keys last: they win)."""
    return [*run.overrides, f"run.dir={files.run_dir}", f"run.resume={str(resume).lower()}",
            f"run.max_minutes={settings.minutes:g}", "run.progress=false", f"run.seed={settings.run_seed}"]


def eval_arguments(run: RunSpec, opponent: Opponent, settings: Settings, files: RunFiles) -> list[str]:
    """The arguments of `python -m alphazero.arena` for one evaluation: this command line is also
    the evaluation's identity (a result written under another is played again)."""
    return [network_spec(files.network, settings.simulations, run.name), opponent.spec, "--pairs", str(opponent.pairs),
            "--seed", str(settings.seed), "--games-log", str(files.games(settings.simulations, opponent.tag)), "--no-progress"]


def finished_result(path: Path, arguments: list[str]) -> dict | None:
    """The arena's result written at `path` by this very command line, else None (none yet, an
    unreadable file, or one from other arguments: played again, taking the logged games)."""
    try:
        saved = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(saved, dict) or saved.get("arguments") != arguments or not isinstance(saved.get("result"), dict):
        return None
    return saved["result"]


# ----------------------------------------------------------------------------------------------
# Checks before anything starts


def check_runs(runs: list[RunSpec], settings: Settings, config_dir: str) -> dict[str, object]:
    """Refuse, before anything is written, whatever the training command would refuse and a run
    directory started under other settings; returns each run's composed training config."""
    from alphazero.train.run_dir import holds_run
    from alphazero.train.startup import StartRefused, check_command_line, compose_typed

    names = [run.name for run in runs]
    for name in names:
        if names.count(name) > 1:
            raise LearningBenchError(f"--run {name}: named twice")
    configs = {}
    for run in runs:
        files = RunFiles(settings.runs_dir / run.name)
        started = holds_run(files.run_dir) or files.network.exists()
        if started and files.spec.exists():
            try:
                saved = json.loads(files.spec.read_text())
            except ValueError as error:
                raise LearningBenchError(f"--run {run.name}: {files.spec} is damaged ({error})") from None
            if not isinstance(saved, dict):
                raise LearningBenchError(f"--run {run.name}: {files.spec} is damaged (a {type(saved).__name__}, expected an object)")
            if saved != recorded_spec(run, settings):
                raise LearningBenchError(
                    f"--run {run.name}: {files.root} holds a run started with other settings ({_describe(saved)}; now "
                    f"{_describe(recorded_spec(run, settings))}): give this run another name or --runs-dir")
        try:
            # A run that has trained was checked when it started (under the same overrides: bench.json).
            state = training_state(files)
            cfg = compose_typed(train_arguments(run, settings, files, resume=False), config_dir) if state is not None else None
            if cfg is None or not training_done(cfg, state):
                check_command_line(train_arguments(run, settings, files, resume=holds_run(files.run_dir)), config_dir)
                cfg = compose_typed(train_arguments(run, settings, files, resume=False), config_dir)
        except StartRefused as error:
            raise LearningBenchError(f"--run {run.name}: {error}") from None
        configs[run.name] = cfg
    return configs


def _describe(spec: dict) -> str:
    overrides = " ".join(spec.get("overrides") or []) or "no overrides"
    minutes = spec.get("minutes")
    return f"'{overrides}', {minutes:g} minutes, run seed {spec.get('run_seed')}" if isinstance(minutes, (int, float)) else \
        f"'{overrides}', minutes {minutes!r}, run seed {spec.get('run_seed')}"


def check_reference(path: str) -> None:
    from alphazero.nn.checkpoint import CheckpointError, load_checkpoint

    try:
        load_checkpoint(path)
    except CheckpointError as error:
        raise LearningBenchError(f"--reference: {error}") from None


def check_path(path: Path, option: str) -> None:
    """A path that goes into arena player specs and Hydra overrides: no comma (a spec separator,
    a Hydra sweep) and no '=' or whitespace."""
    if re.search(r"[,=\s'\"]", str(path)):
        raise LearningBenchError(f"{option} {str(path)!r} holds a comma, '=', a quote or whitespace, which player specs and "
                                 "training overrides cannot carry; choose another path")


def available_cores() -> list[int]:
    return sorted(os.sched_getaffinity(0))


# ----------------------------------------------------------------------------------------------
# A run's state on disk


def training_state(files: RunFiles):
    """The counters of the run's latest.pt (alphazero.train.loop.RunState), None without one."""
    from alphazero.nn.checkpoint import load_checkpoint
    from alphazero.train.loop import saved_run_state

    latest = files.run_dir / "checkpoints" / "latest.pt"
    if not latest.exists():
        return None
    return saved_run_state(load_checkpoint(latest).extra)


def training_done(cfg, state) -> bool:
    """Whether the run has spent its budget (run.max_minutes, or a budget its overrides set):
    the training command would then do nothing."""
    from alphazero.train.loop import spent_budget

    return spent_budget(cfg.run, state, state.seconds) is not None


def replay_counts(run_dir: Path) -> tuple[int, int]:
    """Self-play games and positions the run made (pruned shards included)."""
    from alphazero.replay.buffer import ReplayBuffer

    replay = ReplayBuffer(run_dir / "replay", window_positions=1)
    return replay.total_games, replay.total_positions


# ----------------------------------------------------------------------------------------------
# Running


def launch(command: list[str], log: Path, core: int | None, capture: bool, waiting: Callable[[], None] | None = None) -> tuple[int, str]:
    """Run `command` (pinned to `core` unless None) with its output appended to `log` as it
    comes; returns its exit status and, with `capture`, its last stdout line (then stdout is kept
    from the log until the end: a result line, not a stream). `waiting` is called every
    PROGRESS_SECONDS while the command runs. The child shares this process group, so a Ctrl-C or
    a SIGTERM to the group reaches it: training then saves and stops."""
    if core is not None:
        command = [sys.executable, "-c", _PIN, str(core), *command]
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a") as handle:
        handle.write(f"\n== {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {shlex.join(command)}\n")
        handle.flush()
        if capture:
            proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=handle, stdin=subprocess.DEVNULL, text=True)
            handle.write(proc.stdout)
            lines = [line for line in proc.stdout.splitlines() if line.strip()]
            return proc.returncode, lines[-1] if lines else ""
        with subprocess.Popen(command, stdout=handle, stderr=handle, stdin=subprocess.DEVNULL) as proc:
            while True:
                try:
                    return proc.wait(timeout=PROGRESS_SECONDS), ""
                except subprocess.TimeoutExpired:
                    if waiting is not None:
                        waiting()


PROGRESS_SECONDS = 300.0  # a training run says where it is this often
Launch = Callable[..., "tuple[int, str]"]  # launch's signature (tests stand in for it)


@dataclass
class Pipeline:
    """One run's work, each step skipped when its result is on disk: train, ship, evaluate."""

    run: RunSpec
    cfg: object
    settings: Settings
    opponents: list[Opponent]
    core: int | None
    stop: threading.Event
    say: Callable[[str], None]
    launch: Launch = launch
    # What ended this run's work early: reported by the main thread once every run has stopped.
    error: Exception | None = field(default=None, init=False)

    @property
    def files(self) -> RunFiles:
        return RunFiles(self.settings.runs_dir / self.run.name)

    def __call__(self) -> None:
        try:
            for step in (self.train, self.ship, self.evaluate):
                if self.stop.is_set():
                    return
                step()
        except Exception as error:  # noqa: BLE001 - kept for the main thread; the other runs go on
            self.error = error
            self.say(f"{self.run.name}: stopped: {error}")

    def train(self) -> None:
        from alphazero.train.run_dir import holds_run

        files = self.files
        state = training_state(files)
        if state is not None and training_done(self.cfg, state):
            return
        resume = holds_run(files.run_dir)
        where = f"core {self.core}" if self.core is not None else "the whole machine"
        self.say(f"{self.run.name}: training {self.settings.minutes:g} minutes of run time on {where}"
                 + (f", resumed at {state.seconds / 60:.1f} min" if resume and state is not None else "")
                 + f" (log: {files.train_log})")
        command = [sys.executable, "-m", "alphazero.train", *train_arguments(self.run, self.settings, files, resume)]
        status, _ = self.launch(command, files.train_log, self.core, False, lambda: self.say(f"{self.run.name}: {training_status(files)}"))
        if self.stop.is_set():
            return
        state = training_state(files)
        if status != 0 or state is None or not training_done(self.cfg, state):
            raise LearningBenchError(f"training exited {status} before its budget was spent: {last_lines(files.train_log)}")
        self.say(f"{self.run.name}: trained {state.seconds / 60:.1f} minutes: {count(state.iteration, 'iteration')}, "
                 f"{count(state.step, 'step')}")

    def ship(self) -> None:
        from alphazero.train.ship import ship

        files = self.files
        if not files.network.exists():
            ship(files.run_dir, files.network, network="latest")

    def evaluate(self) -> None:
        files, sims = self.files, self.settings.simulations
        for opponent in self.opponents:
            if self.stop.is_set():
                return
            if opponent.spec is None:
                continue
            arguments = eval_arguments(self.run, opponent, self.settings, files)
            path = files.result(sims, opponent.tag)
            if finished_result(path, arguments) is not None:
                continue
            started = time.monotonic()
            status, line = self.launch([sys.executable, "-m", "alphazero.arena", *arguments], files.eval_log, self.core, True)
            if self.stop.is_set():
                return
            try:
                result = json.loads(line) if status == 0 else None
            except ValueError:
                result = None
            if not isinstance(result, dict):
                raise LearningBenchError(f"the match against {opponent.tag} exited {status}: {last_lines(files.eval_log)}")
            write_json_atomic(path, {"arguments": arguments, "result": result})
            self.say(f"{self.run.name} vs {opponent.tag}: {score_text(result)} ({time.monotonic() - started:.0f} s)")


def training_status(files: RunFiles) -> str:
    """The run log's latest status line without its time stamp (`iter 12 | games ... | 14m03s,
    about 45m57s left`), or what the run is doing before its first."""
    try:
        lines = [line for line in (files.run_dir / "log.txt").read_text(errors="replace").splitlines() if " INFO iter " in line]
    except OSError:
        lines = []
    return lines[-1].split(" INFO ", 1)[1] if lines else "starting (no iteration finished yet)"


def last_lines(log: Path, count: int = 2) -> str:
    """The end of a log, for a one-line error: its last non-empty lines and where the rest is."""
    try:
        lines = [line.strip() for line in log.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        lines = []
    return " | ".join(lines[-count:]) + f" (whole log: {log})"


def score_text(result: dict) -> str:
    return (f"{result['score']:.2f} ({result['wins']}-{result['draws']}-{result['losses']}), "
            f"Elo {result['elo_diff']:+.0f} +-{result['elo_ci95']:.0f}")


def report_failures(pipelines: list[Pipeline]) -> None:
    """After every run has stopped: a bug (an error that is not one of the project's own
    refusals, which name their problem, nor an unreadable file) is raised as it is, with its
    traceback; the others make one line naming each run."""
    failed = [pipeline for pipeline in pipelines if pipeline.error is not None]
    for pipeline in failed:
        error = pipeline.error
        if not isinstance(error, OSError) and not type(error).__module__.startswith("alphazero."):
            raise error
    if failed:
        raise LearningBenchError("; ".join(f"run {p.run.name}: {p.error}" for p in failed)
                                 + " (what was done is kept: the same command resumes)")


def run_all(pipelines: list[Pipeline], side_by_side: bool, stop: threading.Event) -> None:
    """Every run at once (side by side), else one after another, in threads the main thread
    waits for. A Ctrl-C reaches the children itself (same process group): the main thread then
    tells the pipelines to start nothing more, waits for the children to stop (training saves its
    latest.pt first) and goes on with the KeyboardInterrupt."""
    if side_by_side:
        threads = [threading.Thread(target=pipeline, name=pipeline.run.name) for pipeline in pipelines]
    else:
        threads = [threading.Thread(target=lambda: [pipeline() for pipeline in pipelines], name="runs")]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            while thread.is_alive():
                thread.join(timeout=0.5)
    except KeyboardInterrupt:
        stop.set()
        for thread in threads:
            thread.join()
        raise


# ----------------------------------------------------------------------------------------------
# The result


def game_scores(path: Path, player: str, opponent: str) -> dict[tuple[str, bool], float]:
    """(opening, `player` has black) -> `player`'s score (1, 0.5, 0) in each game of its games log
    against `opponent` (lines checked by the arena's own reader: a damaged one is left out)."""
    scores = {}
    for (opening, black), actions in GameLog(path).finished_games(player, opponent).items():
        state = GameState.start()
        for action in actions:
            state = state.play(action)
        margin = state.black_margin() if black else -state.black_margin()
        scores[(opening, black)] = 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0
    return scores


def paired(first: dict, second: dict) -> dict | None:
    """Twin games (same opening, same colour) of two runs: each run's score over them, the mean
    difference per game (second - first) with its standard error, and how many twins each run
    scored more in. None when no game has a twin."""
    keys = sorted(set(first) & set(second))
    if not keys:
        return None
    diffs = [second[key] - first[key] for key in keys]
    n = len(diffs)
    mean = sum(diffs) / n
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else 0.0
    return {
        "games": n,
        "first_score": round(sum(first[key] for key in keys) / n, 4),
        "second_score": round(sum(second[key] for key in keys) / n, 4),
        "difference": round(mean, 4),
        "standard_error": round(math.sqrt(variance / n), 4),
        "second_better": sum(d > 0 for d in diffs),
        "first_better": sum(d < 0 for d in diffs),
    }


def comparison(first: RunSpec, second: RunSpec, settings: Settings, opponent_list: list[Opponent]) -> dict:
    """`second` against `first`, opponent by opponent and over every twin game together."""
    out, pooled_first, pooled_second = {}, {}, {}
    for opponent in opponent_list:
        if opponent.spec is None:
            continue
        a = game_scores(RunFiles(settings.runs_dir / first.name).games(settings.simulations, opponent.tag), first.name, opponent.tag)
        b = game_scores(RunFiles(settings.runs_dir / second.name).games(settings.simulations, opponent.tag), second.name, opponent.tag)
        figures = paired(a, b)
        if figures is not None:
            out[opponent.tag] = figures
            pooled_first.update({(opponent.tag, *key): value for key, value in a.items()})
            pooled_second.update({(opponent.tag, *key): value for key, value in b.items()})
    return {"first": first.name, "second": second.name, "opponents": out, "all": paired(pooled_first, pooled_second)}


EVALUATION_FIELDS = ("games", "wins", "draws", "losses", "score", "elo_diff", "elo_ci95", "seconds")


def run_summary(run: RunSpec, settings: Settings, opponent_list: list[Opponent]) -> dict:
    files = RunFiles(settings.runs_dir / run.name)
    state = training_state(files)
    games, positions = replay_counts(files.run_dir) if files.run_dir.is_dir() else (0, 0)
    evaluations = {}
    for opponent in opponent_list:
        if opponent.spec is None:
            evaluations[opponent.tag] = {"skipped": opponent.skipped}
            continue
        result = finished_result(files.result(settings.simulations, opponent.tag), eval_arguments(run, opponent, settings, files))
        evaluations[opponent.tag] = {key: result[key] for key in EVALUATION_FIELDS if key in result} if result else {"missing": True}
    summary = {
        "name": run.name,
        "overrides": list(run.overrides),
        "run_dir": str(files.run_dir),
        "network": str(files.network),
        "minutes": round(state.seconds / 60, 2) if state else 0.0,
        "iterations": state.iteration if state else 0,
        "games": games,
        "positions": positions,
        "steps": state.step if state else 0,
        "evaluations": evaluations,
    }
    return summary


# ----------------------------------------------------------------------------------------------
# The command


def default_runs_dir() -> Path:
    """Outside any checkout: $XDG_CACHE_HOME/alphazero/learning (~/.cache/alphazero/learning)."""
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "alphazero" / "learning"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m alphazero.bench learning", description=__doc__.split("\n\n")[2])
    p.add_argument("--run", dest="runs", type=parse_run, action="append", required=True, metavar="NAME=OVERRIDES",
                   help="a run: its name and its training overrides (repeat for more; the first is the others' baseline)")
    p.add_argument("--minutes", type=positive_float, default=60.0, help="run time of each training run (default 60)")
    p.add_argument("--run-seed", type=int, default=16, help="run.seed of every run (default 16, as the ablation)")
    p.add_argument("--simulations", type=non_negative_int, default=100, help="simulations a move of the evaluated networks (default 100)")
    p.add_argument("--pairs", type=positive_int, default=50, help="openings per opponent, each played with both colours (default 50)")
    p.add_argument("--seed", type=int, default=1, help="seed of the random 4-ply openings (default 1)")
    p.add_argument("--opponents", type=parse_opponents, default=DEFAULT_OPPONENTS,
                   help=f"comma-separated: alphabeta-D, grhino-L (default {','.join(DEFAULT_OPPONENTS)})")
    p.add_argument("--reference", metavar="PATH", help="also play this network head to head (at the same simulations)")
    p.add_argument("--reference-pairs", type=positive_int, default=100, help="openings against --reference (default 100: 200 games)")
    p.add_argument("--runs-dir", type=Path, default=None, help=f"where each run's directory, network and games go (default {default_runs_dir()})")
    p.add_argument("--side-by-side", action="store_true", help="all runs at once, each pinned to its own core")
    return p


def main(argv) -> dict:
    from alphazero.nn.precision import cpu_model
    from alphazero.train.__main__ import CONF_DIR

    args = parser().parse_args(argv)
    settings = Settings(minutes=args.minutes, run_seed=args.run_seed, simulations=args.simulations, pairs=args.pairs,
                        seed=args.seed, runs_dir=(args.runs_dir or default_runs_dir()).expanduser().absolute(),
                        side_by_side=args.side_by_side)
    runs = args.runs
    cores = available_cores()
    if args.side_by_side and len(runs) > len(cores):
        raise LearningBenchError(f"--side-by-side: {len(runs)} runs but this process may use {len(cores)} cores "
                                 f"({', '.join(map(str, cores))}); run fewer at once, or one after another without --side-by-side")
    check_path(settings.runs_dir, "--runs-dir")
    reference = None
    if args.reference:
        reference = Path(args.reference).expanduser().absolute()
        check_path(reference, "--reference")
        check_reference(str(reference))
    configs = check_runs(runs, settings, CONF_DIR)
    opponent_list = opponents(args.opponents, args.pairs, str(reference) if reference else None, args.reference_pairs, args.simulations)

    def say(text: str) -> None:
        print(f"learning: {text}", file=sys.stderr, flush=True)

    started, load_start = time.time(), _load()
    for opponent in opponent_list:
        if opponent.skipped:
            say(f"{opponent.tag}: skipped, {opponent.skipped}")
    say(f"{len(runs)} run{'s' * (len(runs) != 1)} of {settings.minutes:g} minutes {'side by side' if args.side_by_side else 'one after another'}, "
        f"in {settings.runs_dir}")
    for run in runs:
        write_json_atomic(RunFiles(settings.runs_dir / run.name).spec, recorded_spec(run, settings))
    stop = threading.Event()
    pipelines = [Pipeline(run, configs[run.name], settings, opponent_list, cores[index] if args.side_by_side else None, stop, say)
                 for index, run in enumerate(runs)]
    try:
        run_all(pipelines, args.side_by_side, stop)
    except KeyboardInterrupt:
        say("interrupted: the training runs saved their latest.pt, finished evaluations and games are kept; the same command resumes")
        raise
    report_failures(pipelines)
    return {
        "benchmark": "learning",
        "minutes": settings.minutes,
        "run_seed": settings.run_seed,
        "simulations": settings.simulations,
        "pairs": settings.pairs,
        "seed": settings.seed,
        "opening_plies": 4,
        "reference": str(reference) if reference else None,
        "reference_pairs": args.reference_pairs if reference else None,
        "side_by_side": args.side_by_side,
        "runs_dir": str(settings.runs_dir),
        "runs": [run_summary(run, settings, opponent_list) for run in runs],
        "paired": [comparison(runs[0], run, settings, opponent_list) for run in runs[1:]],
        "cpu": cpu_model(),
        "cores": len(cores),
        "load_average_start": load_start,
        "load_average_end": _load(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "seconds": round(time.time() - started, 1),
    }


def _load() -> list[float] | None:
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None
