"""AlphaZeroNet shapes and ranges, the presets and config, batch-norm fusion, and the masking helpers."""

import dataclasses

import pytest
import torch

from alphazero.nn.config import PRESET_NAMES, ModelConfig, model_preset
from alphazero.nn.encoding import NUM_PLANES
from alphazero.nn.model import (
    AlphaZeroNet,
    GlobalPoolingBlock,
    fuse_for_inference,
    masked_log_softmax,
    masked_softmax,
    policy_cross_entropy,
)

from .helpers import randomize_batch_norm


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_each_preset_gives_65_policy_logits_and_one_value_in_range(name):
    net = AlphaZeroNet(model_preset(name)).eval()
    planes = torch.rand(3, NUM_PLANES, 8, 8).round()
    with torch.no_grad():
        logits, value = net(planes)
    assert logits.shape == (3, 65) and value.shape == (3,)
    assert torch.isfinite(logits).all()
    assert (value.abs() <= 1).all()


def test_value_stays_in_range_for_huge_activations():
    net = AlphaZeroNet(model_preset("tiny")).eval()
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.mul_(50)
        _, value = net(torch.ones(4, NUM_PLANES, 8, 8))
    assert (value.abs() <= 1).all()


def test_unknown_preset_error_lists_the_valid_names():
    with pytest.raises(ValueError, match="tiny, small, medium, large"):
        model_preset("huge")


def test_global_pooling_flag_puts_pooling_blocks_in_every_second_block():
    cfg = dataclasses.replace(model_preset("tiny"), blocks=4, global_pooling=True)
    kinds = [isinstance(block, GlobalPoolingBlock) for block in AlphaZeroNet(cfg).blocks]
    assert kinds == [False, True, False, True]
    assert not any(isinstance(b, GlobalPoolingBlock) for b in AlphaZeroNet(model_preset("tiny")).blocks)


def test_config_dict_round_trip_records_the_plane_count():
    cfg = model_preset("medium")
    data = cfg.to_dict()
    assert data["input_planes"] == NUM_PLANES
    assert ModelConfig.from_dict(data) == cfg


def test_config_from_dict_rejects_unknown_keys_and_another_plane_count():
    with pytest.raises(ValueError, match="unknown ModelConfig keys \\['depth'\\]"):
        ModelConfig.from_dict({"blocks": 2, "depth": 3})
    with pytest.raises(ValueError, match="built for 7 input planes"):
        ModelConfig.from_dict({**model_preset("tiny").to_dict(), "input_planes": 7})


@pytest.mark.parametrize("field,value", [("blocks", 0), ("channels", -1), ("value_hidden", 2.5), ("channels", True)])
def test_config_rejects_non_positive_or_non_int_sizes(field, value):
    with pytest.raises(ValueError, match=f"ModelConfig.{field}"):
        ModelConfig(**{field: value})


@pytest.mark.parametrize("global_pooling", [False, True])
def test_fused_copy_computes_the_same_outputs_as_eval_mode(global_pooling):
    cfg = dataclasses.replace(model_preset("tiny"), global_pooling=global_pooling)
    net = randomize_batch_norm(AlphaZeroNet(cfg)).eval()
    fused = fuse_for_inference(net)
    planes = torch.rand(5, NUM_PLANES, 8, 8).round()
    with torch.no_grad():
        expected, got = net(planes), fused(planes)
    torch.testing.assert_close(got[0], expected[0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(got[1], expected[1], atol=1e-5, rtol=1e-5)
    assert not any(isinstance(m, torch.nn.BatchNorm2d) for m in fused.modules())


def test_fusing_leaves_the_original_trainable_and_in_its_mode():
    net = AlphaZeroNet(model_preset("tiny")).train()
    fuse_for_inference(net)
    assert net.training and all(p.requires_grad for p in net.parameters())


LOGITS = torch.tensor([[2.0, -1.0, 0.5, 3.0], [0.0, 0.0, 0.0, 0.0]])
MASK = torch.tensor([[True, False, True, False], [False, False, False, True]])


def test_masked_softmax_gives_exactly_zero_to_illegal_actions_and_sums_to_one():
    probs = masked_softmax(LOGITS, MASK)
    assert (probs[~MASK] == 0).all()
    torch.testing.assert_close(probs.sum(dim=1), torch.ones(2))
    torch.testing.assert_close(probs[0, [0, 2]], torch.softmax(torch.tensor([2.0, 0.5]), dim=0))
    assert probs[1, 3] == 1


def test_masked_log_softmax_is_minus_infinity_exactly_on_illegal_actions():
    log_probs = masked_log_softmax(LOGITS, MASK)
    assert torch.isneginf(log_probs[~MASK]).all()
    assert torch.isfinite(log_probs[MASK]).all()


def test_cross_entropy_with_zero_target_on_illegal_actions_has_no_nan_in_value_or_gradient():
    logits = LOGITS.clone().requires_grad_(True)
    target = torch.tensor([[0.25, 0.0, 0.75, 0.0], [0.0, 0.0, 0.0, 1.0]])
    loss = policy_cross_entropy(logits, target, MASK)
    loss.backward()
    assert torch.isfinite(loss) and torch.isfinite(logits.grad).all()
    legal = torch.log_softmax(torch.tensor([2.0, 0.5]), dim=0)
    expected = -(0.25 * legal[0] + 0.75 * legal[1]) / 2  # second row: log 1 = 0
    torch.testing.assert_close(loss, expected)
    assert (logits.grad[~MASK] == 0).all()


def test_mask_must_be_bool_with_the_logits_shape():
    with pytest.raises(ValueError, match="legal_mask must be bool"):
        masked_softmax(LOGITS, MASK.float())
    with pytest.raises(ValueError, match="legal_mask must be bool"):
        masked_softmax(LOGITS, MASK[:, :3])


def test_a_few_sgd_steps_fit_one_batch():
    net = AlphaZeroNet(model_preset("tiny")).train()
    planes = torch.rand(16, NUM_PLANES, 8, 8).round()
    mask = torch.rand(16, 65) < 0.3
    mask[:, 64] = ~mask[:, :64].any(dim=1)
    target = torch.nn.functional.one_hot((torch.rand(16, 65) * mask).argmax(dim=1), 65).float()
    value_target = torch.rand(16) * 2 - 1
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)

    def loss():
        logits, value = net(planes)
        return policy_cross_entropy(logits, target, mask) + torch.nn.functional.mse_loss(value, value_target)

    first = loss().item()
    for _ in range(30):
        optimizer.zero_grad()
        step_loss = loss()
        step_loss.backward()
        optimizer.step()
    assert loss().item() < 0.5 * first
