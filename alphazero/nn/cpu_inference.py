"""AlphaZeroNet's forward pass on CPU through oneDNN (mkldnn) fused convolution kernels.

`MkldnnForward(fused_net)` computes exactly `fused_net(planes)` (to float rounding) for a net that
went through `fuse_for_inference`, but calls `torch.ops.mkldnn._convolution_pointwise`, the fused
kernels TorchInductor emits on CPU: conv + bias + ReLU in one call, and for the second conv of a
residual block conv + bias + residual add + ReLU in one call. That removes the separate ReLU and
add passes over the activations and keeps every activation in oneDNN's channels-last layout.

The convolution weights are reordered once, when the forward is built, into oneDNN's blocked
layout (`torch.ops.mkldnn._reorder_convolution_weight`, TorchInductor's weight prepacking), so no
call reorders them again. Without that, every call paid the reorder, which dominated small batches:
on the 2-core CI machine (Zen 4, avx512_bf16; 1 thread, CPU time;
experiments/prepacked-onednn/README.md) prepacking took the medium network's call at batch 1 from
1.2-1.5x the eager model's time to 0.77-0.92x (both precisions), and 1-6% off calls at batch 64. A
packed weight does not depend on the batch it is later called with.

Measured before prepacking (4x32, 4x48 and 6x64 towers, 1 thread, the machine shared with other
jobs): 8-45% more positions per second than the fused channels-last eager model at batches >= 32,
but up to 3x slower at batch 1 (the reorder above). Where the eager model is faster depends on the
CPU, the precision and the network, so `NetworkEvaluator` measures below `MIN_BATCH` (at the
batch its caller sends) instead of assuming; from `MIN_BATCH` up it always takes these kernels.
The op is private to torch (TorchInductor's CPU backend relies on it); `available()` checks it
exists and the evaluator falls back to eager where it does not. Where the reorder op is missing
the forward keeps the plain weights (correct, only slower).

This mirrors AlphaZeroNet.forward block by block; tests/nn pins the two equal for both block
kinds, so a change to the model that is not mirrored here fails there.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F

from alphazero.nn.model import GlobalPoolingBlock, ResidualBlock

MIN_BATCH = 32


def available(dtype: torch.dtype = torch.float32) -> bool:
    """True where this torch build has oneDNN and its fused pointwise convolution op for `dtype`.

    bf16 convolutions in oneDNN need avx512bw/vl/dq or avx_ne_convert (torch's
    `_is_mkldnn_bf16_supported`); on an avx2-only CPU the op exists but raises, so asking first
    saves the evaluator a failing probe call each time it rebuilds its fused copy."""
    try:
        if not (torch.backends.mkldnn.is_available() and hasattr(torch.ops.mkldnn, "_convolution_pointwise")):
            return False
        if dtype == torch.bfloat16:
            return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
        return True
    except (AttributeError, RuntimeError):
        return False


def _prepacked(weight: torch.Tensor, padding: list[int]) -> torch.Tensor:
    """`weight` reordered into oneDNN's blocked layout for the pointwise op (an opaque mkldnn
    tensor), or `weight` itself where this torch build has no reorder op or refuses it."""
    reorder = getattr(torch.ops.mkldnn, "_reorder_convolution_weight", None)
    if reorder is None:
        return weight
    try:
        # The input size only guides oneDNN's choice of blocking; any batch runs with the result.
        return reorder(weight, padding, [1, 1], [1, 1], 1, [MIN_BATCH, weight.shape[1], 8, 8])
    except (RuntimeError, TypeError):
        return weight


class FusedConv:
    """A biased Conv2d's tensors and geometry, ready for the pointwise op (3x3 or 1x1, stride 1)."""

    def __init__(self, conv: nn.Conv2d):
        if conv.bias is None or conv.stride != (1, 1) or conv.dilation != (1, 1) or conv.groups != 1:
            raise ValueError(f"expected a fused stride-1 Conv2d with bias, got {conv}")
        self.weight = _prepacked(conv.weight.detach().contiguous(), list(conv.padding))
        self.bias = conv.bias.detach()
        self.padding = list(conv.padding)

    def __call__(self, x, unary="relu"):
        return torch.ops.mkldnn._convolution_pointwise(
            x, self.weight, self.bias, self.padding, [1, 1], [1, 1], 1, unary, [], ""
        )

    def add_relu(self, x, residual):
        """relu(conv(x) + residual) in one kernel."""
        return torch.ops.mkldnn._convolution_pointwise.binary(
            x, residual, self.weight, self.bias, self.padding, [1, 1], [1, 1], 1, "add", None, "relu", [], ""
        )


class MkldnnForward:
    """Callable planes [N, C, 8, 8] -> (policy_logits [N, 65], value [N]), inference only."""

    def __init__(self, fused_net: nn.Module):
        self.stem = FusedConv(fused_net.stem)
        self.blocks = []
        for block in fused_net.blocks:
            if isinstance(block, GlobalPoolingBlock):
                self.blocks.append(("pool", FusedConv(block.conv1), FusedConv(block.conv2), block.regular, block.pool_bias))
            elif isinstance(block, ResidualBlock):
                self.blocks.append(("plain", FusedConv(block.conv1), FusedConv(block.conv2), None, None))
            else:
                raise TypeError(f"no mkldnn forward for block type {type(block).__name__}")
        self.policy_conv = FusedConv(fused_net.policy_conv)
        self.policy_fc = fused_net.policy_fc
        self.value_conv = FusedConv(fused_net.value_conv)
        self.value_fc1 = fused_net.value_fc1
        self.value_fc2 = fused_net.value_fc2

    def __call__(self, planes: torch.Tensor):
        x = self.stem(planes.contiguous(memory_format=torch.channels_last))
        for kind, conv1, conv2, regular_channels, pool_bias in self.blocks:
            if kind == "plain":
                x = conv2.add_relu(conv1(x), x)
                continue
            y = conv1(x, unary="none")
            regular, pooled = y[:, :regular_channels], F.relu(y[:, regular_channels:])
            stats = torch.cat((pooled.mean(dim=(2, 3)), pooled.amax(dim=(2, 3))), dim=1)
            regular = F.relu(regular + pool_bias(stats)[:, :, None, None])
            x = conv2.add_relu(regular.contiguous(memory_format=torch.channels_last), x)
        policy_logits = self.policy_fc(self.policy_conv(x).flatten(1))
        value = self.value_conv(x).flatten(1)
        value = torch.tanh(self.value_fc2(F.relu(self.value_fc1(value)))).squeeze(-1)
        return policy_logits, value
