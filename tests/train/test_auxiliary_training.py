"""The trainer with KataGo's auxiliary heads: the score and ownership losses, their mask, their
weights in the total, and the config keys that must agree with the model's heads."""

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from hydra import compose, initialize_config_dir

from alphazero.nn.checkpoint import build_network
from alphazero.nn.config import model_preset
from alphazero.replay.buffer import ReplayBuffer
from alphazero.train.__main__ import CONF_DIR
from alphazero.nn.config import check_auxiliary_weights
from alphazero.train.config import TrainConfig
from alphazero.train.schema import register_configs, to_typed
from alphazero.train.trainer import Trainer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "replay"))
from replay_games import random_records  # noqa: E402

register_configs()
CPU = torch.device("cpu")
HEADS = dataclasses.replace(model_preset("tiny"), score_head=True, ownership_head=True)


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    buffer = ReplayBuffer(tmp_path_factory.mktemp("replay"), window_positions=10_000)
    buffer.add_games(random_records(6, seed=2), writer_id="w0")
    return buffer.sample(128, np.random.default_rng(0))


def _trainer(model=HEADS, **settings):
    torch.manual_seed(0)
    cfg = TrainConfig(device="cpu", precision="fp32", lr_warmup_steps=0, **{"score_weight": 0.1, "ownership_weight": 0.5, **settings})
    return Trainer(build_network(model), cfg, CPU)


def _step(trainer, batch, aux_mask=None):
    mask = batch.aux_mask if aux_mask is None else aux_mask
    return trainer.step(batch.positions, batch.policies, batch.values, None, batch.final_boards, mask)


def test_a_few_steps_lower_the_auxiliary_losses_on_a_fixed_batch(batch):
    trainer = _trainer(optimizer="adamw", lr=3e-3)
    first = _step(trainer, batch)
    assert {"score", "score_error", "ownership"} <= set(first)
    assert first["score"] == pytest.approx(np.log(65), abs=0.3)  # a fresh head: near uniform over 65 classes
    assert first["ownership"] == pytest.approx(np.log(2), abs=0.05)
    for _ in range(15):
        last = _step(trainer, batch)
    assert last["score"] < first["score"] - 0.1
    assert last["ownership"] < first["ownership"] - 0.01


def test_the_total_adds_the_weighted_auxiliary_terms(batch):
    trainer = _trainer(score_weight=0.25, ownership_weight=2.0)
    with torch.no_grad():
        terms = trainer.losses(batch.positions, batch.policies, batch.values, None, batch.final_boards, batch.aux_mask)
    expected = terms["policy"] + terms["value"] + 0.25 * terms["score"] + 2.0 * terms["ownership"]
    assert float(terms["total"]) == pytest.approx(float(expected), rel=1e-6)


def test_rows_without_a_target_add_nothing_to_the_auxiliary_losses(batch):
    trainer = _trainer()
    trainer.net.eval()  # batch norm in eval mode: each row's outputs do not depend on the others
    keep = np.arange(len(batch.positions)) % 3 != 0
    with torch.no_grad():
        masked = trainer.losses(batch.positions, batch.policies, batch.values, None, batch.final_boards, keep)
        garbled = batch.final_boards.copy()
        garbled[~keep] = garbled[~keep][:, ::-1]  # another target on the masked rows changes nothing
        masked_garbled = trainer.losses(batch.positions, batch.policies, batch.values, None, garbled, keep)
        subset = trainer.losses(batch.positions[keep], batch.policies[keep], batch.values[keep], None, batch.final_boards[keep])
    for name in ("score", "score_error", "ownership"):
        assert float(masked[name]) == pytest.approx(float(subset[name]), rel=1e-5)
        assert float(masked_garbled[name]) == pytest.approx(float(masked[name]), rel=1e-6)


def test_a_network_without_heads_trains_as_before_and_ignores_final_boards(batch):
    plain = _trainer(model=model_preset("tiny"), score_weight=0.0, ownership_weight=0.0)
    out = _step(plain, batch)
    assert not {"score", "score_error", "ownership"} & set(out)


def test_a_network_with_heads_needs_the_final_boards(batch):
    trainer = _trainer()
    with pytest.raises(ValueError, match="no final boards"):
        trainer.step(batch.positions, batch.policies, batch.values)


def test_one_head_alone_trains_with_its_weight_only(batch):
    model = dataclasses.replace(model_preset("tiny"), ownership_head=True)
    out = _step(_trainer(model=model, score_weight=0.0), batch)
    assert "ownership" in out and "score" not in out


@pytest.mark.parametrize(
    "heads, weights, key",
    [
        ((False, False), (0.1, 0.0), "train.score_weight=0.1 but the network has no score head"),
        ((False, False), (0.0, 0.5), "train.ownership_weight=0.5 but the network has no ownership head"),
        ((True, False), (0.0, 0.0), "model.score_head=true but train.score_weight=0"),
        ((True, True), (0.1, 0.0), "model.ownership_head=true but train.ownership_weight=0"),
    ],
)
def test_weights_and_heads_must_agree(heads, weights, key):
    with pytest.raises(ValueError, match=key.replace(".", r"\.").replace("=", "=")):
        check_auxiliary_weights(*heads, *weights)


def _compose(overrides):
    with initialize_config_dir(config_dir=CONF_DIR, version_base=None):
        return compose(config_name="config", overrides=overrides)


def test_the_config_fails_before_anything_starts_naming_the_key():
    with pytest.raises(ValueError, match=r"set train\.score_weight"):
        to_typed(_compose(["experiment=smoke", "model.score_head=true"]))
    with pytest.raises(ValueError, match=r"model\.ownership_head=true, or train\.ownership_weight=0"):
        to_typed(_compose(["experiment=smoke", "train.ownership_weight=0.5"]))
    with pytest.raises(ValueError, match=r"train\.score_weight"):
        to_typed(_compose(["experiment=smoke", "model.score_head=true", "train.score_weight=-1"]))
    cfg = to_typed(_compose(["experiment=smoke", "model.score_head=true", "model.ownership_head=true",
                             "train.score_weight=0.1", "train.ownership_weight=0.5"]))
    assert cfg.model.score_head and cfg.model.ownership_head and cfg.train.score_weight == 0.1


def test_resuming_a_run_with_the_heads_switched_is_refused_naming_the_keys(tmp_path):
    """A run's network keeps its heads: a resume that adds or removes one stops before anything
    starts (the optimizer state and the checkpoint hold the run's parameters, no others)."""
    from alphazero.nn.checkpoint import save_checkpoint
    from alphazero.train.schema import to_yaml
    from alphazero.train.startup import StartRefused, check_command_line

    with_heads = ["model.score_head=true", "model.ownership_head=true", "train.score_weight=0.1", "train.ownership_weight=0.5"]
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    cfg = to_typed(_compose(["experiment=smoke", f"run.dir={run}", *with_heads]))
    (run / "config.yaml").write_text(to_yaml(cfg))
    from alphazero.train.trainer import build_optimizer, build_scheduler

    net = build_network(cfg.model)
    optimizer = build_optimizer(net, cfg.train)
    save_checkpoint(run / "checkpoints" / "latest.pt", net, extra={"step": 10}, optimizer=optimizer,
                    scheduler=build_scheduler(optimizer, cfg.train))  # a resumable latest.pt, as a run writes it
    check_command_line(["experiment=smoke", f"run.dir={run}", "run.resume=true", *with_heads], CONF_DIR)  # same heads: fine
    with pytest.raises(StartRefused, match=r"model\.score_head: saved True vs config False; model\.ownership_head: saved True vs config False"):
        check_command_line(["experiment=smoke", f"run.dir={run}", "run.resume=true"], CONF_DIR)


def test_init_from_a_network_without_heads_adds_untrained_heads_and_keeps_the_rest(tmp_path):
    """A run with heads may start from a network trained without them (train.init_from, e.g. a
    shipped warm start): the tower, policy and value come from the checkpoint, the heads are fresh;
    and the other way round the checkpoint's heads are left out. Anything else must match."""
    from alphazero.nn.checkpoint import load_checkpoint, save_checkpoint
    from alphazero.nn.checkpoint import initialise_from
    from alphazero.train.startup import StartRefused, check_command_line

    plain = build_network(model_preset("tiny"))
    save_checkpoint(tmp_path / "plain.pt", plain)
    torch.manual_seed(5)
    net = build_network(HEADS)
    fresh_heads = {name: tensor.clone() for name, tensor in net.state_dict().items() if name.startswith(("score_fc", "ownership_conv"))}
    note = initialise_from(net, load_checkpoint(tmp_path / "plain.pt"))
    assert "ownership and score head(s) start untrained" in note
    for name, tensor in net.state_dict().items():
        expected = fresh_heads[name] if name in fresh_heads else plain.state_dict()[name]
        assert torch.equal(tensor, expected), name
    save_checkpoint(tmp_path / "heads.pt", net)
    back = build_network(model_preset("tiny"))
    assert "left out" in initialise_from(back, load_checkpoint(tmp_path / "heads.pt"))
    assert all(torch.equal(tensor, plain.state_dict()[name]) for name, tensor in back.state_dict().items())

    with_heads = ["model.score_head=true", "model.ownership_head=true", "train.score_weight=0.1", "train.ownership_weight=0.5"]
    check_command_line(["experiment=smoke", f"run.dir={tmp_path / 'a'}", f"train.init_from={tmp_path / 'plain.pt'}", *with_heads], CONF_DIR)
    with pytest.raises(StartRefused, match=r"model\.channels: saved 16 vs config 48"):
        check_command_line(["experiment=smoke", "model=small", f"run.dir={tmp_path / 'b'}", f"train.init_from={tmp_path / 'plain.pt'}",
                            *with_heads], CONF_DIR)
