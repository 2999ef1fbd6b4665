"""ModelConfig: the shape of the AlphaZero ResNet, and the named presets.

A plain dataclass (Hydra-friendly: every field has a default, all plain types). Checkpoints store it
as a dict (`to_dict`) and rebuild it with `from_dict`, which rejects unknown keys and a plane count
that differs from the current encoding.

Presets (parameters; positions/s through NetworkEvaluator at batch 256 on one core of the 2-core CI
machine, best CPU-time windows under load, `python -m alphazero.bench network`):

- tiny:   2 x 16 (20k params). Unit tests and smoke runs only.
- small:  4 x 48 (181k params; 5.5k positions/s per core). CPU self-play and training.
- medium: 10 x 96 with global pooling (1.6M params): the GPU workhorse.
- large:  20 x 128 with global pooling (5.7M params): long GPU runs.

The warm-start zoo (`arch` other than "resnet"; built by alphazero.nn.zoo, where each docstring
says how the original was read): the three supervised move predictors the project grew from, each
with a value head added, on this project's input planes and 65 actions.

- seed_mlp:     the Chainer MLP, 256-100-100-65 (2 hidden layers of 100).
- seed_cnn:     the Keras CNN, 12 x 3x3 convolutions of 128 filters, a 1x1 convolution and a
                learned per-square bias before the softmax.
- seed_cnn_rnn: star-shaped-kernel CNN plus a GRU over the previous `history` actions of the
                game. It needs the game's history, so it is a network for accuracy and raw-policy
                play only: MCTS and self-play refuse it (`require_board_only`).

Why small is 4 x 48. Per core at batch 256: 4x32 12.9k positions/s, 4x48 5.5k, 5x48 4.4k, 6x48
3.8k, 4x64 4.0k, 6x64 2.7k. The search tree runs ~260k simulations/s on one core (`python -m
alphazero.bench mcts`): ~4 us per simulation against ~180 us per leaf for 4x48, so tree and
batching overhead is ~2% of a self-play step (1% measured end to end with `bench mcts --evaluator
small`; 4x32 would be ~5%), far inside the 20% budget anywhere in the 4-6 blocks x 32-64 channels
region. So the overhead bound does not pick the size; the trade is games per CPU-hour against
capacity (at 200 simulations a move, generating a position costs ~50x one training pass over it). 4x48 has 2x the parameters of
4x32 for 2.4x the cost and twice the speed of 6x64; the warm start (checkpoints/warmstart.pt,
supervised on WTHOR) is trained at this size. Its receptive field (9 stacked 3x3 convs: 19 squares)
spans the board. 4x32 is the faster fallback if self-play volume proves to be the bottleneck.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from alphazero.nn.planes import NUM_PLANES
from alphazero.validation import ConfigValueError, require_choice


# Layouts a network can train in (train.memory_format, pretrain.memory_format); what "auto"
# means is alphazero.nn.model.training_memory_format's docstring.
MEMORY_FORMATS = ("auto", "channels_last", "contiguous")
# Arithmetic a network can run in (selfplay/train/arena.precision); alphazero.nn.precision says what
# "auto" measures. Here, with the other configuration names, because configuration is checked
# before anything imports torch: a refused command line answers without loading it.
PRECISIONS = ("auto", "fp32", "bf16", "fp16")
# Network calls (selfplay.precision, arena.precision, play, GTP, arena players, benchmarks) can also
# run in int8 on a CPU (alphazero.nn.int8_inference); training cannot, so train.precision,
# pretrain.precision and a run's top-level `precision` take PRECISIONS only.
INFERENCE_PRECISIONS = PRECISIONS + ("int8",)


def require_training_precision(key: str, value: str, choices: tuple[str, ...] = PRECISIONS) -> None:
    """Refuse a training precision outside `choices`, and int8 with where it does apply."""
    if value == "int8":
        raise ConfigValueError(f"{key} must be one of {', '.join(choices)}; got 'int8', which is for network calls only "
                               "(set selfplay.precision=int8 and arena.precision=int8 for a run's self-play and games)")
    require_choice(key, value, choices)

# The auxiliary heads' loss weights to use with the heads on (alphazero.nn.auxiliary), in self-play
# training and pretraining alike (TrainConfig.score_weight says why these values;
# experiments/ablation/run.sh's `aux` row).
RECOMMENDED_SCORE_WEIGHT = 0.1
RECOMMENDED_OWNERSHIP_WEIGHT = 0.5


def check_auxiliary_weights(score_head: bool, ownership_head: bool, score_weight: float, ownership_weight: float,
                            prefix: str = "train") -> None:
    """A head is trained exactly when its loss weight is positive: a weight without its head would
    train nothing, and a head without weight would stay random in every checkpoint. ValueError
    with one message naming the key to change (`prefix` is the config group: train or pretrain)."""
    for head, weight, name, recommended in (
        (score_head, score_weight, "score", RECOMMENDED_SCORE_WEIGHT),
        (ownership_head, ownership_weight, "ownership", RECOMMENDED_OWNERSHIP_WEIGHT),
    ):
        if weight < 0:
            raise ValueError(f"{prefix}.{name}_weight must be >= 0, got {weight}")
        if weight > 0 and not head:
            raise ValueError(f"{prefix}.{name}_weight={weight:g} but the network has no {name} head: set "
                             f"model.{name}_head=true, or {prefix}.{name}_weight=0")
        if head and weight == 0:
            raise ValueError(f"model.{name}_head=true but {prefix}.{name}_weight=0 would leave the head untrained: set "
                             f"{prefix}.{name}_weight (e.g. {recommended:g}), or model.{name}_head=false")


@dataclass
class ModelConfig:
    """The defaults are the `small` preset.

    blocks:           residual blocks in the tower.
    channels:         convolution channels in the tower.
    global_pooling:   KataGo-style global-pooling bias in every second block (lets distant regions,
                      e.g. parity or who owns the corners, inform each square; cheap at 8x8).
    policy_channels:  1x1 conv channels feeding the policy head's linear layer (64 squares + pass).
    value_channels:   1x1 conv channels feeding the value head.
    value_hidden:     width of the value head's hidden layer.
    arch:             "resnet" (AlphaZeroNet, the fields above) or a zoo architecture (ZOO_ARCHS);
                      a zoo network reads `blocks` as its layer count and `channels` as its width
                      (alphazero.nn.zoo says how each uses them).
    history:          previous actions of the game the network reads besides the position (0 =
                      none; only seed_cnn_rnn uses them).
    rnn_hidden:       hidden size of seed_cnn_rnn's GRU over the history (0 for the others).
    score_head:       KataGo's auxiliary score target: a distribution over the final disc
                      difference from the side to move (alphazero.nn.auxiliary). Training only.
    ownership_head:   KataGo's auxiliary ownership target: who owns each square at the end, from
                      the side to move's view. Training only.

    The auxiliary heads are trained beside the policy and value and never evaluated in play or
    self-play (`AlphaZeroNet.forward` skips them), so they cost training time only. ResNets only.

    `to_dict` leaves arch/history/rnn_hidden and the auxiliary heads out while they have their
    defaults, so a ResNet's checkpoint is the same dict it was before the zoo and the heads existed,
    and such checkpoints load unchanged (with no auxiliary heads).
    """

    blocks: int = 4
    channels: int = 48
    global_pooling: bool = False
    policy_channels: int = 2
    value_channels: int = 1
    value_hidden: int = 64
    arch: str = "resnet"
    history: int = 0
    rnn_hidden: int = 0
    score_head: bool = False
    ownership_head: bool = False

    def __post_init__(self):
        for name in ("blocks", "channels", "policy_channels", "value_channels", "value_hidden"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"ModelConfig.{name} must be a positive int, got {value!r}")
        if self.arch not in ARCHS:
            raise ValueError(f"ModelConfig.arch must be one of {', '.join(ARCHS)}, got {self.arch!r}")
        for name in ("history", "rnn_hidden"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"ModelConfig.{name} must be an int >= 0, got {value!r}")
        if (self.arch == "seed_cnn_rnn") != (self.history > 0 and self.rnn_hidden > 0):
            raise ValueError(
                f"ModelConfig.history and rnn_hidden must be > 0 for arch seed_cnn_rnn and 0 otherwise; "
                f"got arch={self.arch!r}, history={self.history}, rnn_hidden={self.rnn_hidden}"
            )
        for name in ("score_head", "ownership_head"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"ModelConfig.{name} must be true or false, got {getattr(self, name)!r}")
            if getattr(self, name) and self.arch != "resnet":
                raise ValueError(f"ModelConfig.{name} needs arch resnet (the zoo networks have no auxiliary heads), got {self.arch!r}")
        if self.global_pooling and self.channels < 4:
            raise ValueError(f"ModelConfig.global_pooling needs channels >= 4, got {self.channels}")

    @property
    def input_planes(self) -> int:
        """Input planes, fixed by alphazero.nn.encoding (not a free choice)."""
        return NUM_PLANES

    @property
    def pooled_channels(self) -> int:
        """Channels of a global-pooling block that are pooled into the bias (KataGo uses ~1/4)."""
        return max(1, self.channels // 4)

    def to_dict(self) -> dict:
        """Plain dict for checkpoints, with the encoding's plane count recorded beside the fields."""
        out = dataclasses.asdict(self)
        for name, default in _OPTIONAL_FIELD_DEFAULTS.items():
            if out[name] == default:
                del out[name]
        out["input_planes"] = self.input_planes
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "ModelConfig":
        """Inverse of `to_dict`; accepts any mapping (e.g. an OmegaConf DictConfig)."""
        data = dict(data)
        planes = data.pop("input_planes", NUM_PLANES)
        if planes != NUM_PLANES:
            raise ValueError(
                f"model config was built for {planes} input planes, but alphazero.nn.encoding now "
                f"produces {NUM_PLANES}: the weights cannot be used with this encoding"
            )
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise ValueError(f"unknown ModelConfig keys {unknown}; expected a subset of {sorted(names)}")
        return cls(**data)

    @property
    def auxiliary_heads(self) -> bool:
        """True when the network has a score or an ownership head to train."""
        return self.score_head or self.ownership_head

    @property
    def needs_history(self) -> bool:
        """True when the network reads the game's previous actions, not just the position."""
        return self.history > 0


ZOO_ARCHS = ("seed_mlp", "seed_cnn", "seed_cnn_rnn")
ARCHS = ("resnet",) + ZOO_ARCHS
_OPTIONAL_FIELD_DEFAULTS = {"arch": "resnet", "history": 0, "rnn_hidden": 0, "score_head": False, "ownership_head": False}


class ModelMismatch(ValueError):
    """A saved network whose settings differ from the model config; the message names each one."""


def check_same_model(saved: ModelConfig, wanted: ModelConfig, where: str) -> None:
    """ModelMismatch naming each model setting in which the network saved in `where` differs from
    the config (a resume, `train.init_from`, pretraining's resume: every start that loads weights)."""
    if saved == wanted:
        return
    diffs = [
        f"model.{f.name}: saved {getattr(saved, f.name)!r} vs config {getattr(wanted, f.name)!r}"
        for f in dataclasses.fields(saved)
        if getattr(saved, f.name) != getattr(wanted, f.name)
    ]
    raise ModelMismatch(f"the network in {where} does not match the model config ({'; '.join(diffs)}); use the same model preset/overrides")


def require_board_only(cfg: ModelConfig, use: str) -> None:
    """Refuse, in one line, a network that needs the game's history where only positions exist
    (MCTS leaves, self-play, play, GTP): `use` names the place, e.g. "MCTS"."""
    if cfg.needs_history:
        raise ValueError(
            f"model arch {cfg.arch} reads the game's last {cfg.history} moves, which {use} cannot provide: "
            f"use it for accuracy (python -m alphazero.bench accuracy) or raw-policy play (mcts:checkpoint=PATH,simulations=0) only"
        )


_PRESETS = {
    "tiny": dict(blocks=2, channels=16, value_hidden=32),
    "small": dict(blocks=4, channels=48, value_hidden=64),
    "medium": dict(blocks=10, channels=96, global_pooling=True, policy_channels=4, value_channels=2, value_hidden=128),
    "large": dict(blocks=20, channels=128, global_pooling=True, policy_channels=4, value_channels=2, value_hidden=256),
    "seed_mlp": dict(arch="seed_mlp", blocks=2, channels=100, value_hidden=64),
    "seed_cnn": dict(arch="seed_cnn", blocks=12, channels=128, value_hidden=64),
    "seed_cnn_rnn": dict(arch="seed_cnn_rnn", blocks=6, channels=64, value_hidden=64, history=16, rnn_hidden=128),
}

PRESET_NAMES = tuple(_PRESETS)


def model_preset(name: str) -> ModelConfig:
    """A fresh ModelConfig for a preset name ("tiny", "small", "medium", "large", or a zoo name)."""
    try:
        return ModelConfig(**_PRESETS[name])
    except KeyError:
        raise ValueError(f"unknown model preset {name!r}; valid presets: {', '.join(PRESET_NAMES)}") from None
