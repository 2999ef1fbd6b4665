"""The ONNX export, run for real in onnxruntime (the `onnx` extra; skipped with a reason without it):
outputs match PyTorch on a few hundred positions, any batch size runs, the file says what it holds,
an MCTS on the exported model plays a whole legal game against the shipped default network, and bad
input writes nothing."""

import subprocess
import sys

import numpy as np
import pytest
import torch

onnxruntime = pytest.importorskip("onnxruntime", reason='onnxruntime not installed (pip install -e ".[onnx]")')
onnx = pytest.importorskip("onnx", reason='onnx not installed (pip install -e ".[onnx]")')
pytest.importorskip("onnxscript", reason='onnxscript not installed (pip install -e ".[onnx]")')

from alphazero.export.onnx_export import (  # noqa: E402
    OPSET,
    PRIOR_TOLERANCE,
    VALUE_TOLERANCE,
    ExportError,
    compare_with_torch,
    export_onnx,
    load_for_export,
)
from alphazero.export.onnx_runtime import OnnxEvaluator  # noqa: E402
from alphazero.nn.checkpoint import build_network, save_checkpoint  # noqa: E402
from alphazero.nn.config import model_preset  # noqa: E402
from alphazero.nn.inference import NetworkEvaluator  # noqa: E402
from alphazero.othello.game import GameState  # noqa: E402
from alphazero.othello.playout import random_positions  # noqa: E402
from alphazero.play.choosers import SearchChooser, SearchSettings, default_checkpoint, network_chooser  # noqa: E402
from tests.conftest import REPO_ROOT  # noqa: E402


@pytest.fixture(scope="module")
def default_network_path():
    path = default_checkpoint()
    if path is None:
        pytest.skip("no shipped default network (checkpoints/selfplay.pt or warmstart.pt)")
    return path


@pytest.fixture(scope="module")
def exported(tmp_path_factory, default_network_path):
    out = tmp_path_factory.mktemp("onnx") / "default.onnx"
    report = export_onnx(default_network_path, out)
    assert report.path == out and out.stat().st_size == report.bytes
    return out


def test_onnxruntime_matches_pytorch_priors_and_values_on_300_positions(exported, default_network_path):
    positions = random_positions(300, seed=37, max_plies=58)
    check = compare_with_torch(load_for_export(default_network_path), exported, positions)
    assert check["positions"] == 300
    assert check["prior_max_abs"] <= PRIOR_TOLERANCE, check
    assert check["value_max_abs"] <= VALUE_TOLERANCE, check


def test_the_search_evaluator_agrees_too(exported, default_network_path):
    """The evaluator the search uses (fused, channels-last, oneDNN) against the exported file."""
    positions = random_positions(64, seed=5)
    # fp32: the exported graph is float32 (precision=auto could pick bf16 on this CPU).
    torch_priors, torch_values = NetworkEvaluator(load_for_export(default_network_path), device="cpu", threads=1, precision="fp32")(positions)
    onnx_priors, onnx_values = OnnxEvaluator(exported)(positions)
    assert np.abs(onnx_priors - torch_priors).max() <= PRIOR_TOLERANCE
    assert np.abs(onnx_values - torch_values).max() <= VALUE_TOLERANCE
    assert np.allclose(onnx_priors.sum(axis=1), 1.0, atol=1e-5)


def test_batch_is_dynamic_and_the_graph_documents_itself(exported):
    model = onnx.load(str(exported))
    assert any(entry.domain in ("", "ai.onnx") and entry.version == OPSET for entry in model.opset_import)
    (planes,) = model.graph.input
    dims = planes.type.tensor_type.shape.dim
    assert dims[0].dim_param and [d.dim_value for d in dims[1:]] == [4, 8, 8]
    assert [o.name for o in model.graph.output] == ["policy", "value", "policy_logits"]
    metadata = {p.key: p.value for p in model.metadata_props}
    assert metadata["opset"] == str(OPSET) and "player, opponent, legal, ones" in metadata["input"]
    session = onnxruntime.InferenceSession(str(exported), providers=["CPUExecutionProvider"])
    for batch in (1, 7, 130):
        planes_in = np.zeros((batch, 4, 8, 8), dtype=np.float32)
        planes_in[:, 3] = 1.0  # no discs, no legal move: only pass is legal
        policy, value, logits = session.run(None, {"planes": planes_in})
        assert policy.shape == (batch, 65) and value.shape == (batch,) and logits.shape == (batch, 65)
        assert np.allclose(policy[:, 64], 1.0) and not policy[:, :64].any()


def test_an_mcts_on_the_exported_model_plays_a_whole_legal_game_against_the_default_network(exported, default_network_path):
    onnx_player = SearchChooser(OnnxEvaluator(exported), simulations=8, name="onnx")
    torch_player = network_chooser(default_network_path, SearchSettings(simulations=8))
    state, plies = GameState.start(), 0
    players = {True: onnx_player, False: torch_player}
    while not state.is_over():
        action = players[state.black_to_move].choose(state)
        assert state.is_legal(action)
        state = state.play(action)
        plies += 1
    assert sum(state.disc_counts()) <= 64 and plies >= 58


def test_a_missing_or_corrupt_checkpoint_or_a_history_network_is_refused_and_nothing_is_written(tmp_path):
    out = tmp_path / "model.onnx"
    with pytest.raises(ExportError, match="does not exist"):
        export_onnx(tmp_path / "missing.pt", out)
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(b"not a checkpoint")
    with pytest.raises(ExportError):
        export_onnx(corrupt, out)
    rnn = tmp_path / "rnn.pt"
    torch.manual_seed(0)
    save_checkpoint(rnn, build_network(model_preset("seed_cnn_rnn")))
    with pytest.raises(ExportError, match="reads the game's last"):
        export_onnx(rnn, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corrupt.pt", "rnn.pt"]


def test_the_command_line_reports_one_line_on_bad_input(tmp_path):
    out = tmp_path / "model.onnx"
    result = subprocess.run([sys.executable, "-m", "alphazero.export", "--checkpoint", str(tmp_path / "nope.pt"),
                             "--out", str(out)], capture_output=True, text=True, cwd=REPO_ROOT, timeout=120)
    assert result.returncode == 2 and "does not exist" in result.stderr and not out.exists()


@pytest.mark.parametrize("arch", ["seed_mlp", "seed_cnn"])
def test_a_board_only_zoo_network_exports_with_a_dynamic_batch(arch, tmp_path):
    """seed_cnn appended its pass logit with `expand(len(squares), 1)`: the exporter fixed the batch
    at 2, the file was written, and the verification failed with a traceback on 256 positions."""
    import dataclasses

    source = tmp_path / f"{arch}.pt"
    torch.manual_seed(0)
    save_checkpoint(source, build_network(dataclasses.replace(model_preset(arch), blocks=2, channels=8)))
    out = tmp_path / f"{arch}.onnx"
    export_onnx(source, out)
    (planes,) = onnx.load(str(out)).graph.input
    assert planes.type.tensor_type.shape.dim[0].dim_param
    check = compare_with_torch(load_for_export(source), out, random_positions(5, seed=1))
    assert check["prior_max_abs"] <= PRIOR_TOLERANCE and check["value_max_abs"] <= VALUE_TOLERANCE


def test_a_graph_with_a_fixed_batch_is_refused_and_nothing_is_written(tmp_path, monkeypatch):
    from alphazero.nn import zoo

    def fixed_batch_forward(self, planes, history=None):
        x = self.features(planes)
        squares = self.policy_conv(x).flatten(1) + self.square_bias
        logits = torch.cat((squares, self.pass_logit.expand(len(squares), 1)), dim=1)
        value = torch.tanh(self.value_fc2(torch.relu(self.value_fc1(torch.relu(self.value_conv(x)).flatten(1))))).squeeze(-1)
        return logits, value

    monkeypatch.setattr(zoo.SeedCNN, "forward", fixed_batch_forward)
    source = tmp_path / "seed_cnn.pt"
    save_checkpoint(source, build_network(model_preset("seed_cnn")))
    with pytest.raises(ExportError, match="fixed batch of 2 positions"):
        export_onnx(source, tmp_path / "model.onnx")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seed_cnn.pt"]


@pytest.mark.parametrize("during", ["export", "verify"])
def test_ctrl_c_ends_the_command_line_with_one_line_saying_what_was_written(tmp_path, capsys, monkeypatch, during):
    """A KeyboardInterrupt while exporting or verifying: exit 130, no traceback, one line saying
    whether --out was written (atomically: whole or not at all) and no temporary file left."""
    import alphazero.export.__main__ as cli
    from alphazero.export.onnx_export import ExportReport

    out = tmp_path / "model.onnx"

    def export_then_maybe_ctrl_c(checkpoint, path):
        if during == "export":
            raise KeyboardInterrupt
        out.write_bytes(b"onnx")
        return ExportReport(path=out, bytes=4, opset=OPSET, parameters=1)

    def ctrl_c(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "export_onnx", export_then_maybe_ctrl_c)
    monkeypatch.setattr(cli, "load_for_export", lambda checkpoint: None)
    monkeypatch.setattr(cli, "compare_with_torch", ctrl_c)
    assert cli.main(["--checkpoint", "net.pt", "--out", str(out), "--verify", "2"]) == cli.EXIT_INTERRUPTED == 130
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    if during == "export":
        assert captured.err.strip() == f"alphazero.export: interrupted: {out} was not written; the same command starts again"
        assert list(tmp_path.iterdir()) == []
    else:
        assert captured.err.strip() == f"alphazero.export: interrupted: {out} was written from net.pt but not verified against PyTorch"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["model.onnx"]
