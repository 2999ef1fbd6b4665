"""AlphaZeroNet's forward pass on CPU in int8: oneDNN's quantized convolutions (VNNI, AMX-INT8).

Why: on the 2-core AMD EPYC Zen 4 (avx512_vnni, avx512_bf16, no AMX) one 96->96 3x3 convolution
of the medium network at batch 64 took 1.44 ms in int8 against 2.96 ms in bf16 and 6.03 ms in
float32 (one thread, oneDNN's prepacked kernels each; at batch 4 0.12 ms against 0.21 ms and
0.36 ms): int8 multiplies four values per lane where bf16 multiplies two. The whole network gains less than its convolutions (docs/benchmarks.md,
"Network and precision"), and whether it gains at all depends on the CPU and the batch, so
`precision: auto` measures it beside fp32 and bf16 (alphazero.nn.precision).

What is quantized, and why this way (post-training static quantization, no retraining):
- Weights: symmetric int8 per output channel (scale = max |w| / 127 of that channel), folded batch
  norm included (`fuse_for_inference`), prepacked once into oneDNN's layout.
- Activations: unsigned 8-bit per tensor, zero point 0, since every quantized activation follows
  a ReLU: a block's input (the residual stream), its middle activation (the input of its second
  convolution) and the heads' input. Each tensor's scale is its largest value over a fixed set of
  `CALIBRATION_POSITIONS` random positions, divided by 255 (`activation_ranges`).
- The residual stream stays float32: each block's second convolution adds its int8 product to the
  float32 stream in the kernel (oneDNN's sum post-op) and only the next convolution's input is
  quantized. Quantizing the stream too (uint8 in, uint8 out) let rounding errors accumulate over the
  blocks: the medium network then named the float32 network's best move on 96.8% of 20,000 WTHOR
  2018 positions, against 99.0% this way (bf16: 99.6%).
- The stem (4 input planes) runs in float32 (oneDNN's fused kernel, `cpu_inference.FusedConv`):
  its int8 weights alone cost more than all the blocks' together (the small network with only the
  stem's weights rounded to int8 named float32's best move on 99.05% of 20,000 WTHOR 2018
  positions, with any one block's 99.6-99.7%), for a twelfth of a block's work. Global pooling's
  mean, max and bias, and the heads' fully connected layers, run in float32 too.

Calibrating on random positions rather than expert games is deliberate: their activations range
wider, so fewer real activations are clipped (calibrated on 2,048 WTHOR 2017 positions the same
network agreed on 97.4%, on 512 random ones 99.0%), and the evaluator needs no data files.

`Int8Forward` mirrors AlphaZeroNet.forward block by block, as `cpu_inference.MkldnnForward` does;
tests/nn pins it to the float32 network within int8's tolerance, so a change to the model that is
not mirrored here fails there. The ops are TorchInductor's x86 quantization kernels
(`torch.ops.onednn.qconv_prepack`, `qconv2d_pointwise`), private to torch: `build` proves they run
here, and `precision: auto` leaves int8 out where they do not.
"""

from __future__ import annotations

import functools

import numpy as np
import torch
from numba import njit
from torch import nn
from torch.nn import functional as F

from alphazero.nn import cpu_inference
from alphazero.nn.encoding import encode_positions_and_mask
from alphazero.nn.model import GlobalPoolingBlock, ResidualBlock
from alphazero.othello.playout import random_positions

# The activation ranges come from this many random positions (seed CALIBRATION_SEED, up to
# CALIBRATION_PLIES random moves from the start). 512 cost the medium network about 0.9 s of one
# core per calibration (a self-play worker calibrates each new network once).
CALIBRATION_POSITIONS = 512
CALIBRATION_SEED = 0
CALIBRATION_PLIES = 58
# oneDNN chooses its weight blocking from an input shape; any batch then runs with the packed weight.
PACKING_BATCH = 32
_CHANNELS_LAST = torch.channels_last


def available() -> bool:
    """True where this torch build has oneDNN's quantized convolution ops and its float32 fused
    one (the stem's) (x86 builds do)."""
    try:
        return bool(cpu_inference.available() and hasattr(torch.ops.onednn, "qconv2d_pointwise")
                    and hasattr(torch.ops.onednn, "qconv_prepack"))
    except (AttributeError, RuntimeError):
        return False


def supports(net: nn.Module) -> bool:
    """True for the networks `Int8Forward` mirrors: AlphaZeroNet's residual towers."""
    blocks = getattr(net, "blocks", None)
    return (all(hasattr(net, name) for name in ("stem", "policy_conv", "policy_fc", "value_conv", "value_fc1", "value_fc2"))
            and blocks is not None and all(isinstance(block, (ResidualBlock, GlobalPoolingBlock)) for block in blocks))


@functools.cache
def _calibration_positions() -> np.ndarray:
    positions = random_positions(CALIBRATION_POSITIONS, seed=CALIBRATION_SEED, max_plies=CALIBRATION_PLIES)
    positions.setflags(write=False)
    return positions


def calibration_planes() -> torch.Tensor:
    """float32[CALIBRATION_POSITIONS, planes, 8, 8]: the positions the activation ranges come from."""
    return torch.from_numpy(encode_positions_and_mask(_calibration_positions())[0])


def activation_ranges(fused_net: nn.Module, planes: torch.Tensor | None = None) -> dict[str, float]:
    """The largest value of every activation `Int8Forward` quantizes, from float runs of
    `fused_net` (an eval-mode `fuse_for_inference` copy) over `planes` (default:
    `calibration_planes()`): "block{i}.input", "block{i}.middle" (block i's second convolution's
    input) and "heads". Read with forward pre-hooks, so this follows the model's own forward."""
    planes = calibration_planes() if planes is None else planes
    ranges: dict[str, float] = {}

    def recorder(name):
        def hook(_module, inputs):
            ranges[name] = max(ranges.get(name, 0.0), float(inputs[0].max()))
        return hook

    handles = [fused_net.policy_conv.register_forward_pre_hook(recorder("heads"))]
    for index, block in enumerate(fused_net.blocks):
        handles.append(block.register_forward_pre_hook(recorder(f"block{index}.input")))
        handles.append(block.conv2.register_forward_pre_hook(recorder(f"block{index}.middle")))
    dtype = next(fused_net.parameters()).dtype
    try:
        with torch.inference_mode():
            for start in range(0, len(planes), 128):
                fused_net(planes[start : start + 128].to(dtype))
    finally:
        for handle in handles:
            handle.remove()
    return ranges


@njit(cache=True, fastmath=True)
def _quantize_kernel(values, inverse_scale, out):
    """out[i] = round(values[i] * inverse_scale) clamped to 0..255 (values are ReLU outputs)."""
    for i in range(values.size):
        scaled = values[i] * inverse_scale + np.float32(0.5)
        out[i] = np.uint8(min(max(scaled, np.float32(0.0)), np.float32(255.0)))


def quantize(x: torch.Tensor, scale: float) -> torch.Tensor:
    """uint8 channels-last copy of the float32 activations `x` (>= 0) at `scale` per step.

    One numba pass over the channels-last buffer: torch's multiply, round, clamp and convert took
    2.5x as long at batch 64 (0.30 ms against 0.12 ms for 96 channels)."""
    x = x.contiguous(memory_format=_CHANNELS_LAST)
    out = torch.empty(x.shape, dtype=torch.uint8, memory_format=_CHANNELS_LAST)
    _quantize_kernel(x.permute(0, 2, 3, 1).numpy().reshape(-1), np.float32(1.0 / scale), out.permute(0, 2, 3, 1).numpy().reshape(-1))
    return out


class _QuantizedConv:
    """A biased stride-1 Conv2d with int8 weights, for uint8 inputs at `input_scale`."""

    def __init__(self, conv: nn.Conv2d, input_scale: float, output_scale: float | None = None):
        if conv.bias is None or conv.stride != (1, 1) or conv.dilation != (1, 1) or conv.groups != 1:
            raise ValueError(f"expected a fused stride-1 Conv2d with bias, got {conv}")
        weight = conv.weight.detach().float()
        self.weight_scales = (weight.abs().amax(dim=(1, 2, 3)).clamp(min=1e-12) / 127.0).contiguous()
        quantized = torch.round(weight / self.weight_scales[:, None, None, None]).clamp(-127, 127).to(torch.int8)
        self.weight_zero_points = torch.zeros(weight.shape[0], dtype=torch.int64)
        self.bias = conv.bias.detach().float().contiguous()
        self.padding = list(conv.padding)
        self.input_scale = float(input_scale)
        # None: float32 out (the stream, the pooling, the heads); else uint8 out at this scale.
        self.output_scale = output_scale
        self.weight = torch.ops.onednn.qconv_prepack(
            quantized.contiguous(memory_format=_CHANNELS_LAST), self.weight_scales, self.input_scale, 0,
            [1, 1], self.padding, [1, 1], 1, [PACKING_BATCH, conv.in_channels, 8, 8])

    def __call__(self, x: torch.Tensor, unary: str = "relu") -> torch.Tensor:
        floating = self.output_scale is None
        return torch.ops.onednn.qconv2d_pointwise(
            x, self.input_scale, 0, self.weight, self.weight_scales, self.weight_zero_points, self.bias,
            [1, 1], self.padding, [1, 1], 1, 1.0 if floating else float(self.output_scale), 0,
            torch.float32 if floating else None, unary, [], "")

    def add_relu(self, x: torch.Tensor, stream: torch.Tensor) -> torch.Tensor:
        """relu(conv(x) + stream) in float32, `stream` float32 channels-last (the op may write
        the result into it)."""
        return torch.ops.onednn.qconv2d_pointwise.binary(
            x, self.input_scale, 0, self.weight, self.weight_scales, self.weight_zero_points, stream, self.bias,
            [1, 1], self.padding, [1, 1], 1, 1.0, 0, torch.float32, 1.0, 0, "sum", 1.0, "relu", [], "")


class Int8Forward:
    """Callable planes float32 [N, C, 8, 8] -> (policy_logits [N, 65], value [N]), inference
    only. `fused_net`: a float32 `fuse_for_inference` copy (its stem and linear layers are used as
    they are); `ranges`: `activation_ranges(fused_net)`."""

    def __init__(self, fused_net: nn.Module, ranges: dict[str, float]):
        if not supports(fused_net):
            raise TypeError(f"no int8 forward for {type(fused_net).__name__}: it runs AlphaZeroNet's residual towers only")

        def scale(name: str) -> float:
            return max(ranges[name], 1e-6) / 255.0

        self.stem = cpu_inference.FusedConv(fused_net.stem)
        self.blocks = []
        for index, block in enumerate(fused_net.blocks):
            stream, middle = scale(f"block{index}.input"), scale(f"block{index}.middle")
            pooled = isinstance(block, GlobalPoolingBlock)
            conv1 = _QuantizedConv(block.conv1, stream, None if pooled else middle)
            conv2 = _QuantizedConv(block.conv2, middle)
            self.blocks.append((stream, conv1, conv2, middle, block.regular if pooled else None, block.pool_bias if pooled else None))
        self.heads_scale = scale("heads")
        self.policy_conv = _QuantizedConv(fused_net.policy_conv, self.heads_scale)
        self.value_conv = _QuantizedConv(fused_net.value_conv, self.heads_scale)
        self.policy_fc, self.value_fc1, self.value_fc2 = fused_net.policy_fc, fused_net.value_fc1, fused_net.value_fc2

    def __call__(self, planes: torch.Tensor):
        x = self.stem(planes.float().contiguous(memory_format=_CHANNELS_LAST))
        for stream_scale, conv1, conv2, middle_scale, regular_channels, pool_bias in self.blocks:
            q = quantize(x, stream_scale)
            if regular_channels is None:
                y = conv1(q)
            else:
                y = conv1(q, unary="none")
                regular, pooled = y[:, :regular_channels], F.relu(y[:, regular_channels:])
                stats = torch.cat((pooled.mean(dim=(2, 3)), pooled.amax(dim=(2, 3))), dim=1)
                y = quantize(F.relu(regular + pool_bias(stats)[:, :, None, None]), middle_scale)
            x = conv2.add_relu(y, x)
        q = quantize(x, self.heads_scale)
        policy_logits = self.policy_fc(self.policy_conv(q).flatten(1))
        value = self.value_conv(q).flatten(1)
        value = torch.tanh(self.value_fc2(F.relu(self.value_fc1(value)))).squeeze(-1)
        return policy_logits, value


def build(fused_net: nn.Module) -> Int8Forward:
    """`Int8Forward` of `fused_net` (float32, eval mode) calibrated on `calibration_planes()`.
    One probe call at `PACKING_BATCH` proves the private ops run here, so a broken op fails when
    the evaluator is built, never mid-search: raises RuntimeError naming what failed."""
    if not available():
        raise RuntimeError(f"this torch build ({torch.__version__}) has no oneDNN quantized convolutions")
    try:
        forward = Int8Forward(fused_net, activation_ranges(fused_net))
        with torch.inference_mode():
            forward(torch.zeros((PACKING_BATCH, fused_net.stem.in_channels, 8, 8)))
    except (RuntimeError, TypeError, ValueError, AttributeError, KeyError) as err:
        raise RuntimeError(f"oneDNN's int8 kernels failed for this network here: {str(err).splitlines()[0] if str(err) else type(err).__name__}") from err
    return forward
