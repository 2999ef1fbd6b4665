"""MkldnnForward computes what AlphaZeroNet computes, for both kinds of residual block."""

import dataclasses

import pytest
import torch

from alphazero.nn import cpu_inference
from alphazero.nn.config import model_preset
from alphazero.nn.encoding import NUM_PLANES
from alphazero.nn.model import AlphaZeroNet, fuse_for_inference

from .helpers import randomize_batch_norm

pytestmark = pytest.mark.skipif(not cpu_inference.available(), reason="this torch build lacks oneDNN's pointwise conv")


@pytest.mark.parametrize("global_pooling", [False, True])
@pytest.mark.parametrize("batch", [1, 40])
def test_mkldnn_forward_matches_the_network_in_eval_mode(global_pooling, batch):
    cfg = dataclasses.replace(model_preset("tiny"), blocks=3, global_pooling=global_pooling)
    net = randomize_batch_norm(AlphaZeroNet(cfg)).eval()
    planes = torch.rand(batch, NUM_PLANES, 8, 8).round()
    forward = cpu_inference.MkldnnForward(fuse_for_inference(net))
    with torch.inference_mode():
        expected, got = net(planes), forward(planes)
    assert got[0].shape == (batch, 65) and got[1].shape == (batch,)
    torch.testing.assert_close(got[0], expected[0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(got[1], expected[1], atol=1e-5, rtol=1e-5)


def test_the_convolution_weights_are_prepacked_for_onednn_once():
    """Every conv's weight is reordered into oneDNN's blocked layout when the forward is built
    (where the reorder op exists), so no call pays the reorder; results above stay equal."""
    if not hasattr(torch.ops.mkldnn, "_reorder_convolution_weight"):
        pytest.skip("this torch build has no oneDNN weight reorder op")
    forward = cpu_inference.MkldnnForward(fuse_for_inference(AlphaZeroNet(model_preset("tiny")).eval()))
    convs = [forward.stem, forward.policy_conv, forward.value_conv] + [conv for block in forward.blocks for conv in block[1:3]]
    assert all(conv.weight.is_mkldnn for conv in convs)


def test_an_unfused_network_is_refused():
    with pytest.raises(ValueError, match="expected a fused stride-1 Conv2d with bias"):
        cpu_inference.MkldnnForward(_unfused())


def _unfused():
    """A net whose convs have no bias (not passed through fuse_for_inference)."""
    net = AlphaZeroNet(model_preset("tiny"))
    net.stem = net.stem.conv
    return net
