"""The configuration of a pretraining run: `model` (the same preset group as self-play),
`pretrain` (data, optimisation, logging) and `run` (directory, resume, seed, budgets).

`conf/pretrain.yaml` composes these on top of the `pretrain_base_config` schema registered here,
so OmegaConf rejects unknown keys and wrong types while overrides are merged, and `to_typed`
builds the dataclasses, whose `__post_init__` checks ranges and names the offending key.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from hydra.core.config_store import ConfigStore
from omegaconf import DictConfig, OmegaConf

from alphazero.train.schema import register_configs
from alphazero.data.dataset import SPLIT_KINDS, VERSION as DATASET_VERSION, DatasetOptions
from alphazero.nn.config import MEMORY_FORMATS, ModelConfig, check_auxiliary_weights, require_training_precision
from alphazero.train.config import TrainConfig
from alphazero.validation import ConfigValueError, require, require_choice

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_WTHOR_DIR = REPO_ROOT.parent / "shared" / "data" / "wthor"
VALUE_TARGETS = ("outcome", "margin")
# How a board-only network's move target is read (alphazero.pretrain.batches.augment says what each does).
FIXED_BOARD_MOVES = ("recorded", "mapped")
# Validation measures that can choose best.pt, and whether higher is better.
BEST_METRICS = {"top1_symmetric": True, "top1": True, "top3": True, "policy_loss": False}


@dataclass
class PretrainConfig:
    """Data, optimisation and logging of supervised training on WTHOR.

    wthor_dir:          directory of WTH_*.wtb files ("" = ../shared/data/wthor beside the repo).
    dataset_dir:        where the memory-mapped dataset is built and cached ("" = a directory
                        under ~/.cache/alphazero named after the dataset options).
    value_target:       "outcome" (+1/0/-1 for the side to move) or "margin" (final disc
                        difference / 64, empties to the winner).
    lr_total_steps:     horizon of the cosine/step schedule; 0 = epochs * steps per epoch.
    eval_every_steps:   validate on `validation_positions` fixed positions this often (0 = only
                        at the end of each epoch, where the whole validation split is used).
    split:              "year" (validation_years validate, the rest trains) or "random5" (de-duplicate
                        over the whole database, hold out a random 5% of the distinct positions
                        with seed split_seed: the protocol of Liskowski et al. 2018; see
                        alphazero.data.dataset).
    mixed_precision:    bf16 autocast of the training forward pass on CUDA (the loss, the
                        optimizer and validation stay float32), as the self-play trainer's
                        train.mixed_precision; not consulted on CPU (see precision).
                        On an H100 the medium network trains about 3x faster with it
                        (../shared/GPU.md: 148k against 51k samples/s).
    precision:          the training forward pass's arithmetic: "auto" (on CUDA: mixed_precision
                        decides; on a CPU bf16 autocast where a short probe of a training step
                        measures it faster, cached in the run directory; docs/precision.md),
                        "fp32" or "bf16" (autocast; float32 master weights and optimizer).
    memory_format:      layout of the trained network and its input planes: "auto" (channels-last
                        on CPU, NCHW on CUDA), "channels_last" or "contiguous"; speed only
                        (alphazero.nn.model.training_memory_format).
    init_from:          a checkpoint whose weights start the network (same model preset); the
                        optimizer and LR schedule start fresh. This continues an earlier network
                        (e.g. checkpoints/warmstart.pt) with a new, longer schedule; a resume of
                        the same run uses run.resume=true instead.
    teacher:            a checkpoint of a stronger network to distil from ("" = none): each batch
                        also goes through the teacher (eval mode, no gradient), and the policy
                        target becomes (1 - distill_weight) * the expert move + distill_weight *
                        the teacher's policy at distill_temperature; the value target mixes the
                        game's outcome and the teacher's value with the same weights. This is how
                        the GPU preset's network (checkpoints/warmstart-medium.pt) teaches the
                        CPU preset's one what a one-hot expert move cannot: how good the other
                        moves are. Any board-only architecture can teach any other; a teacher
                        that reads move history is refused. The logged policy and value losses
                        stay those against the expert and the outcome (comparable with runs
                        without a teacher); `loss/distill` is the cross-entropy to the teacher.
    distill_weight:     the teacher's share of the targets, in [0, 1] (1 = the teacher only).
    distill_temperature: softens the teacher's and the student's policies alike before they are
                        compared (Hinton et al. 2015); the term is scaled by its square so its
                        gradient keeps its size.
    fixed_board_moves:  "recorded" (default) or "mapped": what augmentation does with the expert's
                        move when the drawn symmetry leaves the board itself unchanged (the start
                        position, a few openings). "recorded" keeps the sample as recorded, so the
                        network learns WTHOR's convention (every game from f5) instead of spreading
                        the start position's four equivalent moves evenly and naming one of them
                        by noise; "mapped" maps the move like any other (the behaviour before
                        2026-11-26). Play is the same either way; plain top-1 on WTHOR is not
                        (~1.7 points of it are the start position). See batches.augment.
    score_weight:       weight of KataGo's auxiliary score loss (cross-entropy of the final disc
                        difference's distribution, alphazero.nn.auxiliary) in the total loss; > 0
                        exactly when the network has the head (model.score_head=true). With the
                        head we use 0.1 (RECOMMENDED_SCORE_WEIGHT), as train.score_weight: the
                        cross-entropy starts at ~4.2 (log 65) and stays high early in a game, so
                        0.1 keeps it below a quarter of the policy term it is there to help.
    ownership_weight:   weight of the auxiliary ownership loss (per-square binary cross-entropy,
                        masked where the game's end is unknown); > 0 exactly when
                        model.ownership_head=true. With the head we use 0.5
                        (RECOMMENDED_OWNERSHIP_WEIGHT), as train.ownership_weight: half the value
                        weight, since an Othello square changes hands often until late.
                        Validation then reports `score_loss`, `score_error` (mean absolute error
                        of the predicted mean score, in discs) and `ownership_loss`.
    best_metric:        the validation measure that picks `best.pt`: "top1_symmetric" (default),
                        "top1", "top3" or "policy_loss" (lowest wins). Not plain top1 by default:
                        WTHOR writes every game from f5, and a network trained on all 8 symmetries
                        ranks the start position's four equivalent moves by noise, so plain top1
                        jumps by ~1.7 points on WTHOR 2018 when that argmax flips and best.pt
                        becomes whichever checkpoint won the flip. A resumed run whose best.pt was
                        chosen by another measure re-scores it under this one first.
    """

    wthor_dir: str = ""
    init_from: str = ""
    teacher: str = ""
    distill_weight: float = 0.5
    distill_temperature: float = 1.0
    dataset_dir: str = ""
    years: list[int] | None = None  # None = every year present
    validation_years: list[int] = field(default_factory=lambda: [2018])
    winner_moves_only: bool = False
    dedup: bool = False
    split: str = "year"
    split_seed: int = 0
    value_target: str = "outcome"
    value_loss_weight: float = 1.0
    augment: bool = True  # a random board symmetry per sample
    fixed_board_moves: str = "recorded"
    epochs: int = 3
    batch_size: int = 512
    optimizer: str = "adamw"
    lr: float = 0.002
    momentum: float = 0.9
    weight_decay: float = 1e-4
    lr_schedule: str = "cosine"
    lr_warmup_steps: int = 200
    lr_total_steps: int = 0
    lr_min_factor: float = 0.02
    grad_clip: float = 5.0
    score_weight: float = 0.0  # > 0 exactly with model.score_head (0.1 recommended)
    ownership_weight: float = 0.0  # > 0 exactly with model.ownership_head (0.5 recommended)
    device: str = "auto"
    mixed_precision: bool = True  # bf16 autocast on CUDA (with precision=auto)
    precision: str = "auto"  # auto (measured on a CPU), fp32 or bf16
    memory_format: str = "auto"  # auto, channels_last or contiguous; as train.memory_format
    threads: int = 1  # torch CPU threads
    log_every_steps: int = 100
    eval_every_steps: int = 2000
    validation_positions: int = 20000
    eval_batch_size: int = 2048
    checkpoint_every_steps: int = 1000
    best_metric: str = "top1_symmetric"
    progress: bool = True  # tqdm bar

    def __post_init__(self):
        require_choice("pretrain.value_target", self.value_target, VALUE_TARGETS)
        require_training_precision("pretrain.precision", self.precision, ("auto", "fp32", "bf16"))
        require_choice("pretrain.split", self.split, SPLIT_KINDS)
        require_choice("pretrain.best_metric", self.best_metric, tuple(BEST_METRICS))
        require_choice("pretrain.fixed_board_moves", self.fixed_board_moves, FIXED_BOARD_MOVES)
        require_choice("pretrain.optimizer", self.optimizer, ("sgd", "adamw"))
        require_choice("pretrain.lr_schedule", self.lr_schedule, ("constant", "cosine", "step"))
        require_choice("pretrain.memory_format", self.memory_format, MEMORY_FORMATS)
        require(self.epochs >= 1, "pretrain.epochs", self.epochs, ">= 1")
        require(self.batch_size >= 1, "pretrain.batch_size", self.batch_size, ">= 1")
        require(self.lr > 0, "pretrain.lr", self.lr, "> 0")
        require(0 <= self.momentum < 1, "pretrain.momentum", self.momentum, "in [0, 1)")
        require(self.weight_decay >= 0, "pretrain.weight_decay", self.weight_decay, ">= 0")
        require(self.lr_warmup_steps >= 0, "pretrain.lr_warmup_steps", self.lr_warmup_steps, ">= 0")
        require(self.lr_total_steps >= 0, "pretrain.lr_total_steps", self.lr_total_steps, ">= 0")
        require(0 <= self.lr_min_factor <= 1, "pretrain.lr_min_factor", self.lr_min_factor, "in [0, 1]")
        require(self.grad_clip >= 0, "pretrain.grad_clip", self.grad_clip, ">= 0")
        require(self.value_loss_weight >= 0, "pretrain.value_loss_weight", self.value_loss_weight, ">= 0")
        require(self.score_weight >= 0, "pretrain.score_weight", self.score_weight, ">= 0")
        require(self.ownership_weight >= 0, "pretrain.ownership_weight", self.ownership_weight, ">= 0")
        require(0 <= self.distill_weight <= 1, "pretrain.distill_weight", self.distill_weight, "in [0, 1]")
        require(self.distill_temperature > 0, "pretrain.distill_temperature", self.distill_temperature, "> 0")
        require(self.threads >= 1, "pretrain.threads", self.threads, ">= 1")
        require(self.log_every_steps >= 1, "pretrain.log_every_steps", self.log_every_steps, ">= 1")
        require(self.eval_every_steps >= 0, "pretrain.eval_every_steps", self.eval_every_steps, ">= 0")
        require(self.validation_positions >= 0, "pretrain.validation_positions", self.validation_positions, ">= 0 (0 = all)")
        require(self.eval_batch_size >= 1, "pretrain.eval_batch_size", self.eval_batch_size, ">= 1")
        require(self.checkpoint_every_steps >= 1, "pretrain.checkpoint_every_steps", self.checkpoint_every_steps, ">= 1")
        require(len(self.validation_years) >= 1, "pretrain.validation_years", self.validation_years, "a non-empty list of years")
        if self.years is not None and self.split == "year":
            missing = sorted(set(self.validation_years) - set(self.years))
            require(not missing, "pretrain.validation_years", self.validation_years, f"a subset of pretrain.years (missing {missing})")

    def dataset_options(self) -> DatasetOptions:
        return DatasetOptions(
            years=tuple(self.years) if self.years is not None else None,
            validation_years=tuple(self.validation_years),
            winner_moves_only=self.winner_moves_only,
            dedup=self.dedup,
            split=self.split,
            split_seed=self.split_seed,
        )

    def resolved_wthor_dir(self) -> Path:
        return Path(self.wthor_dir) if self.wthor_dir else DEFAULT_WTHOR_DIR

    def resolved_dataset_dir(self) -> Path:
        """The dataset cache: one directory per set of options, so runs with different options
        never rebuild each other's files."""
        if self.dataset_dir:
            return Path(self.dataset_dir)
        # The format version is part of the name, so code that writes another version never
        # rebuilds this one's files in place (and the other way round).
        options = json.dumps(
            {"wthor": str(self.resolved_wthor_dir().resolve()), "version": DATASET_VERSION, **self.dataset_options().to_json()}, sort_keys=True
        )
        cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "alphazero"
        return cache / f"wthor-supervised-{hashlib.sha256(options.encode()).hexdigest()[:12]}"

    def optimizer_settings(self, steps_per_epoch: int) -> TrainConfig:
        """The subset of settings `alphazero.train.trainer.build_optimizer`/`build_scheduler` read,
        as the TrainConfig they take (one optimizer and schedule implementation for both runs);
        the schedule's horizon is `lr_total_steps`, or the whole run's steps when that is 0."""
        return TrainConfig(
            optimizer=self.optimizer,
            lr=self.lr,
            momentum=self.momentum,
            weight_decay=self.weight_decay,
            lr_schedule=self.lr_schedule,
            lr_warmup_steps=self.lr_warmup_steps,
            lr_total_steps=max(1, self.lr_total_steps or self.epochs * steps_per_epoch),
            lr_min_factor=self.lr_min_factor,
            grad_clip=self.grad_clip,
            batch_size=self.batch_size,
            window_positions=max(self.batch_size, 1),
            min_positions=1,
        )


@dataclass
class PretrainRunConfig:
    """dir: the run directory (config.yaml, log.txt, tb/, checkpoints/). resume: continue the run
    in `dir` from checkpoints/latest.pt. max_minutes / max_steps: budgets (0 = none) after which
    the run saves and stops cleanly."""

    dir: str = "runs/pretrain-${now:%Y-%m-%d_%H-%M-%S}"
    resume: bool = False
    seed: int = 0
    max_minutes: float = 0.0
    max_steps: int = 0

    def __post_init__(self):
        require(self.max_minutes >= 0, "run.max_minutes", self.max_minutes, ">= 0")
        require(self.max_steps >= 0, "run.max_steps", self.max_steps, ">= 0")


def check_pretrain_auxiliary_weights(model: ModelConfig, pretrain: PretrainConfig) -> None:
    """alphazero.nn.config.check_auxiliary_weights for the pretrain group (ConfigValueError)."""
    try:
        check_auxiliary_weights(model.score_head, model.ownership_head, pretrain.score_weight, pretrain.ownership_weight,
                                prefix="pretrain")
    except ValueError as err:
        raise ConfigValueError(str(err)) from None


@dataclass
class PretrainRootConfig:
    model: ModelConfig = field(default_factory=ModelConfig)
    pretrain: PretrainConfig = field(default_factory=PretrainConfig)
    run: PretrainRunConfig = field(default_factory=PretrainRunConfig)

    def __post_init__(self):
        check_pretrain_auxiliary_weights(self.model, self.pretrain)


def register_pretrain_configs() -> None:
    """The schema plus the shared `model` presets (registered by alphazero.train.schema)."""
    register_configs()
    ConfigStore.instance().store(name="pretrain_base_config", node=PretrainRootConfig)


def to_typed(cfg: DictConfig) -> PretrainRootConfig:
    return OmegaConf.to_object(cfg)


def to_yaml(cfg: PretrainRootConfig) -> str:
    return OmegaConf.to_yaml(OmegaConf.structured(cfg))
