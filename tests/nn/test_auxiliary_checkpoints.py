"""Checkpoints and the auxiliary heads: a config dict without the head keys (every checkpoint
written before they existed) builds a network without heads, and a network with heads saves,
loads and plays like one without (play never runs the heads)."""

import dataclasses
from pathlib import Path

import pytest
import torch

from alphazero.nn.checkpoint import build_network, load_checkpoint, load_network, save_checkpoint
from alphazero.nn.config import ModelConfig, model_preset
from alphazero.nn.encoding import encode_positions

SHIPPED = Path(__file__).resolve().parents[2] / "checkpoints" / "warmstart.pt"


def test_a_config_dict_without_the_head_keys_builds_a_network_without_heads():
    old = model_preset("small").to_dict()
    assert "score_head" not in old and "ownership_head" not in old  # what every older checkpoint holds
    cfg = ModelConfig.from_dict(old)
    assert not cfg.score_head and not cfg.ownership_head and not cfg.auxiliary_heads
    net = build_network(cfg)
    assert net.score_fc is None and net.ownership_conv is None
    assert not any(name.startswith(("score_fc", "ownership_conv")) for name in net.state_dict())


def test_the_head_keys_are_saved_only_when_on_and_round_trip():
    cfg = dataclasses.replace(model_preset("tiny"), score_head=True, ownership_head=True)
    data = cfg.to_dict()
    assert data["score_head"] is True and data["ownership_head"] is True
    assert ModelConfig.from_dict(data) == cfg


@pytest.mark.skipif(not SHIPPED.exists(), reason="checkpoints/warmstart.pt is not in this checkout")
def test_a_shipped_checkpoint_loads_without_heads():
    checkpoint = load_checkpoint(SHIPPED)
    assert not checkpoint.model_config.auxiliary_heads
    net = load_network(SHIPPED)
    assert net.score_fc is None and net.ownership_conv is None


def test_a_network_with_heads_saves_loads_and_plays_as_without(tmp_path, positions):
    cfg = dataclasses.replace(model_preset("tiny"), score_head=True, ownership_head=True)
    net = build_network(cfg).eval()
    save_checkpoint(tmp_path / "heads.pt", net)
    loaded = load_network(tmp_path / "heads.pt").eval()
    assert loaded.cfg == cfg
    planes = torch.from_numpy(encode_positions(positions))
    with torch.no_grad():
        policy, value = loaded(planes)  # play and self-play: two outputs, the heads skipped
        _, _, score, ownership = loaded(planes, auxiliary=True)
        expected = net(planes, auxiliary=True)
    assert torch.equal(policy, expected[0]) and torch.equal(value, expected[1])
    assert score.shape == (len(positions), 65) and ownership.shape == (len(positions), 64)
    assert torch.equal(score, expected[2]) and torch.equal(ownership, expected[3])
