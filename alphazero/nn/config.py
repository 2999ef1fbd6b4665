"""ModelConfig: the shape of the AlphaZero ResNet, and the named presets.

A plain dataclass (Hydra-friendly: every field has a default, all plain types). Checkpoints store it
as a dict (`to_dict`) and rebuild it with `from_dict`, which rejects unknown keys and a plane count
that differs from the current encoding.

Presets, measured on the 2-core CI machine with `python -m alphazero.bench network` (fp32, 2
threads, inference through NetworkEvaluator with fused batch norm; see docs/benchmarks.md):

- tiny:   2 x 16. Unit tests and smoke runs only.
- small:  see SMALL_WHY below. CPU self-play and the CPU training loop.
- medium: 10 x 96 with global pooling: the GPU workhorse.
- large:  20 x 128 with global pooling: long GPU runs.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from alphazero.nn.encoding import NUM_PLANES


@dataclass
class ModelConfig:
    """blocks:           residual blocks in the tower.
    channels:         convolution channels in the tower.
    global_pooling:   KataGo-style global-pooling bias in every second block (lets distant regions,
                      e.g. parity or who owns the corners, inform each square; cheap at 8x8).
    policy_channels:  1x1 conv channels feeding the policy head's linear layer (64 squares + pass).
    value_channels:   1x1 conv channels feeding the value head.
    value_hidden:     width of the value head's hidden layer.
    """

    blocks: int = 4
    channels: int = 48
    global_pooling: bool = False
    policy_channels: int = 2
    value_channels: int = 1
    value_hidden: int = 64

    def __post_init__(self):
        for name in ("blocks", "channels", "policy_channels", "value_channels", "value_hidden"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"ModelConfig.{name} must be a positive int, got {value!r}")
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


_PRESETS = {
    "tiny": dict(blocks=2, channels=16, value_hidden=32),
    "small": dict(blocks=4, channels=48, value_hidden=64),
    "medium": dict(blocks=10, channels=96, global_pooling=True, policy_channels=4, value_channels=2, value_hidden=128),
    "large": dict(blocks=20, channels=128, global_pooling=True, policy_channels=4, value_channels=2, value_hidden=256),
}

PRESET_NAMES = tuple(_PRESETS)


def model_preset(name: str) -> ModelConfig:
    """A fresh ModelConfig for a preset name ("tiny", "small", "medium", "large")."""
    try:
        return ModelConfig(**_PRESETS[name])
    except KeyError:
        raise ValueError(f"unknown model preset {name!r}; valid presets: {', '.join(PRESET_NAMES)}") from None
