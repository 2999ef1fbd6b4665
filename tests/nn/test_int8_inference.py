"""int8 inference on a CPU (alphazero.nn.int8_inference): the quantized forward tracks the float32
network within int8's tolerance for both kinds of residual block, its calibration reads the
activations it quantizes, and the evaluator runs it, recalibrates it and refuses it where it
cannot run."""

import dataclasses

import numpy as np
import pytest
import torch

from alphazero.nn import int8_inference
from alphazero.nn.config import model_preset
from alphazero.nn.inference import NetworkEvaluator
from alphazero.nn.model import AlphaZeroNet, fuse_for_inference
from alphazero.nn.zoo import SeedMLP

from .helpers import randomize_batch_norm

pytestmark = pytest.mark.skipif(not int8_inference.available(), reason="this torch build lacks oneDNN's quantized convolutions")

# int8's tolerance on these random networks (planes of 0/1, logits with a spread of about 0.5):
# measured 0.003 on the logits and 0.0003 on the values; leaving out one block's global-pooling
# bias moves them 0.08 and 0.013, so a forward that stops mirroring the model fails here.
LOGIT_TOLERANCE = 0.02
VALUE_TOLERANCE = 0.005


def _net(global_pooling: bool, preset: str = "tiny", seed: int = 0) -> AlphaZeroNet:
    torch.manual_seed(seed)
    cfg = dataclasses.replace(model_preset(preset), blocks=3, global_pooling=global_pooling)
    return randomize_batch_norm(AlphaZeroNet(cfg), seed).eval()


@pytest.mark.parametrize("global_pooling", [False, True])
@pytest.mark.parametrize("batch", [1, 40])
def test_the_int8_forward_tracks_the_network_within_int8s_tolerance(global_pooling, batch):
    net = _net(global_pooling)
    planes = torch.rand(batch, net.cfg.input_planes, 8, 8).round()
    forward = int8_inference.build(fuse_for_inference(net))
    with torch.inference_mode():
        (logits, values), (got_logits, got_values) = net(planes), forward(planes)
    assert got_logits.shape == (batch, 65) and got_values.shape == (batch,)
    assert got_logits.dtype == torch.float32 and got_values.dtype == torch.float32
    torch.testing.assert_close(got_logits, logits, atol=LOGIT_TOLERANCE, rtol=0)
    torch.testing.assert_close(got_values, values, atol=VALUE_TOLERANCE, rtol=0)


def test_the_calibration_reads_the_largest_value_of_every_quantized_activation():
    net = _net(global_pooling=True)
    fused = fuse_for_inference(net)
    planes = int8_inference.calibration_planes()
    ranges = int8_inference.activation_ranges(fused, planes)
    expected = {"heads"} | {f"block{i}.{part}" for i in range(3) for part in ("input", "middle")}
    assert set(ranges) == expected
    with torch.inference_mode():
        stem = torch.relu(fused.stem(planes))
        assert ranges["block0.input"] == pytest.approx(float(stem.max()))
        middle = torch.relu(fused.blocks[0].conv1(stem))
        assert ranges["block0.middle"] == pytest.approx(float(middle.max()))
    assert all(value > 0 for value in ranges.values())
    # A fixed set of random positions: the same ranges in every process, no data files needed.
    assert torch.equal(planes, int8_inference.calibration_planes())
    assert len(planes) == int8_inference.CALIBRATION_POSITIONS


def test_quantize_rounds_to_the_nearest_step_and_clamps_to_a_byte():
    x = torch.tensor([0.0, 0.24, 0.26, 1.0, 63.74, 63.76, 200.0]).reshape(1, 7, 1, 1).expand(2, 7, 8, 8) * 1.0
    got = int8_inference.quantize(x, 0.5)
    assert got.dtype == torch.uint8 and got.is_contiguous(memory_format=torch.channels_last)
    assert got[1, :, 3, 5].tolist() == [0, 0, 1, 2, 127, 128, 255]
    assert torch.equal(got, torch.floor(x / 0.5 + 0.5).clamp(0, 255).to(torch.uint8))


def test_the_evaluator_runs_int8_with_exact_masks_and_follows_new_weights(positions):
    net = _net(global_pooling=True, preset="small")
    fp32 = NetworkEvaluator(net, device="cpu", precision="fp32")
    int8 = NetworkEvaluator(net, device="cpu", precision="int8")
    assert (int8.precision, int8.choice.how) == ("int8", "forced")
    for batch in (positions, positions[:3]):  # every batch size goes through the int8 forward
        p32, v32 = fp32(batch)
        p8, v8 = int8(batch)
        assert (p8[p32 == 0] == 0).all(), "illegal moves stay exactly 0"
        np.testing.assert_allclose(p8.sum(axis=1), 1.0, atol=1e-5)
        np.testing.assert_allclose(p8, p32, atol=0.02)
        np.testing.assert_allclose(v8, v32, atol=VALUE_TOLERANCE)
    # New weights (an optimizer step, a new best network) are calibrated and quantized anew.
    with torch.no_grad():
        for parameter in net.value_fc2.parameters():
            parameter.mul_(-1.0)
    _, v32 = fp32(positions)
    _, v8 = int8(positions)
    np.testing.assert_allclose(v8, v32, atol=VALUE_TOLERANCE)


def test_int8_is_refused_where_it_cannot_run_with_the_reason():
    with pytest.raises(ValueError, match="precision 'int8' does not run here: SeedMLP is not a residual tower"):
        NetworkEvaluator(SeedMLP(model_preset("seed_mlp")), device="cpu", precision="int8")
    with pytest.raises(ValueError, match="cpu_kernels='eager' runs the eager model only"):
        NetworkEvaluator(_net(False), device="cpu", precision="int8", cpu_kernels="eager")


def test_an_unfused_network_is_refused():
    net = AlphaZeroNet(model_preset("tiny")).eval()
    net.stem = net.stem.conv  # a conv without bias: not through fuse_for_inference
    with pytest.raises(RuntimeError, match="expected a fused stride-1 Conv2d with bias"):
        int8_inference.build(net)
