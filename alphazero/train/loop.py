"""The self-play training loop, readable as the pipeline:

    self-play (workers -> replay shards) -> train (replay -> network) -> gate (arena) -> checkpoint

`sync` mode runs the stages in turn (generate an iteration's games, train on them, gate, repeat),
as alpha-zero-general does. `async` mode keeps the workers playing while the trainer trains,
holding the replay ratio (samples trained per position generated) at `train.replay_ratio`.

Everything needed to continue is on disk: the replay shards are the record of every finished game,
`checkpoints/latest.pt` holds the network, optimizer, scheduler, counters and RNG states, and
`checkpoints/best.json` names the network the workers use. Ctrl-C (or SIGTERM) finishes the unit
of work in hand, writes `latest.pt` and exits; a SIGKILL loses at most the games in flight and the
training steps since the last `latest.pt`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import logging
import math
import random
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import torch
from tqdm import tqdm

from alphazero.train.config import RunConfig
from alphazero.train.schema import Config, to_yaml
from alphazero.fault_hooks import fault_point
from alphazero.nn.checkpoint import CheckpointError, build_network, initialise_from, load_checkpoint, load_network, without_auxiliary_heads
from alphazero.nn.config import check_same_model
from alphazero.nn.inference import resolve_device
from alphazero.nn.precision import run_cache_file
from alphazero.replay.buffer import ReplayBuffer
from alphazero.selfplay.throughput import EfficiencyGauge, GpuUtilization, PipelineCounters, network_only_setting
from alphazero.selfplay.pool import WorkerPool
from alphazero.selfplay.reports import DiskFullReport, ProgressReport, ShardReport
from alphazero.selfplay.worker import resolve_worker_precision
from alphazero.train import checkpoints
from alphazero.train.evaluation import evaluate_baselines, gate
from alphazero.train.metrics import Metrics, resume_purge_step
from alphazero.train.provenance import SESSIONS_FILE, describe, record_session
from alphazero.train.run_dir import DiskFullError, RunLock, check, make_layout, setup_logging
from alphazero.train.waiting import PlayWait
from alphazero.train.trainer import OptimizerMismatch, Trainer, build_optimizer, build_scheduler, restore_optimizer

log = logging.getLogger("alphazero.train")


@dataclass
class RunState:
    """Counters that `latest.pt` carries across restarts."""

    iteration: int = 0
    step: int = 0
    samples_trained: int = 0
    best_id: int = 0
    best_elo: float = 0.0
    promotions: int = 0
    gates: int = 0
    last_gate_step: int = 0
    last_eval_step: int = -1
    seconds: float = 0.0  # wall time spent in this run over all sessions
    worker_restarts: int = 0
    elo_ladder: list = field(default_factory=lambda: [[0, 0.0, 0]])  # [network id, Elo, step]


FIRST_RATE_SECONDS = 5.0  # the first games' status line gives rates only over at least this long


class StopRequest:
    """First SIGINT/SIGTERM asks the loop to stop after the current unit of work; a second SIGINT
    interrupts at once."""

    def __init__(self):
        self.requested = False
        self._previous = {}

    def __enter__(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def _handle(self, signum, frame):
        if self.requested and signum == signal.SIGINT:
            raise KeyboardInterrupt
        self.requested = True
        log.info("stop requested (%s): finishing the current unit of work; the self-play workers write the games they finished "
                 "and save those in play (they continue on resume), then the run saves latest.pt. A second Ctrl-C stops at once",
                 signal.Signals(signum).name)

    def __exit__(self, *exc):
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


def seed_everything(seed: int) -> None:
    """Seed Python's, numpy's legacy and torch's global generators (self-play training and pretraining)."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def rng_state(rng: np.random.Generator) -> dict:
    """The generators a run's latest checkpoint carries, so that a resume continues the same draws."""
    return {
        "numpy_generator": rng.bit_generator.state,
        "torch": torch.get_rng_state(),
        "python": list(random.getstate()[1]),
    }


def restore_rng(rng: np.random.Generator, state: dict) -> None:
    rng.bit_generator.state = state["numpy_generator"]
    torch.set_rng_state(state["torch"].cpu())  # a checkpoint loaded with map_location=cuda holds it on the GPU
    random.setstate((3, tuple(state["python"]), None))


def check_resume_point(latest, train_cfg, path: Path, counters: "ResumeCounters | None" = None, prefix: str = "train") -> None:
    """latest.pt (`latest`, read from `path`) can be continued: its weights fit its network, its
    optimizer and LR schedule load into train_cfg's and their tensors fit the weights and are
    finite, and its counters and generators are what the run's state and `restore_rng` take.

    Tried on throwaway copies (the global generators, which building a network and restoring the
    saved ones draw on, are put back), so the start check can refuse a damaged resume point before
    the run directory is touched, in one line naming the file and the damaged part with the way
    out (CheckpointError), instead of a traceback from inside torch halfway through the setup, or
    a first training step that fails or trains on NaN momentum. An optimizer of another kind is
    the config's fault: OptimizerMismatch, as is (`prefix` names the config group in it).

    counters: where the run keeps its counters and what to say about a damaged part (default: the
    training run's RunState fields in `extra`, and its numbered copies of latest.pt); pretraining
    passes its own."""
    counters = counters or ResumeCounters(RunState, lambda extra: extra, lambda: checkpoints.unusable_latest_hint(path.parent.parent))
    torch_state, python_state = torch.get_rng_state(), random.getstate()
    try:
        _try_resume_point(latest, train_cfg, path, counters, prefix)
    finally:
        torch.set_rng_state(torch_state)
        random.setstate(python_state)


@dataclass(frozen=True)
class ResumeCounters:
    """How a run's latest.pt keeps its counters, for `check_resume_point`: the dataclass they fill
    (each field's saved value must be of its default's type), where they sit in the checkpoint's
    `extra`, and the way out to name when a part of the file is damaged."""

    state: type
    find: Callable[[dict], object]  # extra -> the dict of counters
    way_out: Callable[[], str]  # asked only when a part is damaged: it may load the run's other checkpoints


def _try_resume_point(latest, train_cfg, path: Path, counters: ResumeCounters, prefix: str) -> None:
    net = build_network(latest.model_config)
    _try_resume_part(path, "state_dict", lambda: net.load_state_dict(latest.state_dict), counters.way_out)
    optimizer = build_optimizer(net, train_cfg)
    scheduler = build_scheduler(optimizer, train_cfg)
    _try_resume_part(path, "optimizer or LR schedule state",
                     lambda: restore_optimizer(optimizer, scheduler, latest.optimizer_state, latest.scheduler_state, train_cfg, prefix=prefix),
                     counters.way_out)
    for group in optimizer.param_groups:
        for param in group["params"]:
            for name, value in optimizer.state.get(param, {}).items():
                if not torch.is_tensor(value):
                    continue
                if value.dim() and value.shape != param.shape:
                    _damaged(path, "optimizer state", f"its {name} has shape {list(value.shape)}, its weight {list(param.shape)}", counters.way_out)
                if value.is_floating_point() and not bool(torch.isfinite(value).all()):
                    _damaged(path, "optimizer state", f"its {name} holds NaN or infinite values", counters.way_out)
    _check_counters(latest.extra, path, counters)


def _check_counters(extra, path: Path, counters: ResumeCounters) -> None:
    """The run state's counters (each of its default's type; ints count as floats) and generators."""
    if not isinstance(extra, dict):
        _damaged(path, "run state", f"a {type(extra).__name__}, expected a dict", counters.way_out)
    saved = counters.find(extra)
    if not isinstance(saved, dict):
        _damaged(path, "run state", f"a {type(saved).__name__}, expected a dict", counters.way_out)
    for f in dataclasses.fields(counters.state):
        if f.name not in saved:
            continue
        kind = type(f.default_factory() if f.default is dataclasses.MISSING else f.default)
        value = saved[f.name]
        if isinstance(value, bool) != (kind is bool) or not isinstance(value, (int, float) if kind is float else kind):
            _damaged(path, "run state", f"{f.name} is {value!r:.40}, expected type {kind.__name__}", counters.way_out)
    if extra.get("rng"):
        _try_resume_part(path, "random generator state", lambda: restore_rng(np.random.default_rng(), extra["rng"]), counters.way_out)


def _try_resume_part(path: Path, part: str, load, way_out: Callable[[], str]) -> None:
    try:
        load()
    except OptimizerMismatch:
        raise
    except Exception as error:  # noqa: BLE001 - a damaged state fails inside torch any way (KeyError, TypeError, RuntimeError, ...)
        _damaged(path, part, f"{type(error).__name__}: {(str(error).strip().splitlines() or [''])[0]:.200}", way_out)


def _damaged(path: Path, part: str, reason: str, way_out: Callable[[], str]) -> None:
    raise CheckpointError(f"checkpoint {path} has an unusable {part} ({reason}); {way_out()}")


def spent_budget(run: RunConfig, state: RunState, elapsed: float) -> str | None:
    """Which of the run's budgets is used up after `elapsed` seconds of run time, as a sentence
    that says how to raise it, or None. Each counts the whole run, earlier sessions included, so a
    resumed run may start with one already spent (and a finished run's latest.pt, read back with
    its `seconds`, says whether it is finished: `python -m alphazero.bench learning` asks so)."""
    if run.max_iterations and state.iteration >= run.max_iterations:
        return f"run.max_iterations={run.max_iterations} is reached (iteration {state.iteration}, every session counted)"
    if run.max_minutes and elapsed >= run.max_minutes * 60:
        more = math.ceil(elapsed / 60) + 60
        return (f"run.max_minutes={run.max_minutes:g} is spent ({_duration(elapsed)} over every session of this "
                f"run so far; run.max_minutes={more} gives it about an hour more)")
    if run.max_steps and state.step >= run.max_steps:
        return f"run.max_steps={run.max_steps} is reached (step {state.step}, every session counted)"
    return None


def saved_run_state(extra: dict) -> RunState:
    """The counters a run's latest.pt carries (`extra`, without the generators): what a resume
    continues from."""
    known = {f.name for f in dataclasses.fields(RunState)}
    return RunState(**{k: v for k, v in extra.items() if k in known})


class TrainingRun:
    """One run directory's training, from fresh start or resume to a clean stop."""

    def __init__(self, cfg: Config, run_dir: Path, group=None, wait: PlayWait | None = None):
        self.cfg = cfg
        # What the console says until self-play's first move (the command asked numba's cache at
        # its start; a run made otherwise, by a test say, cannot tell).
        self.wait = wait or PlayWait(None, cfg.run.progress)
        # alphazero.train.distributed.Group when torchrun started several training processes:
        # this one (rank 0) is the run, and the others train with it. None: a single process.
        self.group = group
        self.run_dir = Path(run_dir)
        self.state = RunState()
        self.rng = np.random.default_rng(cfg.run.seed)
        self.pool = None
        self.restarts_before_session = 0
        self.disk_full: OSError | None = None
        self.started = time.monotonic()
        self.seconds_at_start = 0.0
        self.saved_step: int | None = None  # the step that the latest.pt on disk holds
        self.workers_ready = False  # a worker has reported progress since the pool started
        self.workers_playing: set[int] = set()  # workers that have sent a progress report this session
        self.first_games_reported = False  # the "first games" status line of this session
        self.game_lengths_seen: list[float] = []  # mean lengths of earlier iterations' shards

    # ------------------------------------------------------------------------------------------
    # Set-up

    def _setup(self) -> None:
        cfg = self.cfg
        make_layout(self.run_dir)
        (self.run_dir / "config.yaml").write_text(to_yaml(cfg))
        seed_everything(cfg.run.seed)
        torch.set_num_threads(cfg.train.threads)
        self.device = resolve_device(cfg.train.device) if self.group is None else self.group.device(cfg.train.device)
        if cfg.run.resume:
            checkpoints.tidy_after_crash(self.run_dir)
        latest = checkpoints.load_latest(self.run_dir) if cfg.run.resume else None
        if latest is not None:
            self._check_same_model(latest.model_config)
            check_resume_point(latest, cfg.train, checkpoints.checkpoint_dir(self.run_dir) / "latest.pt")
            saved_rng = latest.extra.get("rng")
            self.state = saved_run_state(latest.extra)
            # The run's clock continues before the trainer is built: a schedule in run time
            # (train.lr_schedule_horizon=minutes) restores its learning rate from it.
            self.seconds_at_start = self.state.seconds
            if saved_rng:
                restore_rng(self.rng, saved_rng)
            self.net = build_network(latest.model_config)
            self.net.load_state_dict(latest.state_dict)
            self.trainer = Trainer(self.net, cfg.train, self.device, precision_cache=run_cache_file(self.run_dir),
                                   time_progress=self._lr_time_progress())
            for change in self.trainer.load_state(latest.optimizer_state, latest.scheduler_state):
                log.info("resume: %s", change)
            log.info("resumed %s at iteration %d, step %d, best network #%d", self.run_dir, self.state.iteration, self.state.step, self.state.best_id)
        else:
            self.net = build_network(cfg.model)
            if cfg.train.init_from:
                source = load_checkpoint(cfg.train.init_from)
                self._check_same_model(without_auxiliary_heads(source.model_config), where=cfg.train.init_from,
                                       wanted=without_auxiliary_heads(cfg.model))
                note = initialise_from(self.net, source)
                log.info("network initialised from %s%s", cfg.train.init_from, note)
            self.trainer = Trainer(self.net, cfg.train, self.device, precision_cache=run_cache_file(self.run_dir),
                                   time_progress=self._lr_time_progress())
            if cfg.run.resume:
                log.info("no latest.pt in %s: starting training from the best network", self.run_dir)
        # The best network: the pointer on disk wins over the counters (it is written first).
        try:
            pointer = checkpoints.read_best_pointer(self.run_dir)
            self.state.best_id, self.state.best_elo = pointer["id"], pointer["elo"]
            if latest is None and cfg.run.resume:
                self.net.load_state_dict(load_network(pointer["path"]).state_dict())
        except FileNotFoundError:
            checkpoints.publish_best(self.run_dir, self.net, 0, 0.0, self.state.step)
        if self.group is not None:
            # The weights are final now (resume, init_from, best network): hand them to the others.
            self.trainer = self.group.start(cfg, self.net, self.trainer)
            world = self.group.ranks.world_size
            log.info(
                "training on %d processes (DistributedDataParallel): each step trains %d samples per process, %d in all",
                world, cfg.train.batch_size // world, cfg.train.batch_size,
            )
        self.seconds_at_start = self.state.seconds
        self.session_start = (time.monotonic(), self.state.step, self.state.iteration)
        self.replay = ReplayBuffer(self.run_dir / "replay", window_positions=cfg.train.window_positions,
                                   min_positions_to_sample=cfg.train.min_positions,
                                   value_target_q_weight=cfg.train.value_target_q_weight)
        self.metrics = Metrics(self.run_dir / "tb", purge_step=resume_purge_step(self.state.step) if cfg.run.resume else None)
        log.info(
            "run directory %s | model %s | self-play workers: %d x %d games | mode %s | device %s",
            self.run_dir, _model_summary(cfg), cfg.selfplay.workers, cfg.selfplay.concurrent_games, cfg.run.mode, self.device,
        )
        log.info("replay buffer: %d games, %d positions on disk", self.replay.total_games, self.replay.total_positions)
        self.spent_at_start = self._spent_budget()
        if self.spent_at_start is not None:
            return  # run() says so and stops: no session to record, no precision to settle
        session = record_session(self.run_dir, self.state.iteration, self.state.step)
        log.info("code: %s (recorded in %s)", describe(session), SESSIONS_FILE)
        self._record_precision()

    def _record_precision(self) -> None:
        """Settle the self-play workers' network precision before they start (they read the
        verdict from the run's precision.json) and record it and the trainer's in TensorBoard's
        text tab (each process logs its own choice once); precision.json keeps every verdict
        with the probe's timings."""
        choices = {"trainer": self.trainer.precision_choice}
        selfplay = resolve_worker_precision(self.net, self.cfg.selfplay, str(self.run_dir))
        if selfplay is not None:
            choices["self-play"] = selfplay
        lines = [f"- {stage}: {choice.describe()}" for stage, choice in choices.items()]
        arena = self.cfg.arena.precision
        lines.append(f"- arena, eval: precision={arena}" + (", decided at their first match (see precision.json)" if arena == "auto" else ""))
        self.metrics.text("precision", "\n".join(lines), self.state.step)

    def _lr_time_progress(self) -> Callable[[], float] | None:
        """The cosine's clock under train.lr_schedule_horizon=minutes: the share of run.max_minutes
        spent, over every session, as the budget counts it (`_elapsed`: latest.pt carries the
        seconds), so a resumed run continues the curve it was on. None: the schedule counts steps,
        as it also does (and says) when the run has no time budget to follow; `auto` counts
        minutes when there is one and steps, silently, when there is not."""
        train, run = self.cfg.train, self.cfg.run
        if train.lr_schedule_horizon == "steps" or (train.lr_schedule_horizon == "auto" and not run.max_minutes):
            return None
        if not run.max_minutes:
            log.warning("train.lr_schedule_horizon=minutes but run.max_minutes=0 (this run goes on until stopped): the "
                        "cosine counts train.lr_total_steps=%d steps instead; set run.max_minutes to follow the run's length",
                        train.lr_total_steps)
            return None
        budget = run.max_minutes * 60
        log.info("learning rate: cosine from %g to %g over run.max_minutes=%g of run time (every session counted), "
                 "after %d warm-up steps", train.lr, train.lr * train.lr_min_factor, run.max_minutes, train.lr_warmup_steps)
        return lambda: self._elapsed() / budget

    def _check_same_model(self, saved, where: str = "", wanted=None) -> None:
        check_same_model(saved, self.cfg.model if wanted is None else wanted, where or str(self.run_dir / "checkpoints/latest.pt"))

    # ------------------------------------------------------------------------------------------
    # The stages

    def _elapsed(self) -> float:
        return self.seconds_at_start + time.monotonic() - self.started

    def _budget_spent(self) -> bool:
        return self._spent_budget() is not None

    def _spent_budget(self) -> str | None:
        return spent_budget(self.cfg.run, self.state, self._elapsed())

    def _record(self, report) -> None:
        """Count a worker report into this iteration's figures (games and positions from shards,
        search work from progress reports: each counted once, see selfplay.reports)."""
        stats = self.selfplay_stats
        if isinstance(report, ShardReport):
            stats["games"] += report.games
            stats["positions"] += report.positions
            stats["lengths"].append(report.mean_length)
            for node, positions in report.nodes.items():  # Ray actors say where they ran
                stats["nodes"][node] = stats["nodes"].get(node, 0) + positions
        elif isinstance(report, ProgressReport):
            # A worker's first progress report of the session covers its start (the network's
            # first calls, numba compiling the kernels they use: minutes on a cold cache), which
            # the iteration's clock leaves out (_workers_ready): its network time is left out too,
            # or the workers' share of time in network calls read 10.5 on a first start.
            if report.worker in self.workers_playing:
                self.pipeline.add_progress(report)
            self.workers_playing.add(report.worker)
            stats["simulations"] += report.simulations
            stats["moves"] += report.moves
        elif isinstance(report, DiskFullReport):
            raise OSError(errno.ENOSPC, report.message, report.path)

    @contextlib.contextmanager
    def _console_cleared(self):
        """A log record on the console with the terminal's status lines out of its way: the wait's
        ticking line and any progress bar write to stderr, the record to stdout, one screen (a
        record used to land at the end of the bar's line)."""
        with self.wait.cleared(), tqdm.external_write_mode():
            yield

    def _progress_bar(self, total: int, description: str, unit: str, initial: int = 0) -> tqdm:
        """A progress bar on stderr while a stage takes long; shown on a terminal only (a log file
        gets the status lines), and never with `run.progress=false`. `initial`: units done before
        the bar (counted, not in its rate)."""
        return tqdm(
            total=max(total, initial), initial=initial, desc=description, unit=unit, leave=False, dynamic_ncols=True,
            mininterval=1.0, disable=None if self.cfg.run.progress else True,
        )

    def selfplay_sync(self, stop: StopRequest) -> None:
        """Play this iteration's games on all workers and wait for them."""
        cfg = self.cfg.selfplay
        share, extra = divmod(cfg.games_per_iteration, cfg.workers)
        for worker_id in range(cfg.workers):
            games = share + (1 if worker_id < extra else 0)
            if games:
                self.pool.assign(worker_id, games)
        description = f"iter {self.state.iteration + 1} self-play"
        # The bar counts moves, which come every few seconds from every worker (games end
        # together, all slots having started together): its ETA holds from the first report. It
        # appears when play begins: until the workers have loaded the network and numba has
        # loaded or compiled the search kernels (minutes on a first start), the wait's own line
        # ticks instead (PlayWait), and a bar started earlier would count that wait in its clock
        # and rate (an ETA of 4:30:23 on a first start whose iteration took minutes).
        expected_moves = cfg.games_per_iteration * self._expected_game_length()
        with contextlib.ExitStack() as bars:
            bar = start = played = None

            def open_bar():  # play is under way: the bar's clock, rate and ETA from now
                nonlocal start, played
                start, played = time.perf_counter(), (self.selfplay_stats["moves"], self.selfplay_stats["simulations"])
                return bars.enter_context(self._progress_bar(expected_moves, description, "move", initial=played[0]))

            if self.workers_ready:
                bar = open_bar()
            while any(task is not None for task in self.pool.current.values()):
                for report in self.pool.poll(timeout=0.5):
                    if isinstance(report, (ShardReport, ProgressReport)) and not self.workers_ready:
                        self._workers_ready()
                    self._record(report)
                    stats = self.selfplay_stats
                    if isinstance(report, ShardReport) and not self.first_games_reported:
                        self._report_first_games()
                    if not self.workers_ready:
                        continue
                    if bar is None:
                        bar = open_bar()  # with this first report's moves done before it
                    elif isinstance(report, ProgressReport):
                        bar.total = max(bar.total, stats["moves"])
                        bar.update(report.moves)
                    rate = (stats["simulations"] - played[1]) / max(time.perf_counter() - start, 1e-9)
                    bar.set_postfix_str(f"{stats['games']}/{cfg.games_per_iteration} games, {rate:,.0f} sims/s", refresh=False)
                    bar.refresh()
                if stop.requested:
                    return

    def _workers_ready(self) -> None:
        self.workers_ready = True
        log.info("%s", self.wait.playing(time.monotonic() - self.pool_started))
        # The session's first iteration plays from now: its rates (the first games, the status
        # line) leave out the workers' start, minutes on a first start that compiles the search.
        self.selfplay_stats["start"] = time.perf_counter()

    def _expected_game_length(self) -> float:
        """Plies a game takes: this run's mean so far, else a full game from the opening."""
        lengths = self.selfplay_stats["lengths"] or self.game_lengths_seen
        return float(np.mean(lengths)) if lengths else 60.0 - self.cfg.selfplay.random_opening_plies

    def _report_first_games(self) -> None:
        """A status line as soon as this session's first games are in, before a whole iteration
        (and its training) is over: the pipeline works, and how fast."""
        self.first_games_reported = True
        stats, seconds = self.selfplay_stats, time.perf_counter() - self.selfplay_stats["start"]
        # Rates only over a few seconds: a resumed session's first games are often the games in
        # play it restored, most of whose moves an earlier session searched (a GPU run's 3,072
        # games ending on a CPU 0 s in read as 4 million positions/s).
        rates = (f"{stats['positions'] / seconds:.1f} pos/s {stats['simulations'] / seconds:.0f} sims/s" if seconds >= FIRST_RATE_SECONDS
                 else "rates in the next status line")
        held, wanted = self.replay.window_size + stats["positions"], self.cfg.train.min_positions
        training = f"training starts once the buffer holds {wanted} positions (has {held})" if held < wanted else "training under way"
        log.info("first games | %d games, %d positions in %.0fs since self-play began | %s | %s | %s",
                 stats["games"], stats["positions"], seconds, rates, training, _duration(self._elapsed()))

    def train_steps(self, max_steps: int | None, stop: StopRequest) -> int:
        """Train while the replay ratio allows (and at most `max_steps`); returns steps taken."""
        cfg = self.cfg.train
        self.replay.refresh()
        if self.replay.window_size < cfg.min_positions:
            return 0
        # Counted in samples, not steps: a run resumed with another batch size (a GPU run carried
        # to a CPU preset: 1,024 there, 256 here) keeps its ratio instead of owing a burst of steps
        # over the same positions.
        due = math.floor((cfg.replay_ratio * self.replay.total_positions - self.state.samples_trained) / cfg.batch_size)
        if max_steps is not None:
            due = min(due, max_steps)
        taken = 0
        start = time.perf_counter()
        bar = self._progress_bar(max(0, due), "training", "step") if self.cfg.run.mode == "sync" else None
        for _ in range(max(0, due)):
            if stop.requested or (self.cfg.run.max_steps and self.state.step >= self.cfg.run.max_steps):
                break
            fault_point("train_step")
            batch = self.replay.sample(cfg.batch_size, self.rng, augment=cfg.augment)
            # All rows with policy targets (playout cap off): the unmasked loss, as before the mask existed.
            policy_mask = None if batch.policy_mask is None or batch.policy_mask.all() else batch.policy_mask
            losses = self.trainer.step(batch.positions, batch.policies, batch.values, policy_mask,
                                       final_boards=batch.final_boards, aux_mask=batch.aux_mask)
            self.state.step += 1
            self.state.samples_trained += cfg.batch_size
            taken += 1
            if bar is not None:
                bar.update()
            self.metrics.add_losses(losses)
            # The first step's losses at once (a curve from the first minute), then every
            # log_every_steps; whatever a burst leaves is written at its end (below).
            if self.state.step % self.cfg.run.log_every_steps == 0 or self.state.step == 1:
                self.metrics.flush_losses(self.state.step, samples_per_second=taken * cfg.batch_size / (time.perf_counter() - start))
            if self.state.step % cfg.checkpoint_every_steps == 0:
                self.save(numbered=True)
            if self.cfg.run.mode == "async":
                self.maybe_gate_and_eval()
        if taken:
            self.metrics.flush_losses(self.state.step, samples_per_second=taken * cfg.batch_size / (time.perf_counter() - start))
        if bar is not None:
            bar.close()
        return taken

    def maybe_gate_and_eval(self) -> None:
        """Gate every arena.every_steps and evaluate every eval.every_steps; the first of each
        comes at arena.first_step / eval.first_step when those are set (strength points early in
        a run, before the regular schedule starts)."""
        arena, evaluation, state = self.cfg.arena, self.cfg.eval, self.state
        first_gate = state.gates == 0 and arena.first_step and state.step >= arena.first_step
        if first_gate or state.step - state.last_gate_step >= arena.every_steps:
            self.gate_or_publish()
        first_eval = state.last_eval_step < 0 and evaluation.first_step and state.step >= evaluation.first_step
        if evaluation.every_steps and (first_eval or state.step - max(state.last_eval_step, 0) >= evaluation.every_steps):
            self.evaluate()

    def gate_or_publish(self) -> None:
        """The candidate plays the best. With gating it becomes the self-play network only when
        the sequential test says it is better (arena.sprt_*: its error rates are in the config and
        the log line); without gating it becomes it anyway (as in AlphaZero), and the match only
        measures its Elo step. Either way the `elo/best` curve adds steps measured on games that
        did not decide the promotion (see alphazero.arena.sprt), so it does not drift upwards."""
        fault_point("arena")
        self.state.last_gate_step = self.state.step
        self.state.gates += 1
        candidate = build_network(self.cfg.model)
        candidate.load_state_dict(self.net.state_dict())
        candidate.eval()
        best = load_network(checkpoints.read_best_pointer(self.run_dir)["path"])
        start = time.perf_counter()
        cfg = self.cfg.arena
        result = gate(candidate, best, cfg, seed=int(self.rng.integers(2**31)), threads=cfg.threads,
                      mcts=self.cfg.mcts, device=self._arena_device(), precision_cache=run_cache_file(self.run_dir))
        if cfg.gating:
            verdict = ("promoted" if result.promoted else "kept best") + (" (cap reached)" if result.truncated else "")
            pairs = (f" in {result.rounds} of at most {cfg.rounds()} rounds, pairs LL/LD/WL+DD/WD/WW "
                     + "/".join(str(count) for count in result.pairs))
            test = (f", LLR {result.llr:+.2f} in [{math.log(cfg.sprt_beta / (1 - cfg.sprt_alpha)):.2f}, "
                    f"{math.log((1 - cfg.sprt_beta) / cfg.sprt_alpha):.2f}] (SPRT elo0={cfg.sprt_elo0:g} elo1={cfg.sprt_elo1:g} "
                    f"alpha={cfg.sprt_alpha:g} beta={cfg.sprt_beta:g})")
            step = f"; Elo step {result.elo_step:+.0f} on {2 * cfg.elo_pairs} fresh games" if result.promoted else ""
        else:
            verdict, pairs, test, step = "published (no gating)", "", "", ""
        log.info(
            "arena: candidate vs best #%d: +%d =%d -%d over %d games%s, score %.3f (Elo %+.0f)%s%s in %.0fs -> %s",
            self.state.best_id, result.wins, result.draws, result.losses, result.games, pairs, result.score, result.elo_diff, test,
            step, time.perf_counter() - start, verdict,
        )
        promoted = result.promoted or not cfg.gating
        self.metrics.scalar("arena/score", result.score, self.state.step)
        self.metrics.scalar("arena/elo_diff", result.elo_diff, self.state.step)
        self.metrics.scalar("arena/games", result.games, self.state.step)
        self.metrics.scalar("arena/promoted", float(promoted), self.state.step)
        if result.llr is not None:
            self.metrics.scalar("arena/llr", result.llr, self.state.step)
        if promoted:
            self._promote(candidate, elo_gain=result.elo_step)
        self.metrics.scalar("arena/promotions", self.state.promotions, self.state.step)

    def _promote(self, net, elo_gain: float) -> None:
        self.state.best_id += 1
        self.state.best_elo += elo_gain
        self.state.promotions += 1
        self.state.elo_ladder.append([self.state.best_id, self.state.best_elo, self.state.step])
        checkpoints.publish_best(self.run_dir, net, self.state.best_id, self.state.best_elo, self.state.step)
        self.pool.publish(self.state.best_id, net)
        self.metrics.scalar("elo/best", self.state.best_elo, self.state.step)
        self.metrics.scalar("elo/best_id", self.state.best_id, self.state.step)
        self.last_promotion = self.state.best_id

    def _arena_device(self):
        """Gating and evaluation search on the training GPU when there is one (their batches are
        one position per game in play: small on a CPU, cheap on a GPU), else on the CPU."""
        return self.device if self.device.type == "cuda" else "cpu"

    def evaluate(self) -> None:
        fault_point("arena")
        self.state.last_eval_step = self.state.step
        best = load_network(checkpoints.read_best_pointer(self.run_dir)["path"])
        start = time.perf_counter()
        scores = evaluate_baselines(best, self.cfg.eval, seed=int(self.rng.integers(2**31)), threads=self.cfg.arena.threads,
                                    mcts=self.cfg.mcts, device=self._arena_device(), precision=self.cfg.arena.precision,
                                    precision_cache=run_cache_file(self.run_dir))
        for name, score in scores.items():
            self.metrics.scalar(f"eval/score_vs_{name.replace(':', '_').replace('=', '')}", score, self.state.step)
        log.info(
            "eval of best #%d at %d sims: %s (%.0fs)",
            self.state.best_id, self.cfg.eval.simulations, ", ".join(f"{k} {v:.2f}" for k, v in scores.items()), time.perf_counter() - start,
        )
        self.last_eval = scores

    def _prune_replay(self) -> None:
        """Delete the shards that left the window (unless `train.keep_old_shards`): the disk stays
        bounded and the buffer's directory scan short. Runs after `save()`, so a resume never needs
        a pruned shard: the window it rebuilds lies entirely in the shards kept."""
        if self.cfg.train.keep_old_shards:
            return
        removed = self.replay.prune()
        if removed:
            log.debug("replay: pruned %d shards older than the window", len(removed))

    def save(self, numbered: bool = False) -> None:
        self.state.seconds = self._elapsed()
        self.state.worker_restarts = self._worker_restarts()
        payload = dataclasses.asdict(self.state)
        payload["rng"] = rng_state(self.rng)
        checkpoints.save_latest(self.run_dir, self.net, self.trainer, payload, numbered=numbered)
        self.saved_step = self.state.step

    def interruption_summary(self) -> str:
        """One line for a run stopped at once (a second Ctrl-C): what is on disk, what was lost."""
        if self.saved_step is None:
            kept = "every finished game in replay/ (no latest.pt was written in this session)"
        else:
            kept = f"checkpoints/latest.pt at step {self.saved_step} and every finished game in replay/"
        unsaved = self.state.step - (self.saved_step if self.saved_step is not None else self.state.step)
        lost = "the self-play games in flight" + (f" and {unsaved} training steps" if unsaved > 0 else "")
        return f"kept {kept}; lost {lost}. Resume with run.dir={self.run_dir} run.resume=true"

    def _worker_restarts(self) -> int:
        """Workers restarted over the whole run: earlier sessions' count plus this pool's."""
        return self.restarts_before_session + (self.pool.restarts if self.pool else 0)

    # ------------------------------------------------------------------------------------------
    # The loop

    def run(self) -> RunState:
        # A refused start changes nothing on disk: judge the directory before the lock file, the
        # log file or any subdirectory is created.
        check(self.run_dir, self.cfg.run.resume)
        lock = RunLock(self.run_dir)
        lock.acquire()
        try:
            setup_logging(self.run_dir, console_guard=self._console_cleared)
            self._setup()
            if self.spent_at_start is not None:
                # A resume whose budget is already used up: say so, rather than start the workers
                # only to stop them at once.
                log.warning("nothing to do: %s", self.spent_at_start)
                self.metrics.close()
                return self.state
            with StopRequest() as stop:
                self.restarts_before_session = self.state.worker_restarts
                seed = _pool_seed(self.cfg.run.seed, self.state.iteration, self.replay.total_games)
                log.info("%s", self.wait.workers_starting(self.cfg.selfplay.workers, self.cfg.selfplay.inference_server))
                self.pool_started = time.monotonic()
                self.pool = self._start_pool(seed)
                self.gpu_utilization = GpuUtilization()
                self.efficiency = _efficiency_gauge(self.cfg, self.net, self.run_dir)
                try:
                    if self.cfg.run.mode == "sync":
                        self._loop_sync(stop)
                    else:
                        self._loop_async(stop)
                except KeyboardInterrupt:
                    # Interrupted at once (a second Ctrl-C): the children ignore SIGINT/SIGTERM and
                    # would finish their shard first; stop them now instead of closing gracefully.
                    self.pool.kill()
                    raise
                except OSError as error:
                    if error.errno == errno.ENOSPC:
                        self.disk_full = error  # no final save: it would fail too; the last latest.pt stands
                    raise
                finally:
                    self.wait.stop()
                    self.pool.close()
                    self._say_what_was_kept()
                    self.gpu_utilization.close()
                    if self.disk_full is None:
                        self.save()
                    self.metrics.close()
            log.info("stopped at iteration %d, step %d; resume with run.dir=%s run.resume=true", self.state.iteration, self.state.step, self.run_dir)
            return self.state
        except OSError as error:
            if error.errno == errno.ENOSPC:
                raise DiskFullError(error.filename or self.run_dir) from None
            raise
        finally:
            self.wait.stop()  # the line off the terminal before whatever ends the run is said
            lock.release()

    def _say_what_was_kept(self) -> None:
        """After the workers stopped: how many games in play they saved for the next session."""
        from alphazero.selfplay.packing import count_games
        from alphazero.selfplay.worker import IN_FLIGHT_DIR

        directory = self.run_dir / IN_FLIGHT_DIR
        saved = sum(count_games(path) for path in directory.glob("w*.npz")) if directory.is_dir() else 0
        if saved:
            log.info("self-play stopped: every finished game is in replay/; %d games in play were saved to %s and continue "
                     "when the run resumes", saved, directory)

    def _start_pool(self, seed: int):
        """The self-play workers: processes on this machine (`selfplay.backend=local`), or actors
        on a Ray cluster (`ray`), which get the best network through Ray's object store."""
        cfg = self.cfg
        if cfg.selfplay.backend != "ray":
            return WorkerPool(str(self.run_dir), cfg.selfplay, cfg.mcts, seed=seed)
        from alphazero.selfplay.ray_backend import RayWorkerPool

        pointer = checkpoints.read_best_pointer(self.run_dir)
        pool = RayWorkerPool(str(self.run_dir), cfg.selfplay, cfg.mcts, cfg.ray, seed, network=(pointer["id"], load_network(pointer["path"])))
        nodes = pool.cluster["nodes"]
        log.info(
            "self-play on Ray (ray.address=%s): %d actors, cluster of %d node(s) with %g CPUs, %g GPUs%s",
            cfg.ray.address, cfg.selfplay.workers, len(nodes), sum(n["Resources"].get("CPU", 0) for n in nodes),
            sum(n["Resources"].get("GPU", 0) for n in nodes), f"; Ray dashboard at {pool.dashboard}" if pool.dashboard else "",
        )
        return pool

    def _new_iteration_stats(self) -> None:
        if getattr(self, "selfplay_stats", None) and self.selfplay_stats["lengths"]:
            self.game_lengths_seen = self.selfplay_stats["lengths"][-8:]
        self.selfplay_stats = {"games": 0, "positions": 0, "simulations": 0, "moves": 0, "lengths": [], "nodes": {}, "start": time.perf_counter()}
        self.pipeline = PipelineCounters(self.pool)
        self.last_promotion = None
        self.last_eval = None

    def _loop_sync(self, stop: StopRequest) -> None:
        while not stop.requested and not self._budget_spent():
            self._new_iteration_stats()
            self.selfplay_sync(stop)
            selfplay_seconds = time.perf_counter() - self.selfplay_stats["start"]
            if stop.requested:
                break
            train_start = time.perf_counter()
            steps = self.train_steps(None, stop)
            train_seconds = time.perf_counter() - train_start
            self.state.iteration += 1
            if steps and not stop.requested:
                self.maybe_gate_and_eval()
            self.save()
            self._prune_replay()
            self._report(selfplay_seconds, steps, train_seconds)

    def _loop_async(self, stop: StopRequest) -> None:
        for worker_id in range(self.cfg.selfplay.workers):
            self.pool.assign(worker_id, 0)
        self._new_iteration_stats()
        last_report = time.perf_counter()
        while not stop.requested and not self._budget_spent():
            for report in self.pool.poll(timeout=0.2):
                self._record(report)
                if isinstance(report, (ShardReport, ProgressReport)) and not self.workers_ready:
                    self._workers_ready()
                if isinstance(report, ShardReport) and not self.first_games_reported:
                    self._report_first_games()
            for worker_id in self.pool.idle_workers():
                self.pool.assign(worker_id, 0)
            train_start = time.perf_counter()
            steps = self.train_steps(max_steps=50, stop=stop)
            if time.perf_counter() - last_report >= 60:
                self.state.iteration += 1
                self.save()
                self._prune_replay()
                self._report(time.perf_counter() - self.selfplay_stats["start"], steps, time.perf_counter() - train_start)
                self._new_iteration_stats()
                last_report = time.perf_counter()

    def _pipeline_figures(self, selfplay_seconds: float) -> dict:
        """Mean network batch, pipeline efficiency, GPU utilisation, the workers' share of time
        waiting for the network and (with an inference server) its time split, of the last
        iteration."""
        figures = self.pipeline.figures(selfplay_seconds)
        try:
            efficiency = self.efficiency.efficiency(figures["mean_batch"], figures["evaluations_per_second"])
        except (RuntimeError, ValueError) as error:  # a figure, never a reason to stop the run
            log.warning("pipeline efficiency not measured: %s", error)
            efficiency = None
        utilization = self.gpu_utilization.mean()
        self.gpu_utilization.reset()
        waiting = figures["evaluator_seconds"] / (self.cfg.selfplay.workers * selfplay_seconds) if selfplay_seconds > 0 else None
        server = {f"server_{phase}": share for phase, share in (figures["server_time"] or {}).items()}
        return {"mean_batch": figures["mean_batch"] or None, "pipeline_efficiency": efficiency, "gpu_utilization": utilization,
                "worker_waiting": waiting, **server}

    def _report(self, selfplay_seconds: float, steps: int, train_seconds: float) -> None:
        """The status line, and the per-iteration curves."""
        s, stats = self.state, self.selfplay_stats
        games_per_s = stats["games"] / max(selfplay_seconds, 1e-9)
        positions_per_s = stats["positions"] / max(selfplay_seconds, 1e-9)
        sims_per_s = stats["simulations"] / max(selfplay_seconds, 1e-9)
        mean_length = float(np.mean(stats["lengths"])) if stats["lengths"] else 0.0
        pipeline = self._pipeline_figures(selfplay_seconds)
        m = self.metrics
        m.scalar("selfplay/games_per_second", games_per_s, s.step)
        m.scalar("selfplay/positions_per_second", positions_per_s, s.step)
        m.scalar("selfplay/simulations_per_second", sims_per_s, s.step)
        m.scalar("selfplay/mean_game_length", mean_length, s.step)
        m.scalar("selfplay/games_total", self.replay.total_games, s.step)
        m.scalar("selfplay/worker_restarts", self._worker_restarts(), s.step)
        for name, value in pipeline.items():
            if value is not None:
                m.scalar(f"selfplay/{name}", value, s.step)
        per_node = {node: positions / max(selfplay_seconds, 1e-9) for node, positions in sorted(stats["nodes"].items())}
        for node, rate in per_node.items():
            m.scalar(f"selfplay/positions_per_s/node_{node}", rate, s.step)
        m.scalar("replay/buffer_positions", self.replay.window_size, s.step)
        m.scalar("replay/positions_total", self.replay.total_positions, s.step)
        if steps:
            m.scalar("speed/train_samples_per_second", steps * self.cfg.train.batch_size / max(train_seconds, 1e-9), s.step)
        m.flush()
        losses = m.take_report_losses()
        loss_text = _loss_text(losses)
        arena = f" | promoted best #{self.last_promotion}" if self.last_promotion is not None else ""
        evaluation = " | eval " + " ".join(f"{k} {v:.2f}" for k, v in self.last_eval.items()) if self.last_eval else ""
        left = self._time_left()
        log.info(
            "iter %d | games %d (+%d) | positions %d | %.1f pos/s %.0f sims/s%s%s | steps %d (+%d) | %s | buffer %d | best #%d Elo %.0f%s%s | %s%s",
            s.iteration, self.replay.total_games, stats["games"], self.replay.total_positions, positions_per_s, sims_per_s,
            "".join(f" | {node} {rate:.1f} pos/s" for node, rate in per_node.items()), _pipeline_text(pipeline),
            s.step, steps, loss_text, self.replay.window_size, s.best_id, s.best_elo, arena, evaluation, _duration(self._elapsed()),
            f", about {left} left" if left else "",
        )

    def _time_left(self) -> str | None:
        """The time this run's budget (run.max_minutes, max_steps, max_iterations) leaves, at this
        session's pace so far: the soonest of them; None without a budget."""
        run, (started, step0, iteration0) = self.cfg.run, self.session_start
        spent = time.monotonic() - started
        estimates = []
        if run.max_minutes:
            estimates.append(run.max_minutes * 60 - self._elapsed())
        if run.max_steps and self.state.step > step0:
            estimates.append((run.max_steps - self.state.step) * spent / (self.state.step - step0))
        if run.max_iterations and self.state.iteration > iteration0:
            estimates.append((run.max_iterations - self.state.iteration) * spent / (self.state.iteration - iteration0))
        return _duration(max(0.0, min(estimates))) if estimates else None


def _efficiency_gauge(cfg: Config, net, run_dir: Path) -> EfficiencyGauge:
    """Measures the self-play network alone where self-play evaluates it: the server's (or the
    workers') device, with the CPU threads their network calls have in all."""
    device = resolve_device(cfg.selfplay.device)
    threads, copies = network_only_setting(cfg.selfplay, device)

    def snapshot():
        copy = build_network(cfg.model)
        copy.load_state_dict(net.state_dict())
        return copy.eval()

    return EfficiencyGauge(snapshot, device, threads, copies, precision=cfg.selfplay.precision, precision_cache=run_cache_file(run_dir))


def _loss_text(losses: dict | None) -> str:
    """'loss 2.345 (pi 1.812 v 0.533)' for the status line, with the auxiliary terms where the
    network has those heads: ' score 3.912 (err 14.2) own 0.652'."""
    if not losses:
        return "loss -"
    text = f"loss {losses['total']:.3f} (pi {losses['policy']:.3f} v {losses['value']:.3f}"
    if "score" in losses:
        text += f" score {losses['score']:.3f} (err {losses['score_error']:.1f})"
    if "ownership" in losses:
        text += f" own {losses['ownership']:.3f}"
    return text + ")"


def _pipeline_text(pipeline: dict) -> str:
    """' | batch 61 eff 0.42 gpu 48%' for the status line (the parts that are known)."""
    parts = []
    if pipeline.get("mean_batch"):
        parts.append(f"batch {pipeline['mean_batch']:.0f}")
    if pipeline.get("pipeline_efficiency") is not None:
        parts.append(f"eff {pipeline['pipeline_efficiency']:.2f}")
    if pipeline.get("gpu_utilization") is not None:
        parts.append(f"gpu {pipeline['gpu_utilization']:.0f}%")
    return " | " + " ".join(parts) if parts else ""


def _pool_seed(run_seed: int, iteration: int, games_on_disk: int) -> int:
    """The self-play seed of a session. The games already on disk enter it: a run resumed after a
    crash mid-iteration restarts that iteration, and with the same task seeds its workers would
    write copies of the games the crashed session had already saved."""
    return int(np.random.SeedSequence([run_seed % 2**63, iteration, games_on_disk]).generate_state(1)[0])


def _model_summary(cfg: Config) -> str:
    return f"{cfg.model.blocks}x{cfg.model.channels}{' +gpool' if cfg.model.global_pooling else ''}"


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"
