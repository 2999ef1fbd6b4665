"""AlphaZeroNet: the ResNet that maps input planes to (policy logits, value), and the masking helpers.

Shapes: planes [N, NUM_PLANES, 8, 8] -> policy_logits [N, 65] (64 squares in a1..h8 order, then
pass), value [N] in [-1, 1] from the side to move's point of view. With `auxiliary=True` (training)
also the optional heads' outputs: score logits [N, 65] over the final disc difference and
ownership logits [N, 64] (alphazero.nn.auxiliary says what they mean), None where a head is off.

Illegal actions are masked before every softmax (search, training, play): always go through
`masked_softmax`, `masked_log_softmax` or `policy_cross_entropy` below, never a bare softmax.
"""

from __future__ import annotations

import copy

import torch
from torch import nn
from torch.nn import functional as F

from alphazero.nn.auxiliary import SCORE_BINS
from alphazero.nn.config import MEMORY_FORMATS, ModelConfig
from alphazero.othello.bitboard import NUM_ACTIONS


class ConvBN(nn.Module):
    """Convolution (no bias) followed by batch norm; `fused()` folds the norm into the conv.

    For inference the folded conv computes the same function with half the operators, which on
    CPU at small batches (where per-operator overhead dominates) is a large share of the time.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2, bias=False)
        self.bn = nn.BatchNorm2d(out_channels)

    def forward(self, x):
        return self.bn(self.conv(x))

    @torch.no_grad()
    def fused(self) -> nn.Conv2d:
        """An eval-mode equivalent Conv2d with bias: w' = w * g / s, b' = beta - mean * g / s,
        where s = sqrt(running_var + eps) (batch norm with running statistics is affine)."""
        conv, bn = self.conv, self.bn
        scale = bn.weight / torch.sqrt(bn.running_var + bn.eps)
        out = nn.Conv2d(
            conv.in_channels, conv.out_channels, conv.kernel_size, padding=conv.padding, bias=True
        ).to(device=conv.weight.device, dtype=conv.weight.dtype)
        out.weight.copy_(conv.weight * scale.reshape(-1, 1, 1, 1))
        out.bias.copy_(bn.bias - bn.running_mean * scale)
        return out


class ResidualBlock(nn.Module):
    """x -> relu(x + BN(conv(relu(BN(conv(x))))))."""

    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = ConvBN(channels, channels, 3)
        self.conv2 = ConvBN(channels, channels, 3)

    def forward(self, x):
        y = F.relu(self.conv1(x))
        return F.relu(x + self.conv2(y))


class GlobalPoolingBlock(nn.Module):
    """Residual block with a KataGo-style global-pooling bias.

    The first conv yields C - G regular channels and G pooled channels. The pooled channels (after
    ReLU) are reduced to their board mean and max, and a linear layer turns those 2G numbers into a
    per-channel bias added to the regular channels before their ReLU. Every square thus sees a
    summary of the whole board in one block, where plain 3x3 convs need several blocks to carry
    information across it.
    """

    def __init__(self, channels: int, pooled: int):
        super().__init__()
        self.regular = channels - pooled
        self.conv1 = ConvBN(channels, channels, 3)
        self.pool_bias = nn.Linear(2 * pooled, self.regular)
        self.conv2 = ConvBN(self.regular, channels, 3)

    def forward(self, x):
        y = self.conv1(x)
        regular, pooled = y[:, : self.regular], F.relu(y[:, self.regular :])
        stats = torch.cat((pooled.mean(dim=(2, 3)), pooled.amax(dim=(2, 3))), dim=1)
        regular = F.relu(regular + self.pool_bias(stats)[:, :, None, None])
        return F.relu(x + self.conv2(regular))


class AlphaZeroNet(nn.Module):
    """Stem conv, `cfg.blocks` residual blocks (every second one global-pooling if
    `cfg.global_pooling`), then a policy head (65 logits) and a tanh value head; optionally
    KataGo's auxiliary heads, trained only:

    - score (`cfg.score_head`): a linear layer on the value head's hidden features, 65 logits over
      the final disc difference. It shares the value head's features on purpose: the value is the
      sign of the score, so what predicts one should shape the other.
    - ownership (`cfg.ownership_head`): a 1x1 conv on the tower, one logit per square.
    """

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        c = cfg.channels
        self.stem = ConvBN(cfg.input_planes, c, 3)
        blocks = []
        for index in range(cfg.blocks):
            if cfg.global_pooling and index % 2 == 1:
                blocks.append(GlobalPoolingBlock(c, cfg.pooled_channels))
            else:
                blocks.append(ResidualBlock(c))
        self.blocks = nn.Sequential(*blocks)
        self.policy_conv = ConvBN(c, cfg.policy_channels, 1)
        self.policy_fc = nn.Linear(cfg.policy_channels * 64, NUM_ACTIONS)
        self.value_conv = ConvBN(c, cfg.value_channels, 1)
        self.value_fc1 = nn.Linear(cfg.value_channels * 64, cfg.value_hidden)
        self.value_fc2 = nn.Linear(cfg.value_hidden, 1)
        self.score_fc = nn.Linear(cfg.value_hidden, SCORE_BINS) if cfg.score_head else None
        self.ownership_conv = nn.Conv2d(c, 1, 1) if cfg.ownership_head else None
        self._zero_init_residuals()

    def _zero_init_residuals(self):
        """Start every block as the identity (last BN scale 0): a deep tower then trains like a
        shallow one at first, the usual fix for early instability in residual nets."""
        for block in self.blocks:
            nn.init.zeros_(block.conv2.bn.weight)

    def forward(self, planes, auxiliary: bool = False):
        """(policy_logits, value), or with `auxiliary` (policy_logits, value, score_logits,
        ownership_logits), the last two None where the network has no such head. Play, self-play
        and export call it without `auxiliary`, so the auxiliary heads cost them nothing."""
        x = F.relu(self.stem(planes))
        x = self.blocks(x)
        policy = F.relu(self.policy_conv(x)).flatten(1)
        policy_logits = self.policy_fc(policy)
        value = F.relu(self.value_conv(x)).flatten(1)
        value_hidden = F.relu(self.value_fc1(value))
        value = torch.tanh(self.value_fc2(value_hidden)).squeeze(-1)
        if not auxiliary:
            return policy_logits, value
        score_logits = self.score_fc(value_hidden) if self.score_fc is not None else None
        ownership_logits = self.ownership_conv(x).flatten(1) if self.ownership_conv is not None else None
        return policy_logits, value, score_logits, ownership_logits


def fuse_for_inference(net: nn.Module) -> nn.Module:
    """An eval-mode deep copy of `net` with every ConvBN folded into one biased Conv2d.

    The copy computes the same outputs as `net.eval()` (up to float rounding), cannot be trained
    (the batch-norm statistics are baked in), and shares no storage with `net`.
    """
    fused = copy.deepcopy(net).eval()

    def replace(module):
        for name, child in module.named_children():
            if isinstance(child, ConvBN):
                setattr(module, name, child.fused())
            else:
                replace(child)

    replace(fused)
    for parameter in fused.parameters():
        parameter.requires_grad_(False)
    return fused


def training_memory_format(name: str, device: torch.device) -> torch.memory_format:
    """The layout of a training network's weights and input planes for `name` in MEMORY_FORMATS.

    "auto" is channels-last on CPU, where the small network's trainer step ran 1.06-1.17x faster in
    it (2-core machine, batch 256, 2026-11-26; docs/benchmarks.md, "Network and precision"), and
    NCHW elsewhere: on an H100 channels-last made the medium network's inference 1.4x faster at
    4,096+ positions but 0.93x at 1,024, and training there has not been measured in it yet
    (experiments/gpu-next/train_layout.py is the measurement). The layout changes speed only: the
    same function is computed (up to float rounding), and checkpoints load into either.
    """
    if name not in MEMORY_FORMATS:
        raise ValueError(f"unknown memory format {name!r}; expected one of {', '.join(MEMORY_FORMATS)}")
    if name == "channels_last" or (name == "auto" and device.type == "cpu"):
        return torch.channels_last
    return torch.contiguous_format


def count_parameters(net: nn.Module) -> int:
    return sum(p.numel() for p in net.parameters())


# ------------------------------------------------------------------------------------------------
# Masking: illegal actions get probability exactly 0 (log-probability -inf) everywhere.


def _check_mask(logits, legal_mask):
    if legal_mask.shape != logits.shape or legal_mask.dtype != torch.bool:
        raise ValueError(
            f"legal_mask must be bool with the logits' shape {list(logits.shape)}; "
            f"got {legal_mask.dtype}{list(legal_mask.shape)}"
        )


def masked_log_softmax(logits: torch.Tensor, legal_mask: torch.Tensor) -> torch.Tensor:
    """log-softmax over the legal actions only; -inf on illegal ones.

    Every row must have a legal action (always true in Othello: PASS is legal when nothing else is).
    """
    _check_mask(logits, legal_mask)
    return logits.float().masked_fill(~legal_mask, float("-inf")).log_softmax(dim=-1)


def masked_softmax(logits: torch.Tensor, legal_mask: torch.Tensor) -> torch.Tensor:
    """softmax over the legal actions only; exactly 0 on illegal ones (float32)."""
    _check_mask(logits, legal_mask)
    return logits.float().masked_fill(~legal_mask, float("-inf")).softmax(dim=-1)


def policy_cross_entropy(logits: torch.Tensor, target: torch.Tensor, legal_mask: torch.Tensor) -> torch.Tensor:
    """Mean over the batch of -sum_a target[a] * log p[a], with p the masked softmax.

    Illegal actions have log p = -inf; their terms are dropped (not multiplied: 0 * -inf is NaN,
    and would poison the gradient too). Target mass on an illegal action is therefore ignored.
    """
    log_probs = masked_log_softmax(logits, legal_mask)
    log_probs = torch.where(legal_mask, log_probs, torch.zeros_like(log_probs))
    return -(target.float() * log_probs).sum(dim=-1).mean()
