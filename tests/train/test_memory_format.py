"""train.memory_format / pretrain.memory_format change the layout the network trains in, never what
it computes: the same batches give the same losses and weights in channels-last and in NCHW."""

import copy

import numpy as np
import pytest
import torch

from alphazero.nn.checkpoint import build_network
from alphazero.nn.config import model_preset
from alphazero.nn.model import training_memory_format
from alphazero.othello.playout import random_positions
from alphazero.train.config import TrainConfig
from alphazero.train.trainer import Trainer
from alphazero.validation import ConfigValueError


def test_auto_is_channels_last_on_cpu_and_nchw_on_cuda():
    assert training_memory_format("auto", torch.device("cpu")) is torch.channels_last
    assert training_memory_format("auto", torch.device("cuda")) is torch.contiguous_format
    for device in ("cpu", "cuda"):
        assert training_memory_format("channels_last", torch.device(device)) is torch.channels_last
        assert training_memory_format("contiguous", torch.device(device)) is torch.contiguous_format
    with pytest.raises(ValueError, match="unknown memory format 'nhwc'; expected one of auto, channels_last, contiguous"):
        training_memory_format("nhwc", torch.device("cpu"))


def test_a_bad_memory_format_is_refused_naming_the_key():
    with pytest.raises(ConfigValueError, match="train.memory_format"):
        TrainConfig(memory_format="nhwc")


def _batch(size, seed):
    rng = np.random.default_rng(seed)
    positions = random_positions(size, seed)
    policies = rng.random((size, 65), dtype=np.float32)
    policies /= policies.sum(axis=1, keepdims=True)
    values = rng.choice([-1.0, 0.0, 1.0], size).astype(np.float32)
    return positions, policies, values


def test_training_in_channels_last_computes_what_nchw_computes():
    torch.manual_seed(0)
    net = build_network(model_preset("tiny"))
    trainers = {
        name: Trainer(copy.deepcopy(net), TrainConfig(device="cpu", memory_format=name, lr_warmup_steps=0, precision="fp32"), torch.device("cpu"))
        for name in ("channels_last", "contiguous")
    }
    kernels = [p for p in trainers["channels_last"].net.parameters() if p.dim() == 4 and p.shape[-1] > 1]  # 1x1: both layouts at once
    assert kernels and all(p.is_contiguous(memory_format=torch.channels_last) and not p.is_contiguous() for p in kernels)
    assert all(p.is_contiguous() for p in trainers["contiguous"].net.parameters())
    for step in range(3):
        batch = _batch(32, seed=step)
        losses = {name: trainer.step(*batch) for name, trainer in trainers.items()}
        assert losses["channels_last"]["total"] == pytest.approx(losses["contiguous"]["total"], rel=1e-4)
    for a, b in zip(trainers["channels_last"].net.state_dict().values(), trainers["contiguous"].net.state_dict().values()):
        torch.testing.assert_close(a.float(), b.float(), rtol=1e-4, atol=1e-5)
    # A channels-last network's weights load into an NCHW network, which stays NCHW.
    plain = build_network(model_preset("tiny"))
    plain.load_state_dict(trainers["channels_last"].net.state_dict())
    assert all(p.is_contiguous() for p in plain.parameters())
