"""`python -m alphazero.pretrain [overrides]`: supervised warm start on WTHOR.

Examples:
    python -m alphazero.pretrain                                   # small preset, 3 epochs
    python -m alphazero.pretrain run.dir=/tmp/pre run.max_minutes=60 pretrain.threads=1
    python -m alphazero.pretrain run.dir=/tmp/pre run.resume=true  # continue a stopped run
    python -m alphazero.pretrain model=medium pretrain.device=cuda pretrain.batch_size=1024
    python -m alphazero.pretrain pretrain.value_target=margin
    python -m alphazero.pretrain model=seed_cnn_rnn pretrain.split=random5   # a warm-start zoo network
    python -m alphazero.pretrain.zoo --out runs/zoo                          # the whole zoo, one budget

The result loads everywhere a checkpoint is taken:
    python -m alphazero.train train.init_from=<run>/checkpoints/best.pt   (same model preset)
    python -m alphazero.arena mcts:checkpoint=<run>/checkpoints/best.pt,simulations=100 greedy
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from alphazero.pretrain.config import register_pretrain_configs, to_typed

CONF_DIR = str(Path(__file__).resolve().parents[2] / "conf")

register_pretrain_configs()


@hydra.main(version_base=None, config_path=CONF_DIR, config_name="pretrain")
def _entry(raw: DictConfig) -> None:
    from alphazero.pretrain.loop import PretrainRun
    from alphazero.train.run_dir import RunDirectoryError

    try:
        cfg = to_typed(raw)
    except ValueError as err:
        _refuse(err)
    run_dir = Path(HydraConfig.get().runtime.output_dir)
    cfg.run.dir = str(run_dir)
    try:
        PretrainRun(cfg, run_dir).run()
    except (RunDirectoryError, FileNotFoundError, ValueError) as err:
        _refuse(err)


def _refuse(err: Exception) -> None:
    """One line on stderr (the console log handler would print it a second time), exit status 2."""
    print(f"error: {err}", file=sys.stderr)
    sys.exit(2)


def _check_start(cfg, run_dir: Path) -> None:
    """The run directory fits the request, a resume's latest.pt and best.pt can be continued,
    `pretrain.init_from` is a network of the model asked for, the teacher loads, and the WTHOR games are there (reads only; see alphazero.train.startup),
    so a refused start leaves no run directory behind."""
    from alphazero.nn.checkpoint import CheckpointError
    from alphazero.pretrain.loop import check_directory, check_resume, check_teacher, check_wthor_inputs
    from alphazero.train.run_dir import RunDirectoryError
    from alphazero.train.startup import StartRefused, check_devices, check_init_from

    check_devices(("pretrain.device", cfg.pretrain.device))
    try:
        check_directory(run_dir, cfg.run.resume)
    except RunDirectoryError as error:
        raise StartRefused(str(error)) from None
    if cfg.run.resume:
        try:
            check_resume(cfg, run_dir)
        except ValueError as error:  # CheckpointError and OptimizerMismatch are ValueErrors; each names the file or key
            raise StartRefused(str(error)) from None
    if cfg.pretrain.init_from and not cfg.run.resume:
        check_init_from(cfg.pretrain.init_from, cfg.model, "pretrain.init_from")
    if cfg.pretrain.teacher:
        try:
            check_teacher(Path(cfg.pretrain.teacher))
        except CheckpointError as error:
            raise StartRefused(f"pretrain.teacher: {error}") from None
        except ValueError as error:  # a history-reading network: the message names the key
            raise StartRefused(str(error)) from None
    try:
        check_wthor_inputs(cfg.pretrain)
    except ValueError as error:  # DataFormatError (a damaged file) is a ValueError
        raise StartRefused(str(error)) from None


def help_text() -> str:
    """`--help`: the command, its examples and the model presets on one screen (Hydra's own help
    would print the whole config)."""
    from alphazero.pretrain.config import DEFAULT_WTHOR_DIR
    from alphazero.train.usage import model_options

    models = model_options()
    width = max(len(name) for name in models)
    lines = [
        "usage: python -m alphazero.pretrain [model=PRESET] [KEY=VALUE ...]",
        "",
        f"Trains a network on the WTHOR expert games (in {DEFAULT_WTHOR_DIR}, or pretrain.wthor_dir=DIR), in a run",
        "directory (run.dir=DIR): a warm start for self-play (docs/warm-start.md).",
        "",
        "examples:",
        __doc__.split("Examples:\n", 1)[1].split("\n\n", 1)[0],
        "",
        "models (model=NAME; default small):",
        *(f"  {name:<{width}}  {about}" for name, about in models.items()),
        "",
        "Any key can be set: pretrain.epochs=3 pretrain.lr=0.01 run.max_minutes=60.",
        "  every key and its value for a command line:  python -m alphazero.pretrain [overrides] --cfg job",
        "  the keys, typed and documented:               alphazero/pretrain/config.py",
        "  Hydra's own options:                          python -m alphazero.pretrain --hydra-help",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    from alphazero.train.usage import wants_help

    if wants_help(sys.argv[1:]):
        print(help_text(), end="")
        return
    # Judge the command line before Hydra creates the run directory and its .hydra/.
    from alphazero.pretrain.config import PretrainRootConfig
    from alphazero.train.startup import Program, StartRefused, check_command_line

    program = Program("pretrain", PretrainRootConfig, to_typed, _check_start)
    try:
        check_command_line(sys.argv[1:], CONF_DIR, program)
    except StartRefused as err:
        _refuse(err)
    _entry()


if __name__ == "__main__":
    main()
