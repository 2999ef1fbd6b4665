"""`python -m alphazero.train [overrides]` (also the `alphazero-train` console script).

Examples:
    python -m alphazero.train                                  # the default `cpu` preset
    python -m alphazero.train experiment=smoke run.dir=/tmp/smoke
    python -m alphazero.train run.dir=runs/a run.resume=true   # continue a stopped run
    python -m alphazero.train -m mcts.simulations=50,100       # a sweep, one run directory per job
    torchrun --nproc_per_node=4 -m alphazero.train experiment=gpu  # train on 4 GPUs (see train/distributed.py)
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

register_configs()

# The training processes' group when torchrun started several (set by main on rank 0), else None.
_GROUP = None


@hydra.main(version_base=None, config_path=CONF_DIR, config_name="config")
def _entry(raw: DictConfig) -> None:
    from alphazero.train.loop import TrainingRun
    from alphazero.selfplay.restarts import ProcessKeepsDying
    from alphazero.train.run_dir import DiskFullError, RunDirectoryError

    try:
        cfg = to_typed(raw)
    except ValueError as err:
        _refuse(err)
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    cfg.run.dir = str(run_dir)
    run = TrainingRun(cfg, run_dir, group=_GROUP)
    try:
        run.run()
    except DiskFullError as err:
        # The run had started: its log (console and log.txt) says why it stopped, once.
        logging.getLogger("alphazero.train").error("%s", err)
        sys.exit(2)
    except ProcessKeepsDying as err:
        # A worker or the inference server that dies on every start: its last error, once.
        logging.getLogger("alphazero.train").error("%s", err)
        sys.exit(3)
    except (RunDirectoryError, ValueError) as err:
        _refuse(err)
    except KeyboardInterrupt:
        # A second Ctrl-C: no traceback, just what is on disk and what is not.
        print(f"\ninterrupted: {run.interruption_summary()}", file=sys.stderr)
        sys.exit(130)


def _refuse(err: Exception) -> None:
    """A start refused: one line on stderr (not the log: nothing is written), exit status 2."""
    print(f"error: {err}", file=sys.stderr)
    sys.exit(2)


def main() -> None:
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
        check_command_line(sys.argv[1:], CONF_DIR)
    except StartRefused as err:
        _refuse(err)
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
