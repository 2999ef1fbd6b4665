"""`python -m alphazero.train [overrides]` (also the `alphazero-train` console script).

Examples:
    python -m alphazero.train                                  # the default `cpu` preset
    python -m alphazero.train experiment=smoke run.dir=/tmp/smoke
    python -m alphazero.train run.dir=runs/a run.resume=true   # continue a stopped run
    python -m alphazero.train -m mcts.simulations=50,100       # a sweep, one run directory per job
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from alphazero.config import register_configs, to_typed

CONF_DIR = str(Path(__file__).resolve().parents[2] / "conf")

register_configs()


@hydra.main(version_base=None, config_path=CONF_DIR, config_name="config")
def _entry(raw: DictConfig) -> None:
    from alphazero.train.loop import TrainingRun
    from alphazero.train.run_dir import RunDirectoryError

    try:
        cfg = to_typed(raw)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    cfg.run.dir = str(run_dir)
    try:
        TrainingRun(cfg, run_dir).run()
    except RunDirectoryError as err:
        logging.getLogger("alphazero.train").error("%s", err)
        print(f"error: {err}", file=sys.stderr)
        sys.exit(2)


def main() -> None:
    _entry()


if __name__ == "__main__":
    main()
