"""Checkpoints: round trips, atomic writes, and a clear CheckpointError for every bad file."""

import dataclasses
import io
import os
import pickle

import numpy as np
import pytest
import torch

from alphazero.nn.checkpoint import (
    CHECKPOINT_FORMAT_VERSION,
    CheckpointError,
    build_network,
    load_checkpoint,
    load_network,
    load_weights,
    save_checkpoint,
)
from alphazero.nn.config import model_preset
from alphazero.nn.encoding import encode_positions

from .helpers import randomize_batch_norm


@pytest.fixture
def net():
    return randomize_batch_norm(build_network(model_preset("tiny")))


def outputs(net, positions):
    with torch.no_grad():
        return net.eval()(torch.from_numpy(encode_positions(positions)))


def test_round_trip_gives_identical_outputs_config_and_extra(tmp_path, net, positions):
    extra = {"step": 1200, "games": [1, 2], "elo": 35.5, "rng": torch.get_rng_state(), "note": None}
    save_checkpoint(tmp_path / "a.pt", net, extra=extra)
    loaded = load_network(tmp_path / "a.pt")
    assert not loaded.training
    assert loaded.cfg == net.cfg
    for got, expected in zip(outputs(loaded, positions), outputs(net, positions)):
        assert torch.equal(got, expected)
    checkpoint = load_checkpoint(tmp_path / "a.pt")
    assert checkpoint.format_version == CHECKPOINT_FORMAT_VERSION
    assert checkpoint.extra["step"] == 1200 and checkpoint.extra["games"] == [1, 2] and checkpoint.extra["note"] is None
    assert torch.equal(checkpoint.extra["rng"], extra["rng"])


def test_optimizer_and_scheduler_state_round_trip(tmp_path, net):
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
    net(torch.ones(2, net.cfg.input_planes, 8, 8))[1].sum().backward()
    optimizer.step()
    scheduler.step()
    save_checkpoint(tmp_path / "b.pt", net, optimizer=optimizer, scheduler=scheduler)
    checkpoint = load_checkpoint(tmp_path / "b.pt")
    restored = build_network(checkpoint.model_config)
    load_weights(restored, checkpoint.state_dict)
    new_optimizer = torch.optim.SGD(restored.parameters(), lr=0.1, momentum=0.9)
    new_optimizer.load_state_dict(checkpoint.optimizer_state)
    new_scheduler = torch.optim.lr_scheduler.StepLR(new_optimizer, step_size=2, gamma=0.5)
    new_scheduler.load_state_dict(checkpoint.scheduler_state)
    assert new_scheduler.last_epoch == 1
    momentum = [s["momentum_buffer"] for s in new_optimizer.state_dict()["state"].values()]
    expected = [s["momentum_buffer"] for s in optimizer.state_dict()["state"].values()]
    assert all(torch.equal(a, b) for a, b in zip(momentum, expected))


def test_loading_always_uses_weights_only(tmp_path, net, monkeypatch):
    save_checkpoint(tmp_path / "c.pt", net)
    seen = {}
    real_load = torch.load

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real_load(*args, **kwargs)

    monkeypatch.setattr(torch, "load", spy)
    load_network(tmp_path / "c.pt")
    assert seen.get("weights_only") is True


def test_save_leaves_no_temp_file_and_replaces_an_existing_checkpoint(tmp_path, net):
    path = tmp_path / "run" / "latest.pt"
    save_checkpoint(path, build_network(model_preset("tiny")))
    save_checkpoint(path, net)
    assert os.listdir(path.parent) == ["latest.pt"]
    loaded = load_checkpoint(path)
    assert all(torch.equal(loaded.state_dict[k], v) for k, v in net.state_dict().items())


def test_a_failed_save_keeps_the_old_checkpoint_and_removes_the_temp_file(tmp_path, net, monkeypatch):
    path = tmp_path / "latest.pt"
    save_checkpoint(path, net, extra={"step": 1})

    def crash(obj, handle, *args, **kwargs):
        handle.write(b"partial bytes")
        raise OSError("disk full")

    monkeypatch.setattr(torch, "save", crash)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(path, net, extra={"step": 2})
    assert os.listdir(tmp_path) == ["latest.pt"]
    monkeypatch.undo()
    assert load_checkpoint(path).extra["step"] == 1


def test_extra_with_numpy_values_is_refused_before_writing(tmp_path, net):
    with pytest.raises(TypeError, match=r"extra\['stats'\]\[1\] holds a numpy.float64"):
        save_checkpoint(tmp_path / "d.pt", net, extra={"stats": [1.0, np.float64(2.0)]})
    assert not (tmp_path / "d.pt").exists()


def test_missing_file_is_named(tmp_path):
    with pytest.raises(CheckpointError, match="nope.pt does not exist"):
        load_checkpoint(tmp_path / "nope.pt")


def test_truncated_file_is_reported_as_truncated(tmp_path, net):
    path = tmp_path / "e.pt"
    save_checkpoint(path, net)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="truncated or not a torch checkpoint"):
        load_checkpoint(path)


def test_random_bytes_are_reported_as_corrupt(tmp_path):
    path = tmp_path / "f.pt"
    path.write_bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes())
    with pytest.raises(CheckpointError, match="is corrupt: not a readable weights-only pickle"):
        load_checkpoint(path)


class _Payload:
    """Unpickling this calls os.system: a checkpoint carrying it must never be loaded."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_pickled_code_is_refused_without_running_it(tmp_path, net):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    payload = {
        "format_version": CHECKPOINT_FORMAT_VERSION,
        "model_config": net.cfg.to_dict(),
        "state_dict": net.state_dict(),
        "extra": {"payload": _Payload(marker)},
    }
    torch.save(payload, path)
    with pytest.raises(CheckpointError, match="refused: it contains pickled objects"):
        load_checkpoint(path)
    assert not marker.exists()


def test_a_plain_pickle_file_with_code_is_refused_too(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pkl"
    path.write_bytes(pickle.dumps(_Payload(marker), protocol=2))
    with pytest.raises(CheckpointError, match="GLOBAL [a-z]+.system"):
        load_checkpoint(path)
    assert not marker.exists()


@pytest.mark.parametrize(
    "payload,message",
    [
        (torch.zeros(3), "holds a Tensor"),
        ({"state_dict": {}}, "missing keys \\['format_version', 'model_config'\\]"),
    ],
)
def test_a_torch_file_that_is_not_a_checkpoint_is_named(tmp_path, payload, message):
    path = tmp_path / "g.pt"
    torch.save(payload, path)
    with pytest.raises(CheckpointError, match=f"is not a checkpoint.*{message}|{message}"):
        load_checkpoint(path)


def test_a_newer_format_version_is_refused(tmp_path, net):
    path = tmp_path / "h.pt"
    torch.save({"format_version": 99, "model_config": net.cfg.to_dict(), "state_dict": net.state_dict()}, path)
    with pytest.raises(CheckpointError, match="format version 99"):
        load_checkpoint(path)


def test_shape_mismatch_names_the_first_parameter_and_both_shapes(tmp_path, net):
    path = tmp_path / "i.pt"
    save_checkpoint(path, net)
    wider = build_network(dataclasses.replace(net.cfg, channels=net.cfg.channels * 2))
    before = {k: v.clone() for k, v in wider.state_dict().items()}
    with pytest.raises(CheckpointError, match=r"'stem.conv.weight' has shape \[16, 4, 3, 3\] in the checkpoint but \[32, 4, 3, 3\]"):
        load_weights(wider, load_checkpoint(path).state_dict, source=str(path))
    assert all(torch.equal(before[k], v) for k, v in wider.state_dict().items()), "network must be untouched"


def test_a_config_that_does_not_match_its_weights_fails_in_load_network(tmp_path, net):
    path = tmp_path / "j.pt"
    payload = {
        "format_version": CHECKPOINT_FORMAT_VERSION,
        "model_config": dataclasses.replace(net.cfg, blocks=net.cfg.blocks + 1).to_dict(),
        "state_dict": net.state_dict(),
    }
    torch.save(payload, path)
    with pytest.raises(CheckpointError, match="missing parameters \\['blocks.2.conv1"):
        load_network(path)


def test_a_config_with_unknown_fields_is_an_unusable_config(tmp_path, net):
    buffer = io.BytesIO()
    torch.save({"format_version": 1, "model_config": {"blocks": 2, "wings": 3}, "state_dict": {}}, buffer)
    path = tmp_path / "k.pt"
    path.write_bytes(buffer.getvalue())
    with pytest.raises(CheckpointError, match="unusable model_config: unknown ModelConfig keys \\['wings'\\]"):
        load_checkpoint(path)
