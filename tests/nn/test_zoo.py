"""The warm-start zoo networks: shapes, masking, a training step, checkpoint round trips, and the
one-line refusal of a history-reading network where only positions exist."""

import dataclasses

import numpy as np
import pytest
import torch

from alphazero.train.schema import Config
from alphazero.nn.checkpoint import build_network, load_checkpoint, load_network, save_checkpoint
from alphazero.nn.config import ZOO_ARCHS, ModelConfig, model_preset
from alphazero.nn.encoding import encode_positions_and_mask
from alphazero.nn.inference import NetworkEvaluator
from alphazero.nn.model import masked_softmax, policy_cross_entropy
from alphazero.nn.zoo import star_mask
from alphazero.othello.bitboard import PASS
from alphazero.othello.history import HISTORY_PAD, history_window

from .helpers import random_positions


def _history(cfg, n, seed=0):
    if not cfg.needs_history:
        return None
    rng = np.random.default_rng(seed)
    history = rng.integers(0, HISTORY_PAD + 1, size=(n, cfg.history))
    return torch.from_numpy(history)


def _forward(net, planes, history):
    return net(planes, history) if history is not None else net(planes)


@pytest.fixture(params=ZOO_ARCHS)
def zoo_cfg(request):
    return model_preset(request.param)


def _positions(n=8):
    return random_positions(n, seed=2)


def test_zoo_network_outputs_65_logits_and_a_value_in_range(zoo_cfg):
    torch.manual_seed(0)
    net = build_network(zoo_cfg).eval()
    planes, legal = encode_positions_and_mask(_positions())
    logits, value = _forward(net, torch.from_numpy(planes), _history(zoo_cfg, len(planes)))
    assert logits.shape == (len(planes), 65) and value.shape == (len(planes),)
    assert torch.all(value.abs() <= 1)
    priors = masked_softmax(logits, torch.from_numpy(legal))
    assert torch.all(priors[~torch.from_numpy(legal)] == 0)
    assert torch.allclose(priors.sum(dim=1), torch.ones(len(planes)))


def test_zoo_network_training_step_lowers_the_loss_on_a_fixed_batch(zoo_cfg):
    torch.manual_seed(0)
    net = build_network(zoo_cfg).train()
    planes, legal = encode_positions_and_mask(_positions(32))
    planes, legal = torch.from_numpy(planes), torch.from_numpy(legal)
    target = torch.nn.functional.one_hot(legal.float().argmax(dim=1), 65).float()  # the first legal move
    values = torch.linspace(-1, 1, 32)
    history = _history(zoo_cfg, 32)
    optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3)

    def loss():
        logits, value = _forward(net, planes, history)
        return policy_cross_entropy(logits, target, legal) + torch.nn.functional.mse_loss(value, values)

    before = loss().item()
    for _ in range(10):
        optimizer.zero_grad()
        total = loss()
        total.backward()
        optimizer.step()
    assert np.isfinite(before) and loss().item() < before - 0.05


def test_zoo_checkpoint_round_trips_through_load_network(zoo_cfg, tmp_path):
    torch.manual_seed(1)
    net = build_network(zoo_cfg).eval()
    path = save_checkpoint(tmp_path / "zoo.pt", net, extra={"kind": "test"})
    assert load_checkpoint(path).model_config == zoo_cfg
    loaded = load_network(path)
    assert type(loaded) is type(net)
    planes, _ = encode_positions_and_mask(_positions())
    planes = torch.from_numpy(planes)
    history = _history(zoo_cfg, len(planes))
    with torch.no_grad():
        for a, b in zip(_forward(net, planes, history), _forward(loaded, planes, history)):
            assert torch.equal(a, b)


def test_resnet_checkpoint_config_has_no_zoo_fields():
    assert not {"arch", "history", "rnn_hidden"} & set(model_preset("small").to_dict())
    assert ModelConfig.from_dict(model_preset("small").to_dict()) == model_preset("small")


@pytest.mark.parametrize("arch", ["seed_mlp", "seed_cnn"])
def test_board_only_zoo_networks_run_in_the_network_evaluator(arch):
    evaluator = NetworkEvaluator(build_network(model_preset(arch)), device="cpu")
    priors, values = evaluator(_positions(70))  # above cpu_inference.MIN_BATCH too
    assert priors.shape == (70, 65) and np.allclose(priors.sum(axis=1), 1, atol=1e-5)
    assert np.all(np.abs(values) <= 1)


def test_history_network_refuses_a_call_without_history_in_one_line():
    # With precision=auto the evaluator's probe is its first call, so the refusal may come then.
    with pytest.raises(ValueError, match="reads the game's last 16 moves") as error:
        evaluator = NetworkEvaluator(build_network(model_preset("seed_cnn_rnn")), device="cpu")
        evaluator(_positions(4))
    assert "\n" not in str(error.value)


def test_self_play_config_refuses_a_history_network():
    with pytest.raises(ValueError, match="self-play and MCTS"):
        Config(model=model_preset("seed_cnn_rnn"))


def test_history_model_config_needs_history_and_rnn_together():
    with pytest.raises(ValueError, match="history and rnn_hidden"):
        dataclasses.replace(model_preset("seed_cnn_rnn"), history=0)
    with pytest.raises(ValueError, match="arch must be one of"):
        ModelConfig(arch="transformer")


def test_star_mask_covers_the_eight_lines_through_the_centre():
    mask = star_mask(3)
    assert mask.shape == (7, 7) and int(mask.sum()) == 25
    assert mask[3].all() and mask[:, 3].all() and mask.diagonal().all() and mask.flip(1).diagonal().all()
    assert mask[0, 1] == 0


def test_history_window_pads_before_the_first_move_and_keeps_the_last_actions():
    assert history_window([], 3).tolist() == [HISTORY_PAD] * 3
    assert history_window([37, 43], 3).tolist() == [HISTORY_PAD, 37, 43]
    assert history_window([1, 2, PASS, 4], 3).tolist() == [2, PASS, 4]


def test_train_command_line_refuses_the_history_network_in_one_line(tmp_path):
    from alphazero.train.schema import register_configs
    from alphazero.train.__main__ import CONF_DIR
    from alphazero.train.startup import StartRefused, check_command_line

    register_configs()
    with pytest.raises(StartRefused, match="seed_cnn_rnn reads the game's last 16 moves, which self-play and MCTS cannot provide") as error:
        check_command_line([f"run.dir={tmp_path / 'run'}", "model=seed_cnn_rnn"], CONF_DIR)
    assert "\n" not in str(error.value)
    assert not (tmp_path / "run").exists()
