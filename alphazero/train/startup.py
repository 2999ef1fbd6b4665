"""Judge a training command line before Hydra acts on it, so a refused start changes nothing.

`@hydra.main` creates the run directory and writes `.hydra/` into it before our code sees the
config, and it accepts `+key=value` for a key the schema does not have (the value is then dropped
when the typed config is built). So the entry point first composes the same config with Hydra's
compose API, which writes nothing, and refuses, in one line naming the key and what to do:
  - an override of a key the schema does not have, however it is spelled (`key`, `+key`, `++key`),
    with the nearest valid key;
  - an override Hydra cannot parse or merge (a wrong type, an unknown preset);
  - a value out of range (the dataclasses' own checks);
  - a run directory that does not fit: resume without a run, a new run over an existing one, a
    directory another training process holds, a resume or `train.init_from` whose network does not
    match the model config, a resume whose latest.pt, best.json or best network is missing,
    unreadable or damaged (with the way out: the numbered copy to put back, the pointer to write);
  - `selfplay.backend=ray` without an importable Ray, or with a head address where nothing listens;
  - a resume that names no run directory (`run.resume=true` without `run.dir=DIR`): the default
    directory is named after the current time, so it is never the run the user means.
A sweep (`-m`) is expanded as Hydra's basic sweeper does and every job is checked.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
from pathlib import Path

from dataclasses import dataclass
from typing import Any, Callable

from alphazero.train.schema import Config, to_typed
from alphazero.nn import config as model_config
from alphazero.nn.config import ModelConfig


class StartRefused(ValueError):
    """The command line cannot start a run; the message is one line that says why and what to do."""


@dataclass(frozen=True)
class Program:
    """What differs between the Hydra programs judged here (training, pretraining)."""

    config_name: str  # the primary config in conf/
    schema: type  # the root dataclass of the typed config
    typed: Callable[[Any], Any]  # DictConfig -> dataclasses (runs the range checks)
    check_run: Callable[[Any, Path], None]  # (typed config, run dir) -> None or StartRefused


# Hydra flags after which there is no run to judge (help, printing the config, shell completion).
_NO_RUN_FLAGS = ("help", "hydra_help", "cfg", "info", "shell_completion", "experimental_rerun")


def check_command_line(argv: list[str], config_dir: str, program: Program | None = None) -> list:
    """Raise StartRefused if the command line `argv` (without the program name) of `program`
    (default: training) would be refused; if it may start, return the typed config of each of its
    jobs (one, or one per job of a sweep; none for what is not a run at all, like `--help`)."""
    program = program or TRAINING
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra._internal.utils import get_args_parser
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import HydraException

    args = get_args_parser().parse_args(argv)
    if any(getattr(args, flag, None) for flag in _NO_RUN_FLAGS) or args.config_name or args.config_path:
        return []
    try:
        parsed = OverridesParser.create().parse_overrides(args.overrides)
    except HydraException as error:
        raise StartRefused(f"cannot parse the overrides: {_one_line(error)}") from None
    moves_hydra_dir = False
    hydra_run_dir = None  # a literal hydra.run.dir=DIR: the directory a single run will use
    for override in parsed:
        key = override.key_or_group
        if key.startswith("hydra") or override.package is not None:
            moves_hydra_dir = moves_hydra_dir or key.startswith("hydra")
            if key == "hydra.run.dir" and not override.is_sweep_override() and isinstance(override.value(), str):
                hydra_run_dir = override.value()
            continue
        if not override.is_delete():
            check_known_key(key, override.input_line, program.schema)
        if override.is_sweep_override() and not args.multirun:
            raise StartRefused(f"{override.input_line!r} lists several values: add -m (--multirun) to sweep over them")
    jobs = [job for batch in BasicSweeper.split_arguments(parsed, None) for job in batch] if args.multirun else [args.overrides]
    configs = []
    for number, job in enumerate(jobs):
        raw = compose_raw(job, config_dir, program)
        cfg = typed_config(raw, program)
        configs.append(cfg)
        if moves_hydra_dir:
            if not args.multirun and hydra_run_dir is not None and "${" not in hydra_run_dir:
                program.check_run(cfg, Path(hydra_run_dir))  # the directory Hydra is about to create
            continue  # otherwise (interpolations, hydra.sweep.*) the job itself checks where it lands
        if getattr(cfg.run, "resume", False) and _names_the_time(raw):
            raise StartRefused(
                "run.resume=true without run.dir: give the directory of the run to continue, run.dir=DIR "
                f"(the default is a new directory named after the time, {cfg.run.dir})"
            )
        run_dir = Path(cfg.run.dir) / str(number) if args.multirun else Path(cfg.run.dir)
        program.check_run(cfg, run_dir)
    return configs


def _names_the_time(raw) -> bool:
    """Whether the composed config's run.dir is the default `runs/...${now:...}` (a new name each time)."""
    from omegaconf import OmegaConf

    run = OmegaConf.to_container(raw, resolve=False).get("run") or {}
    return "${now:" in str(run.get("dir", ""))


def valid_keys(schema=Config, prefix: str = "") -> list[str]:
    """Every dotted key of the config schema, groups included (`mcts`, `mcts.simulations`, ...)."""
    keys = []
    for field in dataclasses.fields(schema):
        key = f"{prefix}{field.name}"
        keys.append(key)
        default = field.default_factory() if field.default_factory is not dataclasses.MISSING else field.default
        if dataclasses.is_dataclass(default):
            keys.extend(valid_keys(type(default), key + "."))
    return keys


def check_known_key(key: str, override_text: str, schema: type = Config) -> None:
    """Refuse an override of a key the schema lacks, naming the nearest valid key."""
    keys = valid_keys(schema)
    if key in keys or key == "experiment":
        return
    nearest = difflib.get_close_matches(key, keys, n=1, cutoff=0.5)
    hint = f"; did you mean {nearest[0]!r}?" if nearest else "; see alphazero/train/schema.py for the keys"
    raise StartRefused(f"unknown config key {key!r} in override {override_text!r}{hint}")


def compose_typed(overrides: list[str], config_dir: str, program: Program | None = None):
    """Compose the run's config exactly as the entry point will (nothing is written) and build the
    typed dataclasses; StartRefused in one line on any failure."""
    program = program or TRAINING
    return typed_config(compose_raw(overrides, config_dir, program), program)


def compose_raw(overrides: list[str], config_dir: str, program: Program | None = None):
    """The composed DictConfig, interpolations unresolved (nothing is written); StartRefused in
    one line when Hydra cannot compose it."""
    program = program or TRAINING
    from hydra import compose, initialize_config_dir
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    job_overrides = [o for o in overrides if not o.lstrip("+~").startswith("hydra")]
    try:
        with initialize_config_dir(config_dir=config_dir, version_base=None):
            return compose(config_name=program.config_name, overrides=job_overrides)
    except (HydraException, OmegaConfBaseException) as error:
        raise StartRefused(_one_line(error)) from None


def typed_config(raw, program: Program | None = None):
    """The typed dataclasses of a composed config (running the range checks); StartRefused in one line."""
    program = program or TRAINING
    from omegaconf.errors import OmegaConfBaseException

    unknown = _unknown_keys(raw, program.schema)
    if unknown:
        check_known_key(unknown[0], unknown[0], program.schema)
    try:
        return program.typed(raw)
    except (ValueError, OmegaConfBaseException) as error:
        raise StartRefused(_one_line(error)) from None


def training_processes() -> int:
    """How many training processes torchrun started (its WORLD_SIZE); 1 without torchrun."""
    try:
        return max(1, int(os.environ.get("WORLD_SIZE") or 1))
    except ValueError:
        raise StartRefused(f"WORLD_SIZE={os.environ['WORLD_SIZE']!r} is not a number of processes") from None


def check_run_start(cfg: Config, run_dir: Path) -> None:
    """A training run's directory and the networks it would start from fit the request (reads only)."""
    from alphazero.train.run_dir import RunDirectoryError, check

    processes = training_processes()
    if cfg.train.batch_size % processes:
        raise StartRefused(
            f"train.batch_size={cfg.train.batch_size} does not split evenly over the {processes} training processes "
            f"(WORLD_SIZE); use a multiple of {processes}"
        )
    check_devices(("train.device", cfg.train.device), ("selfplay.device", cfg.selfplay.device))
    if cfg.selfplay.backend == "ray":
        from alphazero.selfplay.ray_backend import RayConnectError, RayMissing, check_cluster, require_ray

        try:
            require_ray()
            # Else the run would set up its directory (a new run's best network, config.yaml,
            # log.txt) before the pool finds no cluster, and the same command again would be
            # refused as a start over an existing run.
            check_cluster(cfg.ray.address)
        except (RayMissing, RayConnectError) as error:
            raise StartRefused(str(error)) from None

    try:
        check(run_dir, cfg.run.resume)
    except RunDirectoryError as error:
        raise StartRefused(str(error)) from None
    if cfg.run.resume:
        latest = _check_latest_readable(run_dir)
        saved = _saved_model(run_dir / "config.yaml")
        if saved is not None:
            check_same_model(saved, cfg.model, str(run_dir / "config.yaml"))
        saved_optimizer = _saved_value(run_dir / "config.yaml", "train", "optimizer")
        if saved_optimizer not in (None, cfg.train.optimizer):
            raise StartRefused(
                f"train.optimizer={cfg.train.optimizer} but the run in {run_dir} trains with {saved_optimizer} (its optimizer state "
                f"cannot continue another kind); resume with train.optimizer={saved_optimizer}"
            )
        if latest is not None:
            # config.yaml can be missing or unreadable: the resume point itself decides.
            check_same_model(latest.model_config, cfg.model, str(run_dir / "checkpoints" / "latest.pt"))
            _check_resume_point(latest, cfg, run_dir)
        _check_best_network(run_dir, cfg.model, latest)
        _check_prune_ledger(run_dir)
    elif cfg.train.init_from:
        check_init_from(cfg.train.init_from, cfg.model, "train.init_from")


def check_devices(*devices: tuple[str, str]) -> None:
    """Each (key, device name) the machine has, else StartRefused naming every key that needs
    changing: a device that is not there (`experiment=gpu` where there is no CUDA) is refused
    before the run directory exists; the setup found it only after writing a new run there, and
    the same command again was then refused as a start over an existing run. `auto` and `cpu`
    always resolve, so torch is imported only for another name."""
    wrong, reason = [], ""
    for key, name in devices:
        if name in ("auto", "cpu"):
            continue
        from alphazero.nn.inference import resolve_device

        try:
            resolve_device(name)
        except ValueError as error:
            wrong.append((key, name))
            reason = reason or str(error)
    if wrong:
        raise StartRefused(f"{', '.join(f'{k}={n}' for k, n in wrong)}: {reason}; on this machine use "
                           f"{' '.join(f'{k}=auto' for k, _ in wrong)}")


def _check_latest_readable(run_dir: Path):
    """The resume point (None: none); one that cannot be read is refused before anything is
    written, with the way out."""
    from alphazero.nn.checkpoint import CheckpointError
    from alphazero.train.checkpoints import load_latest

    try:
        return load_latest(run_dir)
    except CheckpointError as error:
        raise StartRefused(str(error)) from None


def _check_resume_point(latest, cfg: Config, run_dir: Path) -> None:
    """A damaged optimizer state, LR schedule or counters in latest.pt is refused here, before
    Hydra rewrites .hydra/ and the run its config.yaml (see loop.check_resume_point)."""
    from alphazero.nn.checkpoint import CheckpointError
    from alphazero.train.loop import check_resume_point

    try:
        check_resume_point(latest, cfg.train, run_dir / "checkpoints" / "latest.pt")
    except (CheckpointError, ValueError) as error:
        raise StartRefused(str(error)) from None


def _check_best_network(run_dir: Path, model: ModelConfig, latest) -> None:
    """The run's best network, which the resume hands to the self-play workers (and trains on from
    when there is no latest.pt), is named by a readable best.json, loads, and is of the model
    asked for; else the start is refused with the way out, instead of the workers dying at every
    start or the setup failing after .hydra/ and config.yaml were rewritten."""
    from alphazero.best_pointer import checkpoint_dir, read_best_pointer
    from alphazero.nn.checkpoint import CheckpointError, load_checkpoint

    try:
        pointer = read_best_pointer(run_dir)
    except FileNotFoundError:
        _refuse_a_lost_pointer(run_dir, latest)
        return
    except ValueError as error:
        raise StartRefused(str(error)) from None
    try:
        best = load_checkpoint(pointer["path"])
    except CheckpointError as error:
        copy = checkpoint_dir(run_dir) / "best.pt"
        try:
            copied = load_checkpoint(copy).extra.get("network_id") == pointer["id"]
        except CheckpointError:
            copied = False
        way_out = (f"best.pt holds a copy of it: cp {copy} {pointer['path']}" if copied
                   else "point best.json at another of its networks (checkpoints/net-*.pt)")
        raise StartRefused(f"{error}; it is the run's best network (named by {checkpoint_dir(run_dir) / 'best.json'}): {way_out}") from None
    check_same_model(best.model_config, model, pointer["path"])


def _check_prune_ledger(run_dir: Path) -> None:
    """The replay's prune ledger, whose counts the resumed buffer continues and whose names it
    deletes, is refused here when damaged (PruneLedgerError naming the field), not by the buffer
    after the setup rewrote config.yaml."""
    from alphazero.replay.buffer import PRUNE_LEDGER, PruneLedgerError, read_prune_ledger

    path = run_dir / "replay" / PRUNE_LEDGER
    if path.exists():
        try:
            read_prune_ledger(path)
        except PruneLedgerError as error:
            raise StartRefused(str(error)) from None


def _refuse_a_lost_pointer(run_dir: Path, latest) -> None:
    """best.json missing beside the networks it named: a resume would publish a new network #0 over
    net-000000.pt and forget which network is best. It is written atomically and never removed, so
    this is damage, not a crash: say what latest.pt records as the best network instead."""
    import json

    from alphazero.best_pointer import checkpoint_dir

    networks = sorted(checkpoint_dir(run_dir).glob("net-*.pt"))
    if not networks:
        return  # a run stopped before its first network was published: the resume publishes it
    counters = latest.extra if latest is not None else {}
    best_id = counters.get("best_id", 0)
    ladder = [entry for entry in counters.get("elo_ladder", []) if isinstance(entry, list) and len(entry) == 3]
    step = next((entry[2] for entry in reversed(ladder) if entry[0] == best_id), 0)
    pointer = {"id": best_id, "file": f"net-{best_id:06d}.pt", "elo": counters.get("best_elo", 0.0), "step": step}
    path = checkpoint_dir(run_dir) / "best.json"
    raise StartRefused(
        f"{path} is missing, yet the run has networks ({networks[-1].name} the newest) and latest.pt records #{best_id} as the best: "
        f"write it again with echo '{json.dumps(pointer)}' > {path}"
    )


def check_init_from(path: str, model: ModelConfig, key: str) -> None:
    """The checkpoint a run starts its weights from is readable and of the model asked for."""
    from alphazero.nn.checkpoint import CheckpointError, load_checkpoint

    try:
        source = load_checkpoint(path)
    except CheckpointError as error:
        raise StartRefused(f"{key}: {error}") from None
    # A new run may add auxiliary heads to a network trained without them (they start untrained)
    # or leave a network's heads out: everything else must match.
    check_same_model(_without_heads(source.model_config), _without_heads(model), path)


def _without_heads(model: ModelConfig) -> ModelConfig:
    return dataclasses.replace(model, score_head=False, ownership_head=False)


def check_same_model(saved: ModelConfig, wanted: ModelConfig, where: str) -> None:
    """`alphazero.nn.config.check_same_model` as a StartRefused (the start checks' refusal)."""
    try:
        model_config.check_same_model(saved, wanted, where)
    except model_config.ModelMismatch as error:
        raise StartRefused(str(error)) from None


def _saved_model(config_file: Path) -> ModelConfig | None:
    """The model section of a run's saved config.yaml, or None if the file is absent or unreadable
    (the resume then compares against latest.pt itself)."""
    from omegaconf import OmegaConf

    try:
        saved = OmegaConf.to_container(OmegaConf.load(config_file)).get("model")
        return ModelConfig(**saved)
    except Exception:
        return None


def _saved_value(config_file: Path, group: str, key: str):
    """`group.key` of a run's saved config.yaml, or None if the file or the key is absent or unreadable."""
    from omegaconf import OmegaConf

    try:
        return OmegaConf.to_container(OmegaConf.load(config_file)).get(group, {}).get(key)
    except Exception:
        return None


def _unknown_keys(node, schema=Config, prefix: str = "") -> list[str]:
    """Keys present in the composed config that the schema does not define (from a config file)."""
    names = {f.name: f for f in dataclasses.fields(schema)}
    unknown = []
    for key in node.keys():
        if key not in names:
            unknown.append(f"{prefix}{key}")
            continue
        field = names[key]
        default = field.default_factory() if field.default_factory is not dataclasses.MISSING else field.default
        if dataclasses.is_dataclass(default):
            unknown.extend(_unknown_keys(node[key], type(default), f"{prefix}{key}."))
    return unknown


def _one_line(error: Exception) -> str:
    """Hydra's and OmegaConf's messages span lines (the key, the types, the config search path) and
    keep the reason in `__cause__`; say what is wrong, and the available presets, in one line."""
    text = str(error)
    head, _, options = text.partition("Available options in")
    reason = [line.strip() for line in head.splitlines() if line.strip()]
    cause = error.__cause__
    if cause is not None:
        reason += [line.strip() for line in str(cause).splitlines()
                   if line.strip() and not line.strip().startswith(("full_key:", "object_type", "reference_type"))]
    line = "; ".join(reason) or type(error).__name__
    if options:
        group, _, listing = options.partition(":")
        choices = []
        for entry in listing.splitlines():
            if entry.startswith("Config search path"):
                break
            if entry.strip():
                choices.append(entry.strip())
        line += f" (available in {group.strip()}: {', '.join(choices)})"
    return line


TRAINING = Program("config", Config, to_typed, check_run_start)
