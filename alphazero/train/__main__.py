"""`python -m alphazero.train [overrides]` (also the `alphazero-train` console script).

Examples:
    python -m alphazero.train                                  # the default `cpu` preset
    python -m alphazero.train experiment=smoke run.dir=/tmp/smoke
    python -m alphazero.train run.dir=runs/a run.resume=true   # continue a stopped run
    python -m alphazero.train -m mcts.simulations=50,100       # a sweep, one run directory per job
    torchrun --nproc_per_node=4 -m alphazero.train experiment=gpu  # train on 4 GPUs (see train/distributed.py)

Files: everything under `run.dir` (alphazero.train.run_dir lists it), and while self-play runs
its pool's files in /dev/shm (alphazero.selfplay.channel_files: `alphazero-channels-<token>*`),
removed when the run ends, however it ends short of SIGKILL (then the next run's sweep removes
them).

Exit status: 0 the run ended; 2 a start refused (one line on stderr) or a full disk; 3 a self-play
worker or the inference server died `selfplay.max_restarts + 1` times without delivering work in
between (a crash loop: the log's last line names it, the count and its last error); 130 a second
Ctrl-C.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from alphazero.train.schema import register_configs, to_typed
from alphazero.train.usage import help_text, wants_help

CONF_DIR = str(Path(__file__).resolve().parents[2] / "conf")
EXIT_PROCESS_KEEPS_DYING = 3  # a crash loop of a self-play process (alphazero.selfplay.restarts)

register_configs()

# The training processes' group when torchrun started several (set by main on rank 0), else None.
_GROUP = None
# The wait for self-play's first move as main() began it, once the command line was accepted: a
# cold numba cache is said then, a second sooner than the job could (Hydra's set-up of the run
# takes that long on a busy 2-core machine). The first job takes it; a sweep's later jobs ask the
# cache again (warm by then).
_FIRST_WAIT = None


@hydra.main(version_base=None, config_path=CONF_DIR, config_name="config")
def _entry(raw: DictConfig) -> None:
    global _FIRST_WAIT
    from alphazero.train.waiting import PlayWait

    try:
        cfg = to_typed(raw)
    except ValueError as err:
        _refuse(err)
    # Before the imports below (torch alone takes seconds): on a cold numba cache a line says at
    # once that the search kernels are compiling, and ticks until self-play begins.
    wait, _FIRST_WAIT = _FIRST_WAIT or PlayWait.at_start(cfg), None
    from alphazero.train.loop import TrainingRun
    from alphazero.selfplay.restarts import ProcessKeepsDying
    from alphazero.train.run_dir import DiskFullError, RunDirectoryError

    run_dir = Path(HydraConfig.get().runtime.output_dir)
    cfg.run.dir = str(run_dir)
    run = TrainingRun(cfg, run_dir, group=_GROUP, wait=wait)
    try:
        run.run()
    except DiskFullError as err:
        # The run had started: its log (console and log.txt) says why it stopped, once.
        logging.getLogger("alphazero.train").error("%s", err)
        sys.exit(2)
    except ProcessKeepsDying as err:
        # A worker or the inference server in a crash loop: who, how often, its last error, once.
        logging.getLogger("alphazero.train").error("%s (exit status %d)", err, EXIT_PROCESS_KEEPS_DYING)
        sys.exit(EXIT_PROCESS_KEEPS_DYING)
    except (RunDirectoryError, ValueError) as err:
        wait.stop()  # a refusal is one line: the wait's line off the terminal first
        _refuse(err)
    except KeyboardInterrupt:
        # A second Ctrl-C: no traceback, just what is on disk and what is not.
        print(f"\ninterrupted: {run.interruption_summary()}", file=sys.stderr)
        sys.exit(130)


def _refuse(err: Exception) -> None:
    """A start refused: one line on stderr (not the log: nothing is written), exit status 2."""
    if _FIRST_WAIT is not None:
        _FIRST_WAIT.stop()  # its line off the terminal first
    print(f"error: {err}", file=sys.stderr)
    sys.exit(2)


def main() -> None:
    global _FIRST_WAIT
    if wants_help(sys.argv[1:]):
        # The presets and groups on one screen (Hydra's --help would print the whole config).
        print(help_text(CONF_DIR, __doc__.split("Examples:\n", 1)[-1]), end="")
        return
    # Judge the command line before Hydra creates the run directory and its .hydra/: a refused
    # start leaves the file system as it was.
    from alphazero.train.startup import StartRefused, check_command_line, training_processes

    try:
        processes = training_processes()
    except StartRefused as err:
        _refuse(err)
    ranks = None
    if processes > 1:
        # Under torchrun: rank 0 is the run (everything below), the other ranks only train.
        from alphazero.train.distributed import Ranks, follower_main

        ranks = Ranks.from_environment()
        if ranks.rank != 0:
            sys.exit(follower_main(ranks))
    try:
        jobs = check_command_line(sys.argv[1:], CONF_DIR)
    except StartRefused as err:
        _refuse(err)
    if jobs:
        from alphazero.train.waiting import PlayWait

        _FIRST_WAIT = PlayWait.at_start(jobs[0])
    if ranks is None:
        _entry()
        return
    _distributed_entry(ranks)


def _distributed_entry(ranks) -> None:
    """Rank 0 of several training processes: the run, with the group joined around it. Whatever
    ends the run (its budget, Ctrl-C, an error, a refusal), the other ranks are released at the end."""
    global _GROUP
    from hydra._internal.utils import get_args_parser

    from alphazero.train.distributed import Group

    if get_args_parser().parse_args(sys.argv[1:]).multirun:
        _refuse(ValueError("a sweep (-m) runs its jobs one after another: start it without torchrun"))
    _GROUP = Group.connect(ranks)
    try:
        _entry()
    finally:
        _GROUP.close()


if __name__ == "__main__":
    main()
