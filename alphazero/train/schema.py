"""The whole configuration of a training run: one typed dataclass per Hydra group.

`conf/config.yaml` composes the groups on top of the `base_config` schema registered here, so
OmegaConf rejects an unknown key or a value of the wrong type while the overrides are merged, and
`to_typed` turns the result into dataclass instances whose `__post_init__` checks the ranges (a
negative simulation count fails before anything starts, naming the key).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hydra.core.config_store import ConfigStore
from omegaconf import DictConfig, OmegaConf

from alphazero.mcts.config import MCTSConfig
from alphazero.nn.config import PRESET_NAMES, require_training_precision, ModelConfig, check_auxiliary_weights, model_preset, require_board_only
from alphazero.selfplay.config import RayConfig, SelfPlayConfig
from alphazero.validation import require
from alphazero.train.config import ArenaConfig, EvalConfig, RunConfig, TrainConfig


@dataclass
class Config:
    model: ModelConfig = field(default_factory=ModelConfig)
    mcts: MCTSConfig = field(default_factory=MCTSConfig)
    selfplay: SelfPlayConfig = field(default_factory=SelfPlayConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    arena: ArenaConfig = field(default_factory=ArenaConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    run: RunConfig = field(default_factory=RunConfig)
    ray: RayConfig = field(default_factory=RayConfig)
    # Arithmetic of every network call of the run (self-play, trainer, arena): auto, fp32 or bf16
    # (alphazero.nn.precision; docs/precision.md). conf/config.yaml hands it to selfplay.precision,
    # train.precision and arena.precision, which can still be set one by one (the network calls
    # also take int8, training does not).
    precision: str = "auto"

    def __post_init__(self):
        """Settings of different keys that contradict each other (each key's own range is checked by
        its group's dataclass)."""
        require_training_precision("precision", self.precision)
        require_board_only(self.model, "self-play and MCTS")
        check_auxiliary_weights(self.model.score_head, self.model.ownership_head, self.train.score_weight, self.train.ownership_weight)
        if self.train.lr_schedule == "cosine":
            # The cosine decays over the steps after the warm-up: with none left it would drop to
            # its floor the moment the warm-up ends.
            require(self.train.lr_warmup_steps < self.train.lr_total_steps, "train.lr_warmup_steps", self.train.lr_warmup_steps,
                    f"< train.lr_total_steps ({self.train.lr_total_steps}) with train.lr_schedule=cosine")
        if self.selfplay.playout_cap_fraction < 1:
            require(self.selfplay.playout_cap_small <= self.mcts.simulations, "selfplay.playout_cap_small",
                    self.selfplay.playout_cap_small, f"<= mcts.simulations ({self.mcts.simulations})")


def register_configs() -> None:
    """The schema, plus one `model` group entry per preset (defined once, in alphazero.nn.config)."""
    store = ConfigStore.instance()
    store.store(name="base_config", node=Config)
    for name in PRESET_NAMES:
        store.store(group="model", name=name, node=model_preset(name))


def to_typed(cfg: DictConfig) -> Config:
    """Resolve interpolations and build the dataclasses (running their range checks)."""
    return OmegaConf.to_object(cfg)


def to_yaml(cfg: Config) -> str:
    return OmegaConf.to_yaml(OmegaConf.structured(cfg))
